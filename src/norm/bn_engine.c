/* The batch-normalization engine (see bn_engine.h). */
#include "norm/bn_engine.h"
#include "kernels/bn/bn-ukernels.h"
#include "kernels/eltwise/eltwise-ukernels.h"
#include "core/parallel.h"
#include "core/tensor.h"

#include <math.h>
#include <string.h>

/* ---------- activation ---------- */

double hd_bn_act_apply(const hd_bn_act *a, double v, double *deriv)
{
    double r = v, d = 1.0;
    if (a->on) {
        switch (a->mode) {
        case CUDNN_ACTIVATION_RELU:
            r = v > 0.0 ? v : (v != v && a->propagate_nan) ? v : 0.0;
            d = v > 0.0 ? 1.0 : 0.0;
            break;
        case CUDNN_ACTIVATION_CLIPPED_RELU:
            r = v != v ? (a->propagate_nan ? v : 0.0) : v <= 0.0 ? 0.0 : v >= a->coef ? a->coef : v;
            d = v > 0.0 && v < a->coef ? 1.0 : 0.0;
            break;
        case CUDNN_ACTIVATION_SIGMOID:
            r = 1.0 / (1.0 + exp(-v));
            d = r * (1.0 - r);
            break;
        case CUDNN_ACTIVATION_TANH:
            r = tanh(v);
            d = 1.0 - r * r;
            break;
        case CUDNN_ACTIVATION_ELU:
            r = v > 0.0 ? v : a->coef * expm1(v);
            d = v > 0.0 ? 1.0 : a->coef * exp(v);
            break;
        default:   /* IDENTITY */
            break;
        }
    }
    if (deriv)
        *deriv = d;
    return r;
}

cudnnStatus_t hd_bn_act_read(const char *fn, cudnnActivationDescriptor_t d, hd_bn_act *out)
{
    if (!d)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "activationDesc is NULL but the ops need an activation");
    if (!hd_object_is(d, HD_TAG_ACTIVATION))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "activationDesc is a %s, not an activation descriptor",
                       hd_object_kind(d));
    cudnnActivationMode_t mode;
    cudnnNanPropagation_t nan;
    double coef;
    cudnnStatus_t st = cudnnGetActivationDescriptor(d, &mode, &nan, &coef);
    if (st != CUDNN_STATUS_SUCCESS)
        return hd_fail(st, fn, "cudnnGetActivationDescriptor refused activationDesc (%s)", cudnnGetErrorString(st));
    switch (mode) {
    case CUDNN_ACTIVATION_RELU: case CUDNN_ACTIVATION_CLIPPED_RELU: case CUDNN_ACTIVATION_SIGMOID:
    case CUDNN_ACTIVATION_TANH: case CUDNN_ACTIVATION_ELU: case CUDNN_ACTIVATION_IDENTITY:
        break;
    default:
        return hd_warn(CUDNN_STATUS_NOT_SUPPORTED, fn, "activation mode %d is not supported in a fused normalization",
                       (int)mode);
    }
    out->on = 1;
    out->mode = mode;
    out->propagate_nan = nan == CUDNN_PROPAGATE_NAN;
    out->coef = coef;
    return CUDNN_STATUS_SUCCESS;
}

/* ---------- checks ---------- */

cudnnDataType_t hd_bn_param_type(cudnnDataType_t t)
{
    return t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

cudnnStatus_t hd_bn_check_x(const char *fn, const struct cudnnTensorStruct *x, const char *name)
{
    if (x->nbDims != 4 && x->nbDims != 5)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s has %d dims; only 4-d and 5-d tensors are supported", name,
                       x->nbDims);
    if (!hd_is_float_type(x->dtype) || x->vect_c > 1)
        return hd_warn(CUDNN_STATUS_NOT_SUPPORTED, fn, "%s: %s data is not supported by normalization", name,
                       hd_dtype_name(x->dtype));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_bn_check_like_x(const char *fn, const struct cudnnTensorStruct *x, const struct cudnnTensorStruct *t,
                                 const char *name)
{
    if (!hd_same_dims(x, t))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s dimensions differ from xDesc", name);
    if (t->dtype != x->dtype)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s is %s but xDesc is %s", name, hd_dtype_name(t->dtype),
                       hd_dtype_name(x->dtype));
    if (t->vect_c > 1)
        return hd_warn(CUDNN_STATUS_NOT_SUPPORTED, fn, "%s: vectorized layouts are not supported", name);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_bn_check_param(const char *fn, const struct cudnnTensorStruct *x, const struct cudnnTensorStruct *p,
                                int per_act, const char *name)
{
    if (p->nbDims != x->nbDims)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s has %d dims; xDesc has %d", name, p->nbDims, x->nbDims);
    for (int i = 0; i < x->nbDims; i++) {
        int want = i == 0 ? 1 : i == 1 ? x->dims[1] : per_act ? x->dims[i] : 1;
        if (p->dims[i] != want)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s dimension %d is %d; this mode needs %d", name, i,
                           p->dims[i], want);
    }
    if (p->dtype != hd_bn_param_type(x->dtype))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s is %s; %s data needs %s parameters", name,
                       hd_dtype_name(p->dtype), hd_dtype_name(x->dtype),
                       hd_dtype_name(hd_bn_param_type(x->dtype)));
    return CUDNN_STATUS_SUCCESS;
}

/* ---------- rows ---------- */

void hd_bn_problem_init(hd_bn_problem *pb, const struct cudnnTensorStruct *xDesc, int per_act, int nthreads, int isa)
{
    memset(pb, 0, sizeof *pb);
    pb->per_act = per_act;
    pb->N = xDesc->dims[0];
    pb->C = xDesc->dims[1];
    pb->S = 1;
    for (int i = 2; i < xDesc->nbDims; i++)
        pb->S *= xDesc->dims[i];
    pb->F = per_act ? pb->C * pb->S : pb->C;
    pb->nthreads = nthreads < 1 ? 1 : nthreads;
    pb->isa = isa;
}

