/*
 * cudnnBackendFinalize: validation per descriptor type, defaults for optional attributes,
 * and the attributes cuDNN computes (engine count, heuristic results, workspace size).
 *
 * Which graphs run and on which engines is graph.c's and engines.c's business: a graph
 * finalizes whenever it is valid, reports the engine count of its shape (0 when no engine
 * of ours runs it), and the engine, heuristics and plan finalizers say, at error level,
 * which node and attribute stand in the way.
 */
#include "core/api.h"
#include "core/desc.h"
#include "backend/backend.h"
#include "conv/conv_api_util.h"

#include <float.h>
#include <limits.h>
#include <string.h>

#define B(x) CUDNN_BACKEND_##x##_DESCRIPTOR
#define A(x) CUDNN_ATTR_##x
#define FN "cudnnBackendFinalize"
/* Failures found here are reported under the public function's name. */
#undef HD_FAIL
#define HD_FAIL(status, ...) hd_fail((status), FN, __VA_ARGS__)

static cudnnStatus_t missing(const hd_bdesc *d, cudnnBackendAttributeName_t name)
{
    return hd_fail(CUDNN_STATUS_BAD_PARAM, FN, "%s needs %s", hd_bdesc_type_name((int)d->type), hd_battr_name(name));
}

/* Every name in NAMES (ending with -1) must be present. */
static cudnnStatus_t require(const hd_bdesc *d, const int *names)
{
    for (; *names >= 0; names++)
        if (!hd_bdesc_find(d, (cudnnBackendAttributeName_t)*names))
            return missing(d, (cudnnBackendAttributeName_t)*names);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t put_i64(hd_bdesc *d, cudnnBackendAttributeName_t name, int64_t v)
{
    return hd_bdesc_store(d, name, CUDNN_TYPE_INT64, 1, &v);
}

static cudnnStatus_t default_i64(hd_bdesc *d, cudnnBackendAttributeName_t name, int64_t v)
{
    return hd_bdesc_find(d, name) ? CUDNN_STATUS_SUCCESS : put_i64(d, name, v);
}

static cudnnStatus_t default_enum(hd_bdesc *d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t t, int v)
{
    return hd_bdesc_find(d, name) ? CUDNN_STATUS_SUCCESS : hd_bdesc_store(d, name, t, 1, &v);
}

static cudnnStatus_t default_double(hd_bdesc *d, cudnnBackendAttributeName_t name, double v)
{
    return hd_bdesc_find(d, name) ? CUDNN_STATUS_SUCCESS : hd_bdesc_store(d, name, CUDNN_TYPE_DOUBLE, 1, &v);
}

static cudnnStatus_t default_bool(hd_bdesc *d, cudnnBackendAttributeName_t name)
{
    unsigned char f = 0;
    return hd_bdesc_find(d, name) ? CUDNN_STATUS_SUCCESS : hd_bdesc_store(d, name, CUDNN_TYPE_BOOLEAN, 1, &f);
}

#define TRY(x) do { cudnnStatus_t st_ = (x); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

/* ---- tensors ---- */

/* Read a finalized tensor's dims (returns nbDims). */
static int tensor_dims(const hd_bdesc *t, int64_t *dims, int64_t *strides)
{
    const hd_battr *a = hd_bdesc_find(t, A(TENSOR_DIMENSIONS)), *s = hd_bdesc_find(t, A(TENSOR_STRIDES));
    memcpy(dims, a->data, (size_t)a->count * sizeof *dims);
    if (strides)
        memcpy(strides, s->data, (size_t)s->count * sizeof *strides);
    return (int)a->count;
}

static cudnnStatus_t finalize_tensor(hd_bdesc *d)
{
    static const int req[] = {A(TENSOR_DIMENSIONS), A(TENSOR_STRIDES), A(TENSOR_BYTE_ALIGNMENT), -1};
    TRY(require(d, req));
    int n = (int)hd_bcount(d, A(TENSOR_DIMENSIONS));
    /* cuDNN 8 backend tensors have 3 to 8 dimensions (cuDNN 9 also takes 1 and 2) */
    if (n < 3)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "a backend tensor needs at least 3 dimensions (got %d)", n);
    if (hd_bcount(d, A(TENSOR_STRIDES)) != n)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the tensor has %d dimensions but %lld strides", n,
                       (long long)hd_bcount(d, A(TENSOR_STRIDES)));
    int64_t dims[CUDNN_DIM_MAX], strides[CUDNN_DIM_MAX];
    tensor_dims(d, dims, strides);
    int64_t elems = 1;
    for (int i = 0; i < n; i++) {
        if (dims[i] <= 0)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "tensor dimension %d is %lld; dimensions must be positive", i,
                           (long long)dims[i]);
        if (strides[i] < 0)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "tensor stride %d is negative (%lld)", i, (long long)strides[i]);
        if (__builtin_mul_overflow(elems, dims[i], &elems))
            return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "the tensor has more than 2^63-1 elements");
    }
    int dt = CUDNN_DATA_FLOAT;
    hd_bget_int(d, A(TENSOR_DATA_TYPE), &dt);
    size_t es = hd_dtype_size((cudnnDataType_t)dt);
    if (es == 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "data type %s is not a tensor element type", hd_dtype_name((cudnnDataType_t)dt));
    int64_t align = 0;
    hd_bget_i64(d, A(TENSOR_BYTE_ALIGNMENT), &align);
    if (align <= 0 || align % (int64_t)es != 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "byte alignment %lld must be a positive multiple of the element size %zu",
                       (long long)align, es);
    int64_t vc = 1, vd = -1;
    hd_bget_i64(d, A(TENSOR_VECTOR_COUNT), &vc);
    hd_bget_i64(d, A(TENSOR_VECTORIZED_DIMENSION), &vd);
    if (vc < 1)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "vector count must be at least 1 (got %lld)", (long long)vc);
    if (vd < -1 || vd >= n || (vc > 1 && vd < 0))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "vectorized dimension %lld is not a dimension of the %d-d tensor",
                       (long long)vd, n);
    TRY(default_enum(d, A(TENSOR_DATA_TYPE), CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT));
    TRY(default_i64(d, A(TENSOR_UNIQUE_ID), -1));
    TRY(default_i64(d, A(TENSOR_VECTOR_COUNT), 1));
    TRY(default_i64(d, A(TENSOR_VECTORIZED_DIMENSION), -1));
    TRY(default_bool(d, A(TENSOR_IS_VIRTUAL)));
    TRY(default_bool(d, A(TENSOR_IS_BY_VALUE)));
    return CUDNN_STATUS_SUCCESS;
}

