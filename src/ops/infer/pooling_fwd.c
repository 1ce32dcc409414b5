/*
 * cudnnPoolingForward: max / average pooling over 1..6 spatial dimensions, any strides.
 *
 * Each output element o takes the window starting at o*stride - pad along each dimension.
 * Positions outside the input are padding: max ignores them; AVERAGE_COUNT_INCLUDE_PADDING
 * divides by the window size (clipped to the padded input, see pooling.h);
 * AVERAGE_COUNT_EXCLUDE_PADDING divides by the count of real input positions.  A window with
 * no input position at all (possible only when pad >= window, or with an output larger than
 * the formula's) gives 0.
 *
 * y may be larger than 1 + (in + 2*pad - window)/stride (frameworks with "ceil" output sizes
 * do this); each extra output simply takes its clipped window.
 *
 * Paths: FLOAT max and average pooling run vector kernels: over channels for channel-contiguous
 * layouts (NHWC, any number of spatial dims: the NHWC kernel of pool-ukernels.h folds each
 * output's window of C-vectors), and for 2-d row-contiguous layouts (NCHW) the direct
 * row kernel of pool-ukernels.h: the vertical max of the window's input rows, then the horizontal
 * max along the padded result (any window, padding and stride); FLOAT average pooling on
 * row-contiguous 2-d layouts runs the same passes with float sums and one division.
 * Everything else takes the generic path (values as double).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "kernels/eltwise/eltwise-ukernels.h"
#include "kernels/pool/pool-ukernels.h"
#include "core/elem.h"
#include "ops/infer/pooling.h"

#include <math.h>

typedef struct cudnnPoolingStruct pool_t;
typedef struct cudnnTensorStruct tensor_t;

typedef struct {
    const pool_t *p;
    hd_view x, y;
    const void *xp;
    void *yp;
    double alpha, beta;
    int nsp;
    float *scratch;          /* per-thread buffer for the vector paths */
    size_t scratch_per_thread;  /* floats; bytes on the NHWC path */
    hd_f32_pool_vmax_fn pool_vmax;   /* the row path's two passes */
    hd_f32_pool_hmax_fn pool_hmax;
    hd_f32_pool_vsum_fn pool_vsum;   /* ... and for the average modes */
    hd_f32_pool_hsum_fn pool_hsum;
    hd_f32_pool_nhwc_fn pool_nhwc;   /* channel-contiguous layouts */
    size_t nhwc_chunk;               /* outputs per NHWC kernel batch */
    size_t nhwc_wmax;                /* most window positions of one output */
    int nhwc_stream;                 /* y large enough for streaming stores, C % 16 == 0 */
    size_t rows_units, rows_group;   /* row path: (n, c, block) units, and units per task */
} fwd_ctx;

static int is_max(cudnnPoolingMode_t m) { return m == CUDNN_POOLING_MAX || m == CUDNN_POOLING_MAX_DETERMINISTIC; }

