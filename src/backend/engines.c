/*
 * The backend's engines: which global indices a graph has, whether an engine runs it, the
 * heuristic ranking, and the plan an execution plan keeps (execute.c runs it).
 *
 * Graphs headed by a convolution (alone or followed by a pointwise chain) have, for the
 * direction's n legacy algorithms, n + 1 engines:
 *   0        the first solver of the direction that needs no workspace for the problem
 *            (cuDNN 8.1's engine 0 of every convolution direction runs without workspace);
 *   1..n-1   legacy algorithm k (the solver cudnnConvolution*(algo = k) would run);
 *   n        legacy algorithm 0 (with the workspace it needs, if any).
 * A forward convolution whose chain is bias add / residual add / relu runs the chain inside
 * the solver's store (the epilogue cudnnConvolutionBiasActivationForward uses); any other
 * chain runs in one pass over the convolution's output after it.  Matmul graphs and chains
 * without a head have one engine, 0.  No engine has knobs.
 */
#include "core/api.h"
#include "core/desc_set.h"
#include "backend/backend.h"
#include "backend/plan.h"

#include <float.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define B(x) CUDNN_BACKEND_##x##_DESCRIPTOR
#define A(x) CUDNN_ATTR_##x
#define FN "cudnnBackendFinalize"

static int say(char *why, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return 0;
}

void hd_bplan_free(hd_bplan *p)
{
    free(p);
}

size_t hd_bplan_workspace(const hd_bplan *p) { return p->workspace; }
const char *hd_bplan_why(const hd_bplan *p) { return p->why; }

static int is_conv(int type)
{
    return type == B(OPERATION_CONVOLUTION_FORWARD) || type == B(OPERATION_CONVOLUTION_BACKWARD_DATA) ||
           type == B(OPERATION_CONVOLUTION_BACKWARD_FILTER);
}

static hd_conv_dir direction(int type)
{
    if (type == B(OPERATION_CONVOLUTION_FORWARD))
        return HD_CONV_FWD;
    return type == B(OPERATION_CONVOLUTION_BACKWARD_DATA) ? HD_CONV_BWD_DATA : HD_CONV_BWD_FILTER;
}

int64_t hd_bengine_count(const hd_bgraph *g)
{
    if (is_conv(g->head_type))
        return hd_conv_algo_count(direction(g->head_type)) + 1;
    return 1;
}

/* ---- the convolution as legacy descriptors ---- */

static int read_tensor(const hd_bdesc *t, int *nb, int *dims, int *strides)
{
    int64_t d[CUDNN_DIM_MAX], s[CUDNN_DIM_MAX], vc = 1;
    hd_bget_i64(t, A(TENSOR_VECTOR_COUNT), &vc);
    if (vc != 1)
        return 0;
    *nb = hd_btensor_dims(t, d, s);
    for (int i = 0; i < *nb; i++) {
        if (d[i] > INT_MAX || s[i] > INT_MAX)
            return 0;
        dims[i] = (int)d[i];
        strides[i] = (int)s[i];
    }
    return 1;
}

static int make_tensor(const hd_bdesc *t, struct cudnnTensorStruct *out, char *why, size_t size)
{
    int nb, dims[CUDNN_DIM_MAX], strides[CUDNN_DIM_MAX];
    if (!read_tensor(t, &nb, dims, strides))
        return say(why, size, "tensor uid %lld is vectorized or has sizes beyond int", (long long)hd_btensor_uid(t));
    hd_object_init(out, HD_TAG_TENSOR);
    if (hd_tensor_set_strided(out, (cudnnDataType_t)hd_btensor_dtype(t), nb, dims, strides, FN) != CUDNN_STATUS_SUCCESS)
        return say(why, size, "tensor uid %lld is not a tensor the convolution engine takes", (long long)hd_btensor_uid(t));
    return 1;
}

/* Are STRIDES the packed strides of DIMS taken in ORDER (outermost first)?  Size-1
 * dimensions may have any stride. */
