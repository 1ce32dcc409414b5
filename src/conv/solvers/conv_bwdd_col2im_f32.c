/*
 * Backward data by GEMM + col2im for few input channels (conv/solvers/conv_bwdd.h,
 * bwd_data.col2im).
 *
 * With C = 3 (a network's first layer) the phased forward problems would multiply 3-row
 * matrices.  Here the GEMM is the other way round: for a block of dy positions,
 * dcol (Cg*R*S x positions) = W^T (Cg*R*S x Kg) * dy (Kg x positions) -- a wide, K-deep
 * product -- and each dcol row (c, r, s) is then added into dx at the positions its tap
 * meets: ih = oh*str - pad + r*dil, iw = ow*str - pad + s*dil.  No zero of a strided dx is
 * ever multiplied.
 *
 * The filter is the GEMM's transposed A in place (row k: its Cg*R*S columns in storage order,
 * KCRS or KRSC); the dcol row of effective tap (c, r, s) is then hd_conv_w_off(k = 0, c, r, s),
 * which also applies CONVOLUTION mode's flip.
 *
 * 2-d only.  A task is (image, group, band of dx rows); it accumulates its band in a private
 * buffer (zeroed first), walking the dy rows that reach the band in chunks, and writes the
 * band through the epilogue at the end, so dx is written once, with any strides, and tasks
 * never share an element.  The bands are a function of the problem only and every dx element
 * adds its contributions in the same order (chunk by chunk, taps in order), so the result
 * does not depend on the thread count.  Dy rows next to a band boundary are multiplied for
 * both bands (a few rows per band; with batch >= 8 there is one band per image).
 */
#include "conv/solvers/conv_solvers.h"
#include "conv/solvers/conv_bwdd.h"

#include "core/parallel.h"
#include "conv/conv_internal.h"
#include "kernels/conv/im2col-ukernels.h"
#include "kernels/gemm/gemm.h"

#include <string.h>

#define DCOL_FLOATS (128 * 1024)      /* target size of one dcol block (512 KiB) */
#define BAND_FLOATS (1024 * 1024)     /* most floats of one band (4 MiB) */

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* floor(a / b) for b > 0 and any sign of a. */
static int64_t fdiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

typedef struct {
    int64_t CRS;                  /* dcol rows: Cg * R * S */
    int64_t rows;                 /* dy rows per chunk */
    int64_t bh, nb;               /* dx rows per band, bands per image */
    int64_t panel;                /* floats of the gathered dy panel (0: dy is read in place) */
    int64_t slot;                 /* floats per slot: dcol, panel, band */
} c2_plan;

/* dy positions of one image addressed as pos * ys[4] (NCHW-like) or channels contiguous with
 * pos * ys[4] (NHWC-like): the GEMM reads dy in place. */
static int dy_in_place(const hd_conv_problem *p)
{
    const int64_t *ys = p->ys;
    int lin = p->out[1] == 1 || ys[3] == p->out[2] * ys[4];
    return lin && ((ys[4] == 1 && ys[1] >= p->out[1] * p->out[2]) || (ys[1] == 1 && ys[4] >= p->Kg));
}

static c2_plan plan_c2(const hd_conv_problem *p)
{
    c2_plan L;
    int64_t OW = p->out[2], H = p->in[1], W = p->in[2];
    L.CRS = p->CRS;
    int64_t npos = DCOL_FLOATS / L.CRS;
    npos = npos < 256 ? 256 : npos > 2048 ? 2048 : npos;
    L.rows = npos / OW < 1 ? 1 : npos / OW;
    if (L.rows > p->out[1])
        L.rows = p->out[1];
    int64_t nb = 1;
    while (p->N * p->G * nb < 8 && nb * 2 <= H)
        nb *= 2;
    while (p->Cg * cdiv(H, nb) * W > BAND_FLOATS && nb < H)
        nb *= 2;
    if (nb > H)
        nb = H;
    L.bh = cdiv(H, nb);
    L.nb = cdiv(H, L.bh);
    int64_t np = L.rows * OW;
    L.panel = dy_in_place(p) ? 0 : p->Kg * np;
    L.slot = L.CRS * np + L.panel + p->Cg * L.bh * W;
    return L;
}