/* Rows stored contiguously (spatial dims packed inside each (n, c) plane). */
static int row_packed(const hd_view *v)
{
    if (v->vect != 1)
        return 0;
    int64_t want = 1;
    for (int d = 4; d >= 2; d--) {
        if (v->dims[d] > 1 && v->strides[d] != want)
            return 0;
        want *= v->dims[d];
    }
    return 1;
}

static int row_contig(const hd_view *v) { return v->dtype == CUDNN_DATA_FLOAT && row_packed(v); }
/* HALF and BFLOAT16 rows: converted to float rows, then the FLOAT kernels. */
static int row_half(const hd_view *v)
{
    return (v->dtype == CUDNN_DATA_HALF || v->dtype == CUDNN_DATA_BFLOAT16) && row_packed(v);
}

/* The widening / narrowing kernel of a 16-bit view. */
static void to_f32(const hd_bn_f32_kernels *k, const hd_view *v, const void *p, int64_t off, float *f, size_t n)
{
    (v->dtype == CUDNN_DATA_HALF ? k->h2f : k->b2f)((const uint16_t *)p + off, f, n);
}

static void from_f32(const hd_bn_f32_kernels *k, const hd_view *v, void *p, int64_t off, const float *f, size_t n)
{
    (v->dtype == CUDNN_DATA_HALF ? k->f2h : k->f2b)(f, (uint16_t *)p + off, n);
}

/* Channels contiguous and the spatial dims packed around them (NHWC-like): each sample is a
 * matrix of S pixels x C channels.  FLOAT runs the column kernels directly; HALF and
 * BFLOAT16 convert blocks of HD_BN_BLK pixels to float first. */
#define HD_BN_BLK 16
static int nhwc_packed(const hd_view *v)
{
    if (v->vect != 1 || v->dims[1] < 2 || v->strides[1] != 1)
        return 0;
    int64_t want = v->dims[1];
    for (int d = 4; d >= 2; d--) {
        if (v->dims[d] > 1 && v->strides[d] != want)
            return 0;
        want *= v->dims[d];
    }
    return 1;
}

static int nhwc_contig(const hd_view *v)
{
    return (v->dtype == CUDNN_DATA_FLOAT || v->dtype == CUDNN_DATA_HALF || v->dtype == CUDNN_DATA_BFLOAT16) &&
           nhwc_packed(v);
}

/* Rows in and out of double buffers, with the type switch hoisted out of the loops. */
#define ROW_LOOP(BODY) \
    for (int i2 = 0; i2 < v->dims[2]; i2++) \
        for (int i3 = 0; i3 < v->dims[3]; i3++) { \
            int64_t o = base + i2 * v->strides[2] + i3 * v->strides[3]; \
            for (int i4 = 0; i4 < v->dims[4]; i4++, o += v->strides[4], k++) { BODY; } \
        }

static void load_row(const hd_view *v, const void *p, int n, int c, double *buf)
{
    int64_t base = hd_view_nc(v, n, c);
    int k = 0;
    switch (v->dtype) {
    case CUDNN_DATA_FLOAT: { const float *q = p; ROW_LOOP(buf[k] = q[o]) break; }
    case CUDNN_DATA_DOUBLE: { const double *q = p; ROW_LOOP(buf[k] = q[o]) break; }
    case CUDNN_DATA_HALF: { const uint16_t *q = p; ROW_LOOP(buf[k] = hd_f16_to_f32(q[o])) break; }
    case CUDNN_DATA_BFLOAT16: { const uint16_t *q = p; ROW_LOOP(buf[k] = hd_bf16_to_f32(q[o])) break; }
    default: ROW_LOOP(buf[k] = hd_ld(v->dtype, p, o)) break;
    }
}

static void store_row(const hd_view *v, void *p, int n, int c, const double *buf, double alpha, double beta)
{
    int64_t base = hd_view_nc(v, n, c);
    int k = 0;
    if (beta != 0.0) {
        ROW_LOOP(hd_st_blend(v->dtype, p, o, buf[k], alpha, beta))
        return;
    }
    switch (v->dtype) {
    case CUDNN_DATA_FLOAT: { float *q = p; ROW_LOOP(q[o] = (float)(alpha * buf[k])) break; }
    case CUDNN_DATA_DOUBLE: { double *q = p; ROW_LOOP(q[o] = alpha * buf[k]) break; }
    case CUDNN_DATA_HALF: { uint16_t *q = p; ROW_LOOP(q[o] = hd_f32_to_f16((float)(alpha * buf[k]))) break; }
    case CUDNN_DATA_BFLOAT16: { uint16_t *q = p; ROW_LOOP(q[o] = hd_f32_to_bf16((float)(alpha * buf[k]))) break; }
    default: ROW_LOOP(hd_st(v->dtype, p, o, alpha * buf[k])) break;
    }
}

static int chunk_rows(const hd_bn_problem *pb)
{
    int r = HD_BN_CHUNK / (pb->S > 0 ? pb->S : 1);
    return r < 1 ? 1 : r;
}

static int n_chunks(const hd_bn_problem *pb)
{
    int r = chunk_rows(pb);
    return (pb->N + r - 1) / r;
}

/* Channel-contiguous layouts are cut into chunks of about HD_BN_CHUNK values too, counted
 * in pixels (C values each) over the N*S pixels; at least 256 pixels, so that the partial
 * results (3 doubles per channel and chunk) stay small next to the tensor for wide C. */
static int64_t pix_per_chunk(const hd_bn_problem *pb)
{
    int64_t r = HD_BN_CHUNK / (pb->C > 0 ? pb->C : 1);
    return r < 256 ? 256 : r;
}

static int pix_chunks(const hd_bn_problem *pb)
{
    int64_t p = pix_per_chunk(pb);
    return (int)(((int64_t)pb->N * pb->S + p - 1) / p);
}

static size_t rows_part(const hd_bn_problem *pb) { return 3 * (size_t)(pb->S > pb->C ? pb->S : pb->C); }
/* the row buffers, then room for three blocks of HD_BN_BLK x C floats */
static size_t per_thread(const hd_bn_problem *pb) { return rows_part(pb) + 2 * HD_BN_BLK * (size_t)pb->C; }

