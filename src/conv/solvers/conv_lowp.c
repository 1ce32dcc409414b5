/*
 * Low-precision forward convolution: INT8 and BFLOAT16 implicit GEMM
 * (conv/solvers/conv_lowp.h).
 *
 * Work is cut into tasks of (image, group, block of output positions, block of output
 * channels) by a plan that depends on the problem only.  A task gathers its panel -- for
 * each output position, the input channels under every filter tap, zero where the tap falls
 * in the padding -- into a scratch slot chosen by thread index, multiplies it with the
 * packed filter in register tiles of up to 12 positions x 64 channels (reduction blocks of
 * 128 units, sums kept in the slot between blocks), and stores the results through the
 * epilogue.  Every output element is reduced by one task in the fixed (tap, channel) order,
 * so results do not depend on the thread count; the INT8 sums are exact integers anyway.
 *
 * INT8 matches the generic path bit for bit: the int32 sum is converted to double and goes
 * through the same alpha/beta (or fused bias/activation) arithmetic in double, then y is
 * rounded to nearest even and saturated (INT8 y) or rounded to float (FLOAT y).
 */
#include "conv/solvers/conv_solvers.h"
#include "conv/solvers/conv_lowp.h"

#include "core/convert.h"
#include "core/cpu.h"
#include "core/parallel.h"
#include "conv/conv_internal.h"
#include "kernels/gemm/gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PANEL_BYTES (128 * 1024)         /* target size of one gathered panel (L2) */
#define MAX_POS_BLOCK 192
#define MAX_KBV 16                       /* channel block: at most 256 output channels */
#define MIN_TASKS 4                      /* cut small problems finer, down to this many tasks */
#define INT8_MAX_CRS 131071              /* |sum| <= 128 * 128 * CRS must fit in int32 */
#define Q_BLOCK 128                      /* reduction units per kernel call: 4 x 128 x 64 bytes of
                                          * packed filter = 32 KiB, kept in L1 */

/* How the products are computed. */
enum {
    M_VNNI,                              /* int8: vpdpbusd, 4 channels per unit */
    M_INT8_SCALAR,                       /* int8: the same packing, scalar int32 */
    M_BF16_DP,                           /* bf16: vdpbf16ps, 2 channels per unit */
    M_BF16_FMA,                          /* bf16 widened to fp32 (exact), AVX-512 FMA, 1 channel per unit */
    M_BF16_SGEMM,                        /* bf16 widened to fp32, hd_sgemm per task (below AVX-512) */
};

typedef struct {
    int bf16, vec, mode;
    int64_t L;                           /* channels per 4-byte unit */
    int64_t cq, RQ, Kv;                  /* units per tap, units per reduction, 16-channel vectors */
    int64_t R;                           /* fp32 fallback: reduction length TRS * Cg */
    int64_t pb, bpi;                     /* positions per block, blocks per image */
    int64_t kbv, nkb;                    /* vectors per channel block, channel blocks */
    int64_t rows;                        /* panel rows allocated: pb rounded up to ROW_ALIGN */
    size_t ldp;                          /* bytes per panel row */
} plan;

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The ISA level is the problem's; the AVX-512 extensions (VNNI, BF16) are read from the CPU. */
static int pick_mode(hd_isa_t isa, int bf16)
{
    const hd_cpu_info *c = hd_cpu();
    if (!bf16)
        return isa >= HD_ISA_AVX512 && c->has_avx512_vnni ? M_VNNI : M_INT8_SCALAR;
    if (isa < HD_ISA_AVX512)
        return M_BF16_SGEMM;
    const char *dp = getenv("HOSTDNN_CONV_BF16_DP");
    return c->has_avx512_bf16 && dp && *dp == '1' ? M_BF16_DP : M_BF16_FMA;
}

/* The fp32 fallback of BFLOAT16 (below AVX-512): panel and filter widened, hd_sgemm. */
static int f32_fallback(const plan *L) { return L->mode == M_BF16_SGEMM; }