/* HD_SCRATCH_SLOTS x (dcol, panel, band). */
static hd_conv_layout layout_c2(const hd_conv_problem *p)
{
    c2_plan L = plan_c2(p);
    hd_conv_layout W = {{0}, 0};
    hd_conv_book(&W, 1, HD_SCRATCH_SLOTS, L.slot, sizeof(float));
    return W;
}

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    c2_plan L;
    float *slots;
    hd_conv_addrow_fn addrow;     /* the ISA's d[j*step] += s[j]; NULL: the plain loop */
} c2_ctx;

/* Add dcol (CRS x nr*OW, dy rows [o0, o0+nr)) into the band of dx rows [h0, h1). */
static void scatter(const hd_conv_problem *p, hd_conv_addrow_fn addrow, const float *dcol, int64_t o0, int64_t nr,
                    int64_t h0, int64_t h1, float *band)
{
    int64_t R = p->flt[1], S = p->flt[2], OW = p->out[2], W = p->in[2];
    int64_t sh = p->str[1], sw = p->str[2], ph = p->pad[1], pw = p->pad[2], dh = p->dil[1], dw = p->dil[2];
    int64_t np = nr * OW;
    for (int64_t c = 0; c < p->Cg; c++)
        for (int64_t r = 0; r < R; r++)
            for (int64_t s = 0; s < S; s++) {
                const float *src = dcol + hd_conv_w_off(p, 0, c, 0, r, s) * np;
                int64_t off = s * dw - pw;                 /* iw = ow*sw + off */
                int64_t lo = off >= 0 ? 0 : cdiv(-off, sw), hi = fdiv(W - 1 - off, sw) + 1;
                if (hi > OW)
                    hi = OW;
                if (lo >= hi)
                    continue;
                for (int64_t i = 0; i < nr; i++) {
                    int64_t ih = (o0 + i) * sh - ph + r * dh;
                    if (ih < h0 || ih >= h1)
                        continue;
                    float *drow = band + (c * (h1 - h0) + ih - h0) * W + (lo * sw + off);
                    const float *srow = src + i * OW + lo;
                    int64_t cnt = hi - lo;
                    if (addrow) {
                        addrow(drow, srow, cnt, sw);
                    } else if (sw == 1) {
                        for (int64_t j = 0; j < cnt; j++)
                            drow[j] += srow[j];
                    } else {
                        for (int64_t j = 0; j < cnt; j++)
                            drow[j * sw] += srow[j];
                    }
                }
            }
}

static void c2_task(void *vctx, size_t task, int thread)
{
    const c2_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    const hd_conv_args *a = c->a;
    const c2_plan *L = &c->L;
    int64_t t = (int64_t)task, b = t % L->nb, g = (t / L->nb) % p->G, n = t / (L->nb * p->G);
    int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2];
    int64_t h0 = b * L->bh, h1 = h0 + L->bh < H ? h0 + L->bh : H;
    float *dcol = c->slots + (size_t)thread * (size_t)L->slot, *panel = dcol + L->CRS * L->rows * OW;
    float *band = panel + L->panel;
    memset(band, 0, sizeof(float) * (size_t)(p->Cg * (h1 - h0) * W));
    /* dy rows that reach [h0, h1): oh*sh - ph + r*dh in [h0, h1) for some r */
    int64_t sh = p->str[1], span = (p->flt[1] - 1) * p->dil[1];
    int64_t olo = h0 + p->pad[1] - span <= 0 ? 0 : cdiv(h0 + p->pad[1] - span, sh);
    int64_t ohi = fdiv(h1 - 1 + p->pad[1], sh);
    if (ohi > OH - 1)
        ohi = OH - 1;
    const float *dy = a->y;
    const int64_t *ys = p->ys;
    const float *wt = (const float *)a->w + g * p->Kg * p->wst[0];
    for (int64_t o0 = olo; o0 <= ohi; o0 += L->rows) {
        int64_t nr = ohi + 1 - o0 < L->rows ? ohi + 1 - o0 : L->rows, np = nr * OW;
        const float *B;
        size_t ldb;
        char tb = 'N';
        const float *src = dy + n * ys[0] + g * p->Kg * ys[1];
        if (L->panel == 0 && ys[4] == 1 && ys[1] >= OH * OW) {
            B = src + o0 * ys[3];
            ldb = (size_t)ys[1];
        } else if (L->panel == 0) {
            B = src + o0 * ys[3];
            ldb = (size_t)ys[4];
            tb = 'T';
        } else {
            for (int64_t k = 0; k < p->Kg; k++)
                for (int64_t i = 0; i < nr; i++)
                    for (int64_t ow = 0; ow < OW; ow++)
                        panel[k * np + i * OW + ow] = src[k * ys[1] + (o0 + i) * ys[3] + ow * ys[4]];
            B = panel;
            ldb = (size_t)np;
        }
        hd_sgemm(1, 'T', tb, (size_t)L->CRS, (size_t)np, (size_t)p->Kg, 1.0f, wt, (size_t)p->wst[0], B, ldb, 0.0f,
                 dcol, (size_t)np);
        scatter(p, c->addrow, dcol, o0, nr, h0, h1, band);
    }
    float alpha = (float)a->epi.alpha, beta = (float)a->epi.beta;
    float *dx = a->out;
    const int64_t *xs = p->xs;
    for (int64_t cl = 0; cl < p->Cg; cl++)
        for (int64_t h = h0; h < h1; h++) {
            const float *v = band + (cl * (h1 - h0) + h - h0) * W;
            float *o = dx + n * xs[0] + (g * p->Cg + cl) * xs[1] + h * xs[3];
            if (beta == 0)
                for (int64_t w = 0; w < W; w++)
                    o[w * xs[4]] = alpha * v[w];
            else
                for (int64_t w = 0; w < W; w++)
                    o[w * xs[4]] = alpha * v[w] + beta * o[w * xs[4]];
        }
}

