/*
 * Forward fp32 blocked GEMM (conv_fwd_f32.h): the filter packed into micro-kernel panels, and
 * the im2col columns of a position block gathered into B panels (NCHW-like x, solver 150).
 */
#include "conv/solvers/conv_fwd_f32.h"

/* A tile's rows of one k block, given as kernel segments (rows[row0 + i]), copied one after
 * another into DST rows LD floats apart, for A rows that in place would share L1 sets; OUT
 * (which may be the segments' own row table) then points at the copies.  Rows from ROWS up to
 * MR are read by the kernel but never stored: they point at the first copy.  The copies hold
 * the same values in the same order, so the kernel gives the same bits. */
void hd_fw_copy_tile_rows(const hd_igemm_seg *sg, size_t nsg, size_t row0, size_t rows, size_t MR, float *dst,
                          int64_t ld, const float **out)
{
    for (size_t i = 0; i < rows; i++) {
        float *d = dst + (int64_t)i * ld;
        for (size_t k = 0; k < nsg; k++) {
            memcpy(d, sg[k].rows[row0 + i] + sg[k].off, sizeof(float) * (size_t)sg[k].kc);
            d += sg[k].kc;
        }
    }
    for (size_t i = 0; i < MR; i++)
        out[i] = dst + (int64_t)(i < rows ? i : 0) * ld;
}

/* Filter offset of reduction row r (channel and tap of the group, flip applied) for k = 0. */
static int64_t w_row_off(const hd_conv_problem *p, int pix, int64_t r)
{
    int64_t ch, tap;
    if (pix)
        tap = r / p->Cg, ch = r % p->Cg;
    else
        ch = r / p->TRS, tap = r % p->TRS;
    int64_t s = tap % p->flt[2], rr = (tap / p->flt[2]) % p->flt[1], t = tap / (p->flt[2] * p->flt[1]);
    return hd_conv_w_off(p, 0, ch, t, rr, s);
}

/*
 * Packing of (g, k block, channel tile): channels ch0 .. ch0+tile-1 of group g, rows of
 * the k block.  Not swapped: an A micro-panel, dst[p*MR + i].  Swapped: a B micro-panel,
 * dst[p*NR + j].  Both are "k-major, tile values per k step"; rows past M are zero.
 */
void hd_fw_pack_w_tile(const fw_ctx *c, int64_t g, int64_t kb, int64_t q, float *dst)
{
    const hd_conv_problem *p = c->p;
    const fw_plan *L = &c->L;
    int64_t T = L->AR;
    int64_t r0 = kb * L->kc, kcb = imin(L->kc, L->R - r0);
    int64_t rows = imin(T, L->M - q * T);
    int64_t k0 = g * p->Kg + q * T;
    const float *w = c->w;
    int64_t ldw = p->wst[0];
    if (hd_fw_filter_rows_contiguous(p, L->pix)) {
        /* rows of at most 16 filters at a time, transposed (in registers with AVX-512) */
        for (int64_t i0 = 0; i0 < T; i0 += 16) {
            const float *src[16];
            int64_t n16 = imin(16, T - i0);
            for (int64_t i = 0; i < n16; i++)
                src[i] = i0 + i < rows ? w + (k0 + i0 + i) * ldw + r0 : NULL;
            c->cols(dst + i0, T, n16, src, kcb);
        }
        return;
    }
    for (int64_t pp = 0; pp < kcb; pp++) {
        const float *src = w + k0 * ldw + w_row_off(p, L->pix, r0 + pp);
        float *d = dst + pp * T;
        for (int64_t i = 0; i < rows; i++)
            d[i] = src[i * ldw];
        for (int64_t i = rows; i < T; i++)
            d[i] = 0;
    }
}

void hd_fw_pack_w_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    fw_ctx *c = vctx;
    const fw_plan *L = &c->L;
    int64_t tiles = L->Mpad / L->AR, t = (int64_t)task;
    int64_t q = t % tiles, kb = (t / tiles) % L->nkb, g = t / (tiles * L->nkb);
    int64_t r0 = kb * L->kc, kcb = imin(L->kc, L->R - r0);
    hd_fw_pack_w_tile(c, g, kb, q, c->apack + g * L->Mpad * L->R + r0 * L->Mpad + q * kcb * L->AR);
}

/* Plain C versions of the panel copies (conv_fwd_gather.h). */
void hd_fw_cols_c(float *dst, int64_t ld, int64_t T, const float *const *src, int64_t cnt)
{
    for (int64_t i = 0; i < T; i++) {
        const float *s = src[i];
        for (int64_t k = 0; k < cnt; k++)
            dst[k * ld + i] = s ? s[k] : 0.0f;
    }
}

void hd_fw_mrun_c(float *d, const float *src, int64_t step, const uint8_t *bits, int64_t bit0, int64_t cnt)
{
    for (int64_t k = 0; k < cnt; k++)
        d[k] = (bits[(bit0 + k) >> 3] >> ((bit0 + k) & 7)) & 1 ? src[k * step] : 0.0f;
}

/* Set bits [from, to) of B. */
static void set_bits(uint8_t *b, int64_t from, int64_t to)
{
    for (; from < to && (from & 7); from++)
        b[from >> 3] |= (uint8_t)(1u << (from & 7));
    if (to - from >= 8) {
        memset(b + (from >> 3), 0xFF, (size_t)((to - from) >> 3));
        from += (to - from) & ~(int64_t)7;
    }
    for (; from < to; from++)
        b[from >> 3] |= (uint8_t)(1u << (from & 7));
}