static plan make_plan(const hd_conv_problem *p, int bf16)
{
    plan L;
    L.bf16 = bf16;
    L.mode = pick_mode(p->isa, bf16);
    L.vec = L.mode == M_VNNI || L.mode == M_BF16_DP || L.mode == M_BF16_FMA;
    L.L = L.mode == M_BF16_DP ? 2 : bf16 ? 1 : 4;
    L.cq = cdiv(p->Cg, L.L);
    L.RQ = p->TRS * L.cq;
    L.Kv = cdiv(p->Kg, 16);
    L.R = p->CRS;
    L.ldp = (size_t)L.RQ * 4;
    int64_t pb = (int64_t)(PANEL_BYTES / L.ldp) / HD_CONV_LOWP_ROW_ALIGN * HD_CONV_LOWP_ROW_ALIGN;
    pb = pb < HD_CONV_LOWP_ROW_ALIGN ? HD_CONV_LOWP_ROW_ALIGN : pb > MAX_POS_BLOCK ? MAX_POS_BLOCK : pb;
    if (pb > p->P)
        pb = p->P;
    L.nkb = cdiv(L.Kv, MAX_KBV);
    L.kbv = cdiv(L.Kv, L.nkb);
    L.bpi = cdiv(p->P, pb);
    while (p->N * p->G * L.bpi * L.nkb < MIN_TASKS && pb > HD_CONV_LOWP_ROW_ALIGN) {
        pb = pb / 2 < HD_CONV_LOWP_ROW_ALIGN ? HD_CONV_LOWP_ROW_ALIGN : pb / 2;
        L.bpi = cdiv(p->P, pb);
    }
    while (p->N * p->G * L.bpi * L.nkb < MIN_TASKS && L.kbv > 1) {
        L.kbv = cdiv(L.kbv, 2);
        L.nkb = cdiv(L.Kv, L.kbv);
    }
    L.pb = cdiv(p->P, L.bpi);               /* balanced blocks */
    L.rows = cdiv(L.pb, HD_CONV_LOWP_ROW_ALIGN) * HD_CONV_LOWP_ROW_ALIGN;
    return L;
}

/* Packed filter (G * Kv vectors x RQ units x 64 bytes) and, for INT8, the compensation
 * 128 * sum(w) per output channel (G * Kv * 16 int32); the fp32 fallback instead keeps the
 * widened filter (K x R floats) and one result tile per slot.  Then the panel slots, and
 * for the vector kernels a slot of running sums (rows x 64 channels) each. */
static hd_conv_layout layout(const hd_conv_problem *p, const plan *L)
{
    hd_conv_layout W = {{0}, 0};
    if (f32_fallback(L)) {
        hd_conv_book(&W, 0, p->K, L->R, sizeof(float));
        hd_conv_book(&W, 1, HD_SCRATCH_SLOTS * L->rows, L->kbv * 16, sizeof(float));
    } else {
        hd_conv_book(&W, 0, p->G * L->Kv * L->RQ, 64, 1);
        hd_conv_book(&W, 1, L->bf16 ? 0 : p->G * L->Kv, 16, sizeof(int32_t));
    }
    hd_conv_book(&W, 2, HD_SCRATCH_SLOTS * L->rows, (int64_t)L->ldp, 1);
    hd_conv_book(&W, 3, L->vec ? HD_SCRATCH_SLOTS * L->rows : 0, 64, sizeof(float));   /* sums of 64 channels x rows */
    return W;
}

/* ---------------- applicability ---------------- */

static size_t x_bytes(const hd_conv_problem *p)
{
    int64_t last = (p->N - 1) * p->xs[0] + (p->C - 1) * p->xs[1];
    for (int i = 0; i < 3; i++)
        last += (p->in[i] - 1) * p->xs[2 + i];
    return (size_t)(last + 1) * (p->xdt == CUDNN_DATA_BFLOAT16 ? 2 : 1);
}