size_t hd_bn_scratch_bytes(const hd_bn_problem *pb)
{
    size_t rows = (size_t)pb->nthreads * per_thread(pb);
    int nch = n_chunks(pb) > pix_chunks(pb) ? n_chunks(pb) : pix_chunks(pb);
    size_t parts = (size_t)pb->C * (size_t)nch * 5;   /* 3 per chunk; 5 for hd_bn_stats_bwd_sums */
    return (rows + parts) * sizeof(double) + 64;
}

typedef struct {
    const hd_bn_problem *pb;
    const hd_bn_f32_kernels *k;
    double *rows;            /* nthreads * 3 * S */
    double *parts;           /* C * nchunks * 5 */
    int nch, rows_per;
    const double *in1, *in2, *in3;
    const double *shift;     /* apply passes: the per-feature shift m (NULL: 0) */
    double *out1, *out2;
    double alpha, beta;
    int stream;              /* write outputs with streaming stores (larger than the cache) */
} eng_ctx;

static void eng_init(eng_ctx *e, const hd_bn_problem *pb, void *scratch)
{
    memset(e, 0, sizeof *e);
    e->pb = pb;
    e->k = hd_bn_f32_select(pb->isa);
    e->rows = scratch;
    e->parts = e->rows + (size_t)pb->nthreads * per_thread(pb);
    e->nch = n_chunks(pb);
    e->rows_per = chunk_rows(pb);
}

static double *thread_rows(const eng_ctx *e, int thread) { return e->rows + (size_t)thread * per_thread(e->pb); }

/* Calls FN on the runs of chunk CH (pixel range) that are contiguous in memory: a run stays
 * inside one sample.  ARG is passed through. */
typedef void (*run_fn)(eng_ctx *e, int64_t n, int64_t s, int64_t len, void *arg);
static void for_runs(eng_ctx *e, int ch, run_fn fn, void *arg)
{
    const hd_bn_problem *pb = e->pb;
    int64_t P = pix_per_chunk(pb), p0 = (int64_t)ch * P, p1 = p0 + P, tot = (int64_t)pb->N * pb->S;
    if (p1 > tot)
        p1 = tot;
    while (p0 < p1) {
        int64_t n = p0 / pb->S, s = p0 % pb->S, len = pb->S - s < p1 - p0 ? pb->S - s : p1 - p0;
        fn(e, n, s, len, arg);
        p0 += len;
    }
}

static int64_t pix_off(const hd_view *v, int64_t n, int64_t s) { return n * v->strides[0] + s * v->dims[1]; }

static const float *pix(const hd_view *v, const void *p, int64_t n, int64_t s)
{
    return (const float *)p + pix_off(v, n, s);
}

/* What a run callback needs: accumulators, per-channel parameters, the thread's blocks. */
typedef struct {
    double *acc, *acc2;
    const double *mean;
    const float *par;        /* a,b or p,q,r (C floats each) */
    float *blk;              /* 3 blocks of HD_BN_BLK * C floats */
} col_arg;

static float *thread_blk(const eng_ctx *e, int thread) { return (float *)(thread_rows(e, thread) + rows_part(e->pb)); }

/* ---------- statistics ---------- */

/* Statistics read x once: each chunk sums d = x - k and d^2 with k the channel's first
 * element (a shift near the data, so the sums do not cancel when the mean is large next to
 * the spread), and turns them into (count, mean, M2) for the merge in hd_bn_stats.  M2 =
 * S2 - S1^2 / cnt loses about log2(S2 / M2) bits, so a chunk whose data sit far from k
 * next to their spread (S2 > 2^16 M2: an outlier first element, a drifting channel) is
 * redone with the exact two-pass method (the chunk is still in cache). */
#define HD_BN_CANCEL 65536.0

static double chan_shift(const hd_bn_problem *pb, int c)
{
    double k = hd_ld(pb->x.dtype, pb->xp, hd_view_nc(&pb->x, 0, c));
    return isfinite(k) ? k : 0.0;
}

/* (mean, M2) of rows n0..n1 of channel c, from shifted sums */
static int chunk_one_pass(eng_ctx *e, int c, int n0, int n1, double k, double *buf, double *mean, double *m2)
{
    const hd_bn_problem *pb = e->pb;
    int fast = row_contig(&pb->x), half = row_half(&pb->x);
    float *fb = (float *)buf;
    double s1 = 0.0, s2 = 0.0;
    for (int n = n0; n < n1; n++) {
        if (fast) {
            e->k->ssums((const float *)pb->xp + hd_view_nc(&pb->x, n, c), (size_t)pb->S, k, &s1, &s2);
        } else if (half) {
            to_f32(e->k, &pb->x, pb->xp, hd_view_nc(&pb->x, n, c), fb, (size_t)pb->S);
            e->k->ssums(fb, (size_t)pb->S, k, &s1, &s2);
        } else {
            load_row(&pb->x, pb->xp, n, c, buf);
            for (int i = 0; i < pb->S; i++) {
                double d = buf[i] - k;
                s1 += d;
                s2 += d * d;
            }
        }
    }
    double cnt = (double)(n1 - n0) * pb->S;
    *mean = k + s1 / cnt;
    *m2 = s2 - s1 * (s1 / cnt);
    return *m2 * HD_BN_CANCEL >= s2;    /* false also for NaN */
}

/* the exact fallback: the mean, then the squared deviations from it */
static void chunk_two_pass(eng_ctx *e, int c, int n0, int n1, double *buf, double *mean, double *m2)
{
    const hd_bn_problem *pb = e->pb;
    int fast = row_contig(&pb->x), half = row_half(&pb->x);
    float *fb = (float *)buf;
    double s = 0.0;
    for (int n = n0; n < n1; n++) {
        if (fast) {
            s += e->k->sum((const float *)pb->xp + hd_view_nc(&pb->x, n, c), (size_t)pb->S);
        } else if (half) {
            to_f32(e->k, &pb->x, pb->xp, hd_view_nc(&pb->x, n, c), fb, (size_t)pb->S);
            s += e->k->sum(fb, (size_t)pb->S);
        } else {
            load_row(&pb->x, pb->xp, n, c, buf);
            for (int i = 0; i < pb->S; i++)
                s += buf[i];
        }
    }
    double cnt = (double)(n1 - n0) * pb->S, m = s / cnt, q = 0.0;
    for (int n = n0; n < n1; n++) {
        if (fast) {
            q += e->k->sqdev((const float *)pb->xp + hd_view_nc(&pb->x, n, c), (size_t)pb->S, m);
        } else if (half) {
            to_f32(e->k, &pb->x, pb->xp, hd_view_nc(&pb->x, n, c), fb, (size_t)pb->S);
            q += e->k->sqdev(fb, (size_t)pb->S, m);
        } else {
            load_row(&pb->x, pb->xp, n, c, buf);
            for (int i = 0; i < pb->S; i++)
                q += (buf[i] - m) * (buf[i] - m);
        }
    }
    *mean = m;
    *m2 = q;
}