/* ---- convolution, pointwise, small descriptors ---- */

static cudnnStatus_t finalize_convolution(hd_bdesc *d)
{
    static const int req[] = {A(CONVOLUTION_SPATIAL_DIMS), A(CONVOLUTION_COMP_TYPE), A(CONVOLUTION_CONV_MODE),
                              A(CONVOLUTION_DILATIONS), A(CONVOLUTION_FILTER_STRIDES), A(CONVOLUTION_PRE_PADDINGS),
                              A(CONVOLUTION_POST_PADDINGS), -1};
    TRY(require(d, req));
    int64_t sd = 0;
    hd_bget_i64(d, A(CONVOLUTION_SPATIAL_DIMS), &sd);
    if (sd < 1 || sd > CUDNN_DIM_MAX - 2)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "spatial dims must be 1..%d (got %lld)", CUDNN_DIM_MAX - 2, (long long)sd);
    static const struct { cudnnBackendAttributeName_t name; int64_t min; } arr[] = {
        {A(CONVOLUTION_DILATIONS), 1}, {A(CONVOLUTION_FILTER_STRIDES), 1},
        {A(CONVOLUTION_PRE_PADDINGS), 0}, {A(CONVOLUTION_POST_PADDINGS), 0}};
    for (int k = 0; k < 4; k++) {
        const hd_battr *a = hd_bdesc_find(d, arr[k].name);
        if (a->count != sd)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "%s has %lld elements; spatial dims is %lld", hd_battr_name(arr[k].name),
                           (long long)a->count, (long long)sd);
        for (int64_t i = 0; i < sd; i++) {
            int64_t v = ((const int64_t *)a->data)[i];
            if (v < arr[k].min || v > INT_MAX)
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "%s[%lld] is %lld; it must be in %lld..INT_MAX",
                               hd_battr_name(arr[k].name), (long long)i, (long long)v, (long long)arr[k].min);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t finalize_pointwise(hd_bdesc *d)
{
    static const int req[] = {A(POINTWISE_MODE), A(POINTWISE_MATH_PREC), -1};
    TRY(require(d, req));
    double lo = 0, hi = DBL_MAX;
    hd_bget_double(d, A(POINTWISE_RELU_LOWER_CLIP), &lo);
    hd_bget_double(d, A(POINTWISE_RELU_UPPER_CLIP), &hi);
    if (lo > hi)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "relu lower clip %g is above the upper clip %g", lo, hi);
    TRY(default_enum(d, A(POINTWISE_NAN_PROPAGATION), CUDNN_TYPE_NAN_PROPOGATION, CUDNN_NOT_PROPAGATE_NAN));
    TRY(default_double(d, A(POINTWISE_RELU_LOWER_CLIP), 0.0));
    TRY(default_double(d, A(POINTWISE_RELU_UPPER_CLIP), DBL_MAX));
    TRY(default_double(d, A(POINTWISE_RELU_LOWER_CLIP_SLOPE), 0.0));
    TRY(default_double(d, A(POINTWISE_ELU_ALPHA), 1.0));
    TRY(default_double(d, A(POINTWISE_SOFTPLUS_BETA), 1.0));
    TRY(default_double(d, A(POINTWISE_SWISH_BETA), 1.0));
    return CUDNN_STATUS_SUCCESS;
}

