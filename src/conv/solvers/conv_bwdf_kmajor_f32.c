/*
 * Backward filter fp32 on the micro-kernels, the k-major tiles (solver 352; conv_bwdf_f32.h,
 * the method: conv_bwdf_plan_f32.c): dW's rows as the tile rows, dy packed once per wave into
 * A panels, x gathered or read in place as B.
 */
#include "conv/solvers/conv_bwdf_f32.h"

/* ---------------- k-major tiles ---------------- */

/* The B panel of filter columns [m0, m0+nr) (KCRS order: m = c * TRS + memory tap) of group
 * g for the kcur positions of the wave from q0 on, from a position-contiguous x: each column
 * is an im2col row, built in T (nr x kcur) with its zero borders, one run per output row,
 * then transposed into the panel (kcur x NR, zero-padded).  For 1x1, unit-stride, unpadded
 * problems the rows are x's own rows. */
static void km_gather_rows(const bw_ctx *c, int64_t g, int64_t m0, int64_t nr, int64_t q0, int64_t kcur, float *T,
                           float *dst)
{
    const hd_conv_problem *p = c->p;
    const int64_t NR = c->NR, P = p->P, TRS = p->TRS, S = p->flt[2], R = p->flt[1];
    const int64_t OW = p->out[2], OH = p->out[1], IW = p->in[2], qend = q0 + kcur;
    const int64_t *xs = p->xs;
    const float *xg = c->X.base + g * p->Cg * xs[1];
    hd_f32_tile_fn tile = c->isa >= HD_ISA_AVX2 ? hd_f32_transpose_ukernel__avx2 : hd_f32_transpose_ukernel__scalar;
    if (c->L.xdirect) {                                  /* rows of x, image by image */
        for (int64_t q = q0; q < qend;) {
            int64_t img = q / P, pos = q % P, cnt = min64(P - pos, qend - q);
            hd_bw_xrows_transpose(c, xg + img * xs[0] + m0 * xs[1], nr, pos, cnt, dst + (q - q0) * NR, NR);
            q += cnt;
        }
    } else {
        const int64_t stw = p->str[2], sth = p->str[1];
        for (int64_t j = 0; j < nr; j++) {
            int64_t m = m0 + j, ch = m / TRS, tap = m % TRS;
            if (p->flip)
                tap = TRS - 1 - tap;
            int64_t t = tap / (R * S), r = (tap / S) % R, s = tap % S;
            const float *xc = xg + ch * xs[1];
            float *d = T + j * kcur;
            memset(d, 0, (size_t)kcur * sizeof(float));
            int64_t off = s * p->dil[2] - p->pad[2];              /* iw = ow * stw + off */
            int64_t lo = 0, hi = OW;                               /* ow with iw inside */
            while (lo < OW && lo * stw + off < 0)
                lo++;
            while (hi > lo && (hi - 1) * stw + off >= IW)
                hi--;
            int64_t offh = r * p->dil[1] - p->pad[1], h0 = 0, h1 = OH;   /* oh with ih inside */
            while (h0 < OH && h0 * sth + offh < 0)
                h0++;
            while (h1 > h0 && (h1 - 1) * sth + offh >= p->in[1])
                h1--;
            if (hi <= lo || h1 <= h0)
                continue;
            /* pieces of the block: a partial first row, whole rows of one plane, a partial last row */
            for (int64_t q = q0; q < qend;) {
                int64_t img = q / P, pos = q % P, ow = pos % OW, oh = (pos / OW) % OH, od = pos / (OW * OH);
                int64_t nrow = 1, w0 = ow, w1 = min64(OW, ow + qend - q);
                if (ow == 0 && qend - q >= OW)
                    nrow = min64(OH - oh, (qend - q) / OW), w1 = OW;
                int64_t used = ow == 0 && nrow > 1 ? nrow * OW : w1 - w0;
                int64_t id = od * p->str[0] - p->pad[0] + t * p->dil[0];
                int64_t ra = oh > h0 ? oh : h0, rb = oh + nrow < h1 ? oh + nrow : h1;
                int64_t wa = w0 > lo ? w0 : lo, wb = w1 < hi ? w1 : hi;
                if (id >= 0 && id < p->in[0] && ra < rb && wa < wb) {
                    const float *src =
                        xc + img * xs[0] + id * xs[2] + (ra * sth + offh) * xs[3] + (wa * stw + off) * xs[4];
                    float *dr = d + (q - q0) + (ra - oh) * OW + (wa - w0);
                    if (stw == 1 && xs[4] == 1)
                        c->copy(dr, OW, src, sth * xs[3], wb - wa, rb - ra);
                    else
                        for (int64_t h = 0; h < rb - ra; h++)
                            for (int64_t o = 0; o < wb - wa; o++)
                                dr[h * OW + o] = src[h * sth * xs[3] + o * stw * xs[4]];
                }
                q += used;
            }
        }
        if (c->isa >= HD_ISA_AVX512)
            hd_f32_bwdf_ukernel_transpose__avx512(nr, kcur, T, kcur, dst, NR);
        else
            tile(nr, kcur, T, kcur, dst, NR, 1.0f, 0.0f);
    }
    if (nr < NR)
        for (int64_t q = 0; q < kcur; q++)
            memset(dst + q * NR + nr, 0, (size_t)(NR - nr) * sizeof(float));
}