static void stats_spatial_task(void *vctx, size_t t, int thread)
{
    eng_ctx *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int c = (int)(t / (size_t)e->nch), ch = (int)(t % (size_t)e->nch);
    int n0 = ch * e->rows_per, n1 = n0 + e->rows_per < pb->N ? n0 + e->rows_per : pb->N;
    double *buf = thread_rows(e, thread), m, q;
    if (!chunk_one_pass(e, c, n0, n1, chan_shift(pb, c), buf, &m, &q))
        chunk_two_pass(e, c, n0, n1, buf, &m, &q);
    double *part = e->parts + ((size_t)c * (size_t)e->nch + (size_t)ch) * 3;
    part[0] = (double)(n1 - n0) * pb->S;
    part[1] = m;
    part[2] = q;
}

static void stats_act_task(void *vctx, size_t t, int thread)
{
    eng_ctx *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int c = (int)t, S = pb->S;
    double *buf = thread_rows(e, thread), *acc = buf + S;
    double *mean = e->out1 + (size_t)c * S, *var = e->out2 + (size_t)c * S;
    for (int i = 0; i < S; i++)
        acc[i] = 0.0;
    for (int n = 0; n < pb->N; n++) {
        load_row(&pb->x, pb->xp, n, c, buf);
        for (int i = 0; i < S; i++)
            acc[i] += buf[i];
    }
    for (int i = 0; i < S; i++) {
        mean[i] = acc[i] / pb->N;
        acc[i] = 0.0;
    }
    for (int n = 0; n < pb->N; n++) {
        load_row(&pb->x, pb->xp, n, c, buf);
        for (int i = 0; i < S; i++)
            acc[i] += (buf[i] - mean[i]) * (buf[i] - mean[i]);
    }
    for (int i = 0; i < S; i++)
        var[i] = acc[i] / pb->N;
}

static void run_sum(eng_ctx *e, int64_t n, int64_t s, int64_t len, void *arg)
{
    col_arg *a = arg;
    const hd_bn_problem *pb = e->pb;
    size_t C = (size_t)pb->C;
    if (pb->x.dtype == CUDNN_DATA_FLOAT) {
        e->k->col_sum(pix(&pb->x, pb->xp, n, s), (size_t)len, C, a->acc);
        return;
    }
    for (int64_t b = 0; b < len; b += HD_BN_BLK) {
        size_t bl = (size_t)(len - b < HD_BN_BLK ? len - b : HD_BN_BLK);
        to_f32(e->k, &pb->x, pb->xp, pix_off(&pb->x, n, s + b), a->blk, bl * C);
        e->k->col_sum(a->blk, bl, C, a->acc);
    }
}

static void run_sqdev(eng_ctx *e, int64_t n, int64_t s, int64_t len, void *arg)
{
    col_arg *a = arg;
    const hd_bn_problem *pb = e->pb;
    size_t C = (size_t)pb->C;
    if (pb->x.dtype == CUDNN_DATA_FLOAT) {
        e->k->col_sqdev(pix(&pb->x, pb->xp, n, s), (size_t)len, C, a->mean, a->acc);
        return;
    }
    for (int64_t b = 0; b < len; b += HD_BN_BLK) {
        size_t bl = (size_t)(len - b < HD_BN_BLK ? len - b : HD_BN_BLK);
        to_f32(e->k, &pb->x, pb->xp, pix_off(&pb->x, n, s + b), a->blk, bl * C);
        e->k->col_sqdev(a->blk, bl, C, a->mean, a->acc);
    }
}

static void run_ssums(eng_ctx *e, int64_t n, int64_t s, int64_t len, void *arg)
{
    col_arg *a = arg;
    const hd_bn_problem *pb = e->pb;
    size_t C = (size_t)pb->C;
    if (pb->x.dtype == CUDNN_DATA_FLOAT) {
        e->k->col_ssums(pix(&pb->x, pb->xp, n, s), (size_t)len, C, a->mean, a->acc, a->acc2);
        return;
    }
    for (int64_t b = 0; b < len; b += HD_BN_BLK) {
        size_t bl = (size_t)(len - b < HD_BN_BLK ? len - b : HD_BN_BLK);
        to_f32(e->k, &pb->x, pb->xp, pix_off(&pb->x, n, s + b), a->blk, bl * C);
        e->k->col_ssums(a->blk, bl, C, a->mean, a->acc, a->acc2);
    }
}

/* Channel-contiguous statistics: one task per pixel chunk, all channels at once; one pass
 * with shifted sums, or (when any channel of the chunk would cancel) two exact passes. */
