/*
 * cudnnPoolingBackward, MAX 3x3 stride 2 on channel-contiguous layouts (NHWC and the like) and
 * on channel planes with contiguous rows (NCHW), alpha 1 and beta 0: the argmax and the sums
 * in one pass (the max3s2 kernels), instead of an argmax pass and a gather or scatter pass
 * over the same taps (pooling_bwd_f32.c).
 *
 * One task per (image, block of dx rows).  Output rows are taken top to bottom; the window of
 * output row oh has the rows 2oh - pad, +1, +2, and its last row is the next output row's
 * first, so the kernel leaves that row's partial sums in a carry (doubles for the columns that
 * four windows share, floats for the others) and the next output row completes them.  A row
 * is written once, when complete (its top and middle rows by each output row, the last bottom
 * row from the carry), and only inside the task's block; the sums of a block's first output
 * row start from zero, which is right because its top row is then either above the block or
 * reached by no earlier output row.  Every dx value is the same sum in the same order whatever
 * the blocks and the thread count.
 *
 * Channel planes with contiguous rows (NCHW and the like) take the same pass per (image,
 * channel) with the max3s2w kernel, which runs along a row 16 outputs at a time; the carries
 * are then one double and one float per output.
 */
#include "core/api.h"
#include "core/handle.h"
#include "core/log.h"
#include "core/memory.h"
#include "core/parallel.h"
#include "core/elem.h"
#include "kernels/pool/pool-ukernels.h"
#include "ops/infer/pooling.h"
#include "ops/train/pooling_bwd.h"

#include <string.h>

typedef struct {
    const hd_view *dy, *x, *dx;
    const float *dyp, *xp;
    float *dxp;
    int ph, pw, prop, stream;
    int nblk, rows_per_blk;
    size_t cp, per_thread;   /* padded channels; doubles of scratch per thread */
    double *scratch;
    hd_f32_pool_max3s2_fn row;
    hd_f32_pool_max3s2_last_fn last;
    hd_f32_pool_fence_fn fence;
    hd_f32_pool_max3s2w_fn roww;         /* planes (columns contiguous): per (image, channel) */
    hd_f32_pool_max3s2w_last_fn lastw;
} max3s2_ctx;

/* Block BLK's dx rows [*r0, *r1) of H, and the output rows [*oh0, *oh1) of OH whose windows
 * [2oh - ph, 2oh - ph + 3) meet them; 0 when the block is empty. */
static int block_rows(const max3s2_ctx *k, int blk, int H, int OH, int *r0, int *r1, int *oh0, int *oh1)
{
    *r0 = blk * k->rows_per_blk;
    *r1 = *r0 + k->rows_per_blk < H ? *r0 + k->rows_per_blk : H;
    if (*r0 >= *r1)
        return 0;
    *oh0 = *r0 + k->ph - 2 <= 0 ? 0 : (*r0 + k->ph - 1) / 2;
    *oh1 = (*r1 - 1 + k->ph) / 2 + 1;
    if (*oh1 > OH)
        *oh1 = OH;
    return 1;
}

/* One channel plane (image and channel t / nblk), a block of its dx rows: as max3s2_task with
 * one channel and the carries as plain arrays. */