static int packed_in_order(int nb, const int *dims, const int *strides, const int *order)
{
    int64_t expect = 1;
    for (int k = nb - 1; k >= 0; k--) {
        int i = order[k];
        if (dims[i] != 1 && strides[i] != expect)
            return 0;
        expect *= dims[i];
    }
    return 1;
}

static int make_filter(const hd_bdesc *t, struct cudnnFilterStruct *out, char *why, size_t size)
{
    int nb, dims[CUDNN_DIM_MAX], strides[CUDNN_DIM_MAX];
    if (!read_tensor(t, &nb, dims, strides))
        return say(why, size, "the filter (uid %lld) is vectorized or has sizes beyond int", (long long)hd_btensor_uid(t));
    int kcrs[CUDNN_DIM_MAX], krsc[CUDNN_DIM_MAX];
    for (int i = 0; i < nb; i++)
        kcrs[i] = i;
    krsc[0] = 0;
    for (int i = 1; i < nb - 1; i++)
        krsc[i] = i + 1;
    krsc[nb - 1] = 1;
    cudnnTensorFormat_t fmt;
    if (packed_in_order(nb, dims, strides, kcrs))
        fmt = CUDNN_TENSOR_NCHW;
    else if (packed_in_order(nb, dims, strides, krsc))
        fmt = CUDNN_TENSOR_NHWC;
    else
        return say(why, size, "the filter (uid %lld) must be packed KCRS or KRSC", (long long)hd_btensor_uid(t));
    hd_object_init(out, HD_TAG_FILTER);
    if (hd_filter_set(out, (cudnnDataType_t)hd_btensor_dtype(t), fmt, nb, dims, FN) != CUDNN_STATUS_SUCCESS)
        return say(why, size, "the filter (uid %lld) is not one the convolution engine takes", (long long)hd_btensor_uid(t));
    return 1;
}

static int make_conv(const hd_bdesc *c, int groups, struct cudnnConvolutionStruct *out, char *why, size_t size)
{
    int64_t sd = 0;
    int mode = 0, comp = 0;
    hd_bget_i64(c, A(CONVOLUTION_SPATIAL_DIMS), &sd);
    hd_bget_int(c, A(CONVOLUTION_CONV_MODE), &mode);
    hd_bget_int(c, A(CONVOLUTION_COMP_TYPE), &comp);
    const int64_t *pre = hd_bdesc_find(c, A(CONVOLUTION_PRE_PADDINGS))->data,
                  *post = hd_bdesc_find(c, A(CONVOLUTION_POST_PADDINGS))->data,
                  *str = hd_bdesc_find(c, A(CONVOLUTION_FILTER_STRIDES))->data,
                  *dil = hd_bdesc_find(c, A(CONVOLUTION_DILATIONS))->data;
    if (sd < 2 || sd > 3)
        return say(why, size, "CONVOLUTION_SPATIAL_DIMS is %lld; 2-d and 3-d convolutions run", (long long)sd);
    int pad[CUDNN_DIM_MAX], stride[CUDNN_DIM_MAX], dilation[CUDNN_DIM_MAX];
    for (int i = 0; i < sd; i++) {
        if (pre[i] != post[i])
            return say(why, size, "CONVOLUTION_PRE_PADDINGS / POST_PADDINGS differ (%lld before, %lld after)",
                       (long long)pre[i], (long long)post[i]);
        pad[i] = (int)pre[i];
        stride[i] = (int)str[i];
        dilation[i] = (int)dil[i];
    }
    hd_object_init(out, HD_TAG_CONV);
    hd_conv_desc_defaults(out);
    if (hd_conv_desc_set(out, (int)sd, pad, stride, dilation, (cudnnConvolutionMode_t)mode, (cudnnDataType_t)comp, FN) !=
        CUDNN_STATUS_SUCCESS)
        return say(why, size, "the convolution descriptor is not one the convolution engine takes");
    if (groups > 1)
        out->group_count = groups;
    return 1;
}