/* ---- operations ---- */

typedef struct {
    cudnnBackendAttributeName_t alpha, beta, conv, x, w, y;   /* x/w/y in the forward sense */
} conv_names;

static const conv_names *conv_op_names(int type)
{
    static const conv_names fwd = {A(OPERATION_CONVOLUTION_FORWARD_ALPHA), A(OPERATION_CONVOLUTION_FORWARD_BETA),
                                   A(OPERATION_CONVOLUTION_FORWARD_CONV_DESC), A(OPERATION_CONVOLUTION_FORWARD_X),
                                   A(OPERATION_CONVOLUTION_FORWARD_W), A(OPERATION_CONVOLUTION_FORWARD_Y)};
    static const conv_names bwd_data = {A(OPERATION_CONVOLUTION_BWD_DATA_ALPHA), A(OPERATION_CONVOLUTION_BWD_DATA_BETA),
                                        A(OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC), A(OPERATION_CONVOLUTION_BWD_DATA_DX),
                                        A(OPERATION_CONVOLUTION_BWD_DATA_W), A(OPERATION_CONVOLUTION_BWD_DATA_DY)};
    static const conv_names bwd_filter = {A(OPERATION_CONVOLUTION_BWD_FILTER_ALPHA),
                                          A(OPERATION_CONVOLUTION_BWD_FILTER_BETA),
                                          A(OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC),
                                          A(OPERATION_CONVOLUTION_BWD_FILTER_X), A(OPERATION_CONVOLUTION_BWD_FILTER_DW),
                                          A(OPERATION_CONVOLUTION_BWD_FILTER_DY)};
    switch (type) {
    case B(OPERATION_CONVOLUTION_FORWARD): return &fwd;
    case B(OPERATION_CONVOLUTION_BACKWARD_DATA): return &bwd_data;
    case B(OPERATION_CONVOLUTION_BACKWARD_FILTER): return &bwd_filter;
    default: return NULL;
    }
}

int hd_bconv_parts(const hd_bdesc *op, const hd_bdesc **conv, const hd_bdesc **x, const hd_bdesc **w,
                   const hd_bdesc **y, double *alpha, double *beta)
{
    const conv_names *nm = conv_op_names((int)op->type);
    if (!nm)
        return 0;
    *conv = hd_bget_desc(op, nm->conv, 0);
    *x = hd_bget_desc(op, nm->x, 0);
    *w = hd_bget_desc(op, nm->w, 0);
    *y = hd_bget_desc(op, nm->y, 0);
    hd_bget_double(op, nm->alpha, alpha);
    hd_bget_double(op, nm->beta, beta);
    return 1;
}

static int64_t tensor_uid(const hd_bdesc *t)
{
    int64_t u = -1;
    hd_bget_i64(t, A(TENSOR_UNIQUE_ID), &u);
    return u;
}