static void stats_nhwc_task(void *vctx, size_t t, int thread)
{
    eng_ctx *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int C = pb->C, ch = (int)t;
    double *acc = thread_rows(e, thread), *acc2 = acc + C, *k = acc2 + C;
    int64_t P = pix_per_chunk(pb), tot = (int64_t)pb->N * pb->S;
    double cnt = (double)((int64_t)(ch + 1) * P < tot ? P : tot - (int64_t)ch * P);
    for (int c = 0; c < C; c++) {
        acc[c] = acc2[c] = 0.0;
        k[c] = chan_shift(pb, c);
    }
    col_arg a = {acc, acc2, k, NULL, thread_blk(e, thread)};
    for_runs(e, ch, run_ssums, &a);
    int ok = 1;
    for (int c = 0; c < C; c++) {
        double *part = e->parts + ((size_t)c * (size_t)e->nch + (size_t)ch) * 3;
        part[0] = cnt;
        part[1] = k[c] + acc[c] / cnt;
        part[2] = acc2[c] - acc[c] * (acc[c] / cnt);
        ok &= part[2] * HD_BN_CANCEL >= acc2[c];
    }
    if (ok)
        return;
    double *m = acc2;
    for (int c = 0; c < C; c++)
        acc[c] = 0.0;
    a.acc2 = NULL;
    a.mean = NULL;
    for_runs(e, ch, run_sum, &a);
    for (int c = 0; c < C; c++) {
        m[c] = acc[c] / cnt;
        acc[c] = 0.0;
    }
    a.mean = m;
    for_runs(e, ch, run_sqdev, &a);
    for (int c = 0; c < C; c++) {
        double *part = e->parts + ((size_t)c * (size_t)e->nch + (size_t)ch) * 3;
        part[1] = m[c];
        part[2] = acc[c];
    }
}

void hd_bn_stats(const hd_bn_problem *pb, double *mean, double *var, void *scratch)
{
    eng_ctx e;
    eng_init(&e, pb, scratch);
    e.out1 = mean;
    e.out2 = var;
    if (pb->per_act) {
        hd_parallel_for((size_t)pb->C, pb->nthreads, stats_act_task, &e);
        return;
    }
    if (nhwc_contig(&pb->x)) {
        e.nch = pix_chunks(pb);
        hd_parallel_for((size_t)e.nch, pb->nthreads, stats_nhwc_task, &e);
    } else {
        hd_parallel_for((size_t)pb->C * (size_t)e.nch, pb->nthreads, stats_spatial_task, &e);
    }
    /* combine the chunks of each channel in chunk order (Chan et al.) */
    for (int c = 0; c < pb->C; c++) {
        const double *part = e.parts + (size_t)c * (size_t)e.nch * 3;
        double cnt = part[0], m = part[1], q = part[2];
        for (int ch = 1; ch < e.nch; ch++) {
            const double *b = part + (size_t)ch * 3;
            double tot = cnt + b[0], delta = b[1] - m;
            m += delta * (b[0] / tot);
            q += b[2] + delta * delta * (cnt * b[0] / tot);
            cnt = tot;
        }
        mean[c] = m;
        var[c] = q / cnt;
    }
}

/* ---------- forward apply ---------- */

/* A feature's shift rounded to float (0 when that is not finite), and its additive term
 * ADD scaled by alpha and corrected for the rounding: coef * (x - m) + add equals
 * coef * (x - mf) + add + coef * (mf - m). */
static float shift_f32(const eng_ctx *e, size_t f, double coef, double add, float *addf)
{
    double m = e->shift ? e->shift[f] : 0.0;
    float mf = (float)m;
    if (!isfinite(mf))
        mf = 0.0f;
    *addf = (float)(e->alpha * (add + coef * ((double)mf - m)));
    return mf;
}

/* Bytes of float tensors an apply pass touches (TENSORS of them read or written). */
static double touched_bytes(const hd_bn_problem *pb, int tensors)
{
    return (double)tensors * pb->N * (double)pb->C * pb->S * sizeof(float);
}

static void apply_task(void *vctx, size_t t, int thread)
{
    eng_ctx *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int n = (int)(t / (size_t)pb->C), c = (int)(t % (size_t)pb->C), S = pb->S;
    const double *a = e->in1, *b = e->in2;
    int plain = !pb->per_act && !pb->zp && !pb->act.on && !pb->reserve;
    float bf = 0.0f, mf = plain ? shift_f32(e, (size_t)c, a[c], b[c], &bf) : 0.0f;
    if (plain && row_contig(&pb->x) && row_contig(&pb->y)) {
        (e->stream ? e->k->affine_stream : e->k->affine)((const float *)pb->xp + hd_view_nc(&pb->x, n, c),
                                                         (float *)pb->yp + hd_view_nc(&pb->y, n, c), (size_t)S, mf,
                                                         (float)(e->alpha * a[c]), bf, (float)e->beta);
        return;
    }
    if (plain && row_half(&pb->x) && row_half(&pb->y)) {
        float *xf = (float *)thread_rows(e, thread), *yf = xf + S;
        int64_t yo = hd_view_nc(&pb->y, n, c);
        to_f32(e->k, &pb->x, pb->xp, hd_view_nc(&pb->x, n, c), xf, (size_t)S);
        if (e->beta != 0.0)
            to_f32(e->k, &pb->y, pb->yp, yo, yf, (size_t)S);
        e->k->affine(xf, yf, (size_t)S, mf, (float)(e->alpha * a[c]), bf, (float)e->beta);
        from_f32(e->k, &pb->y, pb->yp, yo, yf, (size_t)S);
        return;
    }
    double *xb = thread_rows(e, thread), *zb = xb + S;
    load_row(&pb->x, pb->xp, n, c, xb);
    if (pb->zp)
        load_row(&pb->z, pb->zp, n, c, zb);
    float *res = pb->reserve ? pb->reserve + ((size_t)n * pb->C + c) * (size_t)S : NULL;
    for (int i = 0; i < S; i++) {
        size_t f = pb->per_act ? (size_t)c * S + i : (size_t)c;
        double v = a[f] * (xb[i] - (e->shift ? e->shift[f] : 0.0)) + b[f];
        if (pb->zp)
            v += zb[i];
        double d;
        xb[i] = hd_bn_act_apply(&pb->act, v, &d);
        if (res)
            res[i] = (float)d;
    }
    store_row(&pb->y, pb->yp, n, c, xb, e->alpha, e->beta);
}