/* dy of the wave into A panels (npos x MR each, zero-padded), all output channels of every
 * group. */
static void km_pack_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const bw_ctx *c = vctx;
    int64_t g = (int64_t)task / c->kpan, ip = (int64_t)task % c->kpan, k0 = ip * c->MR;
    size_t bs;
    float *dst = (float *)c->apack + (g * c->kpan + ip) * c->MR * c->npos;
    hd_bw_panel_b(c, g, k0, min64(c->MR, c->p->Kg - k0), 0, c->npos, dst, &bs, c->MR, 0);
}

/* Rows [k0, k0+nk) x columns [m0, m0+nm) of dW from sums at tp (rows ld apart, chunks plane
 * apart), in dW's memory order already: dW = alpha * (sum of the chunks, in order) + beta * dW. */
static void km_store(const hd_conv_problem *p, const hd_conv_args *a, int64_t nchunk, const float *tp, int64_t ld,
                     int64_t plane, int64_t k0, int64_t nk, int64_t m0, int64_t nm)
{
    const float alpha = (float)a->epi.alpha, beta = (float)a->epi.beta;
    for (int64_t k = 0; k < nk; k++) {
        const float *v = tp + k * ld;
        float *o = (float *)a->out + (k0 + k) * p->wst[0] + m0;
        if (nchunk == 1 && beta == 0) {
            for (int64_t m = 0; m < nm; m++)
                o[m] = alpha * v[m];
            continue;
        }
        for (int64_t m = 0; m < nm; m++) {
            float sum = v[m];
            for (int64_t i = 1; i < nchunk; i++)
                sum += v[i * plane + m];
            o[m] = beta == 0 ? alpha * sum : alpha * sum + beta * o[m];
        }
    }
}

static void km_store_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const bw_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    int64_t k0 = (int64_t)task * ST_K, nk = min64(ST_K, p->K - k0);
    km_store(p, c->a, c->L.nchunk, c->part + k0 * p->CRS, p->CRS, p->K * p->CRS, k0, nk, 0, p->CRS);
}

/* One (chunk, group, tile of output channels, tile of filter columns): for each block of the
 * chunk, its B panels, then every (A panel, B panel) pair.  One block in all: the kernel
 * stores with alpha and beta straight into dW; else the sums build up in the local tile (then
 * stored) or in the chunk's partial sums. */