static cudnnStatus_t finalize_conv_op(hd_bdesc *d)
{
    const conv_names *nm = conv_op_names((int)d->type);
    const int req[] = {(int)nm->alpha, (int)nm->beta, (int)nm->conv, (int)nm->x, (int)nm->w, (int)nm->y, -1};
    TRY(require(d, req));
    const hd_bdesc *conv = hd_bget_desc(d, nm->conv, 0), *x = hd_bget_desc(d, nm->x, 0), *w = hd_bget_desc(d, nm->w, 0),
                   *y = hd_bget_desc(d, nm->y, 0);
    int64_t xd[CUDNN_DIM_MAX], wd[CUDNN_DIM_MAX], yd[CUDNN_DIM_MAX], sd = 0;
    int nx = tensor_dims(x, xd, NULL), nw = tensor_dims(w, wd, NULL), ny = tensor_dims(y, yd, NULL);
    hd_bget_i64(conv, A(CONVOLUTION_SPATIAL_DIMS), &sd);
    if (nx != sd + 2 || nw != sd + 2 || ny != sd + 2)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "tensors must have %lld dimensions (spatial dims + 2); they have %d, %d, %d",
                       (long long)(sd + 2), nx, nw, ny);
    if (xd[0] != yd[0])
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "batch sizes differ (%lld vs %lld)", (long long)xd[0], (long long)yd[0]);
    if (wd[1] <= 0 || xd[1] % wd[1] != 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "input channels %lld are not a multiple of the filter's %lld",
                       (long long)xd[1], (long long)wd[1]);
    int64_t groups = xd[1] / wd[1];
    if (wd[0] != yd[1] || wd[0] % groups != 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "output channels %lld must equal the filter count %lld (a multiple of %lld groups)",
                       (long long)yd[1], (long long)wd[0], (long long)groups);
    const hd_battr *pre = hd_bdesc_find(conv, A(CONVOLUTION_PRE_PADDINGS)),
                   *post = hd_bdesc_find(conv, A(CONVOLUTION_POST_PADDINGS)),
                   *str = hd_bdesc_find(conv, A(CONVOLUTION_FILTER_STRIDES)),
                   *dil = hd_bdesc_find(conv, A(CONVOLUTION_DILATIONS));
    for (int i = 0; i < sd; i++) {
        int64_t p0 = ((int64_t *)pre->data)[i], p1 = ((int64_t *)post->data)[i], s = ((int64_t *)str->data)[i],
                dl = ((int64_t *)dil->data)[i];
        int64_t span = dl * (wd[2 + i] - 1) + 1, room = xd[2 + i] + p0 + p1 - span;
        int64_t out = room < 0 ? 0 : room / s + 1;
        if (out != yd[2 + i])
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "output spatial dimension %d is %lld; the convolution gives %lld", i,
                           (long long)yd[2 + i], (long long)out);
    }
    int64_t ux = tensor_uid(x), uw = tensor_uid(w), uy = tensor_uid(y);
    if (ux == uw || ux == uy || uw == uy)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the operation's tensors need distinct unique ids (%lld, %lld, %lld)",
                       (long long)ux, (long long)uw, (long long)uy);
    return CUDNN_STATUS_SUCCESS;
}

static int pointwise_binary(int mode) { return mode >= CUDNN_POINTWISE_ADD && mode <= CUDNN_POINTWISE_MAX; }
static int pointwise_backward(int mode) { return mode >= CUDNN_POINTWISE_RELU_BWD; }

/* Does B broadcast to Y (same rank, each dimension equal or 1)? */
static int broadcasts(const hd_bdesc *b, const hd_bdesc *y)
{
    int64_t bd[CUDNN_DIM_MAX], yd[CUDNN_DIM_MAX];
    int nb = tensor_dims(b, bd, NULL), ny = tensor_dims(y, yd, NULL);
    if (nb != ny)
        return 0;
    for (int i = 0; i < nb; i++)
        if (bd[i] != yd[i] && bd[i] != 1)
            return 0;
    return 1;
}