static int ws_ok(const hd_conv_problem *p, size_t ws, const char **reason)
{
    size_t cap = (size_t)64 << 20, xb = x_bytes(p);
    if (ws == SIZE_MAX || ws > (xb > cap ? xb : cap)) {
        *reason = "its workspace would exceed max(input tensor, 64 MiB)";
        return 0;
    }
    return 1;
}

size_t hd_conv_lowp_ws_int8(const hd_conv_problem *p)
{
    plan L = make_plan(p, 0);
    return layout(p, &L).total;
}

size_t hd_conv_lowp_ws_bf16(const hd_conv_problem *p)
{
    plan L = make_plan(p, 1);
    return layout(p, &L).total;
}

int hd_conv_lowp_app_int8(const hd_conv_problem *p, const char **reason)
{
    if (!p->int8 || p->xdt != CUDNN_DATA_INT8 || p->wdt != CUDNN_DATA_INT8 || p->xv != 1 || p->wv != 1 ||
        p->yv != 1 || (p->ydt != CUDNN_DATA_INT8 && p->ydt != CUDNN_DATA_FLOAT) || p->xs[1] != 1) {
        *reason = "the INT8 solver takes INT8_CONFIG / INT8_EXT_CONFIG (NHWC int8 x) only";
        return 0;
    }
    if (p->CRS > INT8_MAX_CRS) {
        *reason = "the reduction is too long for exact int32 sums";
        return 0;
    }
    return ws_ok(p, hd_conv_lowp_ws_int8(p), reason);
}

int hd_conv_lowp_app_bf16(const hd_conv_problem *p, const char **reason)
{
    if (p->xdt != CUDNN_DATA_BFLOAT16 || p->wdt != CUDNN_DATA_BFLOAT16 || p->ydt != CUDNN_DATA_BFLOAT16 ||
        p->int8 || p->dbl) {
        *reason = "the BFLOAT16 solver takes BFLOAT16 x, w and y only";
        return 0;
    }
    return ws_ok(p, hd_conv_lowp_ws_bf16(p), reason);
}

/* Relative time per multiply-add (conv_registry.h): the vector kernels run 4 (int8) or 2
 * (bf16) products per lane; the fallbacks are still ahead of the generic double / float
 * conversion paths. */
double hd_conv_lowp_cost_int8(const hd_conv_problem *p) { return pick_mode(p->isa, 0) == M_VNNI ? 0.1 : 0.5; }
double hd_conv_lowp_cost_bf16(const hd_conv_problem *p) { return pick_mode(p->isa, 1) == M_BF16_SGEMM ? 0.45 : 0.3; }

/* ---------------- filter packing ---------------- */

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    plan L;
    char *wpk;                           /* packed filter (or the fp32 filter of the fallback) */
    int32_t *comp;
    char *slots;
    float *res;                          /* fp32 fallback result tiles */
    char *sums;                          /* vector kernels: running sums per slot */
} ctx;