/* Generic: one task per (n, c) plane. */
static void generic_task(void *vctx, size_t t, int thread)
{
    (void)thread;
    const fwd_ctx *k = vctx;
    const pool_t *p = k->p;
    int C = k->x.dims[1];
    int n = (int)(t / (size_t)C), c = (int)(t % (size_t)C);
    int64_t xo = hd_view_nc(&k->x, n, c), yo = hd_view_nc(&k->y, n, c);
    int64_t xsc = hd_view_sp_scale(&k->x), ysc = hd_view_sp_scale(&k->y);
    int nsp = k->nsp;
    int o[HD_POOL_MAX_SPATIAL] = {0};
    int64_t total = 1;
    for (int d = 0; d < nsp; d++)
        total *= k->y.dims[d + 2];
    int prop = p->nan_opt == CUDNN_PROPAGATE_NAN;
    for (int64_t e = 0; e < total; e++) {
        hd_pool_span sp[HD_POOL_MAX_SPATIAL];
        int64_t cnt = 1, incl = 1, yoff = yo;
        for (int d = 0; d < nsp; d++) {
            sp[d] = hd_pool_span_of(o[d], k->x.dims[d + 2], p->window[d], p->pad[d], p->stride[d]);
            cnt *= sp[d].hi - sp[d].lo;
            incl *= sp[d].incl;
            yoff += (int64_t)o[d] * k->y.strides[d + 2] * ysc;
        }
        double r = 0.0;
        if (cnt > 0) {
            int i[HD_POOL_MAX_SPATIAL];
            for (int d = 0; d < nsp; d++)
                i[d] = sp[d].lo;
            double m = -INFINITY, s = 0.0;
            for (int64_t w = 0; w < cnt; w++) {
                int64_t xoff = xo;
                for (int d = 0; d < nsp; d++)
                    xoff += (int64_t)i[d] * k->x.strides[d + 2] * xsc;
                double v = hd_ld(k->x.dtype, k->xp, xoff);
                if (is_max(p->mode)) {
                    if (prop && (v != v || m != m))
                        m = m + v;
                    else if (v > m)
                        m = v;
                } else {
                    s += v;
                }
                for (int d = nsp - 1; d >= 0; d--) {
                    if (++i[d] < sp[d].hi)
                        break;
                    i[d] = sp[d].lo;
                }
            }
            if (is_max(p->mode))
                r = m;
            else if (p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING)
                r = s / (double)incl;
            else
                r = s / (double)cnt;
        }
        hd_st_blend(k->y.dtype, k->yp, yoff, r, k->alpha, k->beta);
        for (int d = nsp - 1; d >= 0; d--) {
            if (++o[d] < k->y.dims[d + 2])
                break;
            o[d] = 0;
        }
    }
}

static inline void store_f32(float *y, float v, double alpha, double beta)
{
    double r = alpha * (double)v;
    if (beta != 0.0)
        r += beta * (double)*y;
    *y = (float)r;
}

/* Channels contiguous in x and y (NHWC-like): one task per (n, line of outputs along the last
 * spatial dim).  Each output's window becomes a list of pointers to its input C-vectors, in
 * window order, and the NHWC kernel (pool-ukernels.h) folds them; outputs next to each other
 * with the same count of window positions (all but the borders) go in one call. */
