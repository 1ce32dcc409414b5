/* Tensor utilities: add, set, scale, op-tensor, transform (plain, Ex with padding, filters),
 * reduce; against the float64 reference over types, layouts, broadcasts, alpha/beta, edge
 * shapes; bad input leaves outputs untouched; ISA caps give identical bits. */
#include "ops_common.h"

#include <math.h>

static cudnnHandle_t H;
static const int SHAPES[][6] = { { 4, 2, 3, 5, 7 }, { 4, 1, 1, 1, 1 }, { 4, 1, 17, 3, 1 }, { 4, 3, 2, 9, 33 },
                                 { 5, 2, 3, 2, 3, 4 } };
#define NSHAPES 5

/* broadcast pattern P of a shape: bit i set = dim i is 1 */
static void bdims(const int *shape, unsigned pat, int *out)
{
    for (int i = 0; i < shape[0]; i++)
        out[i] = (pat >> i) & 1 ? 1 : shape[1 + i];
}
static const unsigned PATS[] = { 0u, 0xfdu /* 1,C,1,1 */, 0xffu /* all 1 */, 0x0au /* N,1,H,1 */, 0x01u };

static int add_case(cudnnDataType_t dt, const int *shape, unsigned pat, int la, int lc, const double *ab)
{
    int ad[8];
    bdims(shape, pat, ad);
    opt_t a, c;
    opt_make(&a, dt, shape[0], ad, la);
    opt_make(&c, dt, shape[0], shape + 1, lc);
    opt_fill(&a, -3, 3, 11);
    if (ab[1] == 0)
        opt_poison(&c);
    else
        opt_fill(&c, -1, 1, 12);
    double *e = malloc(c.n * 8);
    for (size_t i = 0; i < c.n; i++)
        e[i] = ab[0] * opt_get(&a, ref_bcast_index(shape[0], shape + 1, ad, i)) + (ab[1] != 0 ? ab[1] * opt_get(&c, i) : 0);
    ops_scale sa, sb;
    int bad = cudnnAddTensor(H, ops_sc(&sa, dt, ab[0]), a.desc, a.data, ops_sc(&sb, dt, ab[1]), c.desc, c.data) !=
              CUDNN_STATUS_SUCCESS;
    char label[96];
    snprintf(label, sizeof label, "add %s pat %x %s/%s", opt_dtname(dt), pat, opt_layoutname(la), opt_layoutname(lc));
    bad += opt_compare(&c, e, opt_tol(dt) * 4, label);
    if (lc == OPT_PADDED)
        bad += !opt_padding_intact(&c);
    free(e);
    opt_free(&a);
    opt_free(&c);
    return bad;
}

