/*
 * Data movement of bwd_data.1x1 (conv_bwdd_1x1.h): dy and W into the micro-kernels' panels,
 * and the buffered epilogue between the task's result buffer and dx.  All are copies (or the
 * epilogue's alpha/beta blend, element by element), so which task or thread runs them never
 * changes a result.
 */
#include "conv/solvers/conv_bwdd_1x1.h"

#include "conv/conv_internal.h"

#include <stdint.h>
#include <string.h>
#include <xmmintrin.h>

#define PF_ROWS 4           /* dy rows are prefetched this many rows ahead of the copy */
#define PF_WROWS 16         /* W rows are prefetched this many rows ahead of the pack */
/* (W's rows are a filter row apart -- 4 KiB for 1024 channels, a page each -- so the hardware
 * prefetcher, which stays within a page, meets every row cold and the packs wait on each
 * line: they prefetch the row PF_WROWS ahead.) */

/* n floats from s to d: the tile widths are constant-size copies (inlined moves; a
 * memcpy call per 14- or 32-float run cost more than the run). */
static inline void copy_f(float *d, const float *s, int64_t n)
{
    switch (n) {
    case 32: memcpy(d, s, 32 * sizeof(float)); return;
    case 16: memcpy(d, s, 16 * sizeof(float)); return;
    case 14: memcpy(d, s, 14 * sizeof(float)); return;
    case 6: memcpy(d, s, 6 * sizeof(float)); return;
    case 4: memcpy(d, s, 4 * sizeof(float)); return;
    default: memcpy(d, s, (size_t)n * sizeof(float)); return;
    }
}

/* W^T of group g, k block kb, dx channels [m0, m0 + nm) of the group, as MR-channel
 * micro-panels (zero past nm): tile q at dst[q * kcb * MR], (k pp, channel i) at
 * [pp * MR + i].  Row pp of a tile is a run of W's row k0 + pp. */
void hd_x1_pack_wt(const x1_ctx *c, int64_t g, int64_t kb, int64_t m0, int64_t nm, float *dst)
{
    const hd_conv_problem *p = c->p;
    int64_t MR = c->L.MR, r0 = kb * c->L.kc, kcb = imin(c->L.kc, p->Kg - r0), ws1 = p->wst[1];
    const float *w = c->w + (g * p->Kg + r0) * p->wst[0] + m0 * ws1;
    for (int64_t pp = 0; pp < kcb; pp++, w += p->wst[0]) {
        if (ws1 == 1 && pp + PF_WROWS < kcb)
            hd_conv_prefetch_run(w + PF_WROWS * p->wst[0], nm);
        for (int64_t i0 = 0; i0 < nm; i0 += MR) {
            float *d = dst + i0 * kcb + pp * MR;
            int64_t rows = imin(MR, nm - i0);
            if (ws1 == 1)
                copy_f(d, w + i0, rows);
            else
                for (int64_t i = 0; i < rows; i++)
                    d[i] = w[(i0 + i) * ws1];
            for (int64_t i = rows; i < MR; i++)
                d[i] = 0;
        }
    }
}

/* dy position q of an image (q < P) as (od, oh, ow). */
static void pos3(const hd_conv_problem *p, int64_t q, int64_t o[3])
{
    o[2] = q % p->out[2];
    o[1] = (q / p->out[2]) % p->out[1];
    o[0] = q / (p->out[2] * p->out[1]);
}

/* NCHW panel: dy rows (channels r0 .. r0+kcb of group g) x positions [q0, q0+nq) (global
 * over images) as NR-wide micro-panels (the B side; MR-wide, the A side, when swapped), k-major: (k pp, position j) at
 * dst[(j / NR) * kcb * NR + pp * NR + j % NR], zero up to the next multiple of NR (so the
 * micro-kernel reads each panel as one contiguous stream). */
void hd_x1_copy_rows(const x1_ctx *c, int64_t g, int64_t r0, int64_t kcb, int64_t q0, int64_t nq, float *dst,
                      int64_t NR)
{
    const hd_conv_problem *p = c->p;
    const int64_t *ys = p->ys, P = p->P;
    int64_t tail = rup(nq, NR) - nq;
    for (int64_t q = q0; q < q0 + nq;) {           /* one run per image */
        int64_t n = q / P, i = q % P, cnt = imin(P - i, q0 + nq - q);
        const float *src = c->dy + n * ys[0] + (g * p->Kg + r0) * ys[1] + i;
        int64_t mp0 = (q - q0) / NR, off0 = (q - q0) % NR;
        for (int64_t pp = 0; pp < kcb; pp++) {
            if (pp + PF_ROWS < kcb) {
                /* rows are a plane apart: the hardware prefetcher meets each one late */
                const char *f = (const char *)(src + (pp + PF_ROWS) * ys[1]);
                for (int64_t o = 0; o < cnt * (int64_t)sizeof(float); o += 64)
                    _mm_prefetch(f + o, _MM_HINT_T0);
            }
            /* runs within one micro-panel; no division per run (they dominated 7x7 images) */
            const float *sr = src + pp * ys[1];
            float *d = dst + mp0 * kcb * NR + pp * NR + off0;
            for (int64_t left = cnt, off = off0; left > 0;) {
                int64_t run = imin(NR - off, left);
                copy_f(d, sr, run);
                sr += run;
                left -= run;
                d += run;
                off += run;
                if (off == NR) {
                    off = 0;
                    d += (kcb - 1) * NR;
                }
            }
        }
        q += cnt;
    }
    if (tail)
        for (int64_t pp = 0; pp < kcb; pp++)
            memset(dst + (nq / NR) * kcb * NR + pp * NR + nq % NR, 0, sizeof(float) * (size_t)tail);
}