static int build_conv(hd_bplan *p, char *why, size_t size)
{
    const hd_bdesc *conv, *x, *w, *y;
    p->alpha = 1;
    p->beta = 0;
    hd_bconv_parts(p->g.head, &conv, &x, &w, &y, &p->alpha, &p->beta);
    p->dir = direction(p->g.head_type);
    p->uid_x = hd_btensor_uid(x), p->uid_w = hd_btensor_uid(w), p->uid_y = hd_btensor_uid(y);
    int64_t xd[CUDNN_DIM_MAX], wd[CUDNN_DIM_MAX];
    hd_btensor_dims(x, xd, NULL);
    hd_btensor_dims(w, wd, NULL);
    if (!make_tensor(x, &p->x, why, size) || !make_tensor(y, &p->y, why, size) || !make_filter(w, &p->w, why, size) ||
        !make_conv(conv, (int)(xd[1] / wd[1]), &p->conv, why, size))
        return 0;
    p->double_scalars = hd_btensor_dtype(x) == CUDNN_DATA_DOUBLE;
    return 1;
}

/* The solver of engine INDEX for the plan's problem, planned into *PL. */
static int pick_solver(hd_bplan *p, int64_t index, hd_conv_problem *prob, hd_conv_plan *pl, char *why, size_t size)
{
    if (hd_conv_setup(prob, &p->x, &p->w, &p->conv, &p->y, FN) != CUDNN_STATUS_SUCCESS)
        return say(why, size, "the convolution engine does not take this problem (see the log line before)");
    const char *reason = "";
    int n = hd_conv_algo_count(p->dir);
    if (index == 0) {
        int ns;
        const hd_conv_solver *const *t = hd_conv_solvers(p->dir, &ns);
        for (int i = 0; i < ns; i++)
            if (hd_conv_plan_for(t[i], prob, pl, &reason) && pl->ws == 0)
                return 1;
        return say(why, size, "engine 0: no solver runs this problem without workspace");
    }
    int algo = index == n ? 0 : (int)index;
    if (!hd_conv_pick(prob, p->dir, algo, pl, &reason))
        return say(why, size, "engine %lld (legacy algorithm %d): %s", (long long)index, algo, reason);
    return 1;
}

/* Per-channel bias: every dimension 1 but the channels, which are the output's. */
static int per_channel(const hd_bdesc *t, const int64_t *od, int nd)
{
    int64_t d[CUDNN_DIM_MAX];
    if (hd_btensor_dims(t, d, NULL) != nd)
        return 0;
    for (int i = 0; i < nd; i++)
        if (d[i] != (i == 1 ? od[1] : 1))
            return 0;
    return 1;
}

static int same_layout(const hd_bdesc *a, const hd_bdesc *b)
{
    int64_t da[CUDNN_DIM_MAX], sa[CUDNN_DIM_MAX], db[CUDNN_DIM_MAX], sb[CUDNN_DIM_MAX];
    int na = hd_btensor_dims(a, da, sa), nb = hd_btensor_dims(b, db, sb);
    return na == nb && !memcmp(da, db, (size_t)na * 8) && !memcmp(sa, sb, (size_t)na * 8) &&
           hd_btensor_dtype(a) == hd_btensor_dtype(b);
}

/* Can the chain after a forward convolution run inside the solver's store, as
 * act(alpha conv + alpha2 z + bias)?  Fills the epilogue fields of P when it can. */
