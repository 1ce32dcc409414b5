/*
 * Backward filter fp32 on the micro-kernels, the row tiles (solver 351; conv_bwdf_f32.h, the
 * method: conv_bwdf_plan_f32.c): channel-contiguous copies of x, A panels gathered from x,
 * B panels from dy, the GEMM tasks, and the store of a tile (chunks in order).
 */
#include "conv/solvers/conv_bwdf_f32.h"

/* ---------------- channel-contiguous sources ---------------- */

/* One image's block of positions: dst[pos][ch] = src[ch][pos], all channels. */
static void tr_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const tr_ctx *c = vctx;
    int64_t img = (int64_t)task / c->pblocks, pb = (int64_t)task % c->pblocks;
    int64_t q0 = pb * TR_POS, nq = min64(TR_POS, c->npos - q0);
    const int64_t *s = c->ss, *d = c->dims;
    const float *src = c->src + (c->img0 + img) * s[0];
    float *dst = c->dst + (img * c->npos + q0) * c->ch;
    int lin = s[4] == 1 && (d[1] == 1 || s[3] == d[2]) && (d[0] == 1 || s[2] == d[1] * d[2]);
    if (lin && c->p->isa >= HD_ISA_AVX512) {
        for (int64_t c0 = 0; c0 < c->ch; c0 += TR_CH)      /* TR_CH streams of TR_POS positions */
            hd_f32_bwdf_ukernel_transpose__avx512(min64(TR_CH, c->ch - c0), nq, src + c0 * s[1] + q0, s[1], dst + c0, c->ch);
        return;
    }
    if (lin) {
        hd_f32_tile_fn tile = c->p->isa >= HD_ISA_AVX2 ? hd_f32_transpose_ukernel__avx2 : hd_f32_transpose_ukernel__scalar;
        for (int64_t j0 = 0; j0 < nq; j0 += TR_SUB)       /* output blocks that stay in L1 */
            for (int64_t c0 = 0; c0 < c->ch; c0 += TR_CH)
                tile(min64(TR_CH, c->ch - c0), min64(TR_SUB, nq - j0), src + c0 * s[1] + q0 + j0, s[1],
                     dst + j0 * c->ch + c0, c->ch, 1.0f, 0.0f);
        return;
    }
    for (int64_t j = 0; j < nq; j++) {
        int64_t q = q0 + j, w = q % d[2], h = (q / d[2]) % d[1], dd = q / (d[2] * d[1]);
        const float *sp = src + dd * s[2] + h * s[3] + w * s[4];
        float *dp = dst + j * c->ch;
        for (int64_t ch = 0; ch < c->ch; ch++)
            dp[ch] = sp[ch * s[1]];
    }
}

void hd_bw_transpose_wave(const hd_conv_problem *p, const float *src, const int64_t *ss, const int64_t *dims,
                          int64_t ch, int64_t img0, int64_t nimg, float *dst, int nt)
{
    tr_ctx c = {p, src, ss, dims, ch, dims[0] * dims[1] * dims[2], img0, dst, 0};
    c.pblocks = cdiv(c.npos, TR_POS);
    hd_parallel_deal((size_t)(nimg * c.pblocks), nt, tr_task, &c);
}

/* ---------------- the GEMM tasks ---------------- */

/* The runs of rows [r0, r0+mr) of a row tile (channels cb0 .. cb0+cbw-1 of the group, row
 * tap * cbw + c - cb0).  With c->tapmem the row's tap is a tap of dW's memory order (the
 * k-major tiles: CONVOLUTION mode's flip applied here, so taps then run backwards and are
 * not merged). */
static int make_segs(const bw_ctx *c, int64_t cb0, int64_t cbw, int64_t r0, int64_t mr, bw_seg *segs)
{
    const hd_conv_problem *p = c->p;
    int64_t S = p->flt[2], RS = p->flt[1] * S;
    int rev = c->tapmem && p->flip;
    int merge = c->merge && cbw == p->Cg && !rev;
    int ns = 0;
    for (int64_t r = r0; r < r0 + mr;) {
        int64_t tap = r / cbw, cl = r % cbw, len = min64(cbw - cl, r0 + mr - r);
        if (rev)
            tap = p->TRS - 1 - tap;
        int64_t t = tap / RS, rr = (tap / S) % p->flt[1], s = tap % S;
        bw_seg *prev = ns ? &segs[ns - 1] : NULL;
        if (prev && merge && cl == 0 && prev->t == t && prev->r == rr && prev->s1 + 1 == s &&
            (prev->c0 + prev->len) % cbw == 0) {
            prev->s1 = s;
            prev->len += len;
        } else {
            bw_seg sg = {t, rr, s, s, cb0 + cl, len, r - r0};
            segs[ns++] = sg;
        }
        r += len;
    }
    return ns;
}

