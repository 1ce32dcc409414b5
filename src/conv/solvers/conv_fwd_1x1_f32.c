/*
 * Forward fp32 blocked GEMM (conv_fwd_f32.h): a plain 1x1 convolution from NCHW-like x at
 * batch 1 with the roles swapped (plan flag t1x1).  The kernel's 14-row side takes positions,
 * read in place from x (14 consecutive positions of a channel plane per reduction step, the
 * A-in-place entry), and its 32-wide side takes result channels from the packed filter.  The
 * plan picks this orientation where it fills the tiles better: 196 positions are 14 x 14 rows
 * but 6 x 32 + 4 lanes, and 256 channels are 8 x 32 lanes but 18 x 14 + 4 rows.
 *
 * The task's results for [positions x channels] accumulate in its buffer, position-major,
 * over the k blocks in order, and are then transposed into y.  With the buffer standing in
 * for y (loaded from y, transposed, when beta is not 0) the kernel calls apply alpha and beta
 * exactly as fw_block's calls that write y directly do, so every element gets the same bits
 * as in the other orientation; through the epilogue (cbuf) the same as fw_block's buffer too.
 */
#include "conv/solvers/conv_fwd_f32.h"

#define FW_T1X1_BPACK (256 << 10) /* most bytes of packed B panels per chunk of a k block */

/* B panels of k block [r0, r0 + kcb) for channels [ch0, ch0 + nm): per 32-channel tile,
 * kcb rows of NR values (zero past nm), the layout of the kernel's B side. */
static void pack_b(const fw_ctx *c, int64_t ch0, int64_t nm, int64_t r0, int64_t kcb, float *dst)
{
    const hd_conv_problem *p = c->p;
    const fw_plan *L = &c->L;
    const int64_t NR = L->NR, ws = p->wst[0];
    for (int64_t j0 = 0; j0 < nm; j0 += NR) {
        int64_t cols = imin(NR, nm - j0);
        const float *w = c->w + (ch0 + j0) * ws + r0;
        float *d = dst + j0 * kcb;
        if (L->kern->f32_pack_b_t && L->kern->f32_pack_b_t(w, (size_t)ws, (size_t)cols, (size_t)kcb, d))
            continue;
        for (int64_t r = 0; r < kcb; r++)
            for (int64_t j = 0; j < NR; j++)
                d[r * NR + j] = j < cols ? w[j * ws + r] : 0.0f;
    }
}

/* Between buffer (position-major, row i at buf + i * ld) and y (channel rows ys1 apart):
 * to_y, y[m][i] = buf[i][m]; else buf[i][m] = y[m][i].  nq positions, nm channels. */
static void transpose_buf(const fw_ctx *c, float *y, int64_t ys1, float *buf, int64_t ld, int64_t nq, int64_t nm,
                          int to_y)
{
    const float *src[16];
    if (to_y) {
        for (int64_t i0 = 0; i0 < nq; i0 += 16) {
            int64_t n16 = imin(16, nq - i0);
            for (int64_t i = 0; i < n16; i++)
                src[i] = buf + (i0 + i) * ld;
            c->cols(y + i0, ys1, n16, src, nm);
        }
    } else {
        for (int64_t m0 = 0; m0 < nm; m0 += 16) {
            int64_t n16 = imin(16, nm - m0);
            for (int64_t i = 0; i < n16; i++)
                src[i] = y + (m0 + i) * ys1;
            c->cols(buf + m0, ld, n16, src, nq);
        }
    }
}

