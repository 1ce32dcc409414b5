/*
 * Backward data of small images by one GEMM over many images, then col2im
 * (conv/solvers/conv_bwdd.h, bwd_data.batched_col2im).
 *
 * With 7x7 or 14x14 images and hundreds of channels, every per-image (or per-block) product
 * is thin (49 or 196 columns) against a filter of megabytes that each call packs again.  Here a
 * block of images is one product, computed transposed: dcol^T (positions of all images of the
 * block x Cg*R*S) = dy^T (positions x Kg) * W (Kg x Cg*R*S), by hd_sgemm on all threads (its
 * result does not depend on the thread count).  Then one task per image and channel chunk
 * (chunks so that batch 1 uses every thread) adds, position by position and tap by tap, the
 * tap's run of the chunk's channel values into a private pixel-major image and writes it
 * through alpha/beta.  The image blocks are a function of the problem only.
 *
 * W is read in place: row k of the group holds its Cg*R*S columns in storage order (KCRS or
 * KRSC), so dcol's columns come out in that order and the run of effective tap (r, s) starts
 * at hd_conv_w_off(k = 0, c = 0, r, s) with channel step wst[1] (1 for KRSC) -- which also
 * applies CONVOLUTION mode's flip.  dy is read in place when its positions run linearly
 * across images with contiguous channels (NHWC-like); otherwise (NCHW) the block's dy rows
 * are first copied into a panel (the GEMM's transposed A).  Writing channel planes is done
 * plane by plane from the pixel-major image.
 */
#include "conv/solvers/conv_solvers.h"
#include "conv/solvers/conv_bwdd.h"

#include "core/parallel.h"
#include "conv/conv_internal.h"
#include "kernels/gemm/gemm.h"

#include <string.h>

#define DCOL_FLOATS (6 * 1024 * 1024) /* most floats of one dcol block (24 MiB) */
#define MAX_IMAGES 8                  /* most images per block (wide enough for the GEMM) */

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

typedef struct {
    int64_t nimg;                 /* images per block */
    int64_t np;                   /* positions per block: nimg * P */
    int in_place;                 /* dy read as B^T (positions x channels) */
    int64_t nch, cw;              /* the scatter's channel chunks per image, channels per chunk */
} bt_plan;

static int dy_linear_nhwc(const hd_conv_problem *p)
{
    const int64_t *ys = p->ys;
    return ys[1] == 1 && ys[4] >= p->Kg && (p->out[1] == 1 || ys[3] == p->out[2] * ys[4]) &&
           (p->N == 1 || ys[0] == p->P * ys[4]);
}

static bt_plan plan_bt(const hd_conv_problem *p)
{
    bt_plan L;
    int64_t per = p->CRS * p->P;
    L.nimg = DCOL_FLOATS / per < 1 ? 1 : DCOL_FLOATS / per;
    if (L.nimg > MAX_IMAGES)
        L.nimg = MAX_IMAGES;
    if (L.nimg > p->N)
        L.nimg = p->N;
    L.nimg = cdiv(p->N, cdiv(p->N, L.nimg));          /* balanced blocks */
    L.np = L.nimg * p->P;
    L.in_place = dy_linear_nhwc(p);
    /* With fewer images than HD_SCRATCH_SLOTS (batch 1) one task per image would leave threads idle in
     * the scatter: the channels are cut into chunks of at least 32 too, up to HD_SCRATCH_SLOTS tasks.
     * A chunk only picks which task adds a value, never the order of the additions. */
    L.nch = cdiv(HD_SCRATCH_SLOTS, L.nimg);
    if (L.nch > p->Cg / 32)
        L.nch = p->Cg / 32 < 1 ? 1 : p->Cg / 32;
    L.cw = cdiv(p->Cg, L.nch);
    L.nch = cdiv(p->Cg, L.cw);
    return L;
}

/* dcol, dy panel (none in place), HD_SCRATCH_SLOTS private planes. */
static hd_conv_layout layout_bt(const hd_conv_problem *p)
{
    bt_plan L = plan_bt(p);
    hd_conv_layout W = {{0}, 0};
    hd_conv_book(&W, 1, p->CRS, L.np, sizeof(float));
    hd_conv_book(&W, 2, L.in_place ? 0 : p->Kg, L.np, sizeof(float));
    hd_conv_book(&W, 3, HD_SCRATCH_SLOTS, p->Q * p->Cg, sizeof(float));
    return W;
}

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    bt_plan L;
    float *dcol, *panel, *planes;
    int64_t n0, g;                /* current block and group */
} bt_ctx;

