/*
 * Forward fp32 blocked GEMM (conv_fwd_f32.h): one task -- a result-channel block x a position
 * block x a run of groups, every k block in order -- and the epilogue from its buffer.
 */
#include "conv/solvers/conv_fwd_f32.h"

/* One line of the epilogue: cnt values v[k*vs] to y elements o[k*os] (z alike), bias
 * bias[k*bs] (bs = 0: one channel). */
static void store_line(const hd_conv_epilogue *e, float *o, const float *zz, int64_t os, const float *v, int64_t vs,
                       const float *bias, int64_t bs, int64_t cnt)
{
    float alpha = (float)e->alpha, beta = (float)e->beta, alpha2 = (float)e->alpha2;
    if (!e->fused && os == 1 && vs == 1) {
        hd_conv_scale_add(o, v, cnt, alpha, beta);   /* both contiguous (NCHW-like y from the buffer) */
        return;
    }
    if (e->fused) {
        for (int64_t k = 0; k < cnt; k++) {
            float r = alpha * v[k * vs] + bias[k * bs];
            if (alpha2 != 0)
                r += alpha2 * zz[k * os];
            if (e->relu && !(r > 0))
                r = 0;
            o[k * os] = r;
        }
    } else if (beta == 0) {
        for (int64_t k = 0; k < cnt; k++)
            o[k * os] = alpha * v[k * vs];
    } else {
        for (int64_t k = 0; k < cnt; k++)
            o[k * os] = alpha * v[k * vs] + beta * o[k * os];
    }
}

/*
 * The epilogue from the buffer: buf[m * ld + j] is the sum for channel ch0 + m and position
 * q0 + j (from image n); y = alpha*v + beta*y, or the fused form.  Swapped: buf[j * ld + m].
 * The inner loop runs along y's smaller stride (channels for NHWC-like y), so that the
 * stores fill whole cache lines.
 */
void hd_fw_store_from_buffer(const fw_ctx *c, int64_t n, int64_t ch0, int64_t nm, int64_t q0, int64_t nq,
                             const float *buf, int64_t ld, int swap)
{
    const hd_conv_problem *p = c->p;
    const hd_conv_epilogue *e = &c->a->epi;
    const int64_t *os = p->ys;
    const float *z = e->z, *bias = e->fused ? (const float *)e->bias : NULL;
    float *y = c->y;
    int64_t ms = swap ? 1 : ld, js = swap ? ld : 1;
    int z_used = e->fused && e->alpha2 != 0;
    if (!swap && os[1] == 1 && !e->fused && e->alpha == 1 && e->beta == 0) {
        /* a plain store to channels-contiguous y: 16 x 16 blocks transposed (in registers with
           AVX-512), one output-row run of positions at a time */
        poscur u = pos_at(p, n, q0);
        for (int64_t j = 0; j < nq;) {
            int64_t cnt = imin(p->out[2] - u.ow, nq - j);
            int64_t base = u.n * os[0] + ch0 + u.od * os[2] + u.oh * os[3] + u.ow * os[4];
            for (int64_t m0 = 0; m0 < nm; m0 += 16) {
                const float *src[16];
                int64_t n16 = imin(16, nm - m0);
                for (int64_t i = 0; i < n16; i++)
                    src[i] = buf + (m0 + i) * ld + j;
                c->cols(y + base + m0, os[4], n16, src, cnt);
            }
            j += cnt;
            pos_advance(p, &u, cnt);
        }
        return;
    }
    if ((os[1] < 0 ? -os[1] : os[1]) < (os[4] < 0 ? -os[4] : os[4])) {
        poscur u = pos_at(p, n, q0);
        for (int64_t j = 0; j < nq; j++, pos_advance(p, &u, 1)) {
            int64_t base = u.n * os[0] + ch0 * os[1] + u.od * os[2] + u.oh * os[3] + u.ow * os[4];
            store_line(e, y + base, z_used ? z + base : NULL, os[1], buf + j * js, ms,
                       bias ? bias + ch0 * e->bias_stride : NULL, e->bias_stride, nm);
        }
        return;
    }
    /* y's positions linear within an image (NCHW-like): a run goes on to the image's end,
       not only the output row's */
    int img_runs = linear_positions(os, p->out);
    for (int64_t m = 0; m < nm; m++) {
        int64_t ch = ch0 + m;
        poscur u = pos_at(p, n, q0);
        for (int64_t j = 0; j < nq;) {
            int64_t qi = (u.od * p->out[1] + u.oh) * p->out[2] + u.ow;
            int64_t cnt = imin(img_runs ? p->P - qi : p->out[2] - u.ow, nq - j);
            int64_t base = u.n * os[0] + ch * os[1] + u.od * os[2] + u.oh * os[3] + u.ow * os[4];
            store_line(e, y + base, z_used ? z + base : NULL, os[4], buf + m * ms + j * js, js,
                       bias ? bias + ch * e->bias_stride : NULL, 0, cnt);
            j += cnt;
            if (img_runs)
                u = pos_at(p, u.n, qi + cnt);
            else
                pos_advance(p, &u, cnt);
        }
    }
}