static void max3s2w_task(void *vctx, size_t t, int thread)
{
    const max3s2_ctx *k = vctx;
    int C = k->x->dims[1], H = k->x->dims[2], W = k->x->dims[3], OH = k->dy->dims[2], OW = k->dy->dims[3];
    int64_t u = (int64_t)(t / (size_t)k->nblk), n = u / C, c = u % C;
    int r0, r1, oh0, oh1;
    if (!block_rows(k, (int)(t % (size_t)k->nblk), H, OH, &r0, &r1, &oh0, &oh1))
        return;
    double *cd[2];
    float *cf[2];
    cd[0] = k->scratch + (size_t)thread * k->per_thread;
    cd[1] = cd[0] + (size_t)OW + 1;
    cf[0] = (float *)(void *)(cd[1] + (size_t)OW + 1);
    cf[1] = cf[0] + OW;
    memset(cd[0], 0, sizeof(double) * ((size_t)OW + 1));
    memset(cf[0], 0, sizeof(float) * (size_t)OW);
    const float *x = k->xp + n * k->x->strides[0] + c * k->x->strides[1];
    const float *dy = k->dyp + n * k->dy->strides[0] + c * k->dy->strides[1];
    float *dx = k->dxp + n * k->dx->strides[0] + c * k->dx->strides[1];
    int64_t xh = k->x->strides[2], dyh = k->dy->strides[2], dxh = k->dx->strides[2];
    int cur = 0;
    for (int oh = oh0; oh < oh1; oh++, cur ^= 1) {
        int s = 2 * oh - k->ph;
        const float *xr[3];
        for (int q = 0; q < 3; q++)
            xr[q] = s + q >= 0 && s + q < H ? x + (int64_t)(s + q) * xh : NULL;
        float *dtop = s >= r0 && s < r1 ? dx + (int64_t)s * dxh : NULL;
        float *dmid = s + 1 >= r0 && s + 1 < r1 ? dx + (int64_t)(s + 1) * dxh : NULL;
        k->roww(dtop, dmid, xr, (size_t)W, k->pw, dy + (int64_t)oh * dyh, (size_t)OW, cd[cur], cf[cur], cd[cur ^ 1],
                cf[cur ^ 1], k->prop);
    }
    int b = 2 * (oh1 - 1) - k->ph + 2;
    if (oh1 > oh0 && b >= r0 && b < r1)
        k->lastw(dx + (int64_t)b * dxh, (size_t)W, k->pw, (size_t)OW, cd[cur], cf[cur]);
}

static void max3s2_task(void *vctx, size_t t, int thread)
{
    const max3s2_ctx *k = vctx;
    int C = k->x->dims[1], H = k->x->dims[2], W = k->x->dims[3], OH = k->dy->dims[2], OW = k->dy->dims[3];
    int64_t n = (int64_t)(t / (size_t)k->nblk);
    int r0, r1, oh0, oh1;
    if (!block_rows(k, (int)(t % (size_t)k->nblk), H, OH, &r0, &r1, &oh0, &oh1))
        return;
    size_t cdn = ((size_t)OW + 1) * k->cp, cfn = (size_t)OW * k->cp;
    double *cd[2];
    float *cf[2];
    cd[0] = k->scratch + (size_t)thread * k->per_thread;
    cd[1] = cd[0] + cdn;
    cf[0] = (float *)(void *)(cd[1] + cdn);
    cf[1] = cf[0] + cfn;
    memset(cd[0], 0, sizeof(double) * cdn);
    memset(cf[0], 0, sizeof(float) * cfn);
    const float *x = k->xp + n * k->x->strides[0];
    const float *dy = k->dyp + n * k->dy->strides[0];
    float *dx = k->dxp + n * k->dx->strides[0];
    int64_t xh = k->x->strides[2], dyh = k->dy->strides[2], dxh = k->dx->strides[2];
    int cur = 0;
    for (int oh = oh0; oh < oh1; oh++, cur ^= 1) {
        int s = 2 * oh - k->ph;
        const float *xr[5];            /* the window's rows, then the next output row's new ones */
        for (int q = 0; q < 5; q++)
            xr[q] = s + q >= 0 && s + q < H ? x + (int64_t)(s + q) * xh : NULL;
        float *dtop = s >= r0 && s < r1 ? dx + (int64_t)s * dxh : NULL;
        float *dmid = s + 1 >= r0 && s + 1 < r1 ? dx + (int64_t)(s + 1) * dxh : NULL;
        k->row(dtop, dmid, (ptrdiff_t)k->dx->strides[3], xr, (ptrdiff_t)k->x->strides[3], (size_t)W, k->pw,
               dy + (int64_t)oh * dyh, oh + 1 < oh1 ? dy + (int64_t)(oh + 1) * dyh : NULL, (ptrdiff_t)k->dy->strides[3], (size_t)OW, (size_t)C, cd[cur], cf[cur],
               cd[cur ^ 1], cf[cur ^ 1], k->prop, k->stream);
    }
    int b = 2 * (oh1 - 1) - k->ph + 2;           /* the last output row's bottom row */
    if (oh1 > oh0 && b >= r0 && b < r1)
        k->last(dx + (int64_t)b * dxh, (ptrdiff_t)k->dx->strides[3], (size_t)W, k->pw, (size_t)OW, (size_t)C,
                cd[cur], cf[cur], k->stream);
    if (k->stream)
        k->fence();
}