static int epilogue_fits(hd_bplan *p)
{
    const hd_bgraph *g = &p->g;
    if (p->dir != HD_CONV_FWD || g->nchain == 0 || !hd_btensor_virtual(g->head_out) || p->beta != 0 ||
        !same_layout(g->head_out, g->out))
        return 0;
    int64_t od[CUDNN_DIM_MAX];
    int nd = hd_btensor_dims(g->out, od, NULL), ydt = hd_btensor_dtype(g->out);
    double alpha = p->alpha, alpha2 = 0;
    const hd_bdesc *bias = NULL, *z = NULL;
    int relu = 0;
    for (int k = 0; k < g->nchain; k++) {
        const hd_bdesc *op = g->chain[k], *in, *other, *out;
        const hd_bdesc *pw = hd_bget_desc(op, A(OPERATION_POINTWISE_PW_DESCRIPTOR), 0);
        hd_bpw_tensors(op, g->swapped[k], &in, &other, &out);
        if (k < g->nchain - 1 && !hd_btensor_virtual(out))
            return 0;                /* the user wants this intermediate: it must be stored */
        int mode = -1;
        double a1 = 1, a2 = 1;
        hd_bget_int(pw, A(POINTWISE_MODE), &mode);
        hd_bget_double(op, A(OPERATION_POINTWISE_ALPHA1), &a1);
        hd_bget_double(op, A(OPERATION_POINTWISE_ALPHA2), &a2);
        if (g->swapped[k]) {
            double t = a1;
            a1 = a2, a2 = t;
        }
        if (relu)
            return 0;                /* relu must come last */
        if (mode == CUDNN_POINTWISE_ADD && !bias && per_channel(other, od, nd) && hd_btensor_dtype(other) == ydt &&
            a1 == 1 && a2 == 1) {
            bias = other;
        } else if (mode == CUDNN_POINTWISE_ADD && !z && same_layout(other, g->out)) {
            if (a1 != 1 && bias)
                return 0;            /* it would scale the bias too */
            alpha *= a1, alpha2 = a2, z = other;
        } else if (mode == CUDNN_POINTWISE_RELU_FWD && a1 == 1) {
            double lo = 0, hi = DBL_MAX, slope = 0;
            int nan = CUDNN_NOT_PROPAGATE_NAN;
            hd_bget_int(pw, A(POINTWISE_NAN_PROPAGATION), &nan);
            if (nan != CUDNN_NOT_PROPAGATE_NAN)
                return 0;            /* the fused store turns NaN into 0 */
            hd_bget_double(pw, A(POINTWISE_RELU_LOWER_CLIP), &lo);
            hd_bget_double(pw, A(POINTWISE_RELU_UPPER_CLIP), &hi);
            hd_bget_double(pw, A(POINTWISE_RELU_LOWER_CLIP_SLOPE), &slope);
            if (lo != 0 || hi < FLT_MAX || slope != 0)
                return 0;
            relu = 1;
        } else {
            return 0;
        }
    }
    p->epilogue = 1;
    p->epi_alpha = alpha, p->epi_alpha2 = z ? alpha2 : 0, p->epi_relu = relu;
    p->uid_z = z ? hd_btensor_uid(z) : -1;     /* the store reads z only when alpha2 != 0 */
    if (bias) {
        int64_t bs[CUDNN_DIM_MAX], bd[CUDNN_DIM_MAX];
        hd_btensor_dims(bias, bd, bs);
        p->uid_bias = hd_btensor_uid(bias), p->bias_stride = bs[1], p->bias_dt = hd_btensor_dtype(bias);
    } else {
        /* The fused store always adds a bias: a chain without one gets zeros in the workspace. */
        p->uid_bias = -1, p->bias_stride = 1, p->bias_dt = ydt;
        p->virt_bytes = (size_t)od[1] * hd_dtype_size((cudnnDataType_t)ydt);
    }
    return 1;
}

/* Bytes the tensor's strides span. */
static size_t span_bytes(const hd_bdesc *t)
{
    int64_t d[CUDNN_DIM_MAX], s[CUDNN_DIM_MAX], last = 0;
    int n = hd_btensor_dims(t, d, s);
    for (int i = 0; i < n; i++)
        last += (d[i] - 1) * s[i];
    return (size_t)(last + 1) * hd_dtype_size((cudnnDataType_t)hd_btensor_dtype(t));
}

static size_t align64(size_t v) { return (v + 63) & ~(size_t)63; }

/* ---- matmul ---- */

