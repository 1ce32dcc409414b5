/*
 * The view and the tile enumeration of the Winograd F(4x4, 3x3) engine
 * (conv/solvers/conv_wino4_view.h says what they are; conv_wino4_f32.c uses them).
 */
#include "conv/solvers/conv_wino4_view.h"

#include <string.h>

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
    for (int e = 0; e < 9; e++)
        v->tap[e] = hd_conv_w_off(p, 0, 0, 0, e / 3, e % 3);
}

/* dx = conv(dy, w rotated, k <-> c) padded by 2 dil - pad (the dilated filter's reach, 2 dil,
 * less the padding), with the same dilation: input dy (Kg channels per group),
 * output dx (Cg channels); tap (r, s) of the view is tap (2 - r, 2 - s) of w (hd_conv_w_off
 * adds CONVOLUTION mode's flip on top, which undoes the rotation). */
void hd_w4_view_bwdd(const hd_conv_problem *p, w4_view *v)
{
    memset(v, 0, sizeof *v);
    v->isa = p->isa;
    v->bwd = 1;
    v->N = p->N, v->G = p->G, v->Cg = p->Kg, v->Kg = p->Cg;
    v->H = p->out[1], v->W = p->out[2], v->OH = p->in[1], v->OW = p->in[2];
    v->ph = 2 * p->dil[1] - p->pad[1], v->pw = 2 * p->dil[2] - p->pad[2];
    v->dh = p->dil[1], v->dw = p->dil[2];
    memcpy(v->xs, p->ys, sizeof v->xs);
    memcpy(v->ys, p->xs, sizeof v->ys);
    v->wg = p->Kg * p->wst[0], v->wk = p->wst[1], v->wc = p->wst[0];
    for (int e = 0; e < 9; e++)
        v->tap[e] = hd_conv_w_off(p, 0, 0, 0, 2 - e / 3, 2 - e % 3);
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

void hd_w4_in_tiles(const w4_view *v, int64_t TH, int64_t TW, int64_t t0, int64_t count, int lanes,
                    hd_wino4_in_tiles *it)
{
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
        int64_t h0 = 4 * u.ti + phase_in(u.a, v->dh, v->ph, v->H, &fh, &H);
        int64_t w0 = 4 * u.tj + phase_in(u.b, v->dw, v->pw, v->W, &fw, &Wd);
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
