/*
 * The view and the tile enumeration of the Winograd F(4x4, 3x3) engine
 * (conv/solvers/conv_wino4_view.h says what they are; conv_wino4_f32.c uses them), the
 * solvers' shape rules and the filter prefetch of the transforms.
 */
#include "conv/solvers/conv_wino4_view.h"
#include "conv/solvers/conv_wino4.h"
#include "conv/conv_internal.h"

#include <string.h>

/* The problems the 3x3 solvers (109, 207) take: FLOAT data, a 2-d 3x3 filter and unit stride
 * (any dilation: the engine runs its phases). */
int hd_conv_wino4_shape_ok(const hd_conv_problem *p, const char **reason)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8 || p->xv != 1 || p->yv != 1 || p->wv != 1) {
        *reason = "Winograd F(4x4,3x3) takes FLOAT tensors only";
        return 0;
    }
    if (p->nsp != 2 || p->flt[1] != 3 || p->flt[2] != 3 || p->str[1] != 1 || p->str[2] != 1) {
        *reason = "Winograd F(4x4,3x3) needs a 2-d 3x3 filter and unit stride";
        return 0;
    }
    return 1;
}

/* The filter prefetch of the tile-lane transforms (conv_wino4_f32.c, transform_panel): the
 * filter is read once per call, from L3 or memory, and each transform call is short, so
 * without it the loads wait on every line (the lanes are a whole filter apart: too many
 * streams for the hardware prefetchers).  Only the two
 * common layouts: channels contiguous (KRSC-like: per filter and tap, the channels' run) or
 * each filter's taps and channels in one short run (KCRS-like); nothing otherwise. */
void hd_w4_prefetch_filters(const w4_view *v, const float *w, int64_t n, int64_t nc)
{
    int64_t tmin = v->tap[0], tmax = v->tap[0];
    for (int e = 1; e < 9; e++) {
        tmin = v->tap[e] < tmin ? v->tap[e] : tmin;
        tmax = v->tap[e] > tmax ? v->tap[e] : tmax;
    }
    if (v->wc == 1 && nc <= 16) {
        for (int64_t i = 0; i < n; i++)
            for (int e = 0; e < 9; e++)
                hd_conv_prefetch_run(w + i * v->wk + v->tap[e], nc);
        return;
    }
    int64_t span = (nc - 1) * v->wc + tmax - tmin + 1;   /* floats per filter */
    if (v->wc < 1 || tmin < 0 || span > 16 * 16)
        return;
    for (int64_t i = 0; i < n; i++)
        hd_conv_prefetch_run(w + i * v->wk + tmin, span);
}

/* The problems the split solvers (112, 210) take: FLOAT data, a 2-d 5x5 filter, unit stride
 * and dilation.  The engine takes 4 to 7 taps per dimension; cuDNN's WINOGRAD_NONFUSED is
 * 3x3 or 5x5 only, and the solvers keep to that. */
int hd_conv_wino4_split_shape_ok(const hd_conv_problem *p, const char **reason)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8 || p->xv != 1 || p->yv != 1 || p->wv != 1) {
        *reason = "Winograd F(4x4,3x3) in 3x3 pieces takes FLOAT tensors only";
        return 0;
    }
    if (p->nsp != 2 || p->flt[1] != 5 || p->flt[2] != 5) {
        *reason = "Winograd F(4x4,3x3) in 3x3 pieces needs a 2-d 5x5 filter";
        return 0;
    }
    if (p->str[1] != 1 || p->str[2] != 1 || p->dil[1] != 1 || p->dil[2] != 1) {
        *reason = "Winograd F(4x4,3x3) in 3x3 pieces needs unit stride and dilation";
        return 0;
    }
    return 1;
}

/* The filter and its 3x3 pieces (v->Cg: the real channels, before). */
static void pieces(const hd_conv_problem *p, w4_view *v)
{
    v->R = p->flt[1], v->S = p->flt[2];
    if (v->R > 7 || v->S > 7)   /* refused by the split solvers' shape check; keep ftap in bounds */
        v->R = v->S = 3;
    v->nqh = (int)((v->R + 2) / 3), v->nqw = (int)((v->S + 2) / 3);
    v->Cr = v->Cg;
    v->Cg = v->Cr * v->nqh * v->nqw;
}