static int build_matmul(hd_bplan *p, char *why, size_t size)
{
    const hd_bdesc *op = p->g.head;
    const hd_bdesc *a = hd_bget_desc(op, A(OPERATION_MATMUL_ADESC), 0), *b = hd_bget_desc(op, A(OPERATION_MATMUL_BDESC), 0),
                   *c = hd_bget_desc(op, A(OPERATION_MATMUL_CDESC), 0), *md = hd_bget_desc(op, A(OPERATION_MATMUL_DESC), 0);
    int comp = CUDNN_DATA_FLOAT;
    hd_bget_int(md, A(MATMUL_COMP_TYPE), &comp);
    if (comp != CUDNN_DATA_FLOAT && comp != CUDNN_DATA_HALF && comp != CUDNN_DATA_BFLOAT16)
        return say(why, size, "MATMUL_COMP_TYPE %s is not computed (float, half, bfloat16 run, in float)",
                   hd_dtype_name((cudnnDataType_t)comp));
    if (hd_bcount(op, A(OPERATION_MATMUL_IRREGULARLY_STRIDED_BATCH_COUNT)) > 0)
        return say(why, size, "OPERATION_MATMUL_IRREGULARLY_STRIDED_BATCH_COUNT is not supported");
    int64_t ad[CUDNN_DIM_MAX], bd[CUDNN_DIM_MAX], cd[CUDNN_DIM_MAX];
    hd_matmul_desc *m = &p->mm;
    memset(m, 0, sizeof *m);
    int n = hd_btensor_dims(a, ad, m->a.strides);
    hd_btensor_dims(b, bd, m->b.strides);
    hd_btensor_dims(c, cd, m->c.strides);
    if (n > HD_PW_MAX_DIMS)
        return say(why, size, "matmul tensors have more than %d dimensions", HD_PW_MAX_DIMS);
    const hd_bdesc *ts[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        int dt = hd_btensor_dtype(ts[i]);
        int64_t vc = 1;
        hd_bget_i64(ts[i], A(TENSOR_VECTOR_COUNT), &vc);
        if ((dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16) || vc != 1)
            return say(why, size, "matmul tensor uid %lld is %s; matmul runs float, half and bfloat16 tensors",
                       (long long)hd_btensor_uid(ts[i]), hd_dtype_name((cudnnDataType_t)dt));
    }
    m->nbatch = n - 2;
    for (int k = 0; k < n - 2; k++) {
        if ((ad[k] != cd[k] && ad[k] != 1) || (bd[k] != cd[k] && bd[k] != 1))
            return say(why, size, "matmul batch dimension %d: A has %lld, B %lld, C %lld (each must be C's or 1)", k,
                       (long long)ad[k], (long long)bd[k], (long long)cd[k]);
        m->batch[k] = cd[k];
        if (ad[k] == 1)
            m->a.strides[k] = 0;
        if (bd[k] == 1)
            m->b.strides[k] = 0;
    }
    m->M = cd[n - 2], m->N = cd[n - 1], m->K = ad[n - 1];
    m->a.dt = (cudnnDataType_t)hd_btensor_dtype(a);
    m->b.dt = (cudnnDataType_t)hd_btensor_dtype(b);
    m->c.dt = (cudnnDataType_t)hd_btensor_dtype(c);
    p->uid_x = hd_btensor_uid(a), p->uid_w = hd_btensor_uid(b), p->uid_y = hd_btensor_uid(c);
    if (hd_btensor_virtual(c)) {
        /* A virtual C stays in float, packed, for the chain to read: no rounding in between. */
        int64_t s = 1;
        for (int k = n - 1; k >= 0; k--) {
            m->c.strides[k] = s;
            s *= cd[k];
        }
        m->c.dt = CUDNN_DATA_FLOAT;
        p->virt_bytes = (size_t)s * sizeof(float);
    }
    p->ws_head = hd_matmul_workspace(m);
    return 1;
}

/* ---- plans ---- */