static void run_affine(eng_ctx *e, int64_t n, int64_t s, int64_t len, void *arg)
{
    const col_arg *a = arg;
    const hd_bn_problem *pb = e->pb;
    size_t C = (size_t)pb->C;
    if (pb->x.dtype == CUDNN_DATA_FLOAT) {
        e->k->col_affine(pix(&pb->x, pb->xp, n, s), (float *)pix(&pb->y, pb->yp, n, s), (size_t)len, C, a->par,
                         a->par + C, a->par + 2 * C, (float)e->beta);
        return;
    }
    float *xb = a->blk, *yb = xb + HD_BN_BLK * C;
    for (int64_t b = 0; b < len; b += HD_BN_BLK) {
        size_t bl = (size_t)(len - b < HD_BN_BLK ? len - b : HD_BN_BLK);
        int64_t yo = pix_off(&pb->y, n, s + b);
        to_f32(e->k, &pb->x, pb->xp, pix_off(&pb->x, n, s + b), xb, bl * C);
        if (e->beta != 0.0)
            to_f32(e->k, &pb->y, pb->yp, yo, yb, bl * C);
        e->k->col_affine(xb, yb, bl, C, a->par, a->par + C, a->par + 2 * C, (float)e->beta);
        from_f32(e->k, &pb->y, pb->yp, yo, yb, bl * C);
    }
}

static void apply_nhwc_task(void *vctx, size_t t, int thread)
{
    eng_ctx *e = vctx;
    int C = e->pb->C;
    float *ab = (float *)thread_rows(e, thread);       /* m, a, b */
    for (int c = 0; c < C; c++) {
        ab[c] = shift_f32(e, (size_t)c, e->in1[c], e->in2[c], &ab[2 * C + c]);
        ab[C + c] = (float)(e->alpha * e->in1[c]);
    }
    col_arg a = {NULL, NULL, NULL, ab, thread_blk(e, thread)};
    for_runs(e, (int)t, run_affine, &a);
}

void hd_bn_apply(const hd_bn_problem *pb, const double *m, const double *a, const double *b, double alpha, double beta,
                 void *scratch)
{
    eng_ctx e;
    eng_init(&e, pb, scratch);
    e.shift = m;
    e.in1 = a;
    e.in2 = b;
    e.alpha = alpha;
    e.beta = beta;
    e.stream = beta == 0.0 && touched_bytes(pb, 2) >= (double)hd_eltwise_stream_min_bytes();
    if (!pb->per_act && !pb->zp && !pb->act.on && !pb->reserve && nhwc_contig(&pb->x) && nhwc_contig(&pb->y)) {
        hd_parallel_for((size_t)pix_chunks(pb), pb->nthreads, apply_nhwc_task, &e);
        return;
    }
    hd_parallel_for((size_t)pb->N * (size_t)pb->C, pb->nthreads, apply_task, &e);
}

/* ---------- backward ---------- */

/* g = dy, times the activation derivative when the forward had one. */
static void load_grad(const hd_bn_problem *pb, int n, int c, double *g)
{
    load_row(&pb->dy, pb->dyp, n, c, g);
    if (pb->reserve) {
        const float *res = pb->reserve + ((size_t)n * pb->C + c) * (size_t)pb->S;
        for (int i = 0; i < pb->S; i++)
            g[i] *= res[i];
    }
}

static void sums_spatial_task(void *vctx, size_t t, int thread)
{
    eng_ctx *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int c = (int)(t / (size_t)e->nch), ch = (int)(t % (size_t)e->nch);
    int n0 = ch * e->rows_per, n1 = n0 + e->rows_per < pb->N ? n0 + e->rows_per : pb->N;
    int fast = !pb->reserve && row_contig(&pb->x) && row_contig(&pb->dy);
    int half = !pb->reserve && row_half(&pb->x) && row_half(&pb->dy);
    double m = e->in1[c], s = 0.0, q = 0.0;
    double *xb = thread_rows(e, thread), *gb = xb + pb->S;
    float *xf = (float *)xb, *gf = xf + pb->S;
    for (int n = n0; n < n1; n++) {
        if (fast) {
            e->k->dsums((const float *)pb->dyp + hd_view_nc(&pb->dy, n, c),
                        (const float *)pb->xp + hd_view_nc(&pb->x, n, c), (size_t)pb->S, m, &s, &q);
        } else if (half) {
            to_f32(e->k, &pb->dy, pb->dyp, hd_view_nc(&pb->dy, n, c), gf, (size_t)pb->S);
            to_f32(e->k, &pb->x, pb->xp, hd_view_nc(&pb->x, n, c), xf, (size_t)pb->S);
            e->k->dsums(gf, xf, (size_t)pb->S, m, &s, &q);
        } else {
            load_row(&pb->x, pb->xp, n, c, xb);
            load_grad(pb, n, c, gb);
            for (int i = 0; i < pb->S; i++) {
                s += gb[i];
                q += gb[i] * (xb[i] - m);
            }
        }
    }
    double *part = e->parts + ((size_t)c * (size_t)e->nch + (size_t)ch) * 3;
    part[0] = s;
    part[1] = q;
}

static void sums_act_task(void *vctx, size_t t, int thread)
{
    eng_ctx *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int c = (int)t, S = pb->S;
    double *xb = thread_rows(e, thread), *gb = xb + S;
    double *s = e->out1 + (size_t)c * S, *q = e->out2 + (size_t)c * S;
    const double *m = e->in1 + (size_t)c * S;
    for (int i = 0; i < S; i++)
        s[i] = q[i] = 0.0;
    for (int n = 0; n < pb->N; n++) {
        load_row(&pb->x, pb->xp, n, c, xb);
        load_grad(pb, n, c, gb);
        for (int i = 0; i < S; i++) {
            s[i] += gb[i];
            q[i] += gb[i] * (xb[i] - m[i]);
        }
    }
}

static void run_dsums(eng_ctx *e, int64_t n, int64_t s, int64_t len, void *arg)
{
    col_arg *a = arg;
    const hd_bn_problem *pb = e->pb;
    size_t C = (size_t)pb->C;
    if (pb->x.dtype == CUDNN_DATA_FLOAT) {
        e->k->col_dsums(pix(&pb->dy, pb->dyp, n, s), pix(&pb->x, pb->xp, n, s), (size_t)len, C, a->mean, a->acc,
                        a->acc2);
        return;
    }
    float *gb = a->blk, *xb = gb + HD_BN_BLK * C;
    for (int64_t b = 0; b < len; b += HD_BN_BLK) {
        size_t bl = (size_t)(len - b < HD_BN_BLK ? len - b : HD_BN_BLK);
        to_f32(e->k, &pb->dy, pb->dyp, pix_off(&pb->dy, n, s + b), gb, bl * C);
        to_f32(e->k, &pb->x, pb->xp, pix_off(&pb->x, n, s + b), xb, bl * C);
        e->k->col_dsums(gb, xb, bl, C, a->mean, a->acc, a->acc2);
    }
}