void hd_bw_copy_runs_scalar(float *dst, int64_t dstride, const float *src, int64_t sstride, int64_t len,
                            int64_t count)
{
    for (int64_t o = 0; o < count; o++, dst += dstride, src += sstride)
        for (int64_t i = 0; i < len; i++)
            dst[i] = src[i];
}

/* For xdirect problems: dst[j * ld + i] = x at channel i (xc: channel 0 of one image, channels
 * xs[1] apart) and output position pos + j, for i < nr, j < cnt (within one image).  Unit
 * strides over contiguous rows: one transpose of the run.  Strided (2-d): one transpose per
 * output row, whose positions are x's columns 0, s, 2s, ... of row oh * sh -- the stride-2
 * columns deinterleaved in registers (AVX-512), so x is read once, without a copy of it. */
void hd_bw_xrows_transpose(const bw_ctx *c, const float *xc, int64_t nr, int64_t pos, int64_t cnt, float *dst,
                           int64_t ld)
{
    const hd_conv_problem *p = c->p;
    const int64_t cs = p->xs[1], OW = p->out[2], sw = p->str[2];
    hd_f32_tile_fn tile = c->isa >= HD_ISA_AVX2 ? hd_f32_transpose_ukernel__avx2 : hd_f32_transpose_ukernel__scalar;
    int unit = p->str[1] == 1 && sw == 1;
    for (int64_t j = 0; j < cnt;) {
        int64_t oh = (pos + j) / OW, ow = (pos + j) % OW, run = unit ? cnt - j : min64(OW - ow, cnt - j);
        const float *src = unit ? xc + pos + j : xc + oh * p->str[1] * p->xs[3] + ow * sw;
        float *d = dst + j * ld;
        if (sw == 1 && c->isa >= HD_ISA_AVX512)
            hd_f32_bwdf_ukernel_transpose__avx512(nr, run, src, cs, d, ld);
        else if (sw == 1)
            tile(nr, run, src, cs, d, ld, 1.0f, 0.0f);
        else if (c->isa >= HD_ISA_AVX512)
            hd_f32_bwdf_ukernel_transpose_s2__avx512(nr, run, src, cs, d, ld);
        else
            for (int64_t o = 0; o < run; o++)
                for (int64_t i = 0; i < nr; i++)
                    d[o * ld + i] = src[i * cs + o * sw];
        j += run;
    }
}

/* Pack the A panel of rows [r0, r0+mr) of the row tile of channels cb0 .. cb0+cbw-1 of group
 * g, for the kcur positions of the wave from q0 on: dst[j * MR + lane], lanes from mr on zero. */
/* hd_bw_gather_a for xdirect problems: the panel's channels are rows of x over the positions, so
 * each image's run of positions is transposed into the panel. */
static void gather_a_transposed(const bw_ctx *c, int64_t g, int64_t ch0, int64_t mr, int64_t q0, int64_t kcur,
                                float *dst, int64_t MR)
{
    const hd_conv_problem *p = c->p;
    const int64_t P = p->P, cs = p->xs[1];
    for (int64_t j = 0; j < kcur;) {
        int64_t img = (q0 + j) / P, pos = (q0 + j) % P, cnt = min64(P - pos, kcur - j);
        hd_bw_xrows_transpose(c, c->X.base + img * c->X.sn + (g * p->Cg + ch0) * cs, mr, pos, cnt, dst + j * MR, MR);
        j += cnt;
    }
    if (mr < MR)
        for (int64_t j = 0; j < kcur; j++)
            memset(dst + j * MR + mr, 0, (size_t)(MR - mr) * sizeof(float));
}