cudnnStatus_t hd_bplan_create(const hd_bgraph *g, int64_t index, hd_bplan **out)
{
    *out = NULL;
    hd_bplan *p = calloc(1, sizeof *p);
    if (!p)
        return CUDNN_STATUS_ALLOC_FAILED;
    p->g = *g;
    p->engine = index;
    char *why = p->why;
    size_t size = sizeof p->why;
    int ok = 1;
    if (index < 0 || index >= hd_bengine_count(g)) {
        ok = say(why, size, "engine %lld does not exist for this graph (%lld engines)", (long long)index,
                 (long long)hd_bengine_count(g));
    } else if (is_conv(g->head_type)) {
        hd_conv_problem prob;
        hd_conv_plan pl;
        ok = build_conv(p, why, size) && pick_solver(p, index, &prob, &pl, why, size);
        if (ok) {
            p->solver = pl.solver;
            p->ws_head = hd_conv_ws_size(&pl);
            if (hd_btensor_virtual(g->head_out)) {
                if (p->beta != 0)
                    ok = say(why, size, "the convolution's BETA is %g but its output (uid %lld) is virtual", p->beta,
                             (long long)hd_btensor_uid(g->head_out));
                else if (!epilogue_fits(p))
                    p->virt_bytes = span_bytes(g->head_out);
            }
        }
    } else if (g->head_type == B(OPERATION_MATMUL)) {
        ok = build_matmul(p, why, size);
    }
    if (!ok) {
        cudnnStatus_t st = CUDNN_STATUS_NOT_SUPPORTED;
        *out = p;                    /* the caller reads p->why, then frees */
        return st;
    }
    p->virt_off = align64(p->ws_head);
    p->workspace = p->virt_bytes ? p->virt_off + p->virt_bytes : p->ws_head;
    *out = p;
    return CUDNN_STATUS_SUCCESS;
}

int hd_bengine_applies(const hd_bgraph *g, int64_t index, char *why, size_t size)
{
    hd_bplan *p;
    cudnnStatus_t st = hd_bplan_create(g, index, &p);
    if (!p)
        return say(why, size, "out of host memory");
    if (st != CUDNN_STATUS_SUCCESS)
        snprintf(why, size, "%s", p->why);
    hd_bplan_free(p);
    return st == CUDNN_STATUS_SUCCESS;
}

/* Below this many multiply-adds a convolution counts as small for the ranking. */
#define SMALL_MACS (1 << 20)

static int add_unique(int64_t *out, int n, int max, int64_t e)
{
    for (int i = 0; i < n; i++)
        if (out[i] == e)
            return n;
    if (n < max)
        out[n++] = e;
    return n;
}

int hd_bengine_rank(const hd_bgraph *g, int64_t *out, int max)
{
    char why[256];
    if (!is_conv(g->head_type))
        return hd_bengine_applies(g, 0, why, sizeof why) && max > 0 ? (out[0] = 0, 1) : 0;
    /* The legacy ranking of the convolution's algorithms, engine 0 where algorithm 0 ranks. */
    hd_bplan *p = calloc(1, sizeof *p);
    if (!p)
        return 0;
    p->g = *g;
    hd_conv_problem prob;
    int n = 0;
    if (build_conv(p, why, sizeof why) &&
        hd_conv_setup(&prob, &p->x, &p->w, &p->conv, &p->y, FN) == CUDNN_STATUS_SUCCESS) {
        hd_conv_perf rows[HD_CONV_MAX_ALGOS];
        hd_conv_rank(&prob, p->dir, rows);
        int count = hd_conv_algo_count(p->dir);
        /* Small problems: packing and GEMM set-up outweigh what the workspace solvers save,
         * so the engine without workspace leads (and the caller needs no allocation). */
        if ((double)prob.N * (double)prob.K * (double)prob.P * (double)prob.CRS < SMALL_MACS &&
            hd_bengine_applies(g, 0, why, sizeof why))
            n = add_unique(out, n, max, 0);
        for (int i = 0; i < count; i++) {
            if (rows[i].status != CUDNN_STATUS_SUCCESS)
                continue;
            if (rows[i].algo == 0) {
                if (hd_bengine_applies(g, 0, why, sizeof why))
                    n = add_unique(out, n, max, 0);
                if (hd_bengine_applies(g, count, why, sizeof why))
                    n = add_unique(out, n, max, count);
            } else if (hd_bengine_applies(g, rows[i].algo, why, sizeof why)) {
                n = add_unique(out, n, max, rows[i].algo);
            }
        }
        /* Engine 0 may run where no legacy algorithm 0 solver does. */
        if (hd_bengine_applies(g, 0, why, sizeof why))
            n = add_unique(out, n, max, 0);
    }
    hd_bplan_free(p);
    return n;
}