/* Channels [m0, m0 + nm) x positions [q0, q0 + nq) of image 0, all k blocks in order. */
void hd_fw_block_t1x1(fw_ctx *c, float *panel, int64_t q0, int64_t nq, int64_t m0, int64_t nm)
{
    const hd_conv_problem *p = c->p;
    const fw_plan *L = &c->L;
    const int64_t MR = L->MR, NR = L->NR, xs1 = p->xs[1], ld = L->mb;
    const hd_f32_gemm_sa_fn sa = L->kern->f32_sa;
    const hd_f32_gemm_ukernel_fn uk = L->kern->f32;
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    float *buf = panel + L->buf_at, *bpack = panel + L->bpack_at, *apad = panel + L->abuf_at;
    int64_t ch0 = m0;   /* one group (plain 1x1 takes G = 1 only through this path) */
    float *ybase = c->y + ch0 * p->ys[1] + q0;
    if (!c->cbuf && beta != 0.0f)
        transpose_buf(c, ybase, p->ys[1], buf, ld, nq, nm, 0);
    /* The filter rows are read by the transposing pack, 16 rows at a time, a line of each:
       rows C floats apart (4 KiB with 1024 channels) are more streams than the hardware
       prefetcher follows and the pack waited on each line.  The first chunk's lines are
       prefetched before its pack, each later one's while the kernels run on the one before
       (spread over the calls).  A k block's B panels are packed in chunks of channels that
       stay in L2 while every position tile reads them (2048 channels: 2 MiB a k block). */
    const float *wb = c->w + ch0 * p->wst[0];
    const int64_t ws = p->wst[0];
    int64_t jb = imax(NR, imin(nm, FW_T1X1_BPACK / (L->kc * NR * (int64_t)sizeof(float)) * NR));
    hd_conv_pf pf = HD_CONV_PF_NONE;
    hd_conv_pf_start(&pf, wb, ws, imin(L->kc, L->R), imin(jb, nm), 1);
    hd_conv_pf_step(&pf);
    for (int64_t kb = 0; kb < L->nkb; kb++) {
        int64_t r0 = kb * L->kc, kcb = imin(L->kc, L->R - r0);
        float al = c->cbuf ? 1.0f : alpha;
        float be = kb > 0 ? 1.0f : c->cbuf ? 0.0f : beta;
        const float *xk = c->x + r0 * xs1 + q0;
        int64_t ilast = nq / MR * MR;
        if (ilast < nq) {
            /* the last tile: its rows past the block may lie past x's end (the kernel reads all
               MR), so this k block of its positions is copied, zero-filled */
            int64_t mr = nq - ilast;
            for (int64_t r = 0; r < kcb; r++)
                for (int64_t i = 0; i < MR; i++)
                    apad[r * MR + i] = i < mr ? xk[r * xs1 + ilast + i] : 0.0f;
        }
        for (int64_t jc = 0; jc < nm; jc += jb) {
            int64_t jn = imin(jb, nm - jc);
            pack_b(c, ch0 + jc, jn, r0, kcb, bpack);
            /* the next chunk's rows: this k block's next channels, else the next k block's first */
            if (jc + jb < nm)
                hd_conv_pf_start(&pf, wb + (jc + jb) * ws + r0, ws, kcb, imin(jb, nm - jc - jb), cdiv(nq, MR) * cdiv(jn, NR));
            else if (kb + 1 < L->nkb)
                hd_conv_pf_start(&pf, wb + r0 + L->kc, ws, imin(L->kc, L->R - r0 - L->kc), imin(jb, nm), cdiv(nq, MR) * cdiv(jn, NR));
            for (int64_t i0 = 0; i0 < nq; i0 += MR) {
                int64_t mr = imin(MR, nq - i0);
                for (int64_t j0 = 0; j0 < jn; j0 += NR) {
                    size_t nr = (size_t)imin(NR, jn - j0);
                    float *cp = buf + i0 * ld + jc + j0;
                    const float *bp = bpack + j0 * kcb;
                    hd_conv_pf_step(&pf);
                    if (mr < MR)
                        uk((size_t)mr, nr, (size_t)kcb, apad, bp, (size_t)NR, cp, (size_t)ld, al, be);
                    else
                        sa((size_t)mr, nr, (size_t)kcb, xk + i0, (size_t)xs1, bp, (size_t)NR, cp, (size_t)ld, al, be);
                }
            }
        }
    }
    if (c->cbuf)
        hd_fw_store_from_buffer(c, 0, ch0, nm, q0, nq, buf, ld, 1);
    else
        transpose_buf(c, ybase, p->ys[1], buf, ld, nq, nm, 1);
}