static void nhwc_task(void *vctx, size_t t, int thread)
{
    const fwd_ctx *k = vctx;
    const pool_t *p = k->p;
    int C = k->x.dims[1], nsp = k->nsp, last = nsp - 1;
    int OW = k->y.dims[last + 2];
    int64_t lines = 1;
    for (int d = 0; d < last; d++)
        lines *= k->y.dims[d + 2];
    int64_t n = (int64_t)t / lines, rem = (int64_t)t % lines;
    int o[HD_POOL_MAX_SPATIAL];
    for (int d = last - 1; d >= 0; d--) {
        o[d] = (int)(rem % k->y.dims[d + 2]);
        rem /= k->y.dims[d + 2];
    }
    hd_pool_span sp[HD_POOL_MAX_SPATIAL];
    int64_t ybase = n * k->y.strides[0], incl_outer = 1, cnt_outer = 1;
    for (int d = 0; d < last; d++) {
        sp[d] = hd_pool_span_of(o[d], k->x.dims[d + 2], p->window[d], p->pad[d], p->stride[d]);
        ybase += (int64_t)o[d] * k->y.strides[d + 2];
        incl_outer *= sp[d].incl;
        cnt_outer *= sp[d].hi - sp[d].lo;
    }
    char *scr = (char *)k->scratch + (size_t)thread * k->scratch_per_thread;
    const float **taps = (const float **)(void *)scr;
    float *div = (float *)(void *)(scr + k->nhwc_chunk * k->nhwc_wmax * sizeof(float *));
    float *obuf = div + ((k->nhwc_chunk + 15) & ~(size_t)15);
    const float *x = k->xp;
    float *y = (float *)k->yp + ybase;
    int64_t ysw = k->y.strides[last + 2];
    int avg = !is_max(p->mode), incl = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
    int op = avg ? HD_POOL_NHWC_AVG : p->nan_opt == CUDNN_PROPAGATE_NAN ? HD_POOL_NHWC_MAX_PROPAGATE : HD_POOL_NHWC_MAX;
    int direct = k->alpha == 1.0 && k->beta == 0.0;
    for (int j0 = 0; j0 < OW; j0 += (int)k->nhwc_chunk) {
        int jn = OW - j0 < (int)k->nhwc_chunk ? OW - j0 : (int)k->nhwc_chunk;
        int run0 = 0, run_cnt = -1;
        for (int j = 0; j <= jn; j++) {
            int cnt = -1;
            if (j < jn) {
                sp[last] = hd_pool_span_of(j0 + j, k->x.dims[last + 2], p->window[last], p->pad[last],
                                           p->stride[last]);
                cnt = (int)(cnt_outer * (sp[last].hi - sp[last].lo));
                div[j] = (float)(incl ? incl_outer * sp[last].incl : cnt);
            }
            if (j > 0 && cnt != run_cnt) {       /* outputs run0 .. j-1 share run_cnt taps */
                float *yo = direct ? y + (int64_t)(j0 + run0) * ysw : obuf + (size_t)run0 * (size_t)C;
                size_t ys = direct ? (size_t)ysw : (size_t)C;
                int stream = direct && k->nhwc_stream && ((uintptr_t)yo & 63) == 0;
                k->pool_nhwc(yo, ys, (size_t)(j - run0), taps, run_cnt, (size_t)C, op,
                             div + run0, stream);
                run0 = j;
            }
            if (j == jn)
                break;
            /* the window's positions, last dim fastest; a run's lists start at taps[0] (the
             * previous run has been folded already) */
            const float **tp = taps + (size_t)(j - run0) * (size_t)cnt;
            run_cnt = cnt;
            /* the window's taps in row-major order, the offset stepped by the strides (no
               products per tap: building this list cost more than the pooling of it) */
            int i[HD_POOL_MAX_SPATIAL];
            int64_t off = n * k->x.strides[0];
            for (int d = 0; d < nsp; d++) {
                i[d] = sp[d].lo;
                off += (int64_t)i[d] * k->x.strides[d + 2];
            }
            for (int w = 0; w < cnt; w++) {
                tp[w] = x + off;
                for (int d = nsp - 1; d >= 0; d--) {
                    off += k->x.strides[d + 2];
                    if (++i[d] < sp[d].hi)
                        break;
                    off -= (int64_t)(sp[d].hi - sp[d].lo) * k->x.strides[d + 2];
                    i[d] = sp[d].lo;
                }
            }
        }
        if (!direct)
            for (int j = 0; j < jn; j++)
                for (int c = 0; c < C; c++)
                    store_f32(y + (int64_t)(j0 + j) * ysw + c, obuf[(size_t)j * (size_t)C + (size_t)c], k->alpha,
                              k->beta);
    }
}

/* 2-d, rows contiguous in x and y: one task per (n, c, block of ROW_BLOCK output rows).  Each
 * output row is the direct row kernel's two passes (pool-ukernels.h): the vertical max of the
 * window's input rows into the padded column row, then the horizontal max along it.  (Doing
 * both in registers for 3x3/2 gains nothing: the passes are as many instructions.) */
#define ROW_BLOCK 16
#define PF_AHEAD 4   /* output rows of input prefetched ahead of the vertical pass */

/* floats of one padded column row (LC used + the kernels' slack), a multiple of 16 */
static size_t row_col_stride(int64_t lc)
{
    return ((size_t)lc + HD_POOL_ROW_SLACK + 15) & ~(size_t)15;
}