/* Vector (g, kv): for each unit q = (tap, channel unit), 16 lanes of L channels. */
static void pack_task(void *vc, size_t task, int thread)
{
    (void)thread;
    ctx *c = vc;
    const hd_conv_problem *p = c->p;
    const plan *L = &c->L;
    int64_t g = (int64_t)task / L->Kv, kv = (int64_t)task % L->Kv;
    char *dst = c->wpk + (size_t)task * (size_t)L->RQ * 64;
    int64_t slots = L->cq * L->L, ws1 = p->wst[1];   /* channel slots per tap; plain layouts: wv == 1 */
    for (int kl = 0; kl < 16; kl++) {
        int64_t k = kv * 16 + kl;
        uint32_t sum = 0;
        if (k >= p->Kg) {                             /* padding channel: zero weights */
            for (int64_t q = 0; q < L->RQ; q++)
                memset(dst + q * 64 + kl * 4, 0, 4);
        } else {
            int64_t tap = 0;
            for (int64_t t = 0; t < p->flt[0]; t++)
                for (int64_t r = 0; r < p->flt[1]; r++)
                    for (int64_t s = 0; s < p->flt[2]; s++, tap++) {
                        int64_t base = hd_conv_w_off(p, g * p->Kg + k, 0, t, r, s);
                        char *d = dst + tap * L->cq * 64 + kl * 4;
                        if (L->mode == M_BF16_FMA) {             /* one fp32 channel per unit */
                            const uint16_t *w = (const uint16_t *)c->a->w + base;
                            for (int64_t ch = 0; ch < p->Cg; ch++) {
                                float v = hd_bf16_to_f32(w[ch * ws1]);
                                memcpy(d + ch * 64, &v, 4);
                            }
                        } else if (L->bf16) {                    /* bf16 pairs */
                            const uint16_t *w = (const uint16_t *)c->a->w + base;
                            for (int64_t ch = 0; ch < slots; ch++) {
                                uint16_t v = ch < p->Cg ? w[ch * ws1] : 0;
                                memcpy(d + (ch >> 1) * 64 + (ch & 1) * 2, &v, 2);
                            }
                        } else {                                 /* int8 quads */
                            const int8_t *w = (const int8_t *)c->a->w + base;
                            for (int64_t ch = 0; ch < slots; ch++) {
                                int8_t v = ch < p->Cg ? w[ch * ws1] : 0;
                                d[(ch >> 2) * 64 + (ch & 3)] = (char)v;
                                sum += (uint32_t)(int32_t)v;
                            }
                        }
                    }
        }
        if (!L->bf16)
            c->comp[task * 16 + kl] = (int32_t)(sum * 128u);
    }
}

/* fp32 fallback: filter row k (of all K) widened, reduction order (tap, channel). */
static void pack_f32_task(void *vc, size_t task, int thread)
{
    (void)thread;
    ctx *c = vc;
    const hd_conv_problem *p = c->p;
    int64_t k = (int64_t)task;
    float *d = (float *)c->wpk + k * c->L.R;
    const uint16_t *w = c->a->w;
    for (int64_t t = 0; t < p->flt[0]; t++)
        for (int64_t r = 0; r < p->flt[1]; r++)
            for (int64_t s = 0; s < p->flt[2]; s++)
                for (int64_t ch = 0; ch < p->Cg; ch++)
                    *d++ = hd_bf16_to_f32(w[hd_conv_w_off(p, k, ch, t, r, s)]);
}

/* ---------------- panel gathering ---------------- */

/* Output position pos of the image -> (od, oh, ow). */
static inline void pos_split(const hd_conv_problem *p, int64_t pos, int64_t *od, int64_t *oh, int64_t *ow)
{
    *ow = pos % p->out[2];
    *oh = (pos / p->out[2]) % p->out[1];
    *od = pos / (p->out[2] * p->out[1]);
}

/* Rows [0, np) of the panel for positions p0.. of image n, group g; rows [np, pad_to) are
 * filled with zero inputs so that the register tiles may read them. */
