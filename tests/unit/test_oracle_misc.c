/*
 * Differential test against NVIDIA cuDNN 9 (tests/oracle.h) for what cuDNN 9 still has of
 * the CTC-loss descriptor, the backend API (TENSOR descriptors run without a GPU) and the
 * fused-ops parameter packs (label tables per op, read-back values).
 *
 * cuDNN 9 refines statuses (CUDNN_STATUS_BAD_PARAM_NULL_POINTER, ...); they are compared
 * by the 8.1 family they belong to.  Differences kept on purpose (docs/ctc.md,
 * docs/backend.md) are listed as `differ` cases and checked to still differ as documented.
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "harness.h"
#include "oracle.h"

static int cases, differing;

/* The cuDNN 8.1 name of a cuDNN 9 status (its family for the refined ones). */
static const char *family(int s)
{
    if (s >= 2000 && s < 3000)
        return "CUDNN_STATUS_BAD_PARAM";
    if (s >= 3000 && s < 4000)
        return "CUDNN_STATUS_NOT_SUPPORTED";
    if (s >= 4000 && s < 5000)
        return "CUDNN_STATUS_INTERNAL_ERROR";
    if (s >= 5000 && s < 6000)
        return "CUDNN_STATUS_EXECUTION_FAILED";
    return oracle_status(s);
}

static void same(const char *what, cudnnStatus_t ours, int theirs)
{
    cases++;
    CHECK_MSG(strcmp(cudnnGetErrorString(ours), family(theirs)) == 0, "%s: hostdnn %s, NVIDIA %s", what,
              cudnnGetErrorString(ours), oracle_status(theirs));
}

/* A documented difference: we answer WANT_OURS where cuDNN 9 answers WANT_THEIRS. */
static void differ(const char *what, cudnnStatus_t ours, cudnnStatus_t want_ours, int theirs, const char *want_theirs)
{
    differing++;
    CHECK_MSG(ours == want_ours && strcmp(family(theirs), want_theirs) == 0,
              "%s: documented difference changed: hostdnn %s (want %s), NVIDIA %s (want %s)", what,
              cudnnGetErrorString(ours), cudnnGetErrorString(want_ours), oracle_status(theirs), want_theirs);
}

/* ------------------------------------------------------------------- CTC ---- */