static void add_tests(void)
{
    SECTION("cudnnAddTensor");
    for (int t = 0; t < OPS_NTYPES; t++)
        for (int s = 0; s < NSHAPES; s++)
            for (int p = 0; p < 5; p++)
                for (int l = 0; l < OPT_NLAYOUTS; l++)
                    for (int k = 0; k < 3; k++)
                        CHECK_MSG(add_case(OPS_FP[t], SHAPES[s], PATS[p], (l + p) % OPT_NLAYOUTS, l, OPS_AB[k]) == 0,
                                  "type %d shape %d pat %d layout %d ab %d", t, s, p, l, k);
    /* bad input */
    int d[4] = { 2, 3, 4, 5 }, bd[4] = { 1, 2, 1, 1 };
    opt_t a, c, b;
    opt_make(&a, CUDNN_DATA_FLOAT, 4, d, OPT_NCHW);
    opt_make(&c, CUDNN_DATA_FLOAT, 4, d, OPT_NCHW);
    opt_make(&b, CUDNN_DATA_FLOAT, 4, bd, OPT_NCHW);
    opt_fill(&c, 5, 5, 0);
    float one = 1, zero = 0;
    CHECK_STATUS(cudnnAddTensor(H, &one, b.desc, b.data, &zero, c.desc, c.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnAddTensor(H, &one, a.desc, a.data, &zero, c.desc, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnAddTensor(H, NULL, a.desc, a.data, &zero, c.desc, c.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnAddTensor(NULL, &one, a.desc, a.data, &zero, c.desc, c.data), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnAddTensor(H, &one, a.desc, c.data + 4, &zero, c.desc, c.data), CUDNN_STATUS_BAD_PARAM);
    int ok = 1;
    for (size_t i = 0; i < c.n; i++)
        ok &= opt_get(&c, i) == 5.0;
    CHECK(ok);
    /* in place: C = 2*C + C */
    float two = 2;
    CHECK_OK(cudnnAddTensor(H, &two, c.desc, c.data, &one, c.desc, c.data));
    ok = 1;
    for (size_t i = 0; i < c.n; i++)
        ok &= opt_get(&c, i) == 15.0;
    CHECK(ok);
    opt_free(&a); opt_free(&b); opt_free(&c);
}

static void set_scale_tests(void)
{
    SECTION("cudnnSetTensor / cudnnScaleTensor");
    const cudnnDataType_t types[] = { CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                      CUDNN_DATA_INT8, CUDNN_DATA_UINT8, CUDNN_DATA_INT32 };
    for (int t = 0; t < (ops_float_only ? 1 : 7); t++)
        for (int s = 0; s < NSHAPES; s++)
            for (int l = 0; l < OPT_NLAYOUTS; l++) {
                opt_t y;
                opt_make(&y, types[t], SHAPES[s][0], SHAPES[s] + 1, l);
                opt_poison(&y);
                unsigned char val[8];
                double want = 3.0;
                switch (types[t]) {
                case CUDNN_DATA_FLOAT: { float f = 3; memcpy(val, &f, 4); break; }
                case CUDNN_DATA_DOUBLE: { double v = 3; memcpy(val, &v, 8); break; }
                case CUDNN_DATA_HALF: { uint16_t h = opt_f2h(3); memcpy(val, &h, 2); break; }
                case CUDNN_DATA_BFLOAT16: { uint16_t h = opt_f2bf(3); memcpy(val, &h, 2); break; }
                case CUDNN_DATA_INT32: { int32_t v = 3; memcpy(val, &v, 4); break; }
                default: val[0] = 3; break;
                }
                CHECK_OK(cudnnSetTensor(H, y.desc, y.data, val));
                int ok = 1;
                for (size_t i = 0; i < y.n; i++)
                    ok &= opt_get(&y, i) == want;
                CHECK_MSG(ok, "set type %d shape %d layout %d", t, s, l);
                if (l == OPT_PADDED)
                    CHECK(opt_padding_intact(&y));
                if (t < 4) {
                    opt_fill(&y, -2, 2, 3);
                    double *e = malloc(y.n * 8);
                    for (size_t i = 0; i < y.n; i++)
                        e[i] = -1.5 * opt_get(&y, i);
                    ops_scale sa;
                    CHECK_OK(cudnnScaleTensor(H, y.desc, y.data, ops_sc(&sa, types[t], -1.5)));
                    CHECK(opt_compare(&y, e, opt_tol(types[t]), "scale") == 0);
                    free(e);
                }
                opt_free(&y);
            }
    int d[4] = { 1, 2, 3, 4 };
    opt_t y;
    opt_make(&y, CUDNN_DATA_FLOAT, 4, d, OPT_NCHW);
    float v = 1;
    CHECK_STATUS(cudnnSetTensor(H, y.desc, y.data, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensor(H, y.desc, NULL, &v), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnScaleTensor(H, y.desc, y.data, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnScaleTensor(H, NULL, y.data, &v), CUDNN_STATUS_BAD_PARAM);
    opt_free(&y);
    opt_make(&y, CUDNN_DATA_INT8, 4, d, OPT_NCHW);
    CHECK_STATUS(cudnnScaleTensor(H, y.desc, y.data, &v), CUDNN_STATUS_NOT_SUPPORTED);
    opt_free(&y);
}

static int op_case(cudnnOpTensorDescriptor_t od, int op, int prop, cudnnDataType_t abt, cudnnDataType_t ct,
                   const int *shape, unsigned pat, int la, int lc, const double *ab, int inplace)
{
    int bd[8];
    bdims(shape, pat, bd);
    opt_t a, b, c;
    opt_make(&a, abt, shape[0], shape + 1, la);
    opt_make(&b, abt, shape[0], bd, (la + 1) % OPT_NLAYOUTS);
    opt_make(&c, ct, shape[0], shape + 1, inplace ? la : lc);
    opt_fill(&a, op == 4 ? 0 : -3, 3, 21);
    opt_fill(&b, -3, 3, 22);
    if (op == 5)
        for (size_t i = 0; i < a.n; i++)
            opt_set(&a, i, (double)(i % 2));
    if (ab[1] == 0 && !inplace)
        opt_poison(&c);
    else
        opt_fill(&c, -1, 1, 23);
    if (inplace)
        for (size_t i = 0; i < a.n; i++)
            opt_set(&c, i, opt_get(&a, i));
    double alpha2 = 0.75;
    double *e = malloc(c.n * 8);
    for (size_t i = 0; i < c.n; i++) {
        double av = ab[0] * opt_get(&a, i), bv = alpha2 * opt_get(&b, ref_bcast_index(shape[0], shape + 1, bd, i));
        e[i] = ref_op(op, prop, av, bv) + (ab[1] != 0 ? ab[1] * opt_get(&c, i) : 0);
        if (ct == CUDNN_DATA_INT8)
            e[i] = opt_round(ct, e[i]);   /* NaN and out-of-range saturate in int8 */
    }
    ops_scale s1, s2, sb;
    cudnnDataType_t st = ct == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    int bad = cudnnOpTensor(H, od, ops_sc(&s1, st, ab[0]), a.desc, inplace ? (void *)c.data : (void *)a.data,
                            ops_sc(&s2, st, alpha2), b.desc, b.data, ops_sc(&sb, st, ab[1]), c.desc, c.data) !=
              CUDNN_STATUS_SUCCESS;
    char label[128];
    snprintf(label, sizeof label, "op %d %s->%s pat %x %s/%s ab %g,%g%s", op, opt_dtname(abt), opt_dtname(ct), pat,
             opt_layoutname(la), opt_layoutname(lc), ab[0], ab[1], inplace ? " in-place" : "");
    double tol = opt_tol(ct) * 4;
    if (abt != ct && opt_tol(abt) > tol)
        tol = opt_tol(abt) * 4;
    if (ct == CUDNN_DATA_INT8)
        tol = 0.51;
    bad += opt_compare(&c, e, tol, label);
    free(e);
    opt_free(&a); opt_free(&b); opt_free(&c);
    return bad;
}

static void op_tests(void)
{
    SECTION("op-tensor descriptor");
    cudnnOpTensorDescriptor_t od;
    CHECK_OK(cudnnCreateOpTensorDescriptor(&od));
    cudnnOpTensorOp_t op;
    cudnnDataType_t ct;
    cudnnNanPropagation_t np;
    CHECK_STATUS(cudnnGetOpTensorDescriptor(od, &op, &ct, &np), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_MAX, CUDNN_DATA_DOUBLE, CUDNN_PROPAGATE_NAN));
    CHECK_OK(cudnnGetOpTensorDescriptor(od, &op, &ct, &np));
    CHECK(op == CUDNN_OP_TENSOR_MAX && ct == CUDNN_DATA_DOUBLE && np == CUDNN_PROPAGATE_NAN);
    CHECK_STATUS(cudnnSetOpTensorDescriptor(od, (cudnnOpTensorOp_t)99, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_ADD, (cudnnDataType_t)99, CUDNN_PROPAGATE_NAN),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, (cudnnNanPropagation_t)5),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetOpTensorDescriptor(od, NULL, &ct, &np), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnCreateOpTensorDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);

    SECTION("cudnnOpTensor vs reference");
    const cudnnDataType_t combos[][2] = { { CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT }, { CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE },
                                          { CUDNN_DATA_HALF, CUDNN_DATA_HALF }, { CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16 },
                                          { CUDNN_DATA_HALF, CUDNN_DATA_FLOAT }, { CUDNN_DATA_FLOAT, CUDNN_DATA_HALF },
                                          { CUDNN_DATA_INT8, CUDNN_DATA_FLOAT }, { CUDNN_DATA_INT8, CUDNN_DATA_INT8 },
                                          { CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16 } };
    for (int o = 0; o <= 5; o++)
        for (int prop = 0; prop <= 1; prop++) {
            for (int cb = 0; cb < (ops_float_only ? 1 : 9); cb++) {
                cudnnDataType_t comp = combos[cb][0] == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
                cudnnSetOpTensorDescriptor(od, (cudnnOpTensorOp_t)o, comp, (cudnnNanPropagation_t)prop);
                for (int s = 0; s < NSHAPES; s++)
                    for (int p = 0; p < 5; p++)
                        for (int k = 0; k < 3; k++) {
                            int l = (s + p + k) % OPT_NLAYOUTS;
                            CHECK_MSG(op_case(od, o, prop, combos[cb][0], combos[cb][1], SHAPES[s], PATS[p], l,
                                              (l + k) % OPT_NLAYOUTS, OPS_AB[k], 0) == 0,
                                      "op %d combo %d shape %d pat %d ab %d", o, cb, s, p, k);
                        }
                if (combos[cb][0] == combos[cb][1])
                    CHECK(op_case(od, o, prop, combos[cb][0], combos[cb][1], SHAPES[3], PATS[1], OPT_NHWC, OPT_NHWC,
                                  OPS_AB[1], 1) == 0);
            }
        }

    SECTION("cudnnOpTensor NaN and bad input");
    int d[4] = { 1, 1, 1, 20 };
    opt_t a, b, c, c2, h;
    opt_make(&a, CUDNN_DATA_FLOAT, 4, d, OPT_NCHW);
    opt_make(&b, CUDNN_DATA_FLOAT, 4, d, OPT_NCHW);
    opt_make(&c, CUDNN_DATA_FLOAT, 4, d, OPT_NCHW);
    int d2[4] = { 1, 1, 2, 20 };
    opt_make(&c2, CUDNN_DATA_FLOAT, 4, d2, OPT_NCHW);
    opt_make(&h, CUDNN_DATA_HALF, 4, d, OPT_NCHW);
    for (int i = 0; i < 20; i++) {
        opt_set(&a, i, i % 2 ? NAN : i);
        opt_set(&b, i, i % 4 == 0 ? NAN : -i);
    }
    float one = 1, zero = 0;
    for (int prop = 0; prop <= 1; prop++) {
        cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_MIN, CUDNN_DATA_FLOAT, (cudnnNanPropagation_t)prop);
        CHECK_OK(cudnnOpTensor(H, od, &one, a.desc, a.data, &one, b.desc, b.data, &zero, c.desc, c.data));
        int ok = 1;
        for (int i = 0; i < 20; i++) {
            double e = ref_op(2, prop, opt_get(&a, i), opt_get(&b, i)), g = opt_get(&c, i);
            ok &= isnan(e) ? isnan(g) : g == e;
        }
        CHECK_MSG(ok, "MIN nan prop %d", prop);
    }
    opt_fill(&c, 9, 9, 0);
    cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
    CHECK_STATUS(cudnnOpTensor(H, od, &one, a.desc, a.data, &one, c2.desc, c2.data, &zero, c.desc, c.data),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnOpTensor(H, od, &one, a.desc, a.data, &one, h.desc, h.data, &zero, c.desc, c.data),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnOpTensor(H, od, &one, h.desc, h.data, &one, h.desc, h.data, &zero, h.desc, h.data)); /* C == A == B */
    CHECK_STATUS(cudnnOpTensor(H, od, &one, a.desc, a.data, &one, b.desc, NULL, &zero, c.desc, c.data),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_DOUBLE, CUDNN_NOT_PROPAGATE_NAN);
    CHECK_STATUS(cudnnOpTensor(H, od, &one, a.desc, a.data, &one, b.desc, b.data, &zero, c.desc, c.data),
                 CUDNN_STATUS_NOT_SUPPORTED);
    int ok = 1;
    for (size_t i = 0; i < c.n; i++)
        ok &= opt_get(&c, i) == 9.0;
    CHECK(ok);
    /* SQRT ignores B entirely */
    cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_SQRT, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
    opt_fill(&a, 4, 4, 0);
    CHECK_OK(cudnnOpTensor(H, od, &one, a.desc, a.data, NULL, NULL, NULL, &zero, c.desc, c.data));
    CHECK(opt_get(&c, 7) == 2.0);
    opt_free(&a); opt_free(&b); opt_free(&c); opt_free(&c2); opt_free(&h);
    CHECK_OK(cudnnDestroyOpTensorDescriptor(od));
    CHECK_STATUS(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN),
                 CUDNN_STATUS_BAD_PARAM);
}

static int transform_case(cudnnDataType_t dt, const int *shape, int lx, int ly, const double *ab)
{
    opt_t x, y;
    opt_make(&x, dt, shape[0], shape + 1, lx);
    opt_make(&y, dt, shape[0], shape + 1, ly);
    opt_fill(&x, -3, 3, 31);
    if (ab[1] == 0)
        opt_poison(&y);
    else
        opt_fill(&y, -1, 1, 32);
    double *e = malloc(y.n * 8);
    for (size_t i = 0; i < y.n; i++)
        e[i] = ab[0] * opt_get(&x, i) + (ab[1] != 0 ? ab[1] * opt_get(&y, i) : 0);
    ops_scale sa, sb;
    cudnnDataType_t st = dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    int bad = cudnnTransformTensor(H, ops_sc(&sa, st, ab[0]), x.desc, x.data, ops_sc(&sb, st, ab[1]), y.desc, y.data) !=
              CUDNN_STATUS_SUCCESS;
    char label[96];
    snprintf(label, sizeof label, "transform %s %s->%s", opt_dtname(dt), opt_layoutname(lx), opt_layoutname(ly));
    if (dt == CUDNN_DATA_INT8 || dt == CUDNN_DATA_UINT8)
        for (size_t i = 0; i < y.n; i++)
            e[i] = opt_round(dt, e[i]);
    bad += opt_compare(&y, e, dt == CUDNN_DATA_INT8 || dt == CUDNN_DATA_UINT8 ? 0.0 : opt_tol(dt) * 4, label);
    if (ly == OPT_PADDED)
        bad += !opt_padding_intact(&y);
    free(e);
    opt_free(&x);
    opt_free(&y);
    return bad;
}

/* NCHW <-> NCHW_VECT_C (INT8x4) through cudnnTransformTensor, and Ex with padding. */
static void transform_vect(void)
{
    SECTION("transform NCHW_VECT_C and padding");
    cudnnTensorDescriptor_t src, vec, dst;
    cudnnCreateTensorDescriptor(&src);
    cudnnCreateTensorDescriptor(&vec);
    cudnnCreateTensorDescriptor(&dst);
    int n = 2, c = 8, h = 3, w = 5, tot = n * c * h * w;
    CHECK_OK(cudnnSetTensor4dDescriptor(src, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, n, c, h, w));
    CHECK_OK(cudnnSetTensor4dDescriptor(vec, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, n, c, h, w));
    int8_t *a = malloc(tot), *v = malloc(tot), *back = malloc(tot);
    for (int i = 0; i < tot; i++)
        a[i] = (int8_t)(i * 7 % 251 - 120);
    float one = 1, zero = 0;
    CHECK_OK(cudnnTransformTensor(H, &one, src, a, &zero, vec, v));
    int ok = 1;
    for (int in = 0; in < n; in++)
        for (int ic = 0; ic < c; ic++)
            for (int ih = 0; ih < h; ih++)
                for (int iw = 0; iw < w; iw++) {
                    int vo = (((in * (c / 4) + ic / 4) * h + ih) * w + iw) * 4 + ic % 4;
                    ok &= v[vo] == a[((in * c + ic) * h + ih) * w + iw];
                }
    CHECK(ok);
    CHECK_OK(cudnnTransformTensor(H, &one, vec, v, &zero, src, back));
    CHECK(memcmp(a, back, tot) == 0);

    /* Ex: pad C from 6 to 8 into INT8x4, via cudnnInitTransformDest */
    cudnnTensorTransformDescriptor_t td;
    CHECK_OK(cudnnCreateTensorTransformDescriptor(&td));
    int32_t before[4] = { 0, 0, 0, 0 }, after[4] = { 0, 2, 0, 0 };
    uint32_t fold[4] = { 1, 1, 1, 1 };
    CHECK_OK(cudnnSetTensorTransformDescriptor(td, 4, CUDNN_TENSOR_NCHW_VECT_C, before, after, fold,
                                               CUDNN_TRANSFORM_FOLD));
    cudnnTensorFormat_t fmt;
    cudnnFoldingDirection_t dir;
    int32_t b2[4], a2[4];
    uint32_t f2[4] = { 77, 77, 77, 77 };
    CHECK_OK(cudnnGetTensorTransformDescriptor(td, 4, &fmt, b2, a2, f2, &dir));
    CHECK(fmt == CUDNN_TENSOR_NCHW_VECT_C && a2[1] == 2 && b2[1] == 0 && f2[1] == 1 && f2[3] == 77 && dir == CUDNN_TRANSFORM_FOLD);
    CHECK_OK(cudnnSetTensor4dDescriptor(src, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, n, 6, h, w));
    size_t bytes = 0;
    CHECK_OK(cudnnInitTransformDest(td, src, dst, &bytes));
    CHECK_EQ_INT(bytes, (size_t)n * 8 * h * w);
    cudnnDataType_t dt;
    int dn, dc, dh, dw, s0, s1, s2, s3;
    CHECK_OK(cudnnGetTensor4dDescriptor(dst, &dt, &dn, &dc, &dh, &dw, &s0, &s1, &s2, &s3));
    CHECK(dt == CUDNN_DATA_INT8x4 && dc == 8 && dn == n && dh == h);
    int8_t *out = malloc(bytes);
    memset(out, 0x55, bytes);
    CHECK_OK(cudnnTransformTensorEx(H, td, &one, src, a, &zero, dst, out));
    ok = 1;
    for (int in = 0; in < n; in++)
        for (int ic = 0; ic < 8; ic++)
            for (int ih = 0; ih < h; ih++)
                for (int iw = 0; iw < w; iw++) {
                    int vo = (((in * 2 + ic / 4) * h + ih) * w + iw) * 4 + ic % 4;
                    int want = ic < 6 ? a[((in * 6 + ic) * h + ih) * w + iw] : 0;
                    ok &= out[vo] == want;
                }
    CHECK(ok);

    /* float Ex: NCHW -> NHWC with padding before/after on H and W, beta = 0 on NaN */
    int32_t pb[4] = { 0, 0, 1, 2 }, pa[4] = { 0, 0, 2, 1 };
    CHECK_OK(cudnnSetTensorTransformDescriptor(td, 4, CUDNN_TENSOR_NHWC, pb, pa, NULL, CUDNN_TRANSFORM_FOLD));
    int xd[4] = { 2, 3, 4, 5 };
    opt_t x;
    opt_make(&x, CUDNN_DATA_FLOAT, 4, xd, OPT_PADDED);
    opt_fill(&x, -1, 1, 5);
    CHECK_OK(cudnnInitTransformDest(td, x.desc, dst, &bytes));
    CHECK_EQ_INT(bytes, 2 * 3 * 7 * 8 * 4);
    float *yo = malloc(bytes);
    for (size_t i = 0; i < bytes / 4; i++)
        yo[i] = NAN;
    float two = 2;
    CHECK_OK(cudnnTransformTensorEx(H, td, &two, x.desc, x.data, &zero, dst, yo));
    ok = 1;
    for (int in = 0; in < 2; in++)
        for (int ic = 0; ic < 3; ic++)
            for (int ih = 0; ih < 7; ih++)
                for (int iw = 0; iw < 8; iw++) {
                    double g = yo[((in * 7 + ih) * 8 + iw) * 3 + ic];
                    int sh = ih - 1, sw = iw - 2;
                    double want = sh >= 0 && sh < 4 && sw >= 0 && sw < 5 ? 2 * opt_get(&x, ((in * 3 + ic) * 4 + sh) * 5 + sw) : 0;
                    ok &= g == (float)want;
                }
    CHECK(ok);
    /* folding (space-to-depth, docs/ops.md): C doubles, H is halved (rounded up) */
    uint32_t fold2[4] = { 2, 1, 1, 1 };   /* foldA: one entry per spatial dim */
    CHECK_OK(cudnnSetTensorTransformDescriptor(td, 4, CUDNN_TENSOR_NHWC, pb, pa, fold2, CUDNN_TRANSFORM_FOLD));
    CHECK_OK(cudnnInitTransformDest(td, x.desc, dst, &bytes));
    {
        cudnnDataType_t fdt;
        int fn, fc, fh, fw, s0, s1, s2, s3;
        CHECK_OK(cudnnGetTensor4dDescriptor(dst, &fdt, &fn, &fc, &fh, &fw, &s0, &s1, &s2, &s3));
        CHECK(fn == 2 && fc == 6 && fh == (4 + pb[2] + pa[2] + 1) / 2 && fw == 5 + pb[3] + pa[3]);
    }
    /* bad input */
    CHECK_STATUS(cudnnSetTensorTransformDescriptor(td, 4, (cudnnTensorFormat_t)9, pb, pa, NULL, CUDNN_TRANSFORM_FOLD),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetTensorTransformDescriptor(td, 4, CUDNN_TENSOR_NHWC, pb, pa, NULL, (cudnnFoldingDirection_t)9),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetTensorTransformDescriptor(td, 99, CUDNN_TENSOR_NHWC, pb, pa, NULL, CUDNN_TRANSFORM_FOLD),
                 CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnSetTensorTransformDescriptor(td, 1, CUDNN_TENSOR_NHWC, pb, pa, NULL, CUDNN_TRANSFORM_FOLD),
                 CUDNN_STATUS_BAD_PARAM);
    int32_t neg[4] = { 0, -1, 0, 0 };
    CHECK_OK(cudnnSetTensorTransformDescriptor(td, 4, CUDNN_TENSOR_NHWC, neg, pa, NULL, CUDNN_TRANSFORM_FOLD));
    CHECK_STATUS(cudnnInitTransformDest(td, x.desc, dst, &bytes), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(cudnnTransformTensorEx(H, td, &one, x.desc, x.data, &zero, dst, yo), CUDNN_STATUS_NOT_SUPPORTED);
    CHECK_OK(cudnnSetTensorTransformDescriptor(td, 4, CUDNN_TENSOR_NHWC, NULL, NULL, NULL, CUDNN_TRANSFORM_FOLD));
    CHECK_STATUS(cudnnTransformTensorEx(H, td, &one, x.desc, x.data, &zero, dst, yo), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnTransformTensor(H, &one, x.desc, x.data, &zero, dst, yo), CUDNN_STATUS_BAD_PARAM);

    /* filters: KCRS float -> KRSC */
    cudnnFilterDescriptor_t fs, fd;
    cudnnCreateFilterDescriptor(&fs);
    cudnnCreateFilterDescriptor(&fd);
    CHECK_OK(cudnnSetFilter4dDescriptor(fs, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, 3, 2, 5));
    CHECK_OK(cudnnSetFilter4dDescriptor(fd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 4, 3, 2, 5));
    float fin[120], fout[120];
    for (int i = 0; i < 120; i++)
        fin[i] = (float)i;
    CHECK_OK(cudnnTransformFilter(H, td, &one, fs, fin, &zero, fd, fout));
    ok = 1;
    for (int k = 0; k < 4; k++)
        for (int cc = 0; cc < 3; cc++)
            for (int r = 0; r < 2; r++)
                for (int s = 0; s < 5; s++)
                    ok &= fout[((k * 2 + r) * 5 + s) * 3 + cc] == fin[((k * 3 + cc) * 2 + r) * 5 + s];
    CHECK(ok);
    CHECK_STATUS(cudnnTransformFilter(H, td, &one, fs, fin, &zero, fs, fout), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroyFilterDescriptor(fs);
    cudnnDestroyFilterDescriptor(fd);
    CHECK_OK(cudnnDestroyTensorTransformDescriptor(td));
    free(yo); free(out); free(a); free(v); free(back);
    opt_free(&x);
    cudnnDestroyTensorDescriptor(src);
    cudnnDestroyTensorDescriptor(vec);
    cudnnDestroyTensorDescriptor(dst);
}

static void transform_tests(void)
{
    SECTION("cudnnTransformTensor");
    const cudnnDataType_t types[] = { CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                                      CUDNN_DATA_INT8, CUDNN_DATA_UINT8 };
    for (int t = 0; t < (ops_float_only ? 1 : 6); t++)
        for (int s = 0; s < NSHAPES; s++)
            for (int lx = 0; lx < OPT_NLAYOUTS; lx++)
                for (int ly = 0; ly < OPT_NLAYOUTS; ly++)
                    for (int k = 0; k < 3; k++)
                        CHECK_MSG(transform_case(types[t], SHAPES[s], lx, ly, OPS_AB[k]) == 0,
                                  "type %d shape %d %d->%d ab %d", t, s, lx, ly, k);
    /* larger float NCHW <-> NHWC: the blocked transpose path, with remainders */
    const int big[][5] = { { 4, 2, 37, 9, 11 }, { 4, 3, 8, 8, 8 }, { 4, 1, 70, 1, 33 } };
    for (int b = 0; b < 3; b++)
        for (int k = 0; k < 3; k++) {
            CHECK(transform_case(CUDNN_DATA_FLOAT, big[b], OPT_NCHW, OPT_NHWC, OPS_AB[k]) == 0);
            CHECK(transform_case(CUDNN_DATA_FLOAT, big[b], OPT_NHWC, OPT_NCHW, OPS_AB[k]) == 0);
        }
    transform_vect();
}

static int reduce_case(cudnnReduceTensorDescriptor_t rd, int op, cudnnDataType_t dt, const int *shape, unsigned pat,
                       int la, int lc, const double *ab, int with_idx)
{
    int cd[8];
    bdims(shape, pat, cd);
    opt_t a, c;
    opt_make(&a, dt, shape[0], shape + 1, la);
    opt_make(&c, dt, shape[0], cd, lc);
    opt_fill(&a, op == 1 ? 0.8 : -2, op == 1 ? 1.2 : 2, 41 + op);
    if (op == 8)
        for (size_t i = 0; i < a.n; i += 3)
            opt_set(&a, i, 0);
    if (ab[1] == 0)
        opt_poison(&c);
    else
        opt_fill(&c, -1, 1, 42);
    double *av = malloc(a.n * 8), *r = malloc(c.n * 8), *e = malloc(c.n * 8);
    unsigned *ri = malloc(c.n * sizeof *ri);
    for (size_t i = 0; i < a.n; i++)
        av[i] = opt_get(&a, i);
    ref_reduce(op, shape[0], shape + 1, cd, av, r, ri);
    for (size_t i = 0; i < c.n; i++)
        e[i] = ab[0] * r[i] + (ab[1] != 0 ? ab[1] * opt_get(&c, i) : 0);
    size_t isz = 0, wsz = 99;
    int bad = 0;
    bad += cudnnGetReductionIndicesSize(H, rd, a.desc, c.desc, &isz) != CUDNN_STATUS_SUCCESS;
    bad += cudnnGetReductionWorkspaceSize(H, rd, a.desc, c.desc, &wsz) != CUDNN_STATUS_SUCCESS;
    int is_sel = op == 2 || op == 3 || op == 4;
    if (with_idx && is_sel)
        bad += isz != c.n * 4;
    else
        bad += isz != 0;
    uint32_t *idx = malloc(c.n * 4 + 4);
    void *ws = malloc(wsz + 1);
    ops_scale sa, sb;
    bad += cudnnReduceTensor(H, rd, idx, isz, ws, wsz, ops_sc(&sa, dt, ab[0]), a.desc, a.data, ops_sc(&sb, dt, ab[1]),
                             c.desc, c.data) != CUDNN_STATUS_SUCCESS;
    char label[96];
    snprintf(label, sizeof label, "reduce op %d %s pat %x %s/%s", op, opt_dtname(dt), pat, opt_layoutname(la),
             opt_layoutname(lc));
    double tol = opt_tol(dt) * 8;
    bad += opt_compare(&c, e, tol, label);
    if (with_idx && is_sel && dt == CUDNN_DATA_DOUBLE)
        for (size_t i = 0; i < c.n; i++)
            if (idx[i] != ri[i]) {
                if (bad < 3)
                    fprintf(stderr, "  %s: index %zu got %u want %u\n", label, i, idx[i], ri[i]);
                bad++;
            }
    free(av); free(r); free(e); free(ri); free(idx); free(ws);
    opt_free(&a);
    opt_free(&c);
    return bad;
}

static void reduce_tests(void)
{
    SECTION("reduce descriptor");
    cudnnReduceTensorDescriptor_t rd;
    CHECK_OK(cudnnCreateReduceTensorDescriptor(&rd));
    cudnnReduceTensorOp_t op;
    cudnnDataType_t ct;
    cudnnNanPropagation_t np;
    cudnnReduceTensorIndices_t ri;
    cudnnIndicesType_t it;
    CHECK_STATUS(cudnnGetReduceTensorDescriptor(rd, &op, &ct, &np, &ri, &it), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_AMAX, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN,
                                            CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES));
    CHECK_OK(cudnnGetReduceTensorDescriptor(rd, &op, &ct, &np, &ri, &it));
    CHECK(op == CUDNN_REDUCE_TENSOR_AMAX && ct == CUDNN_DATA_FLOAT && np == CUDNN_PROPAGATE_NAN &&
          ri == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES && it == CUDNN_32BIT_INDICES);
    CHECK_STATUS(cudnnSetReduceTensorDescriptor(rd, (cudnnReduceTensorOp_t)99, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN,
                                                CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN,
                                                (cudnnReduceTensorIndices_t)9, CUDNN_32BIT_INDICES), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN,
                                                CUDNN_REDUCE_TENSOR_NO_INDICES, (cudnnIndicesType_t)9), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetReduceTensorDescriptor(rd, &op, &ct, NULL, &ri, &it), CUDNN_STATUS_BAD_PARAM);

    SECTION("cudnnReduceTensor vs reference");
    const unsigned rpats[] = { 0xffu, 0xfeu, 0x0du, 0x02u, 0x00u, 0x0cu };
    for (int o = 0; o <= 8; o++)
        for (int t = 0; t < OPS_NTYPES; t++) {
            cudnnDataType_t comp = OPS_FP[t] == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
            int with_idx = (o + t) % 2;
            cudnnSetReduceTensorDescriptor(rd, (cudnnReduceTensorOp_t)o, comp, CUDNN_NOT_PROPAGATE_NAN,
                                           with_idx ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES
                                                    : CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES);
            for (int s = 0; s < NSHAPES; s++)
                for (int p = 0; p < 6; p++) {
                    int k = (s + p) % 3, l = (o + s + p) % OPT_NLAYOUTS;
                    CHECK_MSG(reduce_case(rd, o, OPS_FP[t], SHAPES[s], rpats[p], l, (l + 1) % OPT_NLAYOUTS, OPS_AB[k],
                                          with_idx) == 0, "op %d type %d shape %d pat %d", o, t, s, p);
                }
        }
    /* indices always checked on double data */
    for (int o = 2; o <= 4; o++) {
        cudnnSetReduceTensorDescriptor(rd, (cudnnReduceTensorOp_t)o, CUDNN_DATA_DOUBLE, CUDNN_NOT_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES);
        for (int p = 0; p < 6; p++)
            CHECK(reduce_case(rd, o, CUDNN_DATA_DOUBLE, SHAPES[4], rpats[p], OPT_NHWC, OPT_PADDED, OPS_AB[0], 1) == 0);
    }

    SECTION("cudnnReduceTensor bad input");
    int ad[4] = { 2, 3, 4, 5 }, cd[4] = { 1, 3, 1, 1 }, cbad[4] = { 1, 2, 1, 1 };
    opt_t a, c, cb, ch;
    opt_make(&a, CUDNN_DATA_FLOAT, 4, ad, OPT_NCHW);
    opt_make(&c, CUDNN_DATA_FLOAT, 4, cd, OPT_NCHW);
    opt_make(&cb, CUDNN_DATA_FLOAT, 4, cbad, OPT_NCHW);
    opt_make(&ch, CUDNN_DATA_HALF, 4, cd, OPT_NCHW);
    opt_fill(&c, 4, 4, 0);
    float one = 1, zero = 0;
    uint32_t idx[3];
    cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                   CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES);
    CHECK_STATUS(cudnnReduceTensor(H, rd, idx, 4, NULL, 0, &one, a.desc, a.data, &zero, c.desc, c.data),
                 CUDNN_STATUS_BAD_PARAM);   /* indices too small */
    CHECK_STATUS(cudnnReduceTensor(H, rd, NULL, 12, NULL, 0, &one, a.desc, a.data, &zero, c.desc, c.data),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReduceTensor(H, rd, idx, 12, NULL, 0, &one, a.desc, a.data, &zero, cb.desc, cb.data),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnReduceTensor(H, rd, idx, 12, NULL, 0, &one, a.desc, a.data, &zero, ch.desc, ch.data),
                 CUDNN_STATUS_BAD_PARAM);
    cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                   CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_64BIT_INDICES);
    CHECK_STATUS(cudnnReduceTensor(H, rd, idx, 12, NULL, 0, &one, a.desc, a.data, &zero, c.desc, c.data),
                 CUDNN_STATUS_NOT_SUPPORTED);
    int ok = 1;
    for (size_t i = 0; i < c.n; i++)
        ok &= opt_get(&c, i) == 4.0;
    CHECK(ok);
    /* NaN handling */
    for (size_t i = 0; i < a.n; i++)
        opt_set(&a, i, (double)(i % 7));
    opt_set(&a, 5 * 4 + 3, NAN);   /* n0 c1 h0 w3 */
    for (int prop = 0; prop <= 1; prop++) {
        cudnnSetReduceTensorDescriptor(rd, CUDNN_REDUCE_TENSOR_MAX, CUDNN_DATA_FLOAT, (cudnnNanPropagation_t)prop,
                                       CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES);
        CHECK_OK(cudnnReduceTensor(H, rd, idx, 12, NULL, 0, &one, a.desc, a.data, &zero, c.desc, c.data));
        CHECK(prop ? isnan(opt_get(&c, 1)) && idx[1] == 3 : opt_get(&c, 1) == 6.0);
        CHECK(opt_get(&c, 0) == 6.0);
    }
    opt_free(&a); opt_free(&c); opt_free(&cb); opt_free(&ch);
    CHECK_OK(cudnnDestroyReduceTensorDescriptor(rd));
}