static void km_task(void *vctx, size_t task, int thread)
{
    const bw_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    const int64_t MR = c->MR, NR = c->NR, M = p->CRS;
    int64_t nmt = cdiv(M, c->cb), t = (int64_t)task;
    int64_t mti = t % nmt, kti = (t / nmt) % c->ncb, g = (t / (nmt * c->ncb)) % p->G;
    int64_t chunk = t / (nmt * c->ncb * p->G);
    int64_t m0 = mti * c->cb, nm = min64(c->cb, M - m0);
    int64_t k0 = kti * c->kt, nk = min64(c->kt, p->Kg - k0);
    if (nm <= 0 || nk <= 0)
        return;
    float *Bt = c->slots + (size_t)thread * c->hd_bw_slot_floats, *T = Bt + c->cb * c->L.kcmax;
    float *C;
    size_t ldc;
    float alpha = 1.0f;
    if (c->L.single) {
        C = (float *)c->a->out + (g * p->Kg + k0) * p->wst[0] + m0, ldc = (size_t)p->wst[0];
        alpha = (float)c->a->epi.alpha;
    } else if (c->L.local) {
        C = T + NR * c->L.kcmax, ldc = (size_t)c->cb;
    } else {
        C = c->part + chunk * p->K * M + (g * p->Kg + k0) * M + m0, ldc = (size_t)M;
    }
    int64_t bpan = cdiv(nm, NR);
    const float *B[512 / 4 + 2];
    size_t bs[512 / 4 + 2];
    hd_f32_gemm_ukernel_fn uk = c->kern->f32;
    int64_t b0 = c->nblk * chunk / c->L.nchunk, b1 = c->nblk * (chunk + 1) / c->L.nchunk;
    for (int64_t b = b0; b < b1; b++) {
        int64_t q0 = b * BW_KC, kcur = min64(BW_KC, c->npos - q0);
        float beta = c->L.single ? (float)c->a->epi.beta : c->wave == 0 && b == b0 ? 0.0f : 1.0f;
        int inplace = c->L.km == KM_RUNS && (c->xlin == 2 || (c->xlin == 1 && q0 / p->P == (q0 + kcur - 1) / p->P));
        for (int64_t jp = 0; jp < bpan; jp++) {
            int64_t mm = m0 + jp * NR, nr = min64(NR, nm - jp * NR);
            float *dst = Bt + jp * NR * kcur;
            bs[jp] = (size_t)NR;
            B[jp] = dst;
            if (inplace && mm + NR <= M) {
                B[jp] = c->X.base + (q0 / p->P) * c->X.sn + (q0 % p->P) * c->X.sw + g * p->Cg + mm;
                bs[jp] = (size_t)c->X.sw;
            } else if (c->L.km == KM_RUNS) {
                hd_bw_gather_a(c, g, 0, p->Cg, mm, nr, q0, kcur, dst, NR);
            } else {
                km_gather_rows(c, g, mm, nr, q0, kcur, T, dst);
            }
        }
        for (int64_t k = k0; k < k0 + nk; k += MR) {
            float *Ck = C + (k - k0) * (int64_t)ldc;
            size_t mr = (size_t)min64(MR, k0 + nk - k);
            if (c->yin) {
                /* the kernel reads MR values of each position's dy row (gemm-ukernels.h): past the
                   last output channel they are the next position's, there but never stored; the
                   wave's last position has no next one, so its block packs a panel that would
                   read past the row */
                const float *A = c->Y.base + q0 * c->Y.sw + g * p->Kg + k;
                size_t as = (size_t)c->Y.sw;
                if (g * p->Kg + k + MR > c->Y.sw && q0 + kcur == c->npos) {
                    size_t pbs;
                    A = hd_bw_panel_b(c, g, k, (int64_t)mr, q0, kcur, T, &pbs, MR, 0);
                    as = (size_t)MR;
                }
                for (int64_t jp = 0; jp < bpan; jp++)
                    c->kern->f32_sa(mr, (size_t)min64(NR, nm - jp * NR), (size_t)kcur, A, as, B[jp], bs[jp],
                                    Ck + jp * NR, ldc, alpha, beta);
                continue;
            }
            const float *A = c->apack + ((g * c->kpan + k / MR) * c->npos + q0) * MR;
            if (c->apk) {
                size_t pbs;
                A = hd_bw_panel_b(c, g, k, (int64_t)mr, q0, kcur, T, &pbs, MR, 0);
            }
            for (int64_t jp = 0; jp < bpan; jp++)
                uk(mr, (size_t)min64(NR, nm - jp * NR), (size_t)kcur, A, B[jp], bs[jp], Ck + jp * NR, ldc, alpha,
                   beta);
        }
    }
    if (c->L.local)
        km_store(p, c->a, 1, C, (int64_t)ldc, 0, g * p->Kg + k0, nk, m0, nm);
}