static void ctc(void)
{
    SECTION("CTC descriptor");
    ORACLE_FN(cudnnCreateCTCLossDescriptor);
    ORACLE_FN(cudnnSetCTCLossDescriptor);
    ORACLE_FN(cudnnSetCTCLossDescriptorEx);
    ORACLE_FN(cudnnSetCTCLossDescriptor_v8);
    ORACLE_FN(cudnnGetCTCLossDescriptor);
    ORACLE_FN(cudnnGetCTCLossDescriptorEx);
    ORACLE_FN(cudnnGetCTCLossDescriptor_v8);
    ORACLE_FN(cudnnDestroyCTCLossDescriptor);
    cudnnCTCLossDescriptor_t a, b;
    cudnnCreateCTCLossDescriptor(&a);
    v9_cudnnCreateCTCLossDescriptor(&b);
    char what[128];

    /* Read back after each successful call; a fresh descriptor first. */
#define READBACK(label) do { \
        cudnnDataType_t c1 = -7, c2 = -7; cudnnLossNormalizationMode_t n1 = -7, n2 = -7; \
        cudnnNanPropagation_t g1 = -7, g2 = -7; int m1 = -7, m2 = -7; \
        same(label " get_v8", cudnnGetCTCLossDescriptor_v8(a, &c1, &n1, &g1, &m1), \
             v9_cudnnGetCTCLossDescriptor_v8(b, &c2, &n2, &g2, &m2)); \
        CHECK_MSG(c1 == c2 && n1 == n2 && g1 == g2 && m1 == m2, "%s: read back %d %d %d %d vs %d %d %d %d", label, \
                  c1, n1, g1, m1, c2, n2, g2, m2); \
    } while (0)
    READBACK("fresh");

    static const int dts[] = {0, 1, 2, 3, 4, 9, 99, -1};
    for (unsigned i = 0; i < sizeof dts / sizeof *dts; i++) {
        snprintf(what, sizeof what, "SetCTCLossDescriptor(dt %d)", dts[i]);
        same(what, cudnnSetCTCLossDescriptor(a, (cudnnDataType_t)dts[i]),
             v9_cudnnSetCTCLossDescriptor(b, (cudnnDataType_t)dts[i]));
        READBACK("after Set");
    }
    for (int nm = 0; nm < 2; nm++)
        for (int gm = 0; gm < 2; gm++) {
            snprintf(what, sizeof what, "SetCTCLossDescriptorEx(norm %d, grad %d)", nm, gm);
            same(what, cudnnSetCTCLossDescriptorEx(a, CUDNN_DATA_DOUBLE, nm, gm),
                 v9_cudnnSetCTCLossDescriptorEx(b, CUDNN_DATA_DOUBLE, nm, gm));
            READBACK("after SetEx");
            cudnnDataType_t c1, c2;
            cudnnLossNormalizationMode_t n1 = -1, n2 = -2;
            cudnnNanPropagation_t g1 = -1, g2 = -2;
            same("GetEx", cudnnGetCTCLossDescriptorEx(a, &c1, &n1, &g1), v9_cudnnGetCTCLossDescriptorEx(b, &c2, &n2, &g2));
            CHECK(c1 == c2 && n1 == n2 && g1 == g2);
        }
    static const int mls[] = {0, 1, 255, 256, 257, 100000};
    for (unsigned i = 0; i < sizeof mls / sizeof *mls; i++) {
        snprintf(what, sizeof what, "SetCTCLossDescriptor_v8(maxLabelLength %d)", mls[i]);
        same(what, cudnnSetCTCLossDescriptor_v8(a, CUDNN_DATA_FLOAT, 1, 1, mls[i]),
             v9_cudnnSetCTCLossDescriptor_v8(b, CUDNN_DATA_FLOAT, 1, 1, mls[i]));
        READBACK("after Set_v8");
    }
    /* The older setters reset what they do not take. */
    same("Ex after v8", cudnnSetCTCLossDescriptorEx(a, CUDNN_DATA_FLOAT, 1, 0),
         v9_cudnnSetCTCLossDescriptorEx(b, CUDNN_DATA_FLOAT, 1, 0));
    READBACK("Ex after v8");
    same("v8 again", cudnnSetCTCLossDescriptor_v8(a, CUDNN_DATA_FLOAT, 1, 1, 77),
         v9_cudnnSetCTCLossDescriptor_v8(b, CUDNN_DATA_FLOAT, 1, 1, 77));
    same("plain after v8", cudnnSetCTCLossDescriptor(a, CUDNN_DATA_FLOAT), v9_cudnnSetCTCLossDescriptor(b, CUDNN_DATA_FLOAT));
    READBACK("plain after v8");
    cudnnDataType_t ct;
    same("Get ctc", cudnnGetCTCLossDescriptor(a, &ct), v9_cudnnGetCTCLossDescriptor(b, &ct));
    same("Get NULL desc", cudnnGetCTCLossDescriptor(NULL, &ct), v9_cudnnGetCTCLossDescriptor(NULL, &ct));
    same("Set NULL desc", cudnnSetCTCLossDescriptor(NULL, CUDNN_DATA_FLOAT), v9_cudnnSetCTCLossDescriptor(NULL, CUDNN_DATA_FLOAT));

    /* NULL outputs are "not wanted", as in cuDNN 8.5 and 9 (docs/rnn.md, "NULL outputs"). */
    same("Get(NULL output)", cudnnGetCTCLossDescriptor(a, NULL), v9_cudnnGetCTCLossDescriptor(b, NULL));
    /* Kept on purpose: out-of-range enums and negative lengths are refused. */
    differ("SetEx(norm 99)", cudnnSetCTCLossDescriptorEx(a, CUDNN_DATA_FLOAT, 99, 0), CUDNN_STATUS_BAD_PARAM,
           v9_cudnnSetCTCLossDescriptorEx(b, CUDNN_DATA_FLOAT, 99, 0), "CUDNN_STATUS_SUCCESS");
    differ("SetEx(grad 99)", cudnnSetCTCLossDescriptorEx(a, CUDNN_DATA_FLOAT, 0, 99), CUDNN_STATUS_BAD_PARAM,
           v9_cudnnSetCTCLossDescriptorEx(b, CUDNN_DATA_FLOAT, 0, 99), "CUDNN_STATUS_SUCCESS");
    differ("Set_v8(maxLabelLength -1)", cudnnSetCTCLossDescriptor_v8(a, CUDNN_DATA_FLOAT, 0, 0, -1), CUDNN_STATUS_BAD_PARAM,
           v9_cudnnSetCTCLossDescriptor_v8(b, CUDNN_DATA_FLOAT, 0, 0, -1), "CUDNN_STATUS_SUCCESS");
    same("Destroy", cudnnDestroyCTCLossDescriptor(a), v9_cudnnDestroyCTCLossDescriptor(b));
    same("Destroy NULL", cudnnDestroyCTCLossDescriptor(NULL), v9_cudnnDestroyCTCLossDescriptor(NULL));