static void big_workload(cudnnHandle_t h, const char *dump_path, unsigned char **out, size_t *len)
{
    int dims[4] = { 2, 37, 29, 31 }, bias[4] = { 1, 37, 1, 1 };
    opt_t a, b, c, t;
    opt_make(&a, CUDNN_DATA_FLOAT, 4, dims, OPT_NCHW);
    opt_make(&b, CUDNN_DATA_FLOAT, 4, bias, OPT_NCHW);
    opt_make(&c, CUDNN_DATA_FLOAT, 4, dims, OPT_NCHW);
    opt_make(&t, CUDNN_DATA_FLOAT, 4, dims, OPT_NHWC);
    opt_fill(&a, -2, 2, 1);
    opt_fill(&b, -2, 2, 2);
    opt_fill(&c, -2, 2, 3);
    float one = 1, half = 0.5f, three = 3;
    cudnnOpTensorDescriptor_t od;
    cudnnCreateOpTensorDescriptor(&od);
    size_t total = 0;
    *out = NULL;
    for (int op = 0; op <= 1; op++) {
        cudnnSetOpTensorDescriptor(od, (cudnnOpTensorOp_t)op, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
        cudnnOpTensor(h, od, &three, a.desc, a.data, &half, a.desc, c.data, &half, c.desc, c.data);
        cudnnAddTensor(h, &half, b.desc, b.data, &one, c.desc, c.data);
        cudnnAddTensor(h, &half, a.desc, a.data, &half, c.desc, c.data);
        cudnnScaleTensor(h, c.desc, c.data, &three);
        cudnnTransformTensor(h, &three, c.desc, c.data, &half, t.desc, t.data);
        cudnnTransformTensor(h, &one, t.desc, t.data, &half, c.desc, c.data);
        *out = realloc(*out, total + c.bytes + t.bytes);
        memcpy(*out + total, c.data, c.bytes);
        memcpy(*out + total + c.bytes, t.data, t.bytes);
        total += c.bytes + t.bytes;
    }
    /* C = 3 A + 0.5 B with beta 0 into a buffer one float past an aligned start (an unaligned
     * head, an odd tail): the streaming-store kernels when HOSTDNN_STREAM_MIN_BYTES=0 */
    {
        float zero = 0;
        size_t ne = c.bytes / sizeof(float);
        float *raw = malloc((ne + 32) * sizeof(float)), *dst = raw + 1;
        for (size_t i = 0; i < ne; i++)
            dst[i] = NAN;                          /* beta 0: never read */
        cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN);
        cudnnOpTensor(h, od, &three, a.desc, a.data, &half, a.desc, c.data, &zero, c.desc, dst);
        *out = realloc(*out, total + c.bytes);
        memcpy(*out + total, dst, c.bytes);
        total += c.bytes;
        free(raw);
    }
    if (dump_path) {
        FILE *f = fopen(dump_path, "wb");
        if (f) {
            fwrite(*out, 1, total, f);
            fclose(f);
        }
    }
    *len = total;
    cudnnDestroyOpTensorDescriptor(od);
    opt_free(&a); opt_free(&b); opt_free(&c); opt_free(&t);
}