/* Channels [m0, m0+nm) of group g x one position block (geometry in seg/bits), all k
 * blocks in order. */
static void fw_block(fw_ctx *c, int thread, int64_t g, int64_t n, int64_t q0, int64_t nq, int64_t m0, int64_t nm,
                     const fw_seg *seg, int64_t ns, const uint8_t *bits, int64_t nfull, const int64_t *after)
{
    const hd_conv_problem *p = c->p;
    const fw_plan *L = &c->L;
    const hd_conv_args *a = c->a;
    int64_t ch0 = g * p->Kg + m0, chb = g * p->Cg;
    float *panel = c->slots + (size_t)thread * (size_t)L->slot;
    float *buf = panel + L->buf_at;
    float *abuf = panel + L->abuf_at;
    const int64_t *os = p->ys, *xs = p->xs;
    const size_t MR = (size_t)L->MR, NR = (size_t)L->NR;
    hd_f32_gemm_ukernel_fn uk = L->kern->f32;
    float alpha = (float)a->epi.alpha, beta = (float)a->epi.beta;
    const float *wg = c->apack + g * L->Mpad * L->R;
    float *ybase = c->cbuf ? NULL : c->y + n * os[0] + ch0 * os[1] + q0 * os[4];
    const float **tab = (const float **)(void *)(panel + L->tab_at);
    float *zero = panel + L->zero_at;
    if (L->pix || L->a_direct)
        memset(zero, 0, sizeof(float) * (size_t)fw_nzero(L));
    if (L->t1x1) {
        hd_fw_block_t1x1(c, panel, q0, nq, m0, nm);
        return;
    }
    if (c->wide_tiles) {
        hd_fw_block_wide(c, panel, g, n, chb, q0, nq, m0, nm, ybase, alpha, beta);
        return;
    }
    if (L->pix)
        hd_fw_build_rows(c, n, chb, q0, nq, L->ncpad, tab, zero, panel + L->patch_at);

    for (int64_t kb = 0; kb < L->nkb; kb++) {
        int64_t r0 = kb * L->kc, kcb = imin(L->kc, L->R - r0);
        float al = c->cbuf ? 1.0f : alpha;
        float be = kb > 0 ? 1.0f : c->cbuf ? 0.0f : beta;
        const float *wk = wg + r0 * L->Mpad;
        if (L->pix) {
            /* A: MR positions, read from x through the row table; B: NR channels of the
               packed filter. */
            hd_igemm_seg *sg = (hd_igemm_seg *)(panel + L->iseg_at);
            size_t nsg = (size_t)hd_fw_row_segments(L, tab, L->ncpad, r0, kcb, sg);
            float *bpack = panel + L->bpack_at;
            if (L->b_late)   /* this k block of the task's filter tiles, packed once for all A tiles */
                for (int64_t jr = 0; jr < nm; jr += (int64_t)NR)
                    hd_fw_pack_w_tile(c, g, kb, (m0 + jr) / (int64_t)NR, bpack + jr * kcb);
            for (int64_t ir = 0; ir < nq; ir += (int64_t)MR) {
                size_t mr = (size_t)imin((int64_t)MR, nq - ir);
                if (nsg == 1 && !L->x_copy && sg[0].kc >= 128)
                    /* one long run per position (1x1, 128 or more channels): the rows two tiles ahead */
                    hd_conv_prefetch_rows(sg[0].rows, sg[0].off, ir + 2 * (int64_t)MR, imin(ir + 3 * (int64_t)MR, nq),
                                          sg[0].kc);
                const hd_igemm_seg *use = sg;
                size_t nuse = nsg, row0 = (size_t)ir;
                const float *crow[16];
                hd_igemm_seg cseg = {crow, 0, kcb};
                if (L->x_copy) {
                    hd_fw_copy_tile_rows(sg, nsg, (size_t)ir, mr, MR, abuf, fw_acopy_ld(L), crow);
                    use = &cseg;
                    nuse = 1;
                    row0 = 0;
                }
                hd_igemm_sseg ss[FW_SSEG_MAX];
                /* rows equally spaced (x's positions along a result row, or the full tile of
                   copied rows): the strided entry */
                int strided = c->ik_strided && hd_igemm_strided_segments(use, nuse, row0, MR, ss, FW_SSEG_MAX);
                for (int64_t jr = 0; jr < nm; jr += (int64_t)NR) {
                    const float *bp = L->b_late ? bpack + jr * kcb : wk + ((m0 + jr) / (int64_t)NR) * kcb * (int64_t)NR;
                    size_t nr = (size_t)imin((int64_t)NR, nm - jr);
                    float *cp = c->cbuf ? buf + ir * L->mb + jr : ybase + ir * os[4] + jr;
                    size_t ldc = c->cbuf ? (size_t)L->mb : (size_t)os[4];
                    if (strided)
                        c->ik_strided(mr, nr, nuse, ss, bp, NR, cp, ldc, al, be);
                    else
                        c->ik(mr, nr, nuse, use, row0, bp, NR, cp, ldc, al, be);
                }
            }
            continue;
        }
        const float *xdirect = NULL;
        hd_conv_pf pf = HD_CONV_PF_NONE;
        if (L->pf_next) {
            /* the next k block of these positions, else the first of the task this thread
               probably takes next (after: image, first position, positions, group) */
            int64_t calls = cdiv(nm, (int64_t)MR) * cdiv(nq, (int64_t)NR);
            if (kb + 1 < L->nkb)
                hd_conv_pf_start(&pf, c->x + n * xs[0] + (chb + r0 + L->kc) * xs[1] + q0, xs[1], nq,
                                 imin(L->kc, L->R - r0 - L->kc), calls);
            else if (after)
                hd_conv_pf_start(&pf, c->x + after[0] * xs[0] + after[3] * p->Cg * xs[1] + after[1], xs[1], after[2],
                                 imin(L->kc, L->R), calls);
        }
        if (L->direct_b) {
            xdirect = c->x + n * xs[0] + (chb + r0) * xs[1] + q0;
            if (nq % (int64_t)NR)                  /* the partial last panel is copied */
                hd_fw_gather_b_rows(c, seg, ns, bits, L->bstride, chb, r0, kcb, nq - nfull, panel, (int64_t)NR);
        } else {
            hd_fw_gather_b_rows(c, seg, ns, bits, L->bstride, chb, r0, kcb, nq, panel, L->ncpad);
        }
        /* x read in place (1x1, a whole image per block): the column tiles outside, so that
           each B micro-panel (kcb lines of x) is read from memory once and reused from L1 by
           every channel tile, the filter block staying in the caches.  Channel tiles outside
           (the other order) walk the whole image of x once per channel tile, which does not
           fit L2.  With images of x up to somewhat over L2 the other order cost less.  The
           order never changes a result's rounding (each tile is one kernel call per k
           block).  Measured on AVX2 cores only: the AVX-512 tiles keep the other order. */
        int cols_out = xdirect && L->kern->isa < HD_ISA_AVX512 && !L->a_copy && (L->a_direct || !L->a_late) &&
                       nm * kcb * (int64_t)sizeof(float) <= FW_COLS_OUT_A &&
                       nq * kcb * (int64_t)sizeof(float) >= FW_COLS_OUT_X;
        int64_t ntile_i = cols_out ? 1 : cdiv(nm, (int64_t)MR);
        for (int64_t it = 0; it < ntile_i; it++) {
            int64_t ir0 = it * (int64_t)MR, ir1 = cols_out ? nm : ir0 + (int64_t)MR;
            int64_t jstep = cols_out ? (int64_t)NR : nq;
            for (int64_t jr0 = 0; jr0 < nq; jr0 += jstep) {
                int64_t jr1 = imin(nq, jr0 + jstep);
                if (cols_out && jr0 + 3 * (int64_t)NR <= nfull) {
                    /* x's rows of the column tile after next, and the result lines of the
                       next one (read for ownership before they are written), a prefetch per
                       line: dozens of rows a plane apart are more streams than the hardware
                       prefetcher follows */
                    for (int64_t r = 0; r < kcb; r++)
                        __builtin_prefetch(xdirect + r * xs[1] + jr0 + 2 * (int64_t)NR);
                    if (!c->cbuf)
                        for (int64_t m = 0; m < nm; m++)
                            __builtin_prefetch(ybase + m * os[1] + jr0 + (int64_t)NR, 1);
                }
                for (int64_t ir = ir0; ir < ir1; ir += (int64_t)MR) {
                    const float *ap;
                    const float *arow[16];
                    hd_igemm_seg aseg = {arow, 0, kcb};
                    if (L->a_direct || L->a_copy) {
                        /* the filter rows themselves, contiguous in the reduction order (or a
                           copy of this k block of them, when in place they would share L1
                           sets); rows past the last channel are never stored: they read the
                           zero row (in place) or the first copy */
                        int64_t rows = imin((int64_t)MR, nm - ir);
                        const float *w0 = c->w + (ch0 + ir) * p->wst[0] + r0;
                        for (int64_t i = 0; i < (int64_t)MR; i++)
                            arow[i] = i < rows ? w0 + i * p->wst[0] : zero;
                        if (L->a_copy)
                            hd_fw_copy_tile_rows(&aseg, 1, 0, (size_t)rows, MR, abuf, fw_acopy_ld(L), arow);
                        ap = NULL;
                    } else if (L->a_late) {
                        hd_fw_pack_w_tile(c, g, kb, (m0 + ir) / (int64_t)MR, abuf);
                        ap = abuf;
                    } else {
                        ap = wk + ((m0 + ir) / (int64_t)MR) * kcb * (int64_t)MR;
                    }
                    size_t mr = (size_t)imin((int64_t)MR, nm - ir);
                    for (int64_t jr = jr0; jr < jr1; jr += (int64_t)NR) {
                        size_t nr = (size_t)imin((int64_t)NR, nq - jr);
                        const float *bp = panel + jr;
                        size_t bs = (size_t)L->ncpad;
                        if (xdirect && nr == NR) {
                            bp = xdirect + jr;
                            bs = (size_t)xs[1];
                        } else if (xdirect) {
                            bp = panel;
                            bs = NR;
                        }
                        float *cp = c->cbuf ? buf + ir * L->ncpad + jr : ybase + ir * os[1] + jr;
                        size_t ldc = c->cbuf ? (size_t)L->ncpad : (size_t)os[1];
                        hd_conv_pf_step(&pf);
                        if (L->a_stream)
                            c->ik_stream(mr, nr, 1, &aseg, 0, bp, bs, cp, ldc, al, be);
                        else if (L->a_direct || L->a_copy)
                            c->ik(mr, nr, 1, &aseg, 0, bp, bs, cp, ldc, al, be);
                        else
                            uk(mr, nr, (size_t)kcb, ap, bp, bs, cp, ldc, al, be);
                    }
                }
            }
        }
    }
    if (c->cbuf) {
        if (L->pix)
            hd_fw_store_from_buffer(c, n, ch0, nm, q0, nq, buf, L->mb, 1);
        else
            hd_fw_store_from_buffer(c, n, ch0, nm, q0, nq, buf, L->ncpad, 0);
    }
}