#undef READBACK
}

/* --------------------------------------------------------------- backend ---- */

typedef struct {
    int dt;               /* -1: not set */
    int nd, ns;           /* counts given for dims / strides */
    int64_t dims[8], strides[8];
    int64_t uid;          /* -100: not set */
    int64_t align;        /* 0: not set */
    int64_t vcount, vdim; /* 0 / -100: not set */
    int virt;             /* -1: not set */
} tcase;

static __typeof__(&cudnnBackendCreateDescriptor) v9_create;
static __typeof__(&cudnnBackendSetAttribute) v9_set;
static __typeof__(&cudnnBackendGetAttribute) v9_get;
static __typeof__(&cudnnBackendFinalize) v9_finalize;
static __typeof__(&cudnnBackendDestroyDescriptor) v9_destroy;

/* Apply the same Set sequence to both; compare every status; the last one is Finalize. */
static void build(const tcase *k, cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, const char *what,
                  cudnnStatus_t *fin1, int *fin2)
{
    char w[160];
#define BOTH(label, name, type, n, ptr) do { snprintf(w, sizeof w, "%s %s", what, label); \
        same(w, cudnnBackendSetAttribute(a, name, type, n, ptr), v9_set(b, name, type, n, ptr)); } while (0)
    if (k->dt >= 0)
        BOTH("data type", CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &k->dt);
    BOTH("dims", CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, k->nd, k->dims);
    BOTH("strides", CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, k->ns, k->strides);
    if (k->uid != -100)
        BOTH("uid", CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &k->uid);
    if (k->align)
        BOTH("alignment", CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &k->align);
    if (k->vcount)
        BOTH("vector count", CUDNN_ATTR_TENSOR_VECTOR_COUNT, CUDNN_TYPE_INT64, 1, &k->vcount);
    if (k->vdim != -100)
        BOTH("vectorized dim", CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, CUDNN_TYPE_INT64, 1, &k->vdim);
    if (k->virt >= 0) {
        bool v = k->virt;
        BOTH("virtual", CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v);
    }
#undef BOTH
    *fin1 = cudnnBackendFinalize(a);
    *fin2 = v9_finalize(b);
}

static void compare_readback(cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, const char *what)
{
    static const cudnnBackendAttributeName_t i64[] = {CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_ATTR_TENSOR_STRIDES,
                                                      CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_ATTR_TENSOR_VECTOR_COUNT,
                                                      CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION};
    for (unsigned i = 0; i < sizeof i64 / sizeof *i64; i++) {
        int64_t v1[8] = {0}, v2[8] = {0}, c1 = -1, c2 = -1;
        char w[160];
        snprintf(w, sizeof w, "%s get %d", what, (int)i64[i]);
        int64_t want = i < 2 ? 8 : 1;   /* cuDNN 9 wants exactly 1 for single-valued attributes */
        same(w, cudnnBackendGetAttribute(a, i64[i], CUDNN_TYPE_INT64, want, &c1, v1),
             v9_get(b, i64[i], CUDNN_TYPE_INT64, want, &c2, v2));
        CHECK_MSG(c1 == c2 && memcmp(v1, v2, sizeof v1) == 0, "%s: count %lld vs %lld, first %lld vs %lld", w,
                  (long long)c1, (long long)c2, (long long)v1[0], (long long)v2[0]);
    }
    int d1 = -1, d2 = -1;
    int64_t c1, c2;
    same("data type", cudnnBackendGetAttribute(a, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &c1, &d1),
         v9_get(b, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &c2, &d2));
    CHECK_MSG(d1 == d2, "%s: data type %d vs %d", what, d1, d2);
    bool b1 = true, b2 = false;
    same("virtual", cudnnBackendGetAttribute(a, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &c1, &b1),
         v9_get(b, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &c2, &b2));
    CHECK_MSG(b1 == b2, "%s: virtual %d vs %d", what, b1, b2);
    /* Fewer than there are, and the count alone. */
    int64_t v1[8], v2[8];
    same("dims, 2 requested", cudnnBackendGetAttribute(a, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 2, &c1, v1),
         v9_get(b, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 2, &c2, v2));
    CHECK_EQ_INT(c1, c2);
    same("dims, count only", cudnnBackendGetAttribute(a, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 8, &c1, NULL),
         v9_get(b, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 8, &c2, NULL));
    CHECK_EQ_INT(c1, c2);
    same("dims as DOUBLE", cudnnBackendGetAttribute(a, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_DOUBLE, 8, &c1, v1),
         v9_get(b, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_DOUBLE, 8, &c2, v2));
    same("requested -1", cudnnBackendGetAttribute(a, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, -1, &c1, v1),
         v9_get(b, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, -1, &c2, v2));
    /* Kept on purpose: asking for more elements than a single-valued attribute has is fine. */
    differ("uid, 8 requested", cudnnBackendGetAttribute(a, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 8, &c1, v1),
           CUDNN_STATUS_SUCCESS, v9_get(b, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 8, &c2, v2),
           "CUDNN_STATUS_BAD_PARAM");
    /* Kept on purpose: the byte alignment reads back (cuDNN 9: NOT_SUPPORTED). */
    differ("get alignment", cudnnBackendGetAttribute(a, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &c1, v1),
           CUDNN_STATUS_SUCCESS, v9_get(b, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &c2, v2),
           "CUDNN_STATUS_NOT_SUPPORTED");
    int64_t u = 5;
    if (oracle_major() == 8) {
        same("set after finalize", cudnnBackendSetAttribute(a, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &u),
             v9_set(b, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &u));
        same("finalize twice", cudnnBackendFinalize(a), v9_finalize(b));
    } else {   /* ours are cuDNN 8's answers; cuDNN 9 moved both to BAD_PARAM */
        differ("set after finalize", cudnnBackendSetAttribute(a, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &u),
               CUDNN_STATUS_INVALID_VALUE, v9_set(b, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &u),
               "CUDNN_STATUS_BAD_PARAM");
        differ("finalize twice", cudnnBackendFinalize(a), CUDNN_STATUS_INVALID_VALUE, v9_finalize(b),
               "CUDNN_STATUS_BAD_PARAM");
    }
}