/* One dy channel of the block into the panel (positions of each image in order). */
static void panel_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const bt_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    const int64_t *ys = p->ys;
    int64_t k = (int64_t)task, OW = p->out[2], OH = p->out[1];
    const float *dy = (const float *)c->a->y + (c->g * p->Kg + k) * ys[1];
    float *d = c->panel + k * c->L.np;
    for (int64_t i = 0; i < c->L.nimg && c->n0 + i < p->N; i++)
        for (int64_t oh = 0; oh < OH; oh++) {
            const float *src = dy + (c->n0 + i) * ys[0] + oh * ys[3];
            float *dst = d + (i * OH + oh) * OW;
            if (ys[4] == 1)
                memcpy(dst, src, sizeof(float) * (size_t)OW);
            else
                for (int64_t ow = 0; ow < OW; ow++)
                    dst[ow] = src[ow * ys[4]];
        }
}

/* dcol is transposed (positions x Cg*R*S): one task per image and channel chunk adds,
 * position by position and tap by tap, a run of the chunk's channel values into a private
 * pixel-major image, then writes it (plane by plane when dx has channel planes). */
static void scatter_pix_task(void *vctx, size_t task, int thread)
{
    const bt_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    const hd_conv_args *a = c->a;
    int64_t i = (int64_t)task / c->L.nch, n = c->n0 + i, CRS = p->CRS;
    int64_t c0 = ((int64_t)task % c->L.nch) * c->L.cw;
    int64_t Cg = p->Cg - c0 < c->L.cw ? p->Cg - c0 : c->L.cw;   /* this task's channels */
    int64_t R = p->flt[1], S = p->flt[2], OH = p->out[1], OW = p->out[2], H = p->in[1], W = p->in[2];
    int64_t sh = p->str[1], sw = p->str[2], ph = p->pad[1], pw = p->pad[2], dh = p->dil[1], dw = p->dil[2];
    int64_t cs = p->wst[1];                                  /* dcol column step between channels */
    float *acc = c->planes + (size_t)thread * (size_t)(p->Q * p->Cg);   /* slots sized for all channels */
    memset(acc, 0, sizeof(float) * (size_t)(p->Q * Cg));
    for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
            const float *col = c->dcol + (i * p->P + oh * OW + ow) * CRS;
            for (int64_t r = 0; r < R; r++) {
                int64_t ih = oh * sh - ph + r * dh;
                if (ih < 0 || ih >= H)
                    continue;
                for (int64_t s = 0; s < S; s++) {
                    int64_t iw = ow * sw - pw + s * dw;
                    if (iw < 0 || iw >= W)
                        continue;
                    float *d = acc + (ih * W + iw) * Cg;
                    const float *v = col + hd_conv_w_off(p, 0, c0, 0, r, s);
                    if (cs == 1)
                        for (int64_t ch = 0; ch < Cg; ch++)
                            d[ch] += v[ch];
                    else
                        for (int64_t ch = 0; ch < Cg; ch++)
                            d[ch] += v[ch * cs];
                }
            }
        }
    float alpha = (float)a->epi.alpha, beta = (float)a->epi.beta;
    const int64_t *xs = p->xs;
    float *dx = (float *)a->out + n * xs[0] + (c->g * p->Cg + c0) * xs[1];
    if (xs[1] != 1) {                                        /* channel planes: write plane by plane */
        for (int64_t ch = 0; ch < Cg; ch++)
            for (int64_t h = 0; h < H; h++) {
                float *o = dx + ch * xs[1] + h * xs[3];
                const float *v = acc + h * W * Cg + ch;
                if (beta == 0)
                    for (int64_t w = 0; w < W; w++)
                        o[w * xs[4]] = alpha * v[w * Cg];
                else
                    for (int64_t w = 0; w < W; w++)
                        o[w * xs[4]] = alpha * v[w * Cg] + beta * o[w * xs[4]];
            }
        return;
    }
    for (int64_t h = 0; h < H; h++)
        for (int64_t w = 0; w < W; w++) {
            float *o = dx + h * xs[3] + w * xs[4];
            const float *v = acc + (h * W + w) * Cg;
            if (beta == 0)
                for (int64_t ch = 0; ch < Cg; ch++)
                    o[ch * xs[1]] = alpha * v[ch];
            else
                for (int64_t ch = 0; ch < Cg; ch++)
                    o[ch * xs[1]] = alpha * v[ch] + beta * o[ch * xs[1]];
        }
}