static void gather(const ctx *c, int64_t n, int64_t g, int64_t p0, int64_t np, int64_t pad_to, char *panel)
{
    const hd_conv_problem *p = c->p;
    const plan *L = &c->L;
    int64_t od, oh, ow;
    pos_split(p, p0, &od, &oh, &ow);
    int64_t tapu = L->cq * L->L;         /* channel slots per tap */
    for (int64_t j = 0; j < np; j++) {
        char *row = panel + (size_t)j * L->ldp;
        int64_t tap = 0;
        for (int64_t t = 0; t < p->flt[0]; t++) {
            int64_t id = od * p->str[0] - p->pad[0] + t * p->dil[0];
            for (int64_t r = 0; r < p->flt[1]; r++) {
                int64_t ih = oh * p->str[1] - p->pad[1] + r * p->dil[1];
                for (int64_t s = 0; s < p->flt[2]; s++, tap++) {
                    int64_t iw = ow * p->str[2] - p->pad[2] + s * p->dil[2];
                    int in = id >= 0 && id < p->in[0] && ih >= 0 && ih < p->in[1] && iw >= 0 && iw < p->in[2];
                    int64_t base = n * p->xs[0] + g * p->Cg * p->xs[1] + id * p->xs[2] + ih * p->xs[3] + iw * p->xs[4];
                    if (!L->bf16) {                          /* x + 128; padding is x = 0 */
                        uint8_t *d = (uint8_t *)row + tap * tapu;
                        int64_t ch = 0;
                        if (in) {
                            const uint8_t *src = (const uint8_t *)c->a->x + base;
                            if (L->vec) {
                                hd_qs8_conv_ukernel_bias__avx512(d, (const int8_t *)src, p->Cg);
                                ch = p->Cg;
                            }
                            for (; ch + 8 <= p->Cg; ch += 8) {      /* eight at a time */
                                uint64_t u;
                                memcpy(&u, src + ch, 8);
                                u ^= 0x8080808080808080u;
                                memcpy(d + ch, &u, 8);
                            }
                            for (; ch < p->Cg; ch++)
                                d[ch] = src[ch] ^ 0x80u;
                        }
                        memset(d + ch, 0x80, (size_t)(tapu - ch));
                    } else if (L->mode == M_BF16_DP) {
                        uint16_t *d = (uint16_t *)row + tap * tapu;
                        int64_t ch = 0;
                        if (in) {
                            const uint16_t *src = (const uint16_t *)c->a->x + base;
                            if (p->xs[1] == 1) {
                                memcpy(d, src, (size_t)p->Cg * 2);
                                ch = p->Cg;
                            } else {
                                for (; ch < p->Cg; ch++)
                                    d[ch] = src[ch * p->xs[1]];
                            }
                        }
                        memset(d + ch, 0, (size_t)(tapu - ch) * 2);
                    } else {
                        float *d = (float *)row + tap * p->Cg;
                        int64_t ch = 0;
                        if (in) {
                            const uint16_t *src = (const uint16_t *)c->a->x + base;
                            if (L->vec && p->xs[1] == 1) {
                                hd_bf16_conv_ukernel_widen__avx512(d, src, p->Cg);
                                ch = p->Cg;
                            }
                            for (; ch < p->Cg; ch++)
                                d[ch] = hd_bf16_to_f32(src[ch * p->xs[1]]);
                        }
                        for (; ch < p->Cg; ch++)
                            d[ch] = 0;
                    }
                }
            }
        }
        if (++ow == p->out[2]) {
            ow = 0;
            if (++oh == p->out[1])
                oh = 0, od++;
        }
    }
    if (pad_to > np)
        memset(panel + (size_t)np * L->ldp, L->bf16 ? 0 : 0x80, (size_t)(pad_to - np) * L->ldp);
}

/* ---------------- epilogue (the generic path's arithmetic) ---------------- */

static inline double ld_d(const void *b, int64_t off, cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: return ((const float *)b)[off];
    case CUDNN_DATA_INT8: return ((const int8_t *)b)[off];
    case CUDNN_DATA_BFLOAT16: return hd_bf16_to_f32(((const uint16_t *)b)[off]);
    default: return 0;
    }
}

/* One INT8-configuration result: v is the exact sum; computed in double. */
static void store_int8cfg(const hd_conv_problem *p, const hd_conv_args *a, int64_t off, int64_t ch, double v)
{
    const hd_conv_epilogue *e = &a->epi;
    double r;
    if (e->fused) {
        r = e->alpha * v + ld_d(e->bias, ch * e->bias_stride, e->bias_dt);
        if (e->alpha2 != 0)
            r += e->alpha2 * ld_d(e->z, off, p->ydt);
        if (e->relu && !(r > 0))
            r = 0;
    } else if (e->beta == 0) {
        r = e->alpha * v;
    } else {
        r = e->alpha * v + e->beta * ld_d(a->out, off, p->ydt);
    }
    if (p->ydt == CUDNN_DATA_INT8) {
        double q = nearbyint(r);
        ((int8_t *)a->out)[off] = (int8_t)(q > 127 ? 127 : q < -128 ? -128 : (isnan(q) ? 0 : q));
    } else {
        ((float *)a->out)[off] = (float)r;
    }
}

