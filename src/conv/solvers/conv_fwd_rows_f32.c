/*
 * Forward fp32 blocked GEMM (conv_fwd_f32.h): NHWC-like x read in place through a table of
 * row pointers (solver 152), or tile by tile through the strided kernel (solver 153).
 */
#include "conv/solvers/conv_fwd_f32.h"

/*
 * NHWC-like rows: the indirect kernel (swapped) reads x in place.  For every run u (a tap, or a filter row when wide) and every position j of
 * the block, tab[u * ld + j] points at the run's first float (channel 0 of group channel
 * base chb), or at ZERO when the run lies in the padding; a wide run that a border cuts is
 * copied, zero-filled, to PATCH.  Positions from nq up to ld (the last tile's unused rows)
 * point at ZERO too.  A piece [off, off + cnt) of run u is then the kernel segment
 * {tab + u * ld, off, cnt}.
 */
/* Result columns o of a row whose tap reads inside x along w: o * str - pad + tap_off in
 * [0, in), as the range [*lo, *hi) of o within [0, ow_n). */
static void inside_cols(int64_t str, int64_t pad, int64_t tap_off, int64_t in, int64_t ow_n, int64_t *lo, int64_t *hi)
{
    int64_t b = tap_off - pad; /* input column of result column 0 */
    int64_t l = b >= 0 ? 0 : cdiv(-b, str);
    int64_t h = b > in - 1 ? 0 : (in - 1 - b) / str + 1;
    *lo = imin(l, ow_n);
    *hi = imax(*lo, imin(h, ow_n));
}

/* Entries e[0, len) of one run: ZERO outside [lo, hi), inside pointers from q stepping by step. */
static void fill_run(const float **e, int64_t len, int64_t lo, int64_t hi, const float *q, int64_t step, const float *zero)
{
    for (int64_t k = 0; k < lo; k++)
        e[k] = zero;
    for (int64_t k = lo; k < hi; k++)
        e[k] = q + (k - lo) * step;
    for (int64_t k = hi; k < len; k++)
        e[k] = zero;
}

/* Wide: the entry of a filter row whose S taps a border cuts (some or all outside x): the
 * taps inside are copied, zero-filled, to *patch, which advances; ZERO when none is inside.
 * ROW is x's row (offset from base, in floats), w0 the input column of tap 0. */
static const float *wide_edge(const hd_conv_problem *p, const float *base, int64_t row, int64_t w0, const float *zero,
                              float **patch)
{
    const int64_t S = p->flt[2], cg = p->Cg, dl = p->dil[2], xs4 = p->xs[4];
    int64_t slo = w0 >= 0 ? 0 : cdiv(-w0, dl);
    int64_t shi = w0 > p->in[2] - 1 ? 0 : imin(S, (p->in[2] - 1 - w0) / dl + 1);
    if (slo >= shi)
        return zero;
    float *d = *patch;
    memset(d, 0, sizeof(float) * (size_t)(S * cg));
    for (int64_t sx = slo; sx < shi; sx++)
        memcpy(d + sx * cg, base + (row + (w0 + sx * dl) * xs4), sizeof(float) * (size_t)cg);
    *patch += S * cg;
    return d;
}

/* Wide, row table: the lines at both ends of every x row the block reads, fetched before
 * hd_fw_build_rows copies the runs that a border cuts.  Those copies are the block's first reads of
 * each new x row, and their misses would otherwise come one after the other (the AVX-512
 * tile path does not need it). */
static void prefetch_wide_edges(const hd_conv_problem *p, const float *xb, int64_t n, int64_t q0, int64_t nq)
{
    const int64_t *ss = p->xs;
    const int64_t run = p->flt[2] * p->Cg * (int64_t)sizeof(float);   /* bytes of a filter row's run */
    const int64_t row_bytes = p->in[2] * ss[4] * (int64_t)sizeof(float);
    poscur u = pos_at(p, n, q0);
    for (int64_t j = 0; j < nq;) {
        int64_t len = imin(p->out[2] - u.ow, nq - j);
        int64_t d0 = u.od * p->str[0] - p->pad[0], h0 = u.oh * p->str[1] - p->pad[1];
        const char *base = (const char *)(xb + u.n * ss[0]);
        for (int64_t t = 0; t < p->flt[0]; t++) {
            int64_t id = d0 + t * p->dil[0];
            for (int64_t rr = 0; id >= 0 && id < p->in[0] && rr < p->flt[1]; rr++) {
                int64_t ih = h0 + rr * p->dil[1];
                if (ih < 0 || ih >= p->in[1])
                    continue;
                const char *row = base + (id * ss[2] + ih * ss[3]) * (int64_t)sizeof(float);
                for (int64_t b = 0; b < imin(run, row_bytes); b += 64) {
                    _mm_prefetch(row + b, _MM_HINT_T0);
                    _mm_prefetch(row + row_bytes - 1 - b, _MM_HINT_T0);
                }
            }
        }
        j += len;
        pos_advance(p, &u, len);
    }
}