void hd_bw_gather_a(const bw_ctx *c, int64_t g, int64_t cb0, int64_t cbw, int64_t r0, int64_t mr, int64_t q0,
                    int64_t kcur, float *dst, int64_t MR)
{
    if (c->L.xdirect) {
        (void)cbw;
        gather_a_transposed(c, g, cb0 + r0, mr, q0, kcur, dst, MR);
        return;
    }
    const hd_conv_problem *p = c->p;
    const int64_t Cg = p->Cg;
    const int64_t OW = p->out[2], OH = p->out[1], P = p->P;
    const int64_t sw = c->X.sw, sh = c->X.sh, sd = c->X.sd, IW = p->in[2];
    const int64_t stw = p->str[2], pw = p->pad[2], dw = p->dil[2];
    bw_seg segs[BW_NR_MAX];            /* a panel of either side (k-major B panels are NR wide) */
    int ns = make_segs(c, cb0, cbw, r0, mr, segs);
    int64_t img = q0 / P, pos = q0 % P;
    int64_t ow = pos % OW, oh = (pos / OW) % OH, od = pos / (OW * OH);
    for (int64_t j = 0; j < kcur;) {
        int64_t run = min64(OW - ow, kcur - j);
        float *d0 = dst + j * MR;
        const float *ib = c->X.base + img * c->X.sn + g * Cg;
        for (int si = 0; si < ns; si++) {
            const bw_seg *sg = &segs[si];
            float *d = d0 + sg->lane;
            int64_t id = od * p->str[0] - p->pad[0] + sg->t * p->dil[0];
            int64_t ih = oh * p->str[1] - p->pad[1] + sg->r * p->dil[1];
            if (id < 0 || id >= p->in[0] || ih < 0 || ih >= p->in[1]) {
                for (int64_t o = 0; o < run; o++)
                    memset(d + o * MR, 0, (size_t)sg->len * sizeof(float));
                continue;
            }
            const float *row = ib + id * sd + ih * sh;
            /* outputs ow + o with every tap of the run inside the row: lo <= o < hi */
            int64_t first = sg->s0 * dw - pw, lastw = sg->s1 * dw - pw;   /* iw = (ow + o) * stw + first */
            int64_t lo = 0, hi = run;
            while (lo < run && (ow + lo) * stw + first < 0)
                lo++;
            while (hi > lo && (ow + hi - 1) * stw + lastw >= IW)
                hi--;
            if (hi > lo)
                c->copy(d + lo * MR, MR, row + ((ow + lo) * stw + first) * sw + sg->c0, stw * sw, sg->len, hi - lo);
            for (int64_t o = 0; o < run; o++) {
                if (o == lo && hi > lo)
                    o = hi;
                if (o >= run)
                    break;
                float *dd = d + o * MR;
                if (sg->s0 == sg->s1) {                         /* one tap: it lies in the padding */
                    memset(dd, 0, (size_t)sg->len * sizeof(float));
                    continue;
                }
                for (int64_t e = 0; e < sg->len; e++) {         /* a border of merged taps: tap by tap */
                    int64_t ce = sg->c0 + e, s = sg->s0 + ce / Cg, ch = ce % Cg;   /* (merged runs go forwards) */
                    int64_t iw = (ow + o) * stw - pw + s * dw;
                    dd[e] = iw < 0 || iw >= IW ? 0.0f : row[iw * sw + ch];
                }
            }
        }
        if (mr < MR)
            for (int64_t o = 0; o < run; o++)
                memset(d0 + o * MR + mr, 0, (size_t)(MR - mr) * sizeof(float));
        j += run;
        ow += run;
        if (ow == OW) {
            ow = 0;
            if (++oh == OH) {
                oh = 0;
                if (++od == p->out[0])
                    od = 0, img++;
            }
        }
    }
}

/* The B panel of output channels [k0, k0+nr) of group g for kcur positions from q0, packed
 * from a dy whose channels are not contiguous (NCHW): each image's run of positions is
 * transposed into the panel (kcur x NR, zero-padded), so dy is read once per row tile. */