/* One BFLOAT16 result, computed in float. */
static void store_bf16(const hd_conv_problem *p, const hd_conv_args *a, int64_t off, int64_t ch, float v)
{
    const hd_conv_epilogue *e = &a->epi;
    float alpha = (float)e->alpha, beta = (float)e->beta, r;
    (void)p;
    if (e->fused) {
        r = alpha * v + (float)ld_d(e->bias, ch * e->bias_stride, e->bias_dt);
        float alpha2 = (float)e->alpha2;
        if (alpha2 != 0)
            r += alpha2 * hd_bf16_to_f32(((const uint16_t *)e->z)[off]);
        if (e->relu && !(r > 0))
            r = 0;
    } else if (beta == 0) {
        r = alpha * v;
    } else {
        r = alpha * v + beta * hd_bf16_to_f32(((const uint16_t *)a->out)[off]);
    }
    ((uint16_t *)a->out)[off] = hd_f32_to_bf16(r);
}

/* Rows [0, nr) of a result tile (positions q0.. of image n; row length ld; INT32 or FLOAT
 * values) for output channels [ch0, ch0 + nk). */
static void store_tile(const ctx *c, int64_t n, int64_t q0, int64_t nr, int64_t ch0, int64_t nk, const void *tile,
                       int64_t ld)
{
    const hd_conv_problem *p = c->p;
    const hd_conv_args *a = c->a;
    int fast = c->L.vec && !a->epi.fused && p->ys[1] == 1;
    int64_t od, oh, ow;
    pos_split(p, q0, &od, &oh, &ow);
    for (int64_t j = 0; j < nr; j++) {
        int64_t off = n * p->ys[0] + od * p->ys[2] + oh * p->ys[3] + ow * p->ys[4] + ch0 * p->ys[1];
        if (!c->L.bf16) {
            const int32_t *v = (const int32_t *)tile + j * ld;
            if (fast && p->ydt == CUDNN_DATA_INT8)
                hd_qs8_conv_ukernel_store_qs8__avx512((int8_t *)a->out + off, v, nk, a->epi.alpha, a->epi.beta);
            else if (fast)
                hd_qs8_conv_ukernel_store_f32__avx512((float *)a->out + off, v, nk, a->epi.alpha, a->epi.beta);
            else
                for (int64_t k = 0; k < nk; k++)
                    store_int8cfg(p, a, off + k * p->ys[1], ch0 + k, (double)v[k]);
        } else {
            const float *v = (const float *)tile + j * ld;
            if (fast)
                hd_bf16_conv_ukernel_store__avx512((uint16_t *)a->out + off, v, nk, (float)a->epi.alpha,
                                                   (float)a->epi.beta);
            else
                for (int64_t k = 0; k < nk; k++)
                    store_bf16(p, a, off + k * p->ys[1], ch0 + k, v[k]);
        }
        if (++ow == p->out[2]) {
            ow = 0;
            if (++oh == p->out[1])
                oh = 0, od++;
        }
    }
}

/* ---------------- micro-kernels without the vector instructions ---------------- */