static cudnnStatus_t finalize_pointwise_op(hd_bdesc *d)
{
    static const int req[] = {A(OPERATION_POINTWISE_PW_DESCRIPTOR), A(OPERATION_POINTWISE_XDESC), -1};
    TRY(require(d, req));
    int mode = 0;
    hd_bget_int(hd_bget_desc(d, A(OPERATION_POINTWISE_PW_DESCRIPTOR), 0), A(POINTWISE_MODE), &mode);
    const hd_bdesc *x = hd_bget_desc(d, A(OPERATION_POINTWISE_XDESC), 0);
    if (pointwise_backward(mode)) {
        static const int breq[] = {A(OPERATION_POINTWISE_DYDESC), A(OPERATION_POINTWISE_DXDESC), -1};
        TRY(require(d, breq));
        if (!broadcasts(hd_bget_desc(d, A(OPERATION_POINTWISE_DYDESC), 0), x) ||
            !broadcasts(hd_bget_desc(d, A(OPERATION_POINTWISE_DXDESC), 0), x))
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dy and dx must have the dimensions of x");
    } else {
        static const int freq[] = {A(OPERATION_POINTWISE_YDESC), -1};
        TRY(require(d, freq));
        const hd_bdesc *y = hd_bget_desc(d, A(OPERATION_POINTWISE_YDESC), 0);
        if (!broadcasts(x, y))
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "x must have the dimensions of y (or 1 where it broadcasts)");
        if (pointwise_binary(mode)) {
            static const int bq[] = {A(OPERATION_POINTWISE_BDESC), -1};
            TRY(require(d, bq));
            if (!broadcasts(hd_bget_desc(d, A(OPERATION_POINTWISE_BDESC), 0), y))
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "b must broadcast to y");
        }
    }
    TRY(default_double(d, A(OPERATION_POINTWISE_ALPHA1), 1.0));
    TRY(default_double(d, A(OPERATION_POINTWISE_ALPHA2), 1.0));
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t finalize_matmul_op(hd_bdesc *d)
{
    static const int req[] = {A(OPERATION_MATMUL_ADESC), A(OPERATION_MATMUL_BDESC), A(OPERATION_MATMUL_CDESC),
                              A(OPERATION_MATMUL_DESC), -1};
    TRY(require(d, req));
    int64_t a[CUDNN_DIM_MAX], b[CUDNN_DIM_MAX], c[CUDNN_DIM_MAX];
    int na = tensor_dims(hd_bget_desc(d, A(OPERATION_MATMUL_ADESC), 0), a, NULL);
    int nb = tensor_dims(hd_bget_desc(d, A(OPERATION_MATMUL_BDESC), 0), b, NULL);
    int nc = tensor_dims(hd_bget_desc(d, A(OPERATION_MATMUL_CDESC), 0), c, NULL);
    if (na < 2 || na != nb || na != nc)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "matmul tensors need the same rank >= 2 (%d, %d, %d)", na, nb, nc);
    int n = na;
    if (a[n - 1] != b[n - 2] || a[n - 2] != c[n - 2] || b[n - 1] != c[n - 1])
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "matmul shapes do not agree: (M,K) x (K,N) -> (M,N)");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t finalize_reduction_op(hd_bdesc *d)
{
    static const int req[] = {A(OPERATION_REDUCTION_XDESC), A(OPERATION_REDUCTION_YDESC), A(OPERATION_REDUCTION_DESC), -1};
    TRY(require(d, req));
    if (!broadcasts(hd_bget_desc(d, A(OPERATION_REDUCTION_YDESC), 0), hd_bget_desc(d, A(OPERATION_REDUCTION_XDESC), 0)))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "each dimension of y must equal x's or be 1");
    return CUDNN_STATUS_SUCCESS;
}

/* ---- graph, engine, heuristics ---- */

/* Do two finalized tensors describe the same data layout? */
static int same_tensor(const hd_bdesc *a, const hd_bdesc *b)
{
    static const cudnnBackendAttributeName_t names[] = {A(TENSOR_DIMENSIONS), A(TENSOR_STRIDES), A(TENSOR_DATA_TYPE),
                                                        A(TENSOR_VECTOR_COUNT), A(TENSOR_VECTORIZED_DIMENSION),
                                                        A(TENSOR_IS_VIRTUAL)};
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
        const hd_battr *x = hd_bdesc_find(a, names[i]), *y = hd_bdesc_find(b, names[i]);
        if (!x || !y || x->count != y->count || x->type != y->type ||
            memcmp(x->data, y->data, (size_t)x->count * hd_btype_size(x->type)) != 0)
            return 0;
    }
    return 1;
}