#define D4 4, 4, {2, 3, 4, 5}, {60, 20, 5, 1}

static void backend(void)
{
    SECTION("backend tensor");
    *(void **)&v9_create = dlsym(oracle_lib, "cudnnBackendCreateDescriptor");
    *(void **)&v9_set = dlsym(oracle_lib, "cudnnBackendSetAttribute");
    *(void **)&v9_get = dlsym(oracle_lib, "cudnnBackendGetAttribute");
    *(void **)&v9_finalize = dlsym(oracle_lib, "cudnnBackendFinalize");
    *(void **)&v9_destroy = dlsym(oracle_lib, "cudnnBackendDestroyDescriptor");
    if (!v9_create || !v9_set || !v9_get || !v9_finalize || !v9_destroy) {
        SKIP("backend API vs the oracle: it has no backend calls");
        return;
    }
    static const tcase cs[] = {
        {0, D4, 7, 4, 0, -100, -1},                              /* plain */
        {2, D4, 7, 2, 0, -100, -1},                              /* half */
        {1, D4, 7, 8, 0, -100, -1},                              /* double */
        {0, D4, 7, 16, 0, -100, -1},                             /* wider alignment */
        {0, D4, 7, 12, 0, -100, -1},                             /* multiple of the element size */
        {2, D4, 7, 6, 0, -100, -1},
        {3, D4, 7, 1, 0, -100, -1},                              /* int8 */
        {-1, D4, -100, 4, 0, -100, -1},                          /* no type, no uid: defaults */
        {0, D4, -5, 4, 0, -100, -1},                             /* negative uid */
        {0, D4, 7, 0, 0, -100, -1},                              /* no alignment */
        {0, D4, 7, 3, 0, -100, -1},                              /* alignment not a multiple */
        {0, D4, 7, 2, 0, -100, -1},                              /* alignment below float */
        {0, D4, 7, -4, 0, -100, -1},
        {0, 4, 4, {2, -3, 4, 5}, {60, 20, 5, 1}, 7, 4, 0, -100, -1},
        {0, 4, 4, {2, 3, 4, 5}, {60, 20, -5, 1}, 7, 4, 0, -100, -1},
        {0, 4, 4, {2, 3, 4, 5}, {60, 20, 0, 1}, 7, 4, 0, -100, -1}, /* zero stride */
        {0, 4, 4, {2, 3, 4, 5}, {1, 2, 6, 24}, 7, 4, 0, -100, -1},  /* reversed strides */
        {0, 4, 4, {2, 3, 4, 5}, {1, 1, 1, 1}, 7, 4, 0, -100, -1},   /* overlapping */
        {0, 4, 3, {2, 3, 4, 5}, {20, 5, 1}, 7, 4, 0, -100, -1},     /* stride count differs */
        {0, 1, 1, {5}, {1}, 7, 4, 0, -100, -1},                     /* 1 and 2 dimensions: cuDNN 8 refuses */
        {0, 2, 2, {5, 3}, {3, 1}, 7, 4, 0, -100, -1},
        {0, 8, 8, {1, 1, 1, 1, 1, 1, 1, 2}, {2, 2, 2, 2, 2, 2, 2, 1}, 7, 4, 0, -100, -1},
        {0, D4, 7, 4, 4, 1, -1},                                 /* vectorized C */
        {0, D4, 7, 4, 0, 7, -1},                                 /* vectorized dim out of range */
        {0, D4, 7, 4, 0, -100, 1},                               /* virtual */
        {0, 4, 4, {1 << 20, 1 << 20, 1 << 20, 4}, {(int64_t)1 << 42, (int64_t)1 << 22, 4, 1}, 7, 4, 0, -100, -1},
    };
    for (unsigned i = 0; i < sizeof cs / sizeof *cs; i++) {
        cudnnBackendDescriptor_t a = NULL, b = NULL;
        char what[64];
        snprintf(what, sizeof what, "tensor case %u", i);
        if (cs[i].nd < 3 && oracle_major() >= 9)
            continue;   /* cuDNN 9 takes 1- and 2-d tensors; ours (and cuDNN 8) refuse them: test_backend_attrs */
        same(what, cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &a),
             v9_create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &b));
        cudnnStatus_t f1;
        int f2;
        build(&cs[i], a, b, what, &f1, &f2);
        same(what, f1, f2);
        if (f1 == CUDNN_STATUS_SUCCESS && f2 == 0)
            compare_readback(a, b, what);
        cudnnBackendDestroyDescriptor(a);
        v9_destroy(b);
    }

    /* Calls on unfinalized and odd descriptors. */
    cudnnBackendDescriptor_t a, b;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &a);
    v9_create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &b);
    int64_t v[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, c1, c2;
    same("get before finalize", cudnnBackendGetAttribute(a, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 8, &c1, v),
         v9_get(b, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 8, &c2, v));
    same("finalize empty", cudnnBackendFinalize(a), v9_finalize(b));
    same("dims as DATA_TYPE", cudnnBackendSetAttribute(a, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_DATA_TYPE, 4, v),
         v9_set(b, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_DATA_TYPE, 4, v));
    same("dims count 0", cudnnBackendSetAttribute(a, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, v),
         v9_set(b, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 0, v));
    same("dims count -1", cudnnBackendSetAttribute(a, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, -1, v),
         v9_set(b, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, -1, v));
    same("dims NULL", cudnnBackendSetAttribute(a, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, NULL),
         v9_set(b, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, NULL));
    same("uid count 2", cudnnBackendSetAttribute(a, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 2, v),
         v9_set(b, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 2, v));
    same("convolution attribute", cudnnBackendSetAttribute(a, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, v),
         v9_set(b, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, v));
    same("attribute 99999", cudnnBackendSetAttribute(a, (cudnnBackendAttributeName_t)99999, CUDNN_TYPE_INT64, 1, v),
         v9_set(b, (cudnnBackendAttributeName_t)99999, CUDNN_TYPE_INT64, 1, v));
    same("data type as INT64", cudnnBackendSetAttribute(a, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_INT64, 1, v),
         v9_set(b, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_INT64, 1, v));
    same("set NULL descriptor", cudnnBackendSetAttribute(NULL, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, v),
         v9_set(NULL, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, v));
    same("finalize NULL", cudnnBackendFinalize(NULL), v9_finalize(NULL));
    /* Kept on purpose: 9 dimensions fail at Set (cuDNN 9: at Finalize); data type 99 fails
     * at Set (cuDNN 9 accepts it and then crashes in Finalize); vector count 0 is refused;
     * destroying NULL succeeds like free(NULL). */
    differ("dims count 9", cudnnBackendSetAttribute(a, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 9, v),
           CUDNN_STATUS_BAD_PARAM, v9_set(b, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 9, v), "CUDNN_STATUS_SUCCESS");
    int dt99 = 99;
    differ("data type 99", cudnnBackendSetAttribute(a, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt99),
           CUDNN_STATUS_BAD_PARAM, v9_set(b, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt99),
           "CUDNN_STATUS_SUCCESS");
    differ("destroy NULL", cudnnBackendDestroyDescriptor(NULL), CUDNN_STATUS_SUCCESS, v9_destroy(NULL),
           "CUDNN_STATUS_BAD_PARAM");
    cudnnBackendDestroyDescriptor(a);
    v9_destroy(b);

    static const struct { int64_t dims[4]; int64_t vcount; const char *what; } dif[] = {
        {{2, 0, 4, 5}, 0, "zero dimension"},
        {{2, 3, 4, 5}, -2, "vector count 0"},
    };
    for (int i = 0; i < 2; i++) {
        tcase k = {0, 4, 4, {0}, {60, 20, 5, 1}, 7, 4, dif[i].vcount == -2 ? 0 : 0, -100, -1};
        memcpy(k.dims, dif[i].dims, sizeof k.dims[0] * 4);
        cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &a);
        v9_create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &b);
        cudnnStatus_t f1;
        int f2;
        build(&k, a, b, dif[i].what, &f1, &f2);
        if (dif[i].vcount == -2) {
            cudnnBackendInitialize(a);
            v9_destroy(b);
            v9_create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &b);
            int64_t zero = 0;
            k.dims[1] = 3;
            cudnnBackendSetAttribute(a, CUDNN_ATTR_TENSOR_VECTOR_COUNT, CUDNN_TYPE_INT64, 1, &zero);
            v9_set(b, CUDNN_ATTR_TENSOR_VECTOR_COUNT, CUDNN_TYPE_INT64, 1, &zero);
            build(&k, a, b, dif[i].what, &f1, &f2);
        }
        differ(dif[i].what, f1, CUDNN_STATUS_BAD_PARAM, f2, "CUDNN_STATUS_SUCCESS");
        cudnnBackendDestroyDescriptor(a);
        v9_destroy(b);
    }
}