void hd_w4_view_fwd(const hd_conv_problem *p, w4_view *v)
{
    memset(v, 0, sizeof *v);
    v->isa = p->isa;
    v->N = p->N, v->G = p->G, v->Cg = p->Cg, v->Kg = p->Kg;
    v->H = p->in[1], v->W = p->in[2], v->OH = p->out[1], v->OW = p->out[2];
    v->ph = p->pad[1], v->pw = p->pad[2];
    v->dh = p->dil[1], v->dw = p->dil[2];
    memcpy(v->xs, p->xs, sizeof v->xs);
    memcpy(v->ys, p->ys, sizeof v->ys);
    v->wg = p->Kg * p->wst[0], v->wk = p->wst[0], v->wc = p->wst[1];
    pieces(p, v);
    for (int64_t e = 0; e < v->R * v->S; e++)
        v->ftap[e] = hd_conv_w_off(p, 0, 0, 0, e / v->S, e % v->S);
    if (v->R == 3 && v->S == 3)
        memcpy(v->tap, v->ftap, sizeof v->tap);
}

/* dx = conv(dy, w rotated, k <-> c) padded by (R - 1) dil - pad (the dilated filter's reach,
 * less the padding), with the same dilation: input dy (Kg channels per group),
 * output dx (Cg channels); tap (r, s) of the view is tap (R-1 - r, S-1 - s) of w
 * (hd_conv_w_off adds CONVOLUTION mode's flip on top, which undoes the rotation). */
void hd_w4_view_bwdd(const hd_conv_problem *p, w4_view *v)
{
    memset(v, 0, sizeof *v);
    v->isa = p->isa;
    v->bwd = 1;
    v->N = p->N, v->G = p->G, v->Cg = p->Kg, v->Kg = p->Cg;
    v->H = p->out[1], v->W = p->out[2], v->OH = p->in[1], v->OW = p->in[2];
    v->dh = p->dil[1], v->dw = p->dil[2];
    memcpy(v->xs, p->ys, sizeof v->xs);
    memcpy(v->ys, p->xs, sizeof v->ys);
    v->wg = p->Kg * p->wst[0], v->wk = p->wst[1], v->wc = p->wst[0];
    pieces(p, v);
    v->ph = (v->R - 1) * p->dil[1] - p->pad[1], v->pw = (v->S - 1) * p->dil[2] - p->pad[2];
    for (int64_t e = 0; e < v->R * v->S; e++)
        v->ftap[e] = hd_conv_w_off(p, 0, 0, 0, v->R - 1 - e / v->S, v->S - 1 - e % v->S);
    if (v->R == 3 && v->S == 3)
        memcpy(v->tap, v->ftap, sizeof v->tap);
}

void hd_w4_pieces(const w4_view *v, const float *w, int64_t gk, float *dst)
{
    const float *wk = w + (gk / v->Kg) * v->wg + (gk % v->Kg) * v->wk;
    float *d = dst + gk * v->Cg * 9;
    for (int q = 0; q < v->nqh * v->nqw; q++) {
        /* piece q's taps: the filter's offset, or -1 for a zero tap past the filter */
        int64_t off[9];
        int64_t r0 = 3 * (q / v->nqw), s0 = 3 * (q % v->nqw);
        for (int e = 0; e < 9; e++) {
            int64_t r = r0 + e / 3, s = s0 + e % 3;
            off[e] = r < v->R && s < v->S ? v->ftap[r * v->S + s] : -1;
        }
        for (int64_t ch = 0; ch < v->Cr; ch++, d += 9) {
            const float *src = wk + ch * v->wc;
            for (int e = 0; e < 9; e++)
                d[e] = off[e] >= 0 ? src[off[e]] : 0.0f;
        }
    }
}

/* Tile t as (image, phase row a, phase column b, tile row, tile column). */
typedef struct {
    int64_t n, a, b, ti, tj;
} w4_tile;