/* Every tensor of the graph's operations, for the unique-id check. */
static int graph_tensors(const hd_bdesc *g, const hd_bdesc **out, int max)
{
    int n = 0;
    for (int64_t i = 0; i < hd_bcount(g, A(OPERATIONGRAPH_OPS)); i++) {
        const hd_bdesc *op = hd_bget_desc(g, A(OPERATIONGRAPH_OPS), (int)i);
        for (int k = 0; k < op->nattr; k++) {
            const hd_battr *a = &op->attr[k];
            if (a->type != CUDNN_TYPE_BACKEND_DESCRIPTOR)
                continue;
            for (int64_t j = 0; j < a->count && n < max; j++) {
                const hd_bdesc *t = ((hd_bdesc *const *)a->data)[j];
                if (t->type == CUDNN_BACKEND_TENSOR_DESCRIPTOR)
                    out[n++] = t;
            }
        }
    }
    return n;
}

static cudnnStatus_t finalize_graph(hd_bdesc *d)
{
    static const int req[] = {A(OPERATIONGRAPH_HANDLE), A(OPERATIONGRAPH_OPS), -1};
    TRY(require(d, req));
    /* A unique id names one tensor: every use of it must describe the same tensor. */
    const hd_bdesc *ts[64 * HD_BACKEND_MAX_ATTRS];
    int n = graph_tensors(d, ts, (int)(sizeof ts / sizeof *ts));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (tensor_uid(ts[i]) == tensor_uid(ts[j]) && !same_tensor(ts[i], ts[j]))
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "unique id %lld names two different tensors in the graph",
                               (long long)tensor_uid(ts[i]));
    hd_bgraph g;
    char why[320];
    return put_i64(d, A(OPERATIONGRAPH_ENGINE_GLOBAL_COUNT),
                   hd_bgraph_analyze(d, &g, why, sizeof why) ? hd_bengine_count(&g) : 0);
}

static cudnnStatus_t finalize_engine(hd_bdesc *d)
{
    static const int req[] = {A(ENGINE_OPERATION_GRAPH), A(ENGINE_GLOBAL_INDEX), -1};
    TRY(require(d, req));
    int64_t idx = -1;
    hd_bget_i64(d, A(ENGINE_GLOBAL_INDEX), &idx);
    const hd_bdesc *gd = hd_bget_desc(d, A(ENGINE_OPERATION_GRAPH), 0);
    if (idx < 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "engine global index is negative (%lld)", (long long)idx);
    hd_bgraph g;
    char why[320];
    if (!hd_bgraph_analyze(gd, &g, why, sizeof why))
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "engine %lld: no hostdnn engine runs this graph: %s", (long long)idx, why);
    if (!hd_bengine_applies(&g, idx, why, sizeof why))
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "engine %lld does not run this graph: %s", (long long)idx, why);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t finalize_engine_cfg(hd_bdesc *d)
{
    static const int req[] = {A(ENGINECFG_ENGINE), -1};
    TRY(require(d, req));
    if (hd_bcount(d, A(ENGINECFG_KNOB_CHOICES)) > 0)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "hostdnn's engines have no knobs; knob choices cannot be applied");
    return CUDNN_STATUS_SUCCESS;
}

/* A finalized engine config of engine INDEX on graph G (a deep copy is stored by the caller). */
static hd_bdesc *make_cfg(const hd_bdesc *g, int64_t index)
{
    hd_bdesc *engine = hd_bdesc_new(B(ENGINE)), *cfg = hd_bdesc_new(B(ENGINECFG));
    cudnnStatus_t st = engine && cfg ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_ALLOC_FAILED;
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_bdesc_store(engine, A(ENGINE_OPERATION_GRAPH), CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g);
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_bdesc_store(engine, A(ENGINE_GLOBAL_INDEX), CUDNN_TYPE_INT64, 1, &index);
    if (st == CUDNN_STATUS_SUCCESS) {
        engine->finalized = 1;
        st = hd_bdesc_store(cfg, A(ENGINECFG_ENGINE), CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &engine);
    }
    if (engine) {
        hd_bdesc_clear(engine);
        hd_object_free(engine);
    }
    if (st != CUDNN_STATUS_SUCCESS) {
        if (cfg) {
            hd_bdesc_clear(cfg);
            hd_object_free(cfg);
        }
        return NULL;
    }
    cfg->finalized = 1;
    return cfg;
}