static void rows_one(const fwd_ctx *k, size_t t, int thread)
{
    const pool_t *p = k->p;
    int C = k->x.dims[1], OH = k->y.dims[2], OW = k->y.dims[3], W = k->x.dims[3];
    size_t blocks = ((size_t)OH + ROW_BLOCK - 1) / ROW_BLOCK;
    int b = (int)(t % blocks);
    int c = (int)((t / blocks) % (size_t)C);
    int n = (int)(t / (blocks * (size_t)C));
    int kw = p->window[1], pw = p->pad[1], sw = p->stride[1];
    /* col[q] holds input column q - pw; q covers every tap of every output */
    int64_t lc = (int64_t)(OW - 1) * sw + kw;
    int64_t q_lo = pw > 0 ? pw : 0, q_hi = (int64_t)W + pw;
    if (q_lo > lc)
        q_lo = lc;
    if (q_hi > lc)
        q_hi = lc;
    if (q_hi < q_lo)
        q_hi = q_lo;
    int direct = k->alpha == 1.0 && k->beta == 0.0;
    int prop = p->nan_opt == CUDNN_PROPAGATE_NAN;
    int oh0 = b * ROW_BLOCK, oh_end = (b + 1) * ROW_BLOCK < OH ? (b + 1) * ROW_BLOCK : OH;
    const float *plane = (const float *)k->xp + n * k->x.strides[0] + c * k->x.strides[1];
    float *y = (float *)k->yp + n * k->y.strides[0] + c * k->y.strides[1];
    /* two column rows: the vertical pass of the next output row runs before the horizontal
     * pass of this one, so the latter never loads values still in the store buffer */
    size_t cstride = row_col_stride(lc);
    float *cols[2] = {k->scratch + (size_t)thread * k->scratch_per_thread, NULL};
    cols[1] = cols[0] + cstride;
    float *obuf = cols[1] + cstride;
    float *hdiv = obuf + (((size_t)OW + 15) & ~(size_t)15);
    int avg = !is_max(p->mode), incl = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
    float padv = avg ? 0.0f : -INFINITY;    /* padding never counts in a max, adds 0 to a sum */
    for (int i = 0; i < 2; i++) {
        for (int64_t q = 0; q < q_lo; q++)
            cols[i][q] = padv;
        for (int64_t q = q_hi; q < lc + HD_POOL_ROW_SLACK; q++)
            cols[i][q] = padv;
    }
    if (avg)
        for (int j = 0; j < OW; j++) {
            hd_pool_span sp = hd_pool_span_of(j, W, kw, pw, sw);
            hdiv[j] = (float)(incl ? sp.incl : sp.hi - sp.lo);
        }
    float vdiv[2] = {1.0f, 1.0f};
    const float *x = plane + (q_lo - pw);
    for (int oh = oh0; oh <= oh_end; oh++) {
        if (oh < oh_end) {           /* vertical pass of row oh */
            hd_pool_span sh = hd_pool_span_of(oh, k->x.dims[2], p->window[0], p->pad[0], p->stride[0]);
            float *col = cols[(oh - oh0) & 1] + q_lo;
            const float *xr = x + (int64_t)sh.lo * k->x.strides[2];
            /* Prefetch the input rows PF_AHEAD output rows ahead (reads only; past the plane they are
             * harmless hints): out of cache the row streams are short and the hardware
             * prefetcher starts late on each task's first rows. */
            if (k->x.strides[2] > 0) {
                size_t row = (size_t)k->x.strides[2] * sizeof(float);
                uintptr_t pf = (uintptr_t)xr + (size_t)(sh.hi - sh.lo + PF_AHEAD * p->stride[0]) * row;
                for (size_t off = 0; off < (size_t)p->stride[0] * row; off += 64)
                    __builtin_prefetch((const void *)(pf + off), 0, 3);
            }
            if (avg) {
                k->pool_vsum(col, xr, (ptrdiff_t)k->x.strides[2], sh.hi - sh.lo, (size_t)(q_hi - q_lo));
                vdiv[(oh - oh0) & 1] = (float)(incl ? sh.incl : sh.hi - sh.lo);
            } else {
                k->pool_vmax(col, xr, (ptrdiff_t)k->x.strides[2], sh.hi - sh.lo, (size_t)(q_hi - q_lo), prop);
            }
        }
        if (oh > oh0) {              /* horizontal pass of row oh - 1 */
            float *yrow = y + (int64_t)(oh - 1) * k->y.strides[2];
            const float *col = cols[(oh - 1 - oh0) & 1];
            if (avg)
                k->pool_hsum(direct ? yrow : obuf, col, (size_t)OW, kw, sw, hdiv, vdiv[(oh - 1 - oh0) & 1]);
            else
                k->pool_hmax(direct ? yrow : obuf, col, (size_t)OW, kw, sw, prop);
            if (!direct)
                for (int j = 0; j < OW; j++)
                    store_f32(yrow + j, obuf[j], k->alpha, k->beta);
        }
    }
}