/*
 * The geometry of positions [q0, q0+nq) from image n, shared by every channel: its
 * segments (output rows, merged while the source stays affine -- a whole image for a
 * stride-1 "same" convolution) and, per tap, one bit per position: its source lies inside
 * x (not in the padding).  Returns the number of segments.
 */
int64_t hd_fw_block_geometry(const fw_ctx *c, int64_t n, int64_t q0, int64_t nq, fw_seg *seg, uint8_t *bits,
                             int64_t bstride)
{
    const hd_conv_problem *p = c->p;
    const int64_t *ss = p->xs, step = p->str[2] * ss[4];
    int64_t ns = 0;
    poscur u = pos_at(p, n, q0);
    memset(bits, 0, (size_t)(p->TRS * bstride));
    for (int64_t j = 0; j < nq;) {
        int64_t len = imin(p->out[2] - u.ow, nq - j);
        int64_t off = u.n * ss[0] + (u.od * p->str[0] - p->pad[0]) * ss[2] + (u.oh * p->str[1] - p->pad[1]) * ss[3] +
                      (u.ow * p->str[2] - p->pad[2]) * ss[4];
        if (ns && seg[ns - 1].off + seg[ns - 1].len * step == off) {
            seg[ns - 1].len += len;
        } else {
            seg[ns].j = j, seg[ns].len = len, seg[ns].off = off;
            ns++;
        }
        uint8_t *b = bits;
        for (int64_t t = 0; t < p->flt[0]; t++)
            for (int64_t rr = 0; rr < p->flt[1]; rr++)
                for (int64_t s = 0; s < p->flt[2]; s++, b += bstride) {
                    if (src_coord(p, 0, u.od, t) < 0 || src_coord(p, 1, u.oh, rr) < 0)
                        continue;
                    int64_t base = u.ow * p->str[2] + s * p->dil[2] - p->pad[2];   /* iw of position j */
                    int64_t lo = base >= 0 ? 0 : cdiv(-base, p->str[2]);
                    int64_t hi = base > p->in[2] - 1 ? 0 : imin((p->in[2] - 1 - base) / p->str[2] + 1, len);
                    set_bits(b, j + lo, j + hi);
                }
        j += len;
        pos_advance(p, &u, len);
    }
    return ns;
}

/*
 * NCHW-like gather: reduction rows [r0, r0+kcb) x the block's positions (geometry above) of
 * group channel base chb, row-major: (row pp, column j) at dst[pp*ld + j]; columns from nq
 * up to the next multiple of NR are zero.
 */
void hd_fw_gather_b_rows(const fw_ctx *c, const fw_seg *seg, int64_t ns, const uint8_t *bits, int64_t bstride,
                         int64_t chb, int64_t r0, int64_t kcb, int64_t nq, float *dst, int64_t ld)
{
    const hd_conv_problem *p = c->p;
    const int64_t *ss = p->xs, TRS = p->TRS, step = p->str[2] * ss[4];
    hd_conv_mrun_fn mrun = c->mrun;
    int64_t tail = rup(nq, c->L.NR) - nq;
    const int64_t S = p->flt[2], R = p->flt[1];
    /* (channel, tap) of row r0 and its (t, rr, s), then stepped per row: no division per row
       (a 1x1 row is a copy of a few lines, which five 64-bit divisions would rival) */
    int64_t ch = r0 / TRS, tap = r0 % TRS, s = tap % S, rr = (tap / S) % R, t = tap / (S * R);
    int64_t pf_ch = (r0 + FW_PF_ROWS) / TRS, pf_tap = (r0 + FW_PF_ROWS) % TRS;   /* of row r0 + pp + FW_PF_ROWS */
    for (int64_t pp = 0; pp < kcb; pp++) {
        int64_t base = (chb + ch) * ss[1] + t * p->dil[0] * ss[2] + rr * p->dil[1] * ss[3] + s * p->dil[2] * ss[4];
        const uint8_t *b = bits + tap * bstride;
        if (pp + FW_PF_ROWS < kcb && pf_tap == 0) {
            /* a new channel FW_PF_ROWS rows ahead: ask for its lines now, as the rows of a
               block are short runs a channel plane apart that the hardware prefetcher meets
               too late (a prefetch never faults, even where the address is in the padding) */
            int64_t pb = (chb + pf_ch) * ss[1];
            for (int64_t i = 0; i < ns; i++) {
                const char *a = (const char *)((uintptr_t)c->x + (uintptr_t)((pb + seg[i].off) * (int64_t)sizeof(float)));
                for (int64_t o = 0; o < seg[i].len * step * (int64_t)sizeof(float); o += 64)
                    __builtin_prefetch(a + o);
            }
        }
        float *d = dst + pp * ld;
        for (int64_t i = 0; i < ns; i++) {
            /* the segment's first address may lie in the padding, outside x: integer arithmetic */
            const float *src = (const float *)((uintptr_t)c->x + (uintptr_t)((base + seg[i].off) * (int64_t)sizeof(float)));
            mrun(d + seg[i].j, src, step, b, seg[i].j, seg[i].len);
        }
        for (int64_t k = 0; k < tail; k++)
            d[nq + k] = 0;
        if (++pf_tap == TRS) {
            pf_tap = 0;
            pf_ch++;
        }
        if (++tap == TRS) {
            tap = s = rr = t = 0;
            ch++;
        } else if (++s == S) {
            s = 0;
            if (++rr == R) {
                rr = 0;
                t++;
            }
        }
    }
}