void hd_fw_build_rows(const fw_ctx *c, int64_t n, int64_t chb, int64_t q0, int64_t nq, int64_t ld,
                      const float **tab, const float *zero, float *patch)
{
    const hd_conv_problem *p = c->p;
    const int64_t *ss = p->xs, S = p->flt[2], str = p->str[2], dl = p->dil[2];
    const float *xb = c->x + chb * ss[1];
    const int wide = c->L.wide;
    /* One result row (a run of positions with the same n, od, oh) at a time: per tap (or per
       filter row, when wide) the positions that read inside x are one range, and their
       pointers step by the stride.  (Built per position, with a division each, the table
       cost a tenth of a 1x1 layer's time.)  Pointers are formed only inside x. */
    if (wide)
        prefetch_wide_edges(p, xb, n, q0, nq);
    poscur u = pos_at(p, n, q0);
    for (int64_t j = 0; j < nq;) {
        int64_t len = imin(p->out[2] - u.ow, nq - j);
        int64_t d0 = u.od * p->str[0] - p->pad[0], h0 = u.oh * p->str[1] - p->pad[1];
        const float *base = xb + u.n * ss[0];
        int64_t un = 0;
        for (int64_t t = 0; t < p->flt[0]; t++) {
            int64_t id = d0 + t * p->dil[0];
            int din = id >= 0 && id < p->in[0];
            for (int64_t rr = 0; rr < p->flt[1]; rr++) {
                int64_t ih = h0 + rr * p->dil[1];
                int hin = din && ih >= 0 && ih < p->in[1];
                int64_t row = id * ss[2] + ih * ss[3];
                for (int64_t sx = 0; sx < (wide ? 1 : S); sx++) {
                    const float **e = tab + un++ * ld + j;
                    int64_t lo = len, hi = len;
                    if (hin) {
                        /* wide: all S taps inside (tap 0 and tap S-1 are) */
                        int64_t lo2, hi2;
                        inside_cols(str, p->pad[2], sx * dl, p->in[2], p->out[2], &lo, &hi);
                        inside_cols(str, p->pad[2], (wide ? S - 1 : sx) * dl, p->in[2], p->out[2], &lo2, &hi2);
                        lo = imin(imax(imax(lo, lo2) - u.ow, 0), len);
                        hi = imax(imin(imin(hi, hi2) - u.ow, len), lo);
                    }
                    const float *q = base;
                    if (lo < hi)
                        q = base + (row + ((u.ow + lo) * str - p->pad[2] + sx * dl) * ss[4]);
                    fill_run(e, len, lo, hi, q, str * ss[4], zero);
                    if (wide && hin) {
                        for (int64_t k = 0; k < lo; k++)
                            e[k] = wide_edge(p, base, row, (u.ow + k) * str - p->pad[2], zero, &patch);
                        for (int64_t k = hi; k < len; k++)
                            e[k] = wide_edge(p, base, row, (u.ow + k) * str - p->pad[2], zero, &patch);
                    }
                }
            }
        }
        j += len;
        pos_advance(p, &u, len);
    }
    for (int64_t un = 0; un < c->L.nunits; un++)
        for (int64_t j = nq; j < ld; j++)
            tab[un * ld + j] = zero;
}

/* The kernel segments of k block [r0, r0 + kcb) in the (tap, channel) order: one per piece
 * of a run.  Returns their number. */