/* Exact int32 sums of MR rows x NRV vectors (the same panel and packing as VNNI). */
static void int8_kernel_scalar(const uint8_t *panel, size_t ldp, const int8_t *wp, size_t vstride, int64_t rq,
                               const int32_t *comp, int nrv, int mr, int32_t *tile)
{
    for (int j = 0; j < mr; j++)
        for (int v = 0; v < nrv; v++) {
            uint32_t acc[16] = {0};
            const uint8_t *xr = panel + (size_t)j * ldp;
            const int8_t *wr = wp + (size_t)v * vstride;
            for (int64_t q = 0; q < rq; q++) {
                const uint8_t *xq = xr + q * 4;
                const int8_t *wq = wr + q * 64;
                for (int l = 0; l < 16; l++)
                    acc[l] += (uint32_t)(xq[0] * wq[4 * l] + xq[1] * wq[4 * l + 1] + xq[2] * wq[4 * l + 2] +
                                         xq[3] * wq[4 * l + 3]);
            }
            for (int l = 0; l < 16; l++)
                tile[j * nrv * 16 + v * 16 + l] = (int32_t)(acc[l] - (uint32_t)comp[v * 16 + l]);
        }
}

/* ---------------- the tasks ---------------- */

static void run_task(void *vc, size_t task, int thread)
{
    ctx *c = vc;
    const hd_conv_problem *p = c->p;
    const plan *L = &c->L;
    int64_t t = (int64_t)task;
    int64_t kb = t % L->nkb, pbi = (t / L->nkb) % L->bpi, g = (t / (L->nkb * L->bpi)) % p->G;
    int64_t n = t / (L->nkb * L->bpi * p->G);
    int64_t p0 = pbi * L->pb, np = p->P - p0 < L->pb ? p->P - p0 : L->pb;
    int64_t kv0 = kb * L->kbv, kvn = L->Kv - kv0 < L->kbv ? L->Kv - kv0 : L->kbv;
    char *panel = c->slots + (size_t)thread * (size_t)L->rows * L->ldp;
    int64_t pad_to = cdiv(np, HD_CONV_LOWP_ROW_ALIGN) * HD_CONV_LOWP_ROW_ALIGN;
    gather(c, n, g, p0, np, L->vec ? pad_to : np, panel);

    if (f32_fallback(L)) {
        int64_t k0 = kv0 * 16, nk = p->Kg - k0 < kvn * 16 ? p->Kg - k0 : kvn * 16;
        float *res = c->res + (size_t)thread * (size_t)(L->rows * L->kbv * 16);
        const float *wf = (const float *)c->wpk + (g * p->Kg + k0) * L->R;
        hd_sgemm(1, 'N', 'T', (size_t)np, (size_t)nk, (size_t)L->R, 1.0f, (const float *)panel, (size_t)L->R, wf,
                 (size_t)L->R, 0.0f, res, (size_t)nk);
        store_tile(c, n, p0, np, g * p->Kg + k0, nk, res, nk);
        return;
    }

    size_t vstride = (size_t)L->RQ * 64;
    char *sums = c->sums + (size_t)thread * (size_t)L->rows * 64 * 4;
    for (int64_t v0 = 0; v0 < kvn; v0 += 4) {
        int nrv = kvn - v0 < 4 ? (int)(kvn - v0) : 4;
        int64_t vi = g * L->Kv + kv0 + v0;  /* first vector of the group's packed filter */
        const char *wp = c->wpk + (size_t)vi * vstride;
        int64_t k0 = (kv0 + v0) * 16, nk = p->Kg - k0 < nrv * 16 ? p->Kg - k0 : nrv * 16;
        const int32_t *comp = L->bf16 ? NULL : c->comp + vi * 16;
        if (!L->vec) {                   /* scalar int8: whole reduction per tile of 12 rows */
            for (int64_t j0 = 0; j0 < np; j0 += HD_CONV_LOWP_MR_MAX) {
                int64_t nr = np - j0 < HD_CONV_LOWP_MR_MAX ? np - j0 : HD_CONV_LOWP_MR_MAX;
                int32_t tile[HD_CONV_LOWP_MR_MAX * 64];
                int8_kernel_scalar((const uint8_t *)panel + (size_t)j0 * L->ldp, L->ldp, (const int8_t *)wp, vstride,
                                   L->RQ, comp, nrv, (int)nr, tile);
                store_tile(c, n, p0 + j0, nr, g * p->Kg + k0, nk, tile, nrv * 16);
            }
            continue;
        }
        /* reduction blocks outside, rows inside: the block of packed filter stays in L1 while
         * every row of the panel passes; the sums wait in the slot between blocks */
        int mr = hd_conv_lowp_mr(nrv);
        for (int64_t q0 = 0; q0 < L->RQ; q0 += Q_BLOCK) {
            int64_t nq = L->RQ - q0 < Q_BLOCK ? L->RQ - q0 : Q_BLOCK;
            for (int64_t j0 = 0; j0 < np; j0 += mr) {
                const char *prow = panel + (size_t)j0 * L->ldp + (size_t)q0 * 4;
                const char *wq = wp + (size_t)q0 * 64;
                char *tile = sums + (size_t)j0 * (size_t)nrv * 64;
                if (L->mode == M_BF16_FMA)
                    hd_f32_conv_ukernel__avx512((const float *)prow, L->ldp, (const float *)wq, vstride, nq, nrv,
                                                (float *)tile, q0 > 0);
                else if (L->mode == M_BF16_DP)
                    hd_bf16_conv_ukernel__avx512bf16((const uint16_t *)prow, L->ldp, (const uint16_t *)wq, vstride, nq,
                                                     nrv, (float *)tile, q0 > 0);
                else
                    hd_qs8_conv_ukernel__avx512vnni((const uint8_t *)prow, L->ldp, (const int8_t *)wq, vstride, nq,
                                                    comp, nrv, (int32_t *)tile, q0 > 0);
            }
        }
        store_tile(c, n, p0, np, g * p->Kg + k0, nk, sums, nrv * 16);
    }
}