/* NHWC: the block's pixel rows (dy at channel 0 of group g), rup(nq, MR) pointers; those
 * past nq repeat the first (the indirect kernel may read, never store, a full tile).  The
 * position cursor advances without divisions (a division per pixel cost as much as a copy). */
void hd_x1_pix_rows(const x1_ctx *c, int64_t g, int64_t q0, int64_t nq, const float **tab)
{
    const hd_conv_problem *p = c->p;
    const int64_t *ys = p->ys;
    int64_t n = q0 / p->P, o[3];
    pos3(p, q0 % p->P, o);
    const float *at = c->dy + n * ys[0] + g * p->Kg + o[0] * ys[2] + o[1] * ys[3] + o[2] * ys[4];
    for (int64_t j = 0; j < nq; j++) {
        tab[j] = at;
        /* next position: along the row, then the next row, plane, image */
        at += ys[4];
        if (++o[2] == p->out[2]) {
            o[2] = 0;
            at += ys[3] - p->out[2] * ys[4];
            if (++o[1] == p->out[1]) {
                o[1] = 0;
                at += ys[2] - p->out[1] * ys[3];
                if (++o[0] == p->out[0]) {
                    o[0] = 0;
                    at += ys[0] - p->out[0] * ys[2];
                }
            }
        }
    }
    for (int64_t j = nq; j < rup(nq, c->L.MR); j++)
        tab[j] = tab[0];
}

/* NHWC panel: micro-panels of MR positions (rows TAB), k-major: (k pp, position j) at
 * dst[(j / MR) * kcb * MR + pp * MR + j % MR]; positions past nq are zero. */
void hd_x1_pack_pix(const x1_ctx *c, int64_t r0, int64_t kcb, int64_t nq, const float *const *tab, float *dst)
{
    const int64_t MR = c->L.MR;
    const float *src[16];
    for (int64_t j0 = 0; j0 < nq; j0 += MR) {
        int64_t cnt = imin(MR, nq - j0);
        for (int64_t i = 0; i < MR; i++)
            src[i] = i < cnt ? tab[j0 + i] + r0 : NULL;
        /* the pixels two micro-panels ahead (about; a prefetch never faults): the panel
           reads 16-channel strips across MR pixels, whose lines the hardware prefetcher
           meets too late */
        for (int64_t i = 0; i < cnt; i++) {
            const char *f = (const char *)((uintptr_t)src[i] + (uintptr_t)(2 * MR * c->p->ys[4] * (int64_t)sizeof(float)));
            for (int64_t off = 0; off < kcb * (int64_t)sizeof(float); off += 64)
                _mm_prefetch(f + off, _MM_HINT_T0);
        }
        c->cols(dst + j0 * kcb, MR, MR, src, kcb);
    }
}

/* d[i*ds] = alpha * v[i*vs] + beta * d[i*ds] for i < n (beta == 0: d not read). */
static void line_av(float *d, int64_t ds, const float *v, int64_t vs, int64_t n, float alpha, float beta)
{
    if (ds == 1 && vs == 1) {
        hd_conv_scale_add(d, v, n, alpha, beta);
        return;
    }
    if (beta == 0)
        for (int64_t i = 0; i < n; i++)
            d[i * ds] = alpha * v[i * vs];
    else
        for (int64_t i = 0; i < n; i++)
            d[i * ds] = alpha * v[i * vs] + beta * d[i * ds];
}