int64_t hd_fw_row_segments(const fw_plan *L, const float *const *tab, int64_t ld, int64_t r0, int64_t kcb,
                           hd_igemm_seg *sg)
{
    int64_t ns = 0;
    for (int64_t r = r0; r < r0 + kcb;) {
        int64_t un = r / L->rl, off = r % L->rl, cnt = imin(L->rl - off, r0 + kcb - r);
        sg[ns].rows = tab + un * ld;
        sg[ns].off = off;
        sg[ns].kc = cnt;
        ns++;
        r += cnt;
    }
    return ns;
}

/*
 * Wide x (conv1), tile by tile: the A side of the MR positions from q (image n), one equally
 * spaced unit per filter row (units[un], kc = rl), for the strided kernel.  A tile inside one
 * result row whose runs x holds whole is read in place: its positions' runs are str * xs[4]
 * floats apart (a filter row outside x is the zero row, step 0).  Any other tile (a border,
 * two result rows, fewer than MR positions) has its runs copied, zero-filled where taps or
 * rows fall outside x, into PATCH, one run after the other.  Either way each position's
 * values and their order are those of the row table's runs, so the results are the same bits
 * as the pointer kernel's.  (With the table, building it and the border copies are a
 * noticeable part of a few-channel layer's time, and the pointer kernel reloads row pointers
 * every step.)
 */
static void wide_tile_units(const fw_ctx *c, int64_t n, int64_t chb, int64_t q, size_t mr, size_t MR,
                            const float *zero, float *patch, hd_igemm_sseg *units)
{
    const hd_conv_problem *p = c->p;
    const int64_t *ss = p->xs, S = p->flt[2], str = p->str[2], dl = p->dil[2], cg = p->Cg, rl = c->L.rl;
    const float *xb = c->x + chb * ss[1];
    poscur u = pos_at(p, n, q);
    int64_t w0 = u.ow * str - p->pad[2];
    int64_t npix = ((int64_t)MR - 1) * str + (S - 1) * dl + 1;   /* the tile's pixels along w */
    int one_row = mr == MR && u.ow + (int64_t)MR <= p->out[2];
    int inplace = one_row && w0 >= 0 && w0 + npix <= p->in[2];
    if (inplace || (one_row && dl == 1)) {
        /* in place; or, at a border (dense pixels), the row's span of npix pixels copied with
           zeros for those outside x -- the same steps between positions as in place */
        int64_t d0 = u.od * p->str[0] - p->pad[0], h0 = u.oh * p->str[1] - p->pad[1], un = 0;
        for (int64_t t = 0; t < p->flt[0]; t++) {
            int64_t id = d0 + t * p->dil[0];
            for (int64_t rr = 0; rr < p->flt[1]; rr++, un++) {
                int64_t ih = h0 + rr * p->dil[1];
                int in = id >= 0 && id < p->in[0] && ih >= 0 && ih < p->in[1];
                units[un].d = in ? (ptrdiff_t)(str * ss[4] * (int64_t)sizeof(float)) : 0;
                units[un].kc = rl;
                if (!in) {
                    units[un].a = zero;
                    continue;
                }
                const float *row = xb + u.n * ss[0] + id * ss[2] + ih * ss[3];   /* x's row, pixel 0 */
                if (inplace) {
                    units[un].a = row + w0 * ss[4];
                } else {
                    /* dense pixels (ss[4] == cg): the part inside x is one run */
                    float *o = patch + un * npix * cg;
                    int64_t lo = imin(imax(-w0, 0), npix), hi = imax(imin(p->in[2] - w0, npix), lo);
                    memset(o, 0, sizeof(float) * (size_t)(lo * cg));
                    if (hi > lo)
                        memcpy(o + lo * cg, row + (w0 + lo) * ss[4], sizeof(float) * (size_t)((hi - lo) * cg));
                    memset(o + hi * cg, 0, sizeof(float) * (size_t)((npix - hi) * cg));
                    units[un].a = o;
                }
            }
        }
        return;
    }
    int64_t nun = c->L.nunits;
    for (int64_t un = 0; un < nun; un++) {
        units[un].a = patch + un * (int64_t)MR * rl;
        units[un].d = (ptrdiff_t)(rl * (int64_t)sizeof(float));
        units[un].kc = rl;
    }
    for (size_t i = 0; i < MR; i++) {
        int64_t d0 = u.od * p->str[0] - p->pad[0], h0 = u.oh * p->str[1] - p->pad[1];
        int64_t wi = u.ow * str - p->pad[2], un = 0;
        for (int64_t t = 0; t < p->flt[0]; t++) {
            int64_t id = d0 + t * p->dil[0];
            for (int64_t rr = 0; rr < p->flt[1]; rr++, un++) {
                int64_t ih = h0 + rr * p->dil[1];
                int in = i < mr && id >= 0 && id < p->in[0] && ih >= 0 && ih < p->in[1];
                float *o = patch + ((int64_t)un * (int64_t)MR + (int64_t)i) * rl;
                for (int64_t sx = 0; sx < S; sx++) {
                    int64_t w = wi + sx * dl;
                    if (in && w >= 0 && w < p->in[2]) {
                        const float *src = xb + u.n * ss[0] + id * ss[2] + ih * ss[3] + w * ss[4];
                        for (int64_t k = 0; k < cg; k++)
                            o[sx * cg + k] = src[k];
                    } else {
                        for (int64_t k = 0; k < cg; k++)
                            o[sx * cg + k] = 0.0f;
                    }
                }
            }
        }
        if (i + 1 < mr)
            pos_advance(p, &u, 1);
    }
}