/* A task takes rows_group consecutive (n, c, block) units: small planes (global pooling of a
 * 7x7 map) would otherwise pay the task overhead per plane.  Each output is still computed by
 * one unit, whatever the grouping. */
static void rows_task(void *vctx, size_t t, int thread)
{
    const fwd_ctx *k = vctx;
    size_t u0 = t * k->rows_group, u1 = u0 + k->rows_group;
    if (u1 > k->rows_units)
        u1 = k->rows_units;
    for (size_t u = u0; u < u1; u++)
        rows_one(k, u, thread);
}

/* Global pooling of row-contiguous 2-d planes (window = the whole unpadded plane, one output
 * per plane, ResNet's last pool): the row kernels' two passes straight over each plane (all H
 * rows into one column row, then one output), rows_group planes per task, without the row
 * path's per-unit set-up; the same values as the row path.  Two column rows: the vertical
 * pass of the next plane runs before the horizontal pass of this one, so that the scalar
 * loads of the latter never wait for the vector stores of the former to leave the store
 * buffer. */
static void global_task(void *vctx, size_t t, int thread)
{
    const fwd_ctx *k = vctx;
    const pool_t *p = k->p;
    int C = k->x.dims[1], H = k->x.dims[2], W = k->x.dims[3];
    size_t per = k->scratch_per_thread / 2;
    float *cols[2] = {k->scratch + (size_t)thread * k->scratch_per_thread, NULL};
    cols[1] = cols[0] + per;
    int avg = !is_max(p->mode), prop = p->nan_opt == CUDNN_PROPAGATE_NAN;
    float hdiv = (float)W, vdiv = (float)H, r;
    for (int b = 0; b < 2; b++)
        for (size_t i = (size_t)W; i < per; i++)
            cols[b][i] = avg ? 0.0f : -INFINITY;      /* the slack the horizontal pass may read */
    size_t u0 = t * k->rows_group, u1 = u0 + k->rows_group;
    if (u1 > k->rows_units)
        u1 = k->rows_units;
    for (size_t u = u0; u <= u1; u++) {
        if (u < u1) {                 /* vertical pass of plane u */
            int n = (int)(u / (size_t)C), c = (int)(u % (size_t)C);
            const float *x = (const float *)k->xp + n * k->x.strides[0] + c * k->x.strides[1];
            float *col = cols[(u - u0) & 1];
            if (avg)
                k->pool_vsum(col, x, (ptrdiff_t)k->x.strides[2], H, (size_t)W);
            else
                k->pool_vmax(col, x, (ptrdiff_t)k->x.strides[2], H, (size_t)W, prop);
        }
        if (u > u0) {                 /* horizontal pass of plane u - 1 */
            size_t v = u - 1;
            int n = (int)(v / (size_t)C), c = (int)(v % (size_t)C);
            const float *col = cols[(v - u0) & 1];
            /* one output: the scalar horizontal pass (the same bits as every variant) beats a
             * vector pass whose lanes are nearly all dropped */
            if (avg)
                hd_f32_pool_ukernel_hsum__scalar(&r, col, 1, W, 1, &hdiv, vdiv);
            else
                hd_f32_pool_ukernel_hmax__scalar(&r, col, 1, W, 1, prop);
            store_f32((float *)k->yp + n * k->y.strides[0] + c * k->y.strides[1], r, k->alpha, k->beta);
        }
    }
}

/* Every window of every output holds at least one input position (then the vector paths,
 * which start from -inf, agree with the generic rule "empty window -> 0"). */