size_t hd_conv_bwdd_batched_ws(const hd_conv_problem *p) { return layout_bt(p).total; }

int hd_conv_bwdd_batched_app(const hd_conv_problem *p, const char **reason)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8 || p->xv != 1 || p->yv != 1 || p->wv != 1) {
        *reason = "the batched col2im backward-data solver takes FLOAT x, w and y only";
        return 0;
    }
    if (p->nsp != 2) {
        *reason = "batched col2im backward data is 2-d only";
        return 0;
    }
    /* it pays for small images with deep products: elsewhere dcol's traffic costs more than
     * the thin GEMMs it avoids */
    if (p->P > 256 || p->CRS < 512 || p->Kg < 64) {
        *reason = "batched col2im backward data is for dy planes <= 256 positions, Cg*R*S >= 512, Kg >= 64";
        return 0;
    }
    size_t ws = hd_conv_bwdd_batched_ws(p), cap = (size_t)64 << 20, dx = 0;
    if (hd_mul_size((size_t)(p->N * p->C), (size_t)p->Q * sizeof(float), &dx) == 0 && dx > cap)
        cap = dx;
    if (ws == SIZE_MAX || ws > cap) {
        *reason = "its workspace would exceed max(dx, 64 MiB)";
        return 0;
    }
    return 1;
}

double hd_conv_bwdd_batched_cost(const hd_conv_problem *p)
{
    (void)p;
    return 0.25;
}

void hd_conv_bwdd_batched_exec(const hd_conv_problem *p, const hd_conv_args *a)
{
    hd_conv_layout W = layout_bt(p);
    bt_ctx c;
    c.p = p;
    c.a = a;
    c.L = plan_bt(p);
    c.dcol = (float *)((char *)a->ws + W.off[1]);
    c.panel = (float *)((char *)a->ws + W.off[2]);
    c.planes = (float *)((char *)a->ws + W.off[3]);
    int nt = a->nthreads < HD_SCRATCH_SLOTS ? a->nthreads : HD_SCRATCH_SLOTS;
    for (c.n0 = 0; c.n0 < p->N; c.n0 += c.L.nimg) {
        int64_t nimg = p->N - c.n0 < c.L.nimg ? p->N - c.n0 : c.L.nimg, np = nimg * p->P;
        for (c.g = 0; c.g < p->G; c.g++) {
            const float *A;
            size_t lda;
            char ta;
            if (c.L.in_place) {
                A = (const float *)a->y + c.n0 * p->ys[0] + c.g * p->Kg;
                lda = (size_t)p->ys[4];
                ta = 'N';
            } else {
                hd_parallel_for((size_t)p->Kg, nt, panel_task, &c);
                A = c.panel;
                lda = (size_t)c.L.np;
                ta = 'T';
            }
            /* dcol^T (np x CRS) = dy^T (np x Kg) * W (Kg x CRS) */
            hd_sgemm(a->nthreads, ta, 'N', (size_t)np, (size_t)p->CRS, (size_t)p->Kg, 1.0f, A, lda,
                     (const float *)a->w + c.g * p->Kg * p->wst[0], (size_t)p->wst[0], 0.0f, c.dcol, (size_t)p->CRS);
            hd_parallel_for((size_t)(nimg * c.L.nch), nt, scatter_pix_task, &c);
        }
    }
}

/* The name keeps "blocked_gemm_f32": it runs on the packed-panel SGEMM of that family. */
const hd_conv_solver hd_solver_bwdd_batched = {
    .id = 254, .name = "bwd_data.batched_col2im_blocked_gemm_f32", .dir = HD_CONV_BWD_DATA, .algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, .deterministic = 1,
    .applicable = hd_conv_bwdd_batched_app, .workspace = hd_conv_bwdd_batched_ws, .run = hd_conv_bwdd_batched_exec, .cost_factor = 0.25, .cost = hd_conv_bwdd_batched_cost};