/* Every engine that runs the graph, best first (all heuristic modes give the same order:
 * the legacy ranking of the convolution's algorithms, see engines.c). */
static cudnnStatus_t finalize_heur(hd_bdesc *d)
{
    static const int req[] = {A(ENGINEHEUR_MODE), A(ENGINEHEUR_OPERATION_GRAPH), -1};
    TRY(require(d, req));
    const hd_bdesc *gd = hd_bget_desc(d, A(ENGINEHEUR_OPERATION_GRAPH), 0);
    hd_bgraph g;
    char why[320];
    int64_t idx[HD_CONV_MAX_ALGOS + 2];
    int n = 0;
    if (!hd_bgraph_analyze(gd, &g, why, sizeof why)) {
        /* A valid question with an empty answer; the log says why it is empty. */
        hd_fail(CUDNN_STATUS_NOT_SUPPORTED, FN, "the heuristics found no engine config: %s", why);
    } else {
        n = hd_bengine_rank(&g, idx, (int)(sizeof idx / sizeof *idx));
        if (n == 0) {
            hd_bengine_applies(&g, 0, why, sizeof why);
            hd_fail(CUDNN_STATUS_NOT_SUPPORTED, FN, "the heuristics found no engine config: no engine runs this graph "
                    "(engine 0: %s)", why);
        }
    }
    hd_bdesc *cfgs[HD_CONV_MAX_ALGOS + 2];
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    int made = 0;
    for (; made < n; made++)
        if (!(cfgs[made] = make_cfg(gd, idx[made]))) {
            st = CUDNN_STATUS_ALLOC_FAILED;
            break;
        }
    if (st == CUDNN_STATUS_SUCCESS)
        st = hd_bdesc_store(d, A(ENGINEHEUR_RESULTS), CUDNN_TYPE_BACKEND_DESCRIPTOR, n, n ? (const void *)cfgs : NULL);
    for (int i = 0; i < made; i++) {
        hd_bdesc_clear(cfgs[i]);
        hd_object_free(cfgs[i]);
    }
    if (st != CUDNN_STATUS_SUCCESS)
        return HD_FAIL(st, "out of host memory building the heuristic results");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t finalize_variant_pack(hd_bdesc *d)
{
    if (hd_bcount(d, A(VARIANT_PACK_UNIQUE_IDS)) != hd_bcount(d, A(VARIANT_PACK_DATA_POINTERS)))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the variant pack has %lld unique ids but %lld data pointers",
                       (long long)hd_bcount(d, A(VARIANT_PACK_UNIQUE_IDS)),
                       (long long)hd_bcount(d, A(VARIANT_PACK_DATA_POINTERS)));
    const hd_battr *u = hd_bdesc_find(d, A(VARIANT_PACK_UNIQUE_IDS));
    for (int64_t i = 0; u && i < u->count; i++)
        for (int64_t j = 0; j < i; j++)
            if (((int64_t *)u->data)[i] == ((int64_t *)u->data)[j])
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "unique id %lld appears twice in the variant pack",
                               (long long)((int64_t *)u->data)[i]);
    if (!hd_bdesc_find(d, A(VARIANT_PACK_WORKSPACE))) {
        void *none = NULL;
        TRY(hd_bdesc_store(d, A(VARIANT_PACK_WORKSPACE), CUDNN_TYPE_VOID_PTR, 1, &none));
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t finalize_plan(hd_bdesc *d)
{
    static const int req[] = {A(EXECUTION_PLAN_HANDLE), A(EXECUTION_PLAN_ENGINE_CONFIG), -1};
    TRY(require(d, req));
    const hd_bdesc *cfg = hd_bget_desc(d, A(EXECUTION_PLAN_ENGINE_CONFIG), 0);
    const hd_bdesc *engine = hd_bget_desc(cfg, A(ENGINECFG_ENGINE), 0);
    const hd_bdesc *gd = hd_bget_desc(engine, A(ENGINE_OPERATION_GRAPH), 0);
    int64_t idx = 0;
    hd_bget_i64(engine, A(ENGINE_GLOBAL_INDEX), &idx);
    hd_bgraph g;
    char why[320];
    if (!hd_bgraph_analyze(gd, &g, why, sizeof why))
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "no hostdnn engine runs this graph: %s", why);
    hd_bplan *p;
    cudnnStatus_t st = hd_bplan_create(&g, idx, &p);
    if (!p)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    if (st != CUDNN_STATUS_SUCCESS) {
        st = HD_FAIL(st, "engine %lld: %s", (long long)idx, hd_bplan_why(p));
        hd_bplan_free(p);
        return st;
    }
    hd_bplan_free(d->plan);
    d->plan = p;
    TRY(put_i64(d, A(EXECUTION_PLAN_WORKSPACE_SIZE), (int64_t)hd_bplan_workspace(p)));
    return hd_bdesc_store(d, A(EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS), CUDNN_TYPE_INT64, 0, NULL);
}