static int windows_nonempty(const pool_t *p, const hd_view *x, const hd_view *y, int nsp)
{
    for (int d = 0; d < nsp; d++) {
        if (p->pad[d] >= p->window[d])
            return 0;
        long long formula = 1 + ((long long)x->dims[d + 2] + 2LL * p->pad[d] - p->window[d]) / p->stride[d];
        if (y->dims[d + 2] > formula)
            return 0;
    }
    return 1;
}

static int valid_pool_type(const tensor_t *t)
{
    switch (t->dtype) {
    case CUDNN_DATA_FLOAT: case CUDNN_DATA_DOUBLE: case CUDNN_DATA_HALF: case CUDNN_DATA_BFLOAT16:
    case CUDNN_DATA_INT8:
        return t->vect_c <= 1;
    case CUDNN_DATA_INT8x4: case CUDNN_DATA_INT8x32:
        return t->vect_c > 1;
    default:
        return 0;
    }
}

cudnnStatus_t HD_IMPL(cudnnPoolingForward)(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc,
                                           const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                                           const void *beta, const cudnnTensorDescriptor_t yDesc, void *y)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(poolingDesc, HD_TAG_POOLING);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(y);
    const pool_t *p = poolingDesc;
    if (p->nbSpatial == 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "poolingDesc was never set");
    if (xDesc->nbDims != p->nbSpatial + 2 || yDesc->nbDims != xDesc->nbDims)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xDesc (%d dims) and yDesc (%d dims) must have %d dims for this %d-d pooling",
                       xDesc->nbDims, yDesc->nbDims, p->nbSpatial + 2, p->nbSpatial);
    if (xDesc->dtype != yDesc->dtype)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xDesc is %s but yDesc is %s", hd_dtype_name(xDesc->dtype),
                       hd_dtype_name(yDesc->dtype));
    if (xDesc->dims[0] != yDesc->dims[0] || xDesc->dims[1] != yDesc->dims[1])
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "n, c of x (%d, %d) and y (%d, %d) differ", xDesc->dims[0],
                       xDesc->dims[1], yDesc->dims[0], yDesc->dims[1]);
    if (!valid_pool_type(xDesc) || !valid_pool_type(yDesc))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "pooling forward does not take %s data",
                       hd_dtype_name(xDesc->dtype));
    for (int d = 0; d < p->nbSpatial; d++)
        if ((long long)xDesc->dims[d + 2] + 2LL * p->pad[d] < p->window[d])
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "window %d (%d) is larger than the padded input (%d + 2*%d)", d,
                           p->window[d], xDesc->dims[d + 2], p->pad[d]);

    fwd_ctx k;
    k.p = p;
    hd_view_init(&k.x, xDesc);
    hd_view_init(&k.y, yDesc);
    k.xp = x;
    k.yp = y;
    k.alpha = hd_scale_arg(alpha, xDesc->dtype);
    k.beta = hd_scale_arg(beta, xDesc->dtype);
    k.nsp = p->nbSpatial;
    k.pool_vmax = hd_f32_pool_vmax_select(handle->isa);
    k.pool_hmax = hd_f32_pool_hmax_select(handle->isa);
    k.pool_vsum = hd_f32_pool_vsum_select(handle->isa);
    k.pool_hsum = hd_f32_pool_hsum_select(handle->isa);
    int nt = handle->num_threads;
    int N = xDesc->dims[0], C = xDesc->dims[1];

    if (xDesc->dtype == CUDNN_DATA_FLOAT && windows_nonempty(p, &k.x, &k.y, k.nsp)) {
        if (k.x.strides[1] == 1 && k.y.strides[1] == 1 && C > 1 && k.y.strides[k.nsp + 1] >= 0) {
            /* per thread: the pointer lists of a batch of outputs, their divisors, and their
             * values before the alpha/beta blend */
            size_t wmax = 1, OW = (size_t)yDesc->dims[k.nsp + 1];
            for (int d = 0; d < k.nsp; d++)
                wmax *= (size_t)(p->window[d] < xDesc->dims[d + 2] ? p->window[d] : xDesc->dims[d + 2]);
            size_t chunk = OW;
            if (chunk > 4096 / wmax)
                chunk = 4096 / wmax;
            if (chunk > 65536 / (size_t)C)
                chunk = 65536 / (size_t)C;
            if (chunk < 1)
                chunk = 1;
            size_t per = chunk * wmax * sizeof(float *) + (((chunk + 15) & ~(size_t)15) + chunk * (size_t)C) * sizeof(float);
            per = (per + 63) & ~(size_t)63;
            k.scratch = hd_handle_scratch(handle, per * (size_t)nt);
            if (!k.scratch)
                return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for %zu bytes of scratch", per * (size_t)nt);
            k.scratch_per_thread = per;
            k.nhwc_chunk = chunk;
            k.nhwc_wmax = wmax;
            k.pool_nhwc = hd_f32_pool_nhwc_select(handle->isa);
            double ybytes = (double)hd_tensor_elems(yDesc) * sizeof(float);
            k.nhwc_stream = C % 16 == 0 && (k.y.strides[k.nsp + 1] * (int64_t)sizeof(float)) % 64 == 0 &&
                            ybytes >= (double)hd_eltwise_stream_min_bytes();
            size_t tasks = (size_t)N;
            for (int d = 0; d < k.nsp - 1; d++)
                tasks *= (size_t)yDesc->dims[d + 2];
            hd_parallel_for(tasks, nt, nhwc_task, &k);
            return CUDNN_STATUS_SUCCESS;
        }
        if (k.nsp == 2 && k.x.strides[3] == 1 && yDesc->dims[2] == 1 && yDesc->dims[3] == 1 &&
            p->window[0] == xDesc->dims[2] && p->window[1] == xDesc->dims[3] && p->pad[0] == 0 && p->pad[1] == 0 &&
            (is_max(p->mode) || p->mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING ||
             p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING)) {
            /* two column rows with the horizontal pass's slack, per thread */
            size_t per = 2 * row_col_stride(xDesc->dims[3]);
            k.scratch = hd_handle_scratch(handle, per * sizeof(float) * (size_t)nt);
            if (!k.scratch)
                return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for %zu floats of scratch", per * (size_t)nt);
            k.scratch_per_thread = per;
            k.rows_units = (size_t)N * (size_t)C;
            k.rows_group = 1 + 16384 / ((size_t)xDesc->dims[2] * (size_t)xDesc->dims[3]);
            hd_parallel_for((k.rows_units + k.rows_group - 1) / k.rows_group, nt, global_task, &k);
            return CUDNN_STATUS_SUCCESS;
        }
        if (k.nsp == 2 && (k.x.strides[3] == 1 || k.x.dims[3] == 1) && (k.y.strides[3] == 1 || k.y.dims[3] == 1)) {
            /* two padded column rows, a row of outputs for the alpha/beta blend, a row of
             * horizontal divisors (average modes) */
            size_t lc = (size_t)(yDesc->dims[3] - 1) * (size_t)p->stride[1] + (size_t)p->window[1];
            size_t per = 2 * row_col_stride((int64_t)lc) + 2 * (((size_t)yDesc->dims[3] + 15) & ~(size_t)15);
            k.scratch = hd_handle_scratch(handle, per * sizeof(float) * (size_t)nt);
            if (!k.scratch)
                return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for %zu floats of scratch", per * (size_t)nt);
            k.scratch_per_thread = per;
            size_t blocks = ((size_t)yDesc->dims[2] + ROW_BLOCK - 1) / ROW_BLOCK;
            size_t in_unit = (size_t)xDesc->dims[3] * (size_t)(ROW_BLOCK * p->stride[0] + p->window[0]);
            k.rows_units = (size_t)N * (size_t)C * blocks;
            k.rows_group = 1 + 8192 / in_unit;     /* at least about 8192 input floats per task */
            hd_parallel_for((k.rows_units + k.rows_group - 1) / k.rows_group, nt, rows_task, &k);
            return CUDNN_STATUS_SUCCESS;
        }
    }
    k.scratch = NULL;
    k.scratch_per_thread = 0;
    hd_parallel_for((size_t)N * (size_t)C, nt, generic_task, &k);
    return CUDNN_STATUS_SUCCESS;
}