size_t hd_conv_bwdd_col2im_ws(const hd_conv_problem *p) { return layout_c2(p).total; }

int hd_conv_bwdd_col2im_app(const hd_conv_problem *p, const char **reason)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8 || p->xv != 1 || p->yv != 1 || p->wv != 1) {
        *reason = "the col2im backward-data solver takes FLOAT x, w and y only";
        return 0;
    }
    if (p->nsp != 2) {
        *reason = "col2im backward data is 2-d only";
        return 0;
    }
    /* it pays where the phases' GEMMs would be thin: few dx channels against many dy ones */
    if (p->Cg > 8 || p->Kg < 4 * p->Cg) {
        *reason = "col2im backward data is for Cg <= 8 and Kg >= 4*Cg";
        return 0;
    }
    size_t ws = hd_conv_bwdd_col2im_ws(p), cap = (size_t)64 << 20, dx = 0;
    if (hd_mul_size((size_t)(p->N * p->C), (size_t)p->Q * sizeof(float), &dx) == 0 && dx > cap)
        cap = dx;
    if (ws == SIZE_MAX || ws > cap) {
        *reason = "its workspace would exceed max(dx, 64 MiB)";
        return 0;
    }
    return 1;
}

double hd_conv_bwdd_col2im_cost(const hd_conv_problem *p)
{
    (void)p;
    return 0.25;
}

void hd_conv_bwdd_col2im_exec(const hd_conv_problem *p, const hd_conv_args *a)
{
    hd_conv_layout W = layout_c2(p);
    c2_ctx c;
    c.p = p;
    c.a = a;
    c.L = plan_c2(p);
    c.addrow = hd_f32_im2col_addrow_kernel(p->isa);
    c.slots = (float *)((char *)a->ws + W.off[1]);
    int nt = a->nthreads < HD_SCRATCH_SLOTS ? a->nthreads : HD_SCRATCH_SLOTS;
    hd_parallel_for((size_t)(p->N * p->G * c.L.nb), nt, c2_task, &c);
}

/* The name keeps "blocked_gemm_f32": it runs on the packed-panel SGEMM of that family. */
const hd_conv_solver hd_solver_bwdd_col2im = {
    .id = 252, .name = "bwd_data.col2im_blocked_gemm_f32", .dir = HD_CONV_BWD_DATA, .algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, .deterministic = 1,
    .applicable = hd_conv_bwdd_col2im_app, .workspace = hd_conv_bwdd_col2im_ws, .run = hd_conv_bwdd_col2im_exec, .cost_factor = 0.3, .cost = hd_conv_bwdd_col2im_cost};