cudnnStatus_t hd_bdesc_finalize(hd_bdesc *d)
{
    cudnnStatus_t st;
    switch ((int)d->type) {
    case B(TENSOR): st = finalize_tensor(d); break;
    case B(CONVOLUTION): st = finalize_convolution(d); break;
    case B(POINTWISE): st = finalize_pointwise(d); break;
    case B(KNOB_CHOICE): {
        static const int req[] = {A(KNOB_CHOICE_KNOB_TYPE), A(KNOB_CHOICE_KNOB_VALUE), -1};
        st = require(d, req);
        break;
    }
    case B(MATMUL): {
        static const int req[] = {A(MATMUL_COMP_TYPE), -1};
        st = require(d, req);
        break;
    }
    case B(REDUCTION): {
        static const int req[] = {A(REDUCTION_OPERATOR), A(REDUCTION_COMP_TYPE), -1};
        st = require(d, req);
        break;
    }
    case B(OPERATION_CONVOLUTION_FORWARD): case B(OPERATION_CONVOLUTION_BACKWARD_DATA):
    case B(OPERATION_CONVOLUTION_BACKWARD_FILTER):
        st = finalize_conv_op(d);
        break;
    case B(OPERATION_POINTWISE): st = finalize_pointwise_op(d); break;
    case B(OPERATION_GEN_STATS): {
        static const int req[] = {A(OPERATION_GENSTATS_MODE), A(OPERATION_GENSTATS_MATH_PREC), A(OPERATION_GENSTATS_XDESC),
                                  A(OPERATION_GENSTATS_SUMDESC), A(OPERATION_GENSTATS_SQSUMDESC), -1};
        st = require(d, req);
        break;
    }
    case B(OPERATION_BN_FINALIZE_STATISTICS): {
        static const int req[] = {A(OPERATION_BN_FINALIZE_STATS_MODE), A(OPERATION_BN_FINALIZE_MATH_PREC),
                                  A(OPERATION_BN_FINALIZE_Y_SUM_DESC), A(OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC),
                                  A(OPERATION_BN_FINALIZE_SCALE_DESC), A(OPERATION_BN_FINALIZE_BIAS_DESC),
                                  A(OPERATION_BN_FINALIZE_EQ_SCALE_DESC), A(OPERATION_BN_FINALIZE_EQ_BIAS_DESC), -1};
        st = require(d, req);
        break;
    }
    case B(OPERATION_MATMUL): st = finalize_matmul_op(d); break;
    case B(OPERATION_REDUCTION): st = finalize_reduction_op(d); break;
    case B(OPERATIONGRAPH): st = finalize_graph(d); break;
    case B(ENGINE): st = finalize_engine(d); break;
    case B(ENGINECFG): st = finalize_engine_cfg(d); break;
    case B(ENGINEHEUR): st = finalize_heur(d); break;
    case B(EXECUTION_PLAN): st = finalize_plan(d); break;
    case B(VARIANT_PACK): st = finalize_variant_pack(d); break;
    default:
        /* KNOB_INFO, LAYOUT_INFO (and INTERMEDIATE_INFO): filled in by the library, never built by users. */
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, FN, "a %s is filled in by cuDNN and cannot be finalized by the user",
                       hd_bdesc_type_name((int)d->type));
    }
    if (st == CUDNN_STATUS_SUCCESS)
        d->finalized = 1;
    return st;
}