/* ------------------------------------------------------------- fused ops ---- */

static void fused(void)
{
    SECTION("fused-ops packs");
    ORACLE_FN(cudnnCreateFusedOpsConstParamPack);
    ORACLE_FN(cudnnSetFusedOpsConstParamPackAttribute);
    ORACLE_FN(cudnnGetFusedOpsConstParamPackAttribute);
    ORACLE_FN(cudnnDestroyFusedOpsConstParamPack);
    ORACLE_FN(cudnnCreateFusedOpsVariantParamPack);
    ORACLE_FN(cudnnSetFusedOpsVariantParamPackAttribute);
    ORACLE_FN(cudnnGetFusedOpsVariantParamPackAttribute);
    ORACLE_FN(cudnnDestroyFusedOpsVariantParamPack);
    ORACLE_FN(cudnnCreateTensorDescriptor);
    ORACLE_FN(cudnnSetTensor4dDescriptor);
    ORACLE_FN(cudnnGetTensor4dDescriptor);
    ORACLE_FN(cudnnDestroyTensorDescriptor);
    ORACLE_FN(cudnnCreateFilterDescriptor);
    ORACLE_FN(cudnnSetFilter4dDescriptor);
    ORACLE_FN(cudnnDestroyFilterDescriptor);
    if (!v9_cudnnCreateFusedOpsConstParamPack) {
        SKIP("fused-ops packs vs the oracle: it has none");
        return;
    }
    cudnnTensorDescriptor_t t1, t2, o1, o2;
    cudnnFilterDescriptor_t f1, f2;
    cudnnCreateTensorDescriptor(&t1);
    v9_cudnnCreateTensorDescriptor(&t2);
    cudnnCreateTensorDescriptor(&o1);
    v9_cudnnCreateTensorDescriptor(&o2);
    cudnnSetTensor4dDescriptor(t1, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 8, 3, 5);
    v9_cudnnSetTensor4dDescriptor(t2, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 8, 3, 5);
    cudnnCreateFilterDescriptor(&f1);
    v9_cudnnCreateFilterDescriptor(&f2);
    cudnnSetFilter4dDescriptor(f1, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 4, 8, 3, 3);
    v9_cudnnSetFilter4dDescriptor(f2, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 4, 8, 3, 3);
    static const int tensor_labels[] = {0, 3, 12, 14, 16, 19, 26, 28, 31, 33, 35};
    char what[96];
    for (int op = -1; op <= 7; op++) {
        cudnnFusedOpsConstParamPack_t p1 = NULL, p2 = NULL;
        snprintf(what, sizeof what, "CreateFusedOpsConstParamPack(%d)", op);
        cudnnStatus_t s1 = cudnnCreateFusedOpsConstParamPack(&p1, (cudnnFusedOps_t)op);
        int s2 = v9_cudnnCreateFusedOpsConstParamPack(&p2, (cudnnFusedOps_t)op);
        same(what, s1, s2);
        if (s1 == CUDNN_STATUS_SUCCESS && s2 == 0) {
            for (int l = 0; l <= 39; l++) {
                int is_tensor = 0;
                for (unsigned i = 0; i < sizeof tensor_labels / sizeof *tensor_labels; i++)
                    is_tensor |= tensor_labels[i] == l;
                if (l == CUDNN_PARAM_CONV_DESC || l == CUDNN_PARAM_ACTIVATION_DESC)
                    continue;   /* those descriptors belong to other developers' code */
                int value = l == CUDNN_PARAM_BN_MODE ? CUDNN_BATCHNORM_SPATIAL : CUDNN_PTR_16B_ALIGNED;
                const void *a1 = is_tensor ? (const void *)t1 : l == 8 || l == 10 ? (const void *)f1 : &value;
                const void *a2 = is_tensor ? (const void *)t2 : l == 8 || l == 10 ? (const void *)f2 : &value;
                snprintf(what, sizeof what, "op %d: set const label %d", op, l);
                s1 = cudnnSetFusedOpsConstParamPackAttribute(p1, (cudnnFusedOpsConstParamLabel_t)l, a1);
                s2 = v9_cudnnSetFusedOpsConstParamPackAttribute(p2, (cudnnFusedOpsConstParamLabel_t)l, a2);
                same(what, s1, s2);
                /* Kept on purpose: cuDNN 9 refuses every Get on op 4's constant pack (though
                 * its Set accepts the labels); hostdnn reads back what was set. */
                if (s1 == CUDNN_STATUS_SUCCESS && s2 == 0 && op == 4) {
                    int v1 = -1, v2 = -2, n1 = -1, n2 = -2;
                    void *g1 = is_tensor ? (void *)o1 : l == 8 || l == 10 ? NULL : &v1;
                    void *g2 = is_tensor ? (void *)o2 : l == 8 || l == 10 ? NULL : &v2;
                    if (g1)
                        differ("get on op 4", cudnnGetFusedOpsConstParamPackAttribute(p1, l, g1, &n1),
                               CUDNN_STATUS_SUCCESS, v9_cudnnGetFusedOpsConstParamPackAttribute(p2, l, g2, &n2),
                               "CUDNN_STATUS_BAD_PARAM");
                    continue;
                }
                if (s1 == CUDNN_STATUS_SUCCESS && s2 == 0 && is_tensor) {
                    int n1 = -1, n2 = -2;
                    same("get tensor label", cudnnGetFusedOpsConstParamPackAttribute(p1, l, o1, &n1),
                         v9_cudnnGetFusedOpsConstParamPackAttribute(p2, l, o2, &n2));
                    int r1[9], r2[9];
                    cudnnDataType_t d1, d2;
                    cudnnGetTensor4dDescriptor(o1, &d1, &r1[0], &r1[1], &r1[2], &r1[3], &r1[4], &r1[5], &r1[6], &r1[7]);
                    v9_cudnnGetTensor4dDescriptor(o2, &d2, &r2[0], &r2[1], &r2[2], &r2[3], &r2[4], &r2[5], &r2[6], &r2[7]);
                    CHECK_MSG(n1 == n2 && d1 == d2 && memcmp(r1, r2, 8 * sizeof(int)) == 0, "%s: read back differs", what);
                }
                if (s1 == CUDNN_STATUS_SUCCESS && s2 == 0 && !is_tensor && l != 8 && l != 10) {
                    int v1 = -1, v2 = -2, n1 = -1, n2 = -2;
                    same("get value label", cudnnGetFusedOpsConstParamPackAttribute(p1, l, &v1, &n1),
                         v9_cudnnGetFusedOpsConstParamPackAttribute(p2, l, &v2, &n2));
                    CHECK_MSG(v1 == v2 && n1 == n2, "%s: read back %d/%d vs %d/%d", what, v1, n1, v2, n2);
                }
            }
            /* A descriptor label cleared with NULL reads as NULL. */
            if (op == 0) {
                int n1 = -1, n2 = -2;
                same("clear XDESC", cudnnSetFusedOpsConstParamPackAttribute(p1, CUDNN_PARAM_XDESC, NULL),
                     v9_cudnnSetFusedOpsConstParamPackAttribute(p2, CUDNN_PARAM_XDESC, NULL));
                same("get cleared XDESC", cudnnGetFusedOpsConstParamPackAttribute(p1, CUDNN_PARAM_XDESC, o1, &n1),
                     v9_cudnnGetFusedOpsConstParamPackAttribute(p2, CUDNN_PARAM_XDESC, o2, &n2));
                CHECK_EQ_INT(n1, n2);
                int bad = 99;
                differ("placeholder 99", cudnnSetFusedOpsConstParamPackAttribute(p1, CUDNN_PARAM_XDATA_PLACEHOLDER, &bad),
                       CUDNN_STATUS_BAD_PARAM,
                       v9_cudnnSetFusedOpsConstParamPackAttribute(p2, CUDNN_PARAM_XDATA_PLACEHOLDER, &bad),
                       "CUDNN_STATUS_SUCCESS");
                differ("BN mode 99", cudnnSetFusedOpsConstParamPackAttribute(p1, CUDNN_PARAM_BN_MODE, &bad),
                       CUDNN_STATUS_BAD_PARAM, v9_cudnnSetFusedOpsConstParamPackAttribute(p2, CUDNN_PARAM_BN_MODE, &bad),
                       "CUDNN_STATUS_SUCCESS");
                same("get NULL isNULL", cudnnGetFusedOpsConstParamPackAttribute(p1, CUDNN_PARAM_XDESC, o1, NULL),
                     v9_cudnnGetFusedOpsConstParamPackAttribute(p2, CUDNN_PARAM_XDESC, o2, NULL));
            }
            cudnnDestroyFusedOpsConstParamPack(p1);
            v9_cudnnDestroyFusedOpsConstParamPack(p2);
        }

        cudnnFusedOpsVariantParamPack_t v1 = NULL, v2 = NULL;
        s1 = cudnnCreateFusedOpsVariantParamPack(&v1, (cudnnFusedOps_t)op);
        s2 = v9_cudnnCreateFusedOpsVariantParamPack(&v2, (cudnnFusedOps_t)op);
        snprintf(what, sizeof what, "CreateFusedOpsVariantParamPack(%d)", op);
        same(what, s1, s2);
        if (s1 == CUDNN_STATUS_SUCCESS && s2 == 0) {
            for (int l = 0; l <= 104; l++) {
                size_t val = 4096 + (size_t)l;
                void *arg = l >= 100 ? (void *)&val : (void *)(uintptr_t)(0x1000 + l * 16);
                snprintf(what, sizeof what, "op %d: set variant label %d", op, l);
                s1 = cudnnSetFusedOpsVariantParamPackAttribute(v1, (cudnnFusedOpsVariantParamLabel_t)l, arg);
                s2 = v9_cudnnSetFusedOpsVariantParamPackAttribute(v2, (cudnnFusedOpsVariantParamLabel_t)l, arg);
                same(what, s1, s2);
                if (s1 == CUDNN_STATUS_SUCCESS && s2 == 0 && op == 3) {
                    /* Kept on purpose: cuDNN 9 refuses every Get on op 3's variant pack. */
                    uint64_t g1 = 0, g2 = 1;
                    differ("get on op 3", cudnnGetFusedOpsVariantParamPackAttribute(v1, l, &g1), CUDNN_STATUS_SUCCESS,
                           v9_cudnnGetFusedOpsVariantParamPackAttribute(v2, l, &g2), "CUDNN_STATUS_BAD_PARAM");
                } else if (s1 == CUDNN_STATUS_SUCCESS && s2 == 0) {
                    uint64_t g1 = 0, g2 = 1;
                    same("get variant", cudnnGetFusedOpsVariantParamPackAttribute(v1, l, &g1),
                         v9_cudnnGetFusedOpsVariantParamPackAttribute(v2, l, &g2));
                    CHECK_MSG(g1 == g2, "%s: read back %llx vs %llx", what, (unsigned long long)g1, (unsigned long long)g2);
                }
            }
            cudnnDestroyFusedOpsVariantParamPack(v1);
            v9_cudnnDestroyFusedOpsVariantParamPack(v2);
        }
    }
    cudnnDestroyTensorDescriptor(t1);
    v9_cudnnDestroyTensorDescriptor(t2);
    cudnnDestroyTensorDescriptor(o1);
    v9_cudnnDestroyTensorDescriptor(o2);
    cudnnDestroyFilterDescriptor(f1);
    v9_cudnnDestroyFilterDescriptor(f2);
}

int main(void)
{
    if (!oracle_open()) {
        SKIP("cuDNN 9 oracle: %s", oracle_skip_reason);
        return hd_test_finish();
    }
    ctc();
    backend();
    fused();
    printf("%d cases compared with NVIDIA cuDNN %d, %d documented differences checked\n", cases, oracle_major(), differing);
    return hd_test_finish();
}