/* Wide x, AVX-512: the position block's tiles through the strided kernel (see
 * wide_tile_units), all k blocks in order as fw_block's row-table path does them. */
void hd_fw_block_wide(fw_ctx *c, float *panel, int64_t g, int64_t n, int64_t chb, int64_t q0, int64_t nq,
                      int64_t m0, int64_t nm, float *ybase, float alpha, float beta)
{
    const fw_plan *L = &c->L;
    const size_t MR = (size_t)L->MR, NR = (size_t)L->NR;
    const float *zero = panel + L->zero_at;
    float *buf = panel + L->buf_at, *bpack = panel + L->bpack_at;
    const float *wg = c->apack + g * L->Mpad * L->R;
    hd_igemm_sseg units[FW_SSEG_MAX], sg[FW_SSEG_MAX + 1];
    for (int64_t kb = 0; kb < L->nkb; kb++) {
        int64_t r0 = kb * L->kc, kcb = imin(L->kc, L->R - r0), unit0 = r0 / L->rl, off0 = r0 % L->rl;
        float al = c->cbuf ? 1.0f : alpha;
        float be = kb > 0 ? 1.0f : c->cbuf ? 0.0f : beta;
        if (L->b_late)
            for (int64_t jr = 0; jr < nm; jr += (int64_t)NR)
                hd_fw_pack_w_tile(c, g, kb, (m0 + jr) / (int64_t)NR, bpack + jr * kcb);
        for (int64_t ir = 0; ir < nq; ir += (int64_t)MR) {
            size_t mr = (size_t)imin((int64_t)MR, nq - ir);
            wide_tile_units(c, n, chb, q0 + ir, mr, MR, zero, panel + L->patch_at, units);
            size_t nsg = 0;   /* this k block's pieces of the units, as hd_fw_row_segments cuts them */
            for (int64_t r = r0, un = unit0, off = off0; r < r0 + kcb; nsg++, un++, off = 0) {
                int64_t cnt = imin(L->rl - off, r0 + kcb - r);
                sg[nsg].a = units[un].a + off;
                sg[nsg].d = units[un].d;
                sg[nsg].kc = cnt;
                r += cnt;
            }
            for (int64_t jr = 0; jr < nm; jr += (int64_t)NR) {
                const float *bp = L->b_late ? bpack + jr * kcb
                                            : wg + r0 * L->Mpad + ((m0 + jr) / (int64_t)NR) * kcb * (int64_t)NR;
                size_t nr = (size_t)imin((int64_t)NR, nm - jr);
                float *cp = c->cbuf ? buf + ir * L->mb + jr : ybase + ir * c->p->ys[4] + jr;
                size_t ldc = c->cbuf ? (size_t)L->mb : (size_t)c->p->ys[4];
                c->ik_strided(mr, nr, nsg, sg, bp, NR, cp, ldc, al, be);
            }
        }
    }
    if (c->cbuf)
        hd_fw_store_from_buffer(c, n, g * c->p->Kg + m0, nm, q0, nq, buf, L->mb, 1);
}