int hd_pool_bwd_f32_max3s2(cudnnHandle_t handle, const struct cudnnPoolingStruct *p, const hd_view *dy,
                           const hd_view *x, const hd_view *dx, const float *dyp, const float *xp, float *dxp,
                           double alpha, double beta, cudnnStatus_t *status)
{
    int C = x->dims[1], H = x->dims[2], W = x->dims[3], OH = dy->dims[2], OW = dy->dims[3];
    int ph = p->pad[0], pw = p->pad[1];
    if (p->window[0] != 3 || p->window[1] != 3 || p->stride[0] != 2 || p->stride[1] != 2 || ph < 0 || ph > 1 ||
        pw < 0 || pw > 1 || alpha != 1.0 || beta != 0.0 || OH < 1 || OW < 1)
        return 0;
    int planes = !(x->strides[1] == 1 && dy->strides[1] == 1 && dx->strides[1] == 1 && C >= 2);
    if (planes && (x->strides[3] != 1 || dy->strides[3] != 1 || dx->strides[3] != 1))
        return 0;
    /* every dx position must be a column and a row of some window (the kernel writes those) */
    if (2 * (OH - 1) - ph + 2 < H - 1 || 2 * (OW - 1) - pw + 2 < W - 1)
        return 0;
    max3s2_ctx k;
    memset(&k, 0, sizeof k);
    if (planes) {
        k.roww = hd_f32_pool_max3s2w_select(handle->isa);
        k.lastw = hd_f32_pool_max3s2w_last_select(handle->isa);
        if (!k.roww || !k.lastw)
            return 0;
    } else {
        k.row = hd_f32_pool_max3s2_select(handle->isa);
        k.last = hd_f32_pool_max3s2_last_select(handle->isa);
        if (!k.row || !k.last)
            return 0;
    }
    k.fence = hd_f32_pool_stream_fence_select(handle->isa);
    k.dy = dy;
    k.x = x;
    k.dx = dx;
    k.dyp = dyp;
    k.xp = xp;
    k.dxp = dxp;
    k.ph = ph;
    k.pw = pw;
    k.prop = p->nan_opt == CUDNN_PROPAGATE_NAN;
    /* long channel-contiguous rows: dx is only written, so it is streamed past the cache
       (NCHW rows measured no faster streamed) */
    k.stream = !planes && dx->strides[3] == C && C % 16 == 0 && (int64_t)W * C >= 1024;
    /* two carries: (OW + 1) x cp doubles and OW x cp floats each, cp = 1 for planes */
    k.cp = planes ? 1 : HD_POOL_MAX3S2_CP((size_t)C);
    k.per_thread = 2 * ((size_t)OW + 1) * k.cp + (size_t)OW * k.cp + 8;
    int nt = handle->num_threads, nblk = 1;
    size_t units = planes ? (size_t)x->dims[0] * (size_t)C : (size_t)x->dims[0];
    if (units < 2 * (size_t)nt) {                /* every thread has work at batch 1 too */
        size_t want = (2 * (size_t)nt + units - 1) / units;
        nblk = want < (size_t)H ? (int)want : H;
    }
    k.rows_per_blk = (H + nblk - 1) / nblk;
    k.nblk = (H + k.rows_per_blk - 1) / k.rows_per_blk;
    size_t bytes;
    if (hd_mul_size(k.per_thread * sizeof(double), (size_t)nt, &bytes) != 0) {
        *status = HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "scratch size overflows");
        return 1;
    }
    k.scratch = hd_handle_scratch(handle, bytes);
    if (!k.scratch) {
        *status = HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "no memory for %zu bytes of scratch", bytes);
        return 1;
    }
    hd_parallel_for(units * (size_t)k.nblk, nt, planes ? max3s2w_task : max3s2_task, &k);
    *status = CUDNN_STATUS_SUCCESS;
    return 1;
}