static const float *panel_b_transposed(const bw_ctx *c, int64_t g, int64_t k0, int64_t nr, int64_t q0, int64_t kcur,
                                       float *buf, size_t *bs, int64_t NR)
{
    const hd_conv_problem *p = c->p;
    const int64_t P = p->P, cs = p->ys[1];
    const int64_t OW = p->out[2], OH = p->out[1];
    for (int64_t j = 0; j < kcur;) {
        int64_t img = (q0 + j) / P, pos = (q0 + j) % P, cnt = min64(P - pos, kcur - j);
        const float *src = c->Y.base + img * c->Y.sn + (g * p->Kg + k0) * cs;
        float *d = buf + j * NR;
        if (c->ylin && c->Y.sw == 1 && c->isa >= HD_ISA_AVX512) {
            hd_f32_bwdf_ukernel_transpose__avx512(nr, cnt, src + pos * c->Y.sw, cs, d, NR);
        } else if (c->ylin && c->Y.sw == 1) {
            hd_f32_tile_fn tile = c->isa >= HD_ISA_AVX2 ? hd_f32_transpose_ukernel__avx2 : hd_f32_transpose_ukernel__scalar;
            tile(nr, cnt, src + pos, cs, d, NR, 1.0f, 0.0f);
        } else {
            for (int64_t o = 0; o < cnt; o++) {
                int64_t q = pos + o, ow = q % OW, oh = (q / OW) % OH, od = q / (OW * OH);
                const float *sp = src + od * c->Y.sd + oh * c->Y.sh + ow * c->Y.sw;
                for (int64_t e = 0; e < nr; e++)
                    d[o * NR + e] = sp[e * cs];
            }
        }
        j += cnt;
    }
    if (nr < NR)
        for (int64_t j = 0; j < kcur; j++)
            memset(buf + j * NR + nr, 0, (size_t)(NR - nr) * sizeof(float));
    *bs = (size_t)NR;
    return buf;
}

/* The B panel of output channels [k0, k0+nr) of group g for kcur positions from q0: in place
 * when it can be (and `inplace` allows it), else packed into buf (kcur x NR, zero-padded).
 * Returns it; *bs its stride.  The k-major tiles pack their A panels (NR = MR) with it. */
const float *hd_bw_panel_b(const bw_ctx *c, int64_t g, int64_t k0, int64_t nr, int64_t q0, int64_t kcur, float *buf,
                           size_t *bs, int64_t NR, int inplace)
{
    const hd_conv_problem *p = c->p;
    const int64_t P = p->P;
    if (c->L.ty)
        return panel_b_transposed(c, g, k0, nr, q0, kcur, buf, bs, NR);
    const float *yb = c->Y.base + g * p->Kg + k0;
    if (inplace && nr == NR && c->Y.sw <= BW_INPLACE_MAX &&
        (c->ylin == 2 || (c->ylin == 1 && q0 / P == (q0 + kcur - 1) / P))) {
        int64_t img = q0 / P, pos = q0 % P;
        *bs = (size_t)c->Y.sw;
        return yb + img * c->Y.sn + pos * c->Y.sw;
    }
    int64_t OW = p->out[2], OH = p->out[1];
    int64_t img = q0 / P, pos = q0 % P;
    int64_t ow = pos % OW, oh = (pos / OW) % OH, od = pos / (OW * OH);
    for (int64_t j = 0; j < kcur;) {
        int64_t run = min64(OW - ow, kcur - j);
        const float *sp = yb + img * c->Y.sn + od * c->Y.sd + oh * c->Y.sh + ow * c->Y.sw;
        c->copy(buf + j * NR, NR, sp, c->Y.sw, nr, run);
        if (nr < NR)
            for (int64_t o = 0; o < run; o++)
                memset(buf + (j + o) * NR + nr, 0, (size_t)(NR - nr) * sizeof(float));
        j += run;
        ow += run;
        if (ow == OW) {
            ow = 0;
            if (++oh == OH) {
                oh = 0;
                if (++od == p->out[0])
                    od = 0, img++;
            }
        }
    }
    *bs = (size_t)NR;
    return buf;
}

/* ---------------- storing a tile: chunks in order, then alpha and beta ---------------- */

/* The contract of hd_f32_bwdf_ukernel_store__avx512 (conv_bwdf.h) in plain C. */
static void store_scalar(const float *const *rows, int64_t ne, int64_t nk, int64_t plane, int64_t nchunk, float *dw,
                         int64_t ldw, float alpha, float beta)
{
    for (int64_t k = 0; k < nk; k++)
        for (int64_t e = 0; e < ne; e++) {
            float sum = rows[e][k];
            for (int64_t i = 1; i < nchunk; i++)
                sum += rows[e][k + i * plane];
            float *o = dw + k * ldw + e;
            *o = beta == 0 ? alpha * sum : alpha * sum + beta * *o;
        }
}

/* Output channels [k0, k0+nk) of row tile rbi of group g, whose sums for k0 are at tp (row
 * tap * cbw + c - c0, rows ld apart, chunks plane apart), into dW in its memory order: blocks
 * of BS filter columns x BS output channels transposed in registers, BS dW rows written as
 * sequential streams.  Filters are packed (conv_problem.c): a KCRS tile is one run of
 * cbw * TRS floats per output channel, a KRSC tile one run of cbw floats per tap. */