static void sums_nhwc_task(void *vctx, size_t t, int thread)
{
    eng_ctx *e = vctx;
    int C = e->pb->C, ch = (int)t;
    double *s = thread_rows(e, thread), *q = s + C;
    for (int c = 0; c < C; c++)
        s[c] = q[c] = 0.0;
    col_arg a = {s, q, e->in1, NULL, thread_blk(e, thread)};
    for_runs(e, ch, run_dsums, &a);
    for (int c = 0; c < C; c++) {
        double *part = e->parts + ((size_t)c * (size_t)e->nch + (size_t)ch) * 3;
        part[0] = s[c];
        part[1] = q[c];
    }
}

void hd_bn_bwd_sums(const hd_bn_problem *pb, const double *mean, double *sdy, double *sdyx, void *scratch)
{
    eng_ctx e;
    eng_init(&e, pb, scratch);
    e.in1 = mean;
    e.out1 = sdy;
    e.out2 = sdyx;
    if (pb->per_act) {
        hd_parallel_for((size_t)pb->C, pb->nthreads, sums_act_task, &e);
        return;
    }
    if (!pb->reserve && nhwc_contig(&pb->x) && nhwc_contig(&pb->dy)) {
        e.nch = pix_chunks(pb);
        hd_parallel_for((size_t)e.nch, pb->nthreads, sums_nhwc_task, &e);
    } else {
        hd_parallel_for((size_t)pb->C * (size_t)e.nch, pb->nthreads, sums_spatial_task, &e);
    }
    for (int c = 0; c < pb->C; c++) {
        const double *part = e.parts + (size_t)c * (size_t)e.nch * 3;
        double s = 0.0, q = 0.0;
        for (int ch = 0; ch < e.nch; ch++) {
            s += part[(size_t)ch * 3];
            q += part[(size_t)ch * 3 + 1];
        }
        sdy[c] = s;
        sdyx[c] = q;
    }
}

/* One pass over x and dy per chunk: count, mean and M2 of x (shifted by the channel's first
 * element k), sum dy and sum dy (x - k); ok[0] = 0 when the shifted sums would cancel. */
static void stats_sums_task(void *vctx, size_t t, int thread)
{
    (void)thread;
    eng_ctx *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int c = (int)(t / (size_t)e->nch), ch = (int)(t % (size_t)e->nch);
    int n0 = ch * e->rows_per, n1 = n0 + e->rows_per < pb->N ? n0 + e->rows_per : pb->N;
    double k = chan_shift(pb, c), s1 = 0.0, s2 = 0.0, g = 0.0, h = 0.0;
    for (int n = n0; n < n1; n++)
        e->k->dssums((const float *)pb->dyp + hd_view_nc(&pb->dy, n, c),
                     (const float *)pb->xp + hd_view_nc(&pb->x, n, c), (size_t)pb->S, k, &s1, &s2, &g, &h);
    double cnt = (double)(n1 - n0) * pb->S, m2 = s2 - s1 * (s1 / cnt);
    double *part = e->parts + ((size_t)c * (size_t)e->nch + (size_t)ch) * 5;
    part[0] = cnt;
    part[1] = k + s1 / cnt;
    part[2] = m2;
    part[3] = g;
    part[4] = m2 * HD_BN_CANCEL >= s2 ? h : NAN;    /* NaN marks a chunk to redo */
}

int hd_bn_stats_bwd_sums(const hd_bn_problem *pb, double *mean, double *var, double *sdy, double *sdyx, void *scratch)
{
    if (pb->per_act || pb->reserve || !row_contig(&pb->x) || !row_contig(&pb->dy))
        return 0;
    eng_ctx e;
    eng_init(&e, pb, scratch);
    hd_parallel_for((size_t)pb->C * (size_t)e.nch, pb->nthreads, stats_sums_task, &e);
    for (int c = 0; c < pb->C; c++) {
        const double *part = e.parts + (size_t)c * (size_t)e.nch * 5;
        double k = chan_shift(pb, c), cnt = part[0], m = part[1], q = part[2], g = part[3], h = part[4];
        for (int ch = 1; ch < e.nch; ch++) {
            const double *b = part + (size_t)ch * 5;
            double tot = cnt + b[0], delta = b[1] - m;
            m += delta * (b[0] / tot);
            q += b[2] + delta * delta * (cnt * b[0] / tot);
            cnt = tot;
            g += b[3];
            h += b[4];
        }
        if (h != h)     /* a chunk would cancel (or NaN data): the caller's separate passes */
            return 0;
        mean[c] = m;
        var[c] = q / cnt;
        sdy[c] = g;
        sdyx[c] = h - (m - k) * g;              /* sum dy (x - mean) */
    }
    return 1;
}