static void exec(const hd_conv_problem *p, const hd_conv_args *a, int bf16)
{
    ctx c;
    c.p = p;
    c.a = a;
    c.L = make_plan(p, bf16);
    hd_conv_layout W = layout(p, &c.L);
    char *ws = a->ws;
    c.wpk = ws + W.off[0];
    c.comp = bf16 ? NULL : (int32_t *)(ws + W.off[1]);
    c.res = f32_fallback(&c.L) ? (float *)(ws + W.off[1]) : NULL;
    c.slots = ws + W.off[2];
    c.sums = ws + W.off[3];
    int nt = a->nthreads < HD_SCRATCH_SLOTS ? a->nthreads : HD_SCRATCH_SLOTS;
    if (f32_fallback(&c.L))
        hd_parallel_for((size_t)p->K, nt, pack_f32_task, &c);
    else
        hd_parallel_for((size_t)(p->G * c.L.Kv), nt, pack_task, &c);
    hd_parallel_for((size_t)(p->N * p->G * c.L.bpi * c.L.nkb), nt, run_task, &c);
}

void hd_conv_lowp_exec_int8(const hd_conv_problem *p, const hd_conv_args *a) { exec(p, a, 0); }
void hd_conv_lowp_exec_bf16(const hd_conv_problem *p, const hd_conv_args *a) { exec(p, a, 1); }

/* Listed in the forward table before the generic IMPLICIT_PRECOMP_GEMM solver (102). */
const hd_conv_solver hd_solver_fwd_int8 = {
    .id = 170, .name = "fwd.lowp_int8_igemm", .dir = HD_CONV_FWD, .algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, .deterministic = 1,
    .applicable = hd_conv_lowp_app_int8, .workspace = hd_conv_lowp_ws_int8, .run = hd_conv_lowp_exec_int8, .cost_factor = 0.1, .cost = hd_conv_lowp_cost_int8};

const hd_conv_solver hd_solver_fwd_bf16 = {
    .id = 171, .name = "fwd.lowp_bf16_igemm", .dir = HD_CONV_FWD, .algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, .deterministic = 1,
    .applicable = hd_conv_lowp_app_bf16, .workspace = hd_conv_lowp_ws_bf16, .run = hd_conv_lowp_exec_bf16, .cost_factor = 0.1, .cost = hd_conv_lowp_cost_bf16};