static void store_tile(const hd_conv_problem *p, const hd_conv_args *a, const bw_plan *L, const float *tp, int64_t ld,
                       int64_t plane, int64_t g, int64_t rbi, int64_t k0, int64_t nk)
{
    const int64_t TRS = p->TRS, c0 = rbi * L->CB, cbw = min64(L->CB, p->Cg - c0), ldw = p->wst[0];
    const float alpha = (float)a->epi.alpha, beta = (float)a->epi.beta;
    hd_isa_t isa = p->isa;
    store_fn st = isa >= HD_ISA_AVX512 ? hd_f32_bwdf_ukernel_store__avx512 : isa >= HD_ISA_AVX2 ? hd_f32_bwdf_ukernel_store__avx2
                                                                                        : store_scalar;
    const int64_t BS = isa >= HD_ISA_AVX512 ? 16 : 8;
    const float *rows[16];
    float *dwk = (float *)a->out + (g * p->Kg + k0) * ldw;
    for (int64_t kb = 0; kb < nk; kb += BS) {
        int64_t nb = min64(BS, nk - kb);
        if (p->wst[1] != 1) {                            /* KCRS: m = cl * TRS + memory tap */
            int64_t E = TRS * cbw, cl = 0, tm = 0;
            for (int64_t m0 = 0; m0 < E; m0 += BS) {
                int64_t ne = min64(BS, E - m0);
                for (int64_t j = 0; j < ne; j++) {
                    int64_t tap = p->flip ? TRS - 1 - tm : tm;
                    rows[j] = tp + (tap * cbw + cl) * ld + kb;
                    if (++tm == TRS)
                        tm = 0, cl++;
                }
                st(rows, ne, nb, plane, L->nchunk, dwk + kb * ldw + c0 * TRS + m0, ldw, alpha, beta);
            }
        } else {                                         /* KRSC: tap-major, channels contiguous */
            for (int64_t tm = 0; tm < TRS; tm++) {
                int64_t tap = p->flip ? TRS - 1 - tm : tm;
                for (int64_t j0 = 0; j0 < cbw; j0 += BS) {
                    int64_t ne = min64(BS, cbw - j0);
                    for (int64_t j = 0; j < ne; j++)
                        rows[j] = tp + (tap * cbw + j0 + j) * ld + kb;
                    st(rows, ne, nb, plane, L->nchunk, dwk + kb * ldw + tm * p->Cg + c0 + j0, ldw, alpha, beta);
                }
            }
        }
    }
}

void hd_bw_st_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const st_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    int64_t nkb = cdiv(p->Kg, ST_K), t = (int64_t)task;
    int64_t kb = t % nkb, rbi = (t / nkb) % c->L->nrb, g = t / (nkb * c->L->nrb);
    const float *tp = c->part + (g * c->L->R + rbi * c->L->CB * p->TRS) * p->Kg + kb * ST_K;
    store_tile(p, c->a, c->L, tp, p->Kg, p->K * c->L->R, g, rbi, kb * ST_K, min64(ST_K, p->Kg - kb * ST_K));
}

/* ---------------- the GEMM tasks ---------------- */

/* The L2 prefetch stream of the x rows that the A panel after panel IP of the block at Q0
 * gathers (xdirect, unit stride): panel IP + 1, else the first panel of the next block when
 * MORE; none for a panel that spans two images or is read in place.  Spread over the CALLS
 * kernel calls of panel IP (one per B panel). */
static void next_a_rows(const bw_ctx *c, int64_t g, int64_t cb0, int64_t nrow, int64_t ip, int64_t q0, int more,
                        int64_t calls, hd_conv_pf *pf)
{
    const hd_conv_problem *p = c->p;
    int64_t MR = c->MR, P = p->P;
    if (++ip * MR >= nrow) {
        if (!more)
            return;
        ip = 0;
        q0 += BW_KC;
    }
    int64_t kcur = min64(BW_KC, c->npos - q0), rows = min64(MR, nrow - ip * MR);
    if (kcur <= 0 || q0 / P != (q0 + kcur - 1) / P)
        return;
    if (calls <= BW_AIN_PANELS && c->ain != 0 && (ip + 1) * MR <= nrow)
        return;   /* read in place by the kernel (hd_bw_task's test, the block in one image) */
    const float *x0 = c->X.base + (q0 / P) * c->X.sn + (g * p->Cg + cb0 + ip * MR) * p->xs[1] + q0 % P;
    hd_conv_pf_start(pf, x0, p->xs[1], kcur, rows, calls);
}