static void bwd_task(void *vctx, size_t t, int thread)
{
    eng_ctx *e = vctx;
    const hd_bn_problem *pb = e->pb;
    int n = (int)(t / (size_t)pb->C), c = (int)(t % (size_t)pb->C), S = pb->S;
    const double *p = e->in1, *q = e->in2, *r = e->in3;
    int plain = !pb->per_act && !pb->reserve && !pb->dzp;
    float rf = 0.0f, mf = plain ? shift_f32(e, (size_t)c, q[c], r[c], &rf) : 0.0f;
    if (plain && row_contig(&pb->x) && row_contig(&pb->dy) && row_contig(&pb->dx)) {
        (e->stream ? e->k->bwd_stream : e->k->bwd)((const float *)pb->dyp + hd_view_nc(&pb->dy, n, c),
                                                   (const float *)pb->xp + hd_view_nc(&pb->x, n, c),
                                                   (float *)pb->dxp + hd_view_nc(&pb->dx, n, c), (size_t)S, mf,
                                                   (float)(e->alpha * p[c]), (float)(e->alpha * q[c]), rf, (float)e->beta);
        return;
    }
    if (plain && row_half(&pb->x) && row_half(&pb->dy) && row_half(&pb->dx)) {
        float *gf = (float *)thread_rows(e, thread), *xf = gf + S, *df = xf + S;
        int64_t dxo = hd_view_nc(&pb->dx, n, c);
        to_f32(e->k, &pb->dy, pb->dyp, hd_view_nc(&pb->dy, n, c), gf, (size_t)S);
        to_f32(e->k, &pb->x, pb->xp, hd_view_nc(&pb->x, n, c), xf, (size_t)S);
        if (e->beta != 0.0)
            to_f32(e->k, &pb->dx, pb->dxp, dxo, df, (size_t)S);
        e->k->bwd(gf, xf, df, (size_t)S, mf, (float)(e->alpha * p[c]), (float)(e->alpha * q[c]), rf, (float)e->beta);
        from_f32(e->k, &pb->dx, pb->dxp, dxo, df, (size_t)S);
        return;
    }
    double *xb = thread_rows(e, thread), *gb = xb + S;
    load_row(&pb->x, pb->xp, n, c, xb);
    load_grad(pb, n, c, gb);
    if (pb->dzp)
        store_row(&pb->dz, pb->dzp, n, c, gb, 1.0, 0.0);
    for (int i = 0; i < S; i++) {
        size_t f = pb->per_act ? (size_t)c * S + i : (size_t)c;
        xb[i] = p[f] * gb[i] + q[f] * (xb[i] - (e->shift ? e->shift[f] : 0.0)) + r[f];
    }
    store_row(&pb->dx, pb->dxp, n, c, xb, e->alpha, e->beta);
}

static void run_bwd(eng_ctx *e, int64_t n, int64_t s, int64_t len, void *arg)
{
    const col_arg *a = arg;
    const float *pqr = a->par;
    const hd_bn_problem *pb = e->pb;
    size_t C = (size_t)pb->C;
    if (pb->x.dtype == CUDNN_DATA_FLOAT) {
        e->k->col_bwd(pix(&pb->dy, pb->dyp, n, s), pix(&pb->x, pb->xp, n, s), (float *)pix(&pb->dx, pb->dxp, n, s),
                      (size_t)len, C, pqr, pqr + C, pqr + 2 * C, pqr + 3 * C, (float)e->beta);
        return;
    }
    float *gb = a->blk, *xb = gb + HD_BN_BLK * C, *db = xb + HD_BN_BLK * C;
    for (int64_t b = 0; b < len; b += HD_BN_BLK) {
        size_t bl = (size_t)(len - b < HD_BN_BLK ? len - b : HD_BN_BLK);
        int64_t dxo = pix_off(&pb->dx, n, s + b);
        to_f32(e->k, &pb->dy, pb->dyp, pix_off(&pb->dy, n, s + b), gb, bl * C);
        to_f32(e->k, &pb->x, pb->xp, pix_off(&pb->x, n, s + b), xb, bl * C);
        if (e->beta != 0.0)
            to_f32(e->k, &pb->dx, pb->dxp, dxo, db, bl * C);
        e->k->col_bwd(gb, xb, db, bl, C, pqr, pqr + C, pqr + 2 * C, pqr + 3 * C, (float)e->beta);
        from_f32(e->k, &pb->dx, pb->dxp, dxo, db, bl * C);
    }
}

static void bwd_nhwc_task(void *vctx, size_t t, int thread)
{
    eng_ctx *e = vctx;
    int C = e->pb->C;
    float *pqr = (float *)thread_rows(e, thread);      /* m, p, q, r */
    for (int c = 0; c < C; c++) {
        pqr[c] = shift_f32(e, (size_t)c, e->in2[c], e->in3[c], &pqr[3 * C + c]);
        pqr[C + c] = (float)(e->alpha * e->in1[c]);
        pqr[2 * C + c] = (float)(e->alpha * e->in2[c]);
    }
    col_arg a = {NULL, NULL, NULL, pqr, thread_blk(e, thread)};
    for_runs(e, (int)t, run_bwd, &a);
}

void hd_bn_bwd_apply(const hd_bn_problem *pb, const double *m, const double *p, const double *q, const double *r,
                     double alpha, double beta, void *scratch)
{
    eng_ctx e;
    eng_init(&e, pb, scratch);
    e.shift = m;
    e.in1 = p;
    e.in2 = q;
    e.in3 = r;
    e.alpha = alpha;
    e.beta = beta;
    e.stream = beta == 0.0 && touched_bytes(pb, 3) >= (double)hd_eltwise_stream_min_bytes();
    if (!pb->per_act && !pb->reserve && !pb->dzp && nhwc_contig(&pb->x) && nhwc_contig(&pb->dy) &&
        nhwc_contig(&pb->dx)) {
        hd_parallel_for((size_t)pix_chunks(pb), pb->nthreads, bwd_nhwc_task, &e);
        return;
    }
    hd_parallel_for((size_t)pb->N * (size_t)pb->C, pb->nthreads, bwd_task, &e);
}

/* ---------- parameters ---------- */

static int64_t param_off(const hd_bn_problem *pb, const struct cudnnTensorStruct *d, size_t f)
{
    if (!pb->per_act)
        return (int64_t)f * d->strides[1];
    int c = (int)(f / (size_t)pb->S), s = (int)(f % (size_t)pb->S);
    int64_t off = (int64_t)c * d->strides[1];
    for (int i = d->nbDims - 1; i >= 2; i--) {
        off += (int64_t)(s % d->dims[i]) * d->strides[i];
        s /= d->dims[i];
    }
    return off;
}

void hd_bn_param_load(const hd_bn_problem *pb, const struct cudnnTensorStruct *d, const void *p, double *out)
{
    for (size_t f = 0; f < (size_t)pb->F; f++)
        out[f] = hd_ld(d->dtype, p, param_off(pb, d, f));
}

void hd_bn_param_store(const hd_bn_problem *pb, const struct cudnnTensorStruct *d, void *p, const double *v,
                       double alpha, double beta)
{
    for (size_t f = 0; f < (size_t)pb->F; f++)
        hd_st_blend(d->dtype, p, param_off(pb, d, f), v[f], alpha, beta);
}