static w4_tile tile_of(const w4_view *v, int64_t TH, int64_t TW, int64_t t)
{
    w4_tile r;
    r.tj = t % TW;
    t /= TW;
    r.ti = t % TH;
    t /= TH;
    r.b = t % v->dw;
    t /= v->dw;
    r.a = t % v->dh;
    r.n = t / v->dh;
    return r;
}

/* One dimension of output phase a (dilation d, padding pad, input length len): the input
 * sub-grid starts at row *first (its residue) and has *rows rows; the phase's undilated
 * convolution starts its windows at sub-grid row -ceil((pad - a) / d), returned. */
static int64_t phase_in(int64_t a, int64_t d, int64_t pad, int64_t len, int64_t *first, int64_t *rows)
{
    int64_t q = a - pad >= 0 ? (a - pad) / d : -((pad - a + d - 1) / d);   /* floor((a - pad) / d) */
    *first = a - pad - q * d;
    *rows = *first < len ? (len - *first + d - 1) / d : 0;
    return q;
}

void hd_w4_in_tiles(const w4_view *v, int64_t TH, int64_t TW, int64_t t0, int64_t count, int lanes, int q,
                    hd_wino4_in_tiles *it)
{
    /* piece q's shift (split filters run at dilation 1, where the phase grid is the image) */
    int64_t qh = 3 * (q / v->nqw), qw = 3 * (q % v->nqw);
    it->lanes = lanes;
    it->hs = (int32_t)(v->dh * v->xs[3]);
    it->ws = (int32_t)(v->dw * v->xs[4]);
    for (int i = 0; i < lanes; i++) {
        int64_t t = t0 + i;
        if (i >= count) {
            it->off[i] = 0, it->rmask[i] = 0, it->cmask[i] = 0;
            continue;
        }
        w4_tile u = tile_of(v, TH, TW, t);
        int64_t fh, H, fw, Wd;
        int64_t h0 = 4 * u.ti + qh + phase_in(u.a, v->dh, v->ph, v->H, &fh, &H);
        int64_t w0 = 4 * u.tj + qw + phase_in(u.b, v->dw, v->pw, v->W, &fw, &Wd);
        it->off[i] = (int32_t)(u.n * v->xs[0] + (fh + h0 * v->dh) * v->xs[3] + (fw + w0 * v->dw) * v->xs[4]);
        unsigned rm = 0, cm = 0;
        for (int j = 0; j < 6; j++) {
            rm |= (unsigned)(h0 + j >= 0 && h0 + j < H) << j;
            cm |= (unsigned)(w0 + j >= 0 && w0 + j < Wd) << j;
        }
        it->rmask[i] = (uint8_t)rm;
        it->cmask[i] = (uint8_t)cm;
    }
}

void hd_w4_out_tiles(const w4_view *v, int64_t TH, int64_t TW, int64_t t0, int lanes, hd_wino4_out_tiles *ot)
{
    ot->lanes = lanes;
    ot->hs = v->dh * v->ys[3];
    ot->ws = v->dw * v->ys[4];
    for (int i = 0; i < lanes; i++) {
        w4_tile u = tile_of(v, TH, TW, t0 + i);
        ot->off[i] = u.n * v->ys[0] + (u.a + 4 * u.ti * v->dh) * v->ys[3] + (u.b + 4 * u.tj * v->dw) * v->ys[4];
        /* rows and columns of the phase's output sub-grid left from this tile (none: a tile
           only a larger phase has, skipped) */
        int64_t nr = v->OH > u.a ? (v->OH - u.a + v->dh - 1) / v->dh - 4 * u.ti : 0;
        int64_t nc = v->OW > u.b ? (v->OW - u.b + v->dw - 1) / v->dw - 4 * u.tj : 0;
        nr = nr < 0 ? 0 : nr < 4 ? nr : 4;
        nc = nc < 0 ? 0 : nc < 4 ? nc : 4;
        ot->nrow[i] = (uint8_t)(nc ? nr : 0);
        ot->ncol[i] = (uint8_t)nc;
    }
}