/* One task: a position block x a result-channel block x a run of groups (depthwise and
 * other small groups share one task, and the block's geometry, across many groups). */
void hd_fw_task(void *vctx, size_t task, int thread)
{
    fw_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    const fw_plan *L = &c->L;
    int64_t t = (int64_t)task, per_group = L->cross ? L->npb : p->N * L->npb;
    int64_t mbi = t % L->nmb, pbi = (t / L->nmb) % per_group, gc = t / (L->nmb * per_group);
    int64_t n = 0, q0, nq;
    if (L->cross) {
        q0 = pbi * L->nc;
        nq = imin(L->nc, p->N * L->P - q0);
    } else {
        n = pbi / L->npb;
        q0 = (pbi % L->npb) * L->nc;
        nq = imin(L->nc, L->P - q0);
    }
    /* pf_next: the block of the task this thread most likely takes next (tasks are dealt in
       order, one at a time, to whichever thread is free) */
    int64_t after[4];
    const int64_t *pa = NULL;
    int64_t t2 = t + c->nthreads;
    if (L->pf_next && !L->cross && t2 < c->ntasks) {
        int64_t pb2 = (t2 / L->nmb) % per_group;
        after[0] = pb2 / L->npb;
        after[1] = (pb2 % L->npb) * L->nc;
        after[2] = imin(L->nc, L->P - after[1]);
        after[3] = (t2 / (L->nmb * per_group)) * L->gpt;
        pa = after;
    }
    int64_t m0 = mbi * L->mb, nm = imin(L->mb, L->M - m0);
    float *panel = c->slots + (size_t)thread * (size_t)L->slot;
    fw_seg *seg = (fw_seg *)(panel + L->seg_at);
    uint8_t *bits = (uint8_t *)(panel + L->bits_at);
    int64_t ns = 0, nfull = L->direct_b ? nq / L->NR * L->NR : 0;
    if (!L->pix && !L->t1x1 && nfull < nq)
        ns = hd_fw_block_geometry(c, n, q0 + nfull, nq - nfull, seg, bits, L->bstride);
    for (int64_t g = gc * L->gpt; g < imin(p->G, (gc + 1) * L->gpt); g++)
        fw_block(c, thread, g, n, q0, nq, m0, nm, seg, ns, bits, nfull, g + 1 < imin(p->G, (gc + 1) * L->gpt) ? NULL : pa);
}