void hd_bw_km_exec(bw_ctx *c, const hd_conv_problem *p, const hd_conv_args *a, hd_conv_layout W, int nt)
{
    c->tapmem = 1;
    c->kpan = cdiv(p->Kg, c->MR);
    c->apack = (const float *)((char *)a->ws + W.off[0]);
    c->part = (float *)((char *)a->ws + W.off[1]);
    c->hd_bw_slot_floats = hd_bw_km_slot_floats(&c->L, p);
    c->cb = cdiv(cdiv(p->CRS, c->L.nmt), c->NR) * c->NR;              /* filter columns per tile */
    c->kt = cdiv(cdiv(p->Kg, c->L.nkt), c->MR) * c->MR;               /* output channels per tile */
    c->ncb = cdiv(p->Kg, c->kt);
    for (int64_t w = 0; w < c->L.nwave; w++) {
        int64_t img0 = w * c->L.wave, nimg = min64(c->L.wave, p->N - img0);
        c->X = src_user(a->x, p->xs, img0);
        c->Y = src_user(a->y, p->ys, img0);
        c->merge = p->dil[2] * c->X.sw == p->Cg;
        c->ylin = (p->out[1] == 1 || c->Y.sh == p->out[2] * c->Y.sw) &&
                  (p->out[0] == 1 || c->Y.sd == p->out[1] * p->out[2] * c->Y.sw);
        if (c->ylin && (nimg == 1 || c->Y.sn == p->P * c->Y.sw))
            c->ylin = 2;
        /* x read in place as B (1x1, unit stride, no padding): its positions one stride apart */
        c->xlin = p->TRS == 1 && (p->in[1] == 1 || c->X.sh == p->in[2] * c->X.sw) &&
                  (p->in[0] == 1 || c->X.sd == p->in[1] * p->in[2] * c->X.sw) && hd_bw_km_inplace_stride(c->X.sw);
        for (int j = 0; j < 3; j++)
            c->xlin = c->xlin && p->str[j] == 1 && p->pad[j] == 0;
        if (c->xlin && (nimg == 1 || c->X.sn == p->Q * c->X.sw))
            c->xlin = 2;
        c->wave = w;
        c->nimg = nimg;
        c->npos = nimg * p->P;
        c->nblk = cdiv(c->npos, BW_KC);
        /* dy in place as A: a kernel that reads A in place, x's B panels gathered by channel runs
           (the T area is then free for the one packed A panel of the wave's last block), whose
           block of rows stays in L1 while the tile's B panels pass */
        c->yin = c->kern->f32_sa && c->L.km == KM_RUNS && p->ys[1] == 1 && c->ylin == 2 &&
                 min64(c->npos, BW_KC) * c->Y.sw * (int64_t)sizeof(float) <= KM_YIN_BYTES;
        /* one tile of filter columns: each A panel of a block serves one task only, which packs
           it into its T area (free once the B panels are gathered) just before its products,
           from cache, instead of a pass over the wave that writes every panel out first */
        c->apk = !c->yin && p->ys[1] == 1 && cdiv(p->CRS, c->cb) == 1;
        if (!c->yin && !c->apk)
            hd_parallel_deal((size_t)(p->G * c->kpan), nt, km_pack_task, c);
        hd_parallel_deal((size_t)(c->L.nchunk * p->G * c->ncb * cdiv(p->CRS, c->cb)), nt, km_task, c);
    }
    if (!c->L.single && !c->L.local)
        hd_parallel_deal((size_t)cdiv(p->K, ST_K), nt, km_store_task, c);
}