static void determinism(void)
{
    SECTION("threads and ISA determinism");
    cudnnHandle_t h1 = ops_handle(1), h3 = ops_handle(3);
    unsigned char *o1, *o3;
    size_t n1, n3;
    big_workload(h1, getenv("OPS_DUMP"), &o1, &n1);
    big_workload(h3, NULL, &o3, &n3);
    CHECK(n1 == n3 && memcmp(o1, o3, n1) == 0);
    free(o1);
    free(o3);
    cudnnDestroy(h1);
    cudnnDestroy(h3);
}

int main(void)
{
    int child = getenv("OPS_CHILD") != NULL;
    H = ops_handle(2);
    /* ISA children re-run the float paths (the only ones with vector kernels); under the
     * sanitizers they run just the bitwise workload, to keep the program fast */
    const char *mode = getenv("HD_MODE");
    int light = child && mode && strstr(mode, "sanitized");
    ops_float_only = child;
    if (!light) {
        add_tests();
        set_scale_tests();
        op_tests();
        transform_tests();
        reduce_tests();
    }
    determinism();
    cudnnDestroy(H);
    if (!child) {
        SECTION("ISA caps");
        char d0[64], d1[64], d2[64];
        snprintf(d0, sizeof d0, "/tmp/hd_ops_tensor_%d_scalar", (int)getpid());
        snprintf(d1, sizeof d1, "/tmp/hd_ops_tensor_%d_avx2", (int)getpid());
        snprintf(d2, sizeof d2, "/tmp/hd_ops_tensor_%d_avx512", (int)getpid());
        CHECK_EQ_INT(ops_run_child("scalar", d0), 0);
        CHECK_EQ_INT(ops_run_child("avx2", d1), 0);
        CHECK_EQ_INT(ops_run_child("avx512", d2), 0);
        CHECK(ops_same_files(d0, d1));
        CHECK(ops_same_files(d0, d2));
        /* streaming stores (forced for every size) give the plain kernels' bits */
        SECTION("streaming stores");
        char d3[64], d4[64];
        snprintf(d3, sizeof d3, "/tmp/hd_ops_tensor_%d_avx2_nt", (int)getpid());
        snprintf(d4, sizeof d4, "/tmp/hd_ops_tensor_%d_avx512_nt", (int)getpid());
        setenv("HOSTDNN_STREAM_MIN_BYTES", "0", 1);
        CHECK_EQ_INT(ops_run_child("avx2", d3), 0);
        CHECK_EQ_INT(ops_run_child("avx512", d4), 0);
        unsetenv("HOSTDNN_STREAM_MIN_BYTES");
        CHECK(ops_same_files(d0, d3));
        CHECK(ops_same_files(d0, d4));
        remove(d0);
        remove(d1);
        remove(d2);
        remove(d3);
        remove(d4);
    }
    return hd_test_finish();
}