/* One (chunk, group, row tile, column tile): its blocks of the wave's positions, in order. */
void hd_bw_task(void *vctx, size_t task, int thread)
{
    const bw_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    int64_t t = (int64_t)task;
    int64_t cbi = t % c->ncb, rbi = (t / c->ncb) % c->L.nrb, g = (t / (c->ncb * c->L.nrb)) % p->G;
    int64_t chunk = t / (c->ncb * c->L.nrb * p->G);
    int64_t cb0 = rbi * c->L.CB, cbw = min64(c->L.CB, p->Cg - cb0), nrow = p->TRS * cbw;
    int64_t k0 = cbi * c->cb, nk = min64(c->cb, p->Kg - k0);
    if (cbw <= 0 || nk <= 0)
        return;
    const int64_t MR = c->MR, NR = c->NR;
    int64_t apan = cdiv(nrow, MR), bpan = cdiv(nk, NR);
    float *A = c->slots + (size_t)thread * c->hd_bw_slot_floats;
    float *Bt = A + BW_MR_MAX * BW_KC;
    size_t ldc = (size_t)(c->L.local ? c->cb : p->Kg);
    float *C = c->L.local ? Bt + (c->L.ncols + BW_NR_MAX - 1) * BW_KC
                          : c->part + chunk * p->K * c->L.R + (g * c->L.R + cb0 * p->TRS) * p->Kg + k0;
    int64_t b0 = c->nblk * chunk / c->L.nchunk, b1 = c->nblk * (chunk + 1) / c->L.nchunk;
    hd_f32_gemm_ukernel_fn uk = c->kern->f32;
    /* x's rows transposed into the A panels straight from memory (1x1, unit stride): each
       panel's rows are prefetched while the previous panel is multiplied */
    int xrows_pf = c->L.xdirect && p->str[0] == 1 && p->str[1] == 1 && p->str[2] == 1;
    for (int64_t b = b0; b < b1; b++) {
        int64_t q0 = b * BW_KC, kcur = min64(BW_KC, c->npos - q0);
        float beta = c->wave == 0 && b == b0 ? 0.0f : 1.0f;
        const float *B[BW_COLS / 4 + 1];
        size_t bs[BW_COLS / 4 + 1];
        for (int64_t jp = 0; jp < bpan; jp++)
            B[jp] = hd_bw_panel_b(c, g, k0 + jp * NR, min64(NR, nk - jp * NR), q0, kcur, Bt + jp * NR * BW_KC, &bs[jp], NR,
                            1);
        int ain = bpan <= BW_AIN_PANELS && (c->ain == 2 || (c->ain == 1 && q0 / p->P == (q0 + kcur - 1) / p->P));
        for (int64_t ip = 0; ip < apan; ip++) {       /* each A panel used while it is in L1 */
            if (ain && (ip + 1) * MR <= nrow) {
                /* a whole panel of x's channels, read in place (gemm-ukernels.h: the same bits) */
                const float *ax = c->X.base + (q0 / p->P) * c->X.sn + (q0 % p->P) * c->X.sw + g * p->Cg + cb0 + ip * MR;
                for (int64_t jp = 0; jp < bpan; jp++)
                    c->kern->f32_sa((size_t)MR, (size_t)min64(NR, nk - jp * NR), (size_t)kcur, ax, (size_t)c->X.sw,
                                    B[jp], bs[jp], C + ip * MR * (int64_t)ldc + jp * NR, ldc, 1.0f, beta);
                continue;
            }
            hd_bw_gather_a(c, g, cb0, cbw, ip * MR, min64(MR, nrow - ip * MR), q0, kcur, A, MR);
            hd_conv_pf pf = HD_CONV_PF_NONE;
            if (xrows_pf)
                next_a_rows(c, g, cb0, nrow, ip, q0, b + 1 < b1, bpan, &pf);
            for (int64_t jp = 0; jp < bpan; jp++) {
                hd_conv_pf_step(&pf);
                uk((size_t)min64(MR, nrow - ip * MR), (size_t)min64(NR, nk - jp * NR), (size_t)kcur, A, B[jp], bs[jp],
                   C + ip * MR * (int64_t)ldc + jp * NR, ldc, 1.0f, beta);
            }
        }
    }
    if (c->fuse_store && c->wave == c->L.nwave - 1)   /* the tile's sums are complete and still in cache */
        store_tile(p, c->a, &c->L, C, (int64_t)ldc, 0, g, rbi, k0, nk);
}