/* d[i*ds] = beta * d[i*ds] for i < n (beta == 0: zeros, d not read). */
static void line_b(float *d, int64_t ds, int64_t n, float beta)
{
    if (beta == 0 && ds == 1) {
        memset(d, 0, sizeof(float) * (size_t)n);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        d[i * ds] = beta == 0 ? 0.0f : beta * d[i * ds];
}

void hd_x1_cells(const x1_ctx *c, int mode, int64_t ch0, int64_t nm, int64_t q0, int64_t nq, float *buf, int64_t ms,
                  int64_t js)
{
    const hd_conv_problem *p = c->p;
    const int64_t *xs = p->xs, *s = p->str, P = p->P;
    float beta = (float)c->a->epi.beta;
    int chan_inner = xs[1] == 1 && xs[4] != 1;
    /* stride 2 along contiguous dx rows: the corners interleaved with beta * dx in registers */
    int spread2 = s[2] == 2 && xs[4] == 1 && p->isa >= HD_ISA_AVX512;
    for (int64_t j = 0; j < nq;) {
        /* a run of dy positions along one dy row (ow varies) */
        int64_t q = q0 + j, n = q / P, o[3];
        pos3(p, q % P, o);
        int64_t cnt = imin(p->out[2] - o[2], nq - j);
        int64_t iw0 = o[2] * s[2], iw1 = imin((o[2] + cnt) * s[2], p->in[2]);
        for (int64_t a0 = 0; a0 < s[0] && o[0] * s[0] + a0 < p->in[0]; a0++)
            for (int64_t a1 = 0; a1 < s[1] && o[1] * s[1] + a1 < p->in[1]; a1++) {
                int corner = a0 == 0 && a1 == 0;
                if (mode == CELLS_LOAD && !corner)
                    continue;
                float *row = c->dx + n * xs[0] + ch0 * xs[1] + (o[0] * s[0] + a0) * xs[2] + (o[1] * s[1] + a1) * xs[3];
                if (!chan_inner) {
                    /* positions inner (channel planes): per channel, the corners of the run
                       (every s-th dx element) and the rest */
                    for (int64_t m = 0; m < nm; m++) {
                        float *d = row + m * xs[1] + iw0 * xs[4], *v = buf + m * ms + j * js;
                        if (mode == CELLS_LOAD) {
                            line_av(v, js, d, s[2] * xs[4], cnt, beta, 0.0f);
                            continue;
                        }
                        if (!corner) {
                            line_b(d, xs[4], iw1 - iw0, beta);
                            continue;
                        }
                        if (spread2 && js == 1) {          /* the corners and the odd columns in one pass */
                            hd_f32_im2col_ukernel_spread2__avx512(d, v, iw1 - iw0, beta);
                            continue;
                        }
                        line_av(d, s[2] * xs[4], v, js, cnt, 1.0f, 0.0f);
                        for (int64_t b = 1; b < s[2] && iw0 + b < iw1; b++)
                            line_b(d + b * xs[4], s[2] * xs[4], (iw1 - iw0 - b + s[2] - 1) / s[2], beta);
                    }
                } else {
                    /* channels inner (pixels) */
                    for (int64_t iw = iw0; iw < iw1; iw++) {
                        int64_t k = iw - iw0;
                        float *d = row + iw * xs[4];
                        if (corner && k % s[2] == 0) {
                            float *v = buf + (j + k / s[2]) * js;
                            if (mode == CELLS_LOAD)
                                line_av(v, ms, d, 1, nm, beta, 0.0f);
                            else
                                line_av(d, 1, v, ms, nm, 1.0f, 0.0f);
                        } else if (mode == CELLS_STORE) {
                            line_b(d, 1, nm, beta);
                        }
                    }
                }
            }
        j += cnt;
    }
}

/* Swapped, dx in channel planes at unit stride: the buffer (positions [q0, q0+nq) x channels
 * [ch0, ch0+nm), rows ld apart) into dx, one transposed tile per image run (a copy: the
 * same bits as the element-wise epilogue, which gathered each channel's positions one by one). */
void hd_x1_store_planes(const x1_ctx *c, int64_t ch0, int64_t nm, int64_t q0, int64_t nq, const float *buf, int64_t ld)
{
    const hd_conv_problem *p = c->p;
    for (int64_t j = 0; j < nq;) {
        int64_t q = q0 + j, n = q / p->P, i = q % p->P, cnt = imin(p->P - i, nq - j);
        c->tile(cnt, nm, buf + j * ld, ld, c->dx + n * p->xs[0] + ch0 * p->xs[1] + i, p->xs[1], 1.0f, 0.0f);
        j += cnt;
    }
}

/* W rows wk (ldw apart; kcb of them, nm channels each) as NR-wide panels, k-major: (k pp,
 * channel j) at dst[(j / NR) * kcb * NR + pp * NR + j % NR], zero past nm. */
void hd_x1_pack_w(const x1_ctx *c, const float *wk, int64_t kcb, int64_t nm, float *dst)
{
    const int64_t NR = c->L.NR, ldw = c->p->wst[0];
    for (int64_t pp = 0; pp < kcb; pp++) {
        if (pp + PF_WROWS < kcb)
            hd_conv_prefetch_run(wk + (pp + PF_WROWS) * ldw, nm);
        for (int64_t jr = 0; jr < nm; jr += NR) {
            float *d = dst + jr * kcb + pp * NR;
            int64_t cnt = imin(NR, nm - jr);
            copy_f(d, wk + pp * ldw + jr, cnt);
            for (int64_t j = cnt; j < NR; j++)
                d[j] = 0;
        }
    }
}
