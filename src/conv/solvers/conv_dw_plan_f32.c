/*
 * Depthwise convolution in fp32 (conv/solvers/conv_dw.h, conv_dw_f32.h): G == C == K, one channel per group,
 * so every channel is an independent 2-d correlation and there is nothing to multiply as a
 * matrix.  The solvers cut the work into tasks and call the micro-kernels of dwconv.h.
 *
 * Forward and backward data are one computation, "result row o = sum over filter rows r and
 * taps s of w'[r][s] * source(o, r, s)", described per axis by dw_axis: the source element of
 * result index o and tap t is b / up with b = o*s - pad + t*d, taken when b >= 0, b % up == 0
 * and b / up is inside the source.  Forward: source x, w' = w, up = 1.  Backward data:
 * source dy, stride 1 over the zero-upsampled dy (up = the convolution stride), w' = the
 * flipped filter, pad' = (R-1)*dil - pad.  Rows of zeros of the upsampled dy are skipped.
 *
 * Three layouts of work:
 *   small planes (NCHW with rows of at most 16 results, AVX-512): a task is (image, 16
 *     channels); one kernel call computes a whole channel plane from the tensor's rows in
 *     place, each tap one permute from a window of source columns (plan_small, small_table).
 *   blocked (the default: NHWC, and NCHW with rows up to 112 wide): a task is (image, block of result
 *     rows, group of 16-channel blocks: all of them from NHWC at batch >= 8, one from NCHW).
 *     It first copies the source rows its results read into a band of zero-bordered blocked
 *     rows (16 channels per pixel; from NHWC one vector per pixel and block, the source read
 *     in order; from NCHW 16x16 transposes), sized to stay in L2, then computes block by
 *     block, row by row, so consecutive result rows find their rows in L1.  The blocked row
 *     kernels have no border tests, masks or misaligned loads.  Results go straight to NHWC,
 *     or through one blocked row transposed back.  Strided backward data splits each result
 *     row into phases (see dw_phase) instead of multiplying the zeros.  (No software
 *     prefetch of the next task's region: it only competes with the band copy.)  From NHWC
 *     with whole 16-channel blocks and wide enough rows there is no band on AVX-512: the
 *     kernels read the tensor's rows in place (plan_inplace, inplace_rows).
 *   plane (NCHW with rows wider than 112, odd layouts, C < 4): a task is (image, channel, block of
 *     result rows); it copies the source rows the block needs into zeroed buffer rows wide
 *     enough that the row kernel vectorises along the output columns without border tests
 *     (strided backward data multiplies the zeros along a row).
 * Backward filter sums x * dy over the images and positions of fixed chunks (a function of
 * the problem only) into partial sums in the workspace, then adds the chunks in chunk order,
 * so its result does not depend on the thread count either.
 *
 * Scratch: HD_SCRATCH_SLOTS slots taken by thread index (at most HD_SCRATCH_SLOTS threads), so the workspace
 * does not depend on the thread count.
 */
#include "conv/solvers/conv_dw_f32.h"

#include "conv/solvers/conv_solvers.h"

/* ---------------- the plan: one function for the workspace size and the execution ---------------- */

static int64_t rows_needed(const dw_plan *P, int64_t rb)
{
    int64_t span = ((rb - 1) * P->V.s + (P->R - 1) * P->V.d) / P->V.up + 1;
    return span < P->V.src ? span : P->V.src;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b, b = t;
    }
    return a;
}

static dw_phase phase_of(const dw_plan *P, int64_t ph)
{
    const dw_axis *A = &P->Hz;
    dw_phase f = {0, 0, A->up / gcd64(A->d, A->up), 0, A->d / gcd64(A->d, A->up), 0};
    f.n = ph < P->OW ? (P->OW - ph + A->up - 1) / A->up : 0;
    for (f.s0 = 0; f.s0 < P->S; f.s0++) {
        int64_t b = ph - A->pad + f.s0 * A->d;
        if (((b % A->up) + A->up) % A->up == 0)
            break;
    }
    if (f.s0 < P->S) {
        f.ns = (P->S - f.s0 + f.step - 1) / f.step;
        int64_t b = ph - A->pad + f.s0 * A->d;   /* source column of j = 0, tap 0 (may be negative) */
        f.pad = -(b >= 0 ? b / A->up : -((-b) / A->up));
    }
    return f;
}

/* Phases and blocked-row geometry; 0 when blocked work cannot take the problem. */
static int blk_geometry(dw_plan *P)
{
    int64_t qhi;
    if (P->dir != DIR_BWDD) {
        P->nph = 1, P->taps = P->S;
        P->ph[0] = (blk_phase){P->OW, 1, 0, P->S, P->Hz.s, P->Hz.d, 0, 0, 0, 1};
        P->qlo = -P->Hz.pad;
        qhi = P->qlo + (P->OW - 1) * P->Hz.s + (P->S - 1) * P->Hz.d + 1;
    } else {
        if (P->Hz.up > DW_MAXPH)
            return 0;
        P->nph = min64(P->Hz.up, P->OW), P->taps = 0;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int64_t k = 0; k < P->nph; k++) {
            dw_phase f = phase_of(P, k);
            int64_t ns = f.s0 < P->S ? f.ns : 0;
            P->ph[k] = (blk_phase){f.n, P->Hz.up, k, ns, 1, f.d, -f.pad, P->taps, f.s0, f.step};
            P->taps += ns;
            if (ns > 0) {
                lo = min64(lo, -f.pad);
                hi = max64(hi, -f.pad + (f.n - 1) + (ns - 1) * f.d + 1);
            }
        }
        if (lo > hi)
            lo = 0, hi = 1;
        P->qlo = lo, qhi = hi;
        for (int64_t k = 0; k < P->nph; k++)
            P->ph[k].b0 -= lo;
    }
    P->Wp = qhi - P->qlo;
    P->Wa = P->Wp;
    for (int64_t k = 0; k < P->nph; k++) {
        const blk_phase *f = &P->ph[k];
        if (f->S > 0)
            P->Wa = max64(P->Wa, f->b0 + (cdiv(f->n, 16) * 16 - 1) * f->cs + (f->S - 1) * f->cd + 1);
    }
    P->qf0 = max64(0, P->qlo);
    P->qf1 = max64(P->qf0, min64(P->Hz.src, qhi));
    return 1;
}

/* Blocked work: channels contiguous (NHWC), or narrow rows with contiguous pixels (NCHW). */
static int use_blk(const hd_conv_problem *p, const dw_plan *P)
{
    if (P->C < 4)
        return 0;
    if (p->xs[1] == 1 && p->ys[1] == 1)
        return 1;
    return p->xs[4] == 1 && p->ys[4] == 1 && P->OW <= BLK_NCHW_MAXW;
}

/* Tasks: (image, block of result rows, group of channel blocks).  Fewer than BLK_SPLITS images:
 * split rows (at least 4 per block), then channels; then more row blocks (or groups) until a
 * task's band of source rows fits BLK_BAND_BYTES.  A function of the problem only: backward
 * filter keeps one partial sum per task and channel block. */
static void plan_blk(dw_plan *P, hd_conv_layout *L, int chan_contig)
{
    int64_t s = cdiv(BLK_SPLITS, P->N), rowb = P->Wa * 16 * (int64_t)sizeof(float);
    int64_t nrb = min64(s, max64(1, P->OH / 4));
    int64_t G = chan_contig ? min64(P->CB, cdiv(s, nrb)) : P->CB;   /* NCHW: one block of 16 planes */
    for (;;) {
        int64_t rb = cdiv(P->OH, nrb), cbg = cdiv(P->CB, G);
        int64_t bytes = cbg * (rows_needed(P, rb) * rowb + (P->dir == DIR_BWDF ? rb * P->OW * 64 : 0));
        if (bytes <= BLK_BAND_BYTES)
            break;
        if (rb > 2)
            nrb++;
        else if (cbg > 1)
            G++;
        else
            break;
    }
    P->rb = cdiv(P->OH, nrb);
    P->nrb = cdiv(P->OH, P->rb);
    P->cbg = cdiv(P->CB, G);
    P->G = cdiv(P->CB, P->cbg);
    P->BR = rows_needed(P, P->rb);
    /* in place, backward data and backward filter never copy rows; the forward keeps its band
     * for the fused bias-activation epilogue, which runs on the band path */
    int copies = !P->inpl || P->dir == DIR_FWD;
    P->band_rows = copies ? P->cbg * P->BR : 0;
    int64_t RS16 = P->R * P->S * 16;
    P->off_dyb = up64((size_t)(P->band_rows * P->Wa * 16) * sizeof(float));
    P->off_scr = P->off_dyb + (P->dir == DIR_BWDF && copies ? up64((size_t)(P->cbg * P->rb * P->OW * 16) * sizeof(float)) : 0);
    P->off_w = P->off_scr + up64((size_t)(P->OW * 16) * sizeof(float));
    P->off_ptr = P->off_w + up64((size_t)(P->cbg * P->R * P->taps * 16) * sizeof(float));
    P->slot_bytes = P->off_ptr + up64((size_t)P->R * 4 * sizeof(void *));
    if (P->dir == DIR_BWDF) {
        P->nch = P->N * P->nrb;
        hd_conv_book(L, 0, P->nch * P->CB, RS16, sizeof(float));
    } else {
        hd_conv_book(L, 0, 0, 0, 1);
    }
}

/* Rows in place with the edge-row kernel (AVX-512; forward, and backward data at stride 1 or
 * 2, whose two phases of a row are each a stride-1 correlation of 1 or 2 taps; at most 3
 * taps along the row, dilation 1): each phase of a result row is cut into equal chunks of a
 * width the kernel takes (16, 14, 8 or 7 results), the first and last of which may leave out
 * one column past each end of the source row.  Why: without it a 14-wide row splits into
 * blocks of 8 and 4 plus border results computed one at a time (chains of one multiply-add),
 * and 7-wide rows and strided backward-data rows would be copied into the band. */
static int plan_erow(dw_plan *P, hd_isa_t isa)
{
    static const int64_t widths[] = {16, 14, 8, 7};
    if (isa < HD_ISA_AVX512 || P->nph > 2 || P->R > 64)
        return 0;
    for (int64_t k = 0; k < P->nph; k++) {
        const blk_phase *f = &P->ph[k];
        int64_t n = f->n, w = 0, base = P->qlo + f->b0;
        if (f->S < 1 || f->cd != 1 || n < 1 || (P->dir == DIR_BWDF && f->S != 3))
            return 0;
        for (int i = 0; i < 4 && !w; i++)
            if (n % widths[i] == 0)
                w = widths[i];
        /* strided backward data: rows of at most two chunks per phase (wider ones run faster
           from the band) */
        if (!w || n / w > (P->nph > 1 ? 2 : EROW_MAX_CHUNKS))
            return 0;
        int64_t last = base + (n - 1) * f->cs + f->S - 1;            /* the last column the phase reads */
        int64_t sl = base < 0 ? -base : 0, sr = last >= P->Hz.src ? last - (P->Hz.src - 1) : 0;
        if (!hd_dw_erow_takes(w, f->S, f->cs, sl, sr))
            return 0;
        P->nek[k] = n / w, P->ekw[k] = w, P->ek_sl[k] = (int)sl, P->ek_sr[k] = (int)sr;
    }
    P->inpl = P->erow = 1;
    return 1;
}

/* Blocked work from NHWC with whole 16-channel blocks and one phase per row (forward,
 * backward data at stride 1 along the rows, backward filter) reads the rows in place: the
 * kernels take the tensors' pixel strides.  The results whose taps reach past a row end (at
 * most 8 at each end) run one by one over their taps inside the row.  That saves the band
 * copy, a large part of the work for layers whose tensors live in L3.  Rows with fewer than
 * 8 interior results (7x7 layers) stay with the band, where one kernel call covers a row. */
static void plan_inplace(dw_plan *P, const hd_conv_problem *p)
{
    /* the source (x, or dy for backward data) and the other tensor (y, dx, or dy for backward filter) */
    const int64_t *ss = P->dir == DIR_BWDD ? p->ys : p->xs, *ds = P->dir == DIR_BWDD ? p->xs : p->ys;
    if (P->C % 16 || ss[1] != 1 || ds[1] != 1)
        return;
    /* AVX2 (8-lane halves of a block, no edge-row kernel): the in-place reads measured slower
     * than the band, one in-order pass through the source, in every direction and layer
     * tried (docs/performance.md, AVX2 depthwise convolutions) */
    if (p->isa < HD_ISA_AVX512)
        return;
    if (plan_erow(P, p->isa))
        return;
    if (P->nph != 1)
        return;
    const blk_phase *f = &P->ph[0];
    int64_t base = P->qlo + f->b0, hi = P->Hz.src - 1 - (f->S - 1) * f->cd - base;
    int64_t ol = base >= 0 ? 0 : cdiv(-base, f->cs), oh = hi < 0 ? 0 : min64(f->n, hi / f->cs + 1);
    /* backward filter: its copies of 14-wide rows cost less than the edge results' calls
     * (in place pays on wide rows, 56x56, and not on 14x14) */
    if (f->S < 1 || oh - ol < (P->dir == DIR_BWDF ? 24 : 8) || ol > 8 || f->n - oh > 8)
        return;
    P->inpl = 1, P->ol = ol, P->oh = oh;
}

/* The tap table of small-plane work along the rows (hd_dw_splane_geom): result column j of
 * every 16-column chunk and tap s read the source column b = j*cs - pad + s*d (over the
 * zero-upsampled source for backward data: taken when b % up == 0, column b / up).  Chunk m
 * reads 16*cs/up columns further than chunk m-1, so the table is the same for every chunk
 * when up divides 16*cs; its columns must fit in a window of 32.  0 when they do not. */
static int small_table(const dw_plan *P, int32_t *idx, uint16_t *tm, int64_t *w0, int64_t *adv)
{
    const dw_axis *A = &P->Hz;
    if ((16 * A->s) % A->up)
        return 0;
    int64_t q[HD_DW_SPLANE_MAXS][16], lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t s = 0; s < P->S; s++)
        for (int64_t j = 0; j < 16; j++) {
            int64_t b = j * A->s - A->pad + s * A->d;
            q[s][j] = INT64_MIN;
            if (((b % A->up) + A->up) % A->up)
                continue;
            q[s][j] = (b - ((b % A->up) + A->up) % A->up) / A->up;   /* floor, b divisible */
            lo = min64(lo, q[s][j]), hi = max64(hi, q[s][j]);
        }
    if (lo > hi || hi - lo >= 32)
        return 0;
    for (int64_t s = 0; s < P->S; s++) {
        tm[s] = 0;
        for (int64_t j = 0; j < 16; j++) {
            idx[s * 16 + j] = q[s][j] == INT64_MIN ? 0 : (int32_t)(q[s][j] - lo);
            if (q[s][j] != INT64_MIN)
                tm[s] |= (uint16_t)(1u << j);
        }
    }
    *w0 = lo, *adv = 16 * A->s / A->up;
    return 1;
}

/* Small planes: NCHW-like rows (source and result columns contiguous) of at most
 * DW_SMALL_MAXW results, on a CPU with the small-plane kernels.  A task then works on whole
 * planes read and written in place: the blocked work would spend most of a 14x14 or 7x7 layer
 * transposing 16x16 tiles into blocked rows and back, and the plane work would copy every row
 * into a buffer and leave most lanes of each vector idle.  (The kernels also take wider rows
 * in chunks; for strided backward data of 28 to 112 columns they measured no faster than the
 * plane and blocked work, so wider rows stay there.) */
static int plan_small(const hd_conv_problem *p, const dw_plan *P)
{
    const int64_t *ss = P->dir == DIR_BWDD ? p->ys : p->xs, *ds = P->dir == DIR_BWDD ? p->xs : p->ys;
    if (ss[4] != 1 || ds[4] != 1 || P->S > HD_DW_SPLANE_MAXS || P->R * P->S > HD_DW_SPLANE_MAXRS)
        return 0;
    if (P->OW > DW_SMALL_MAXW)
        return 0;
    int32_t idx[HD_DW_SPLANE_MAXS * 16];
    uint16_t tm[HD_DW_SPLANE_MAXS];
    int64_t w0, adv;
    return small_table(P, idx, tm, &w0, &adv) && hd_f32_dw_select(p->isa).splane != NULL;
}

/* Small planes as flat vectors: unit stride, result and source planes of one shape with rows
 * back to back, at most 256 values (7x7, 14x14).  Every tap is then a constant offset in the
 * flat plane (hd_dw_fplane_args), so four vectors cover a 7x7 plane where the row kernel runs
 * seven rows of 7 lanes with a permute per tap, and a 14x14 plane takes 13 vectors and no
 * permutes instead of 14 rows. */
static int plan_flat(const hd_conv_problem *p, const dw_plan *P)
{
    const int64_t *ss = P->dir == DIR_BWDD ? p->ys : p->xs, *ds = P->dir == DIR_BWDD ? p->xs : p->ys;
    if (!P->small || P->V.s != 1 || P->Hz.s != 1 || P->V.up != 1 || P->Hz.up != 1)
        return 0;
    if (P->OH != P->V.src || P->OW != P->Hz.src || P->OH * P->OW > HD_DW_FPLANE_MAX)
        return 0;
    return ss[3] == P->OW && ds[3] == P->OW && hd_f32_dw_select(p->isa).fplane != NULL;
}

static dw_plan make_plan(const hd_conv_problem *p, int dir)
{
    dw_plan P;
    memset(&P, 0, sizeof P);
    P.dir = dir;
    P.N = p->N, P.C = p->C, P.R = p->flt[1], P.S = p->flt[2], P.CB = cdiv(p->C, 16);
    if (dir == DIR_BWDD) {
        P.OH = p->in[1], P.OW = p->in[2];
        P.V = (dw_axis){1, (P.R - 1) * p->dil[1] - p->pad[1], p->dil[1], p->str[1], p->out[1]};
        P.Hz = (dw_axis){1, (P.S - 1) * p->dil[2] - p->pad[2], p->dil[2], p->str[2], p->out[2]};
    } else {
        P.OH = p->out[1], P.OW = p->out[2];
        P.V = (dw_axis){p->str[1], p->pad[1], p->dil[1], 1, p->in[1]};
        P.Hz = (dw_axis){p->str[2], p->pad[2], p->dil[2], 1, p->in[2]};
    }
    hd_conv_layout L = {{0}, 0};
    P.small = plan_small(p, &P);
    P.flat = plan_flat(p, &P);
    P.blk = !P.small && use_blk(p, &P) && blk_geometry(&P);
    if (P.small) {
        /* forward: one plane of results for the fused epilogue (rows of whole chunks) */
        P.rb = P.OH, P.nrb = 1;
        P.slot_bytes = dir == DIR_FWD ? up64((size_t)(P.OH * 16 * cdiv(P.OW, 16)) * sizeof(float)) : 64;
        if (dir == DIR_BWDF) {
            P.nch = 1;
            while (P.C * P.nch < 16 && P.nch * 2 <= P.N &&
                   (size_t)(P.nch * 2 * P.C * P.R * P.S * 16) * sizeof(float) <= PART_BYTES)
                P.nch *= 2;
            hd_conv_book(&L, 0, P.nch * P.C, P.R * P.S * 16, sizeof(float));
        } else {
            hd_conv_book(&L, 0, P.C, P.R * P.S, sizeof(float));
        }
    } else if (P.blk) {
        plan_inplace(&P, p);
        plan_blk(&P, &L, p->xs[1] == 1 && p->ys[1] == 1);
    } else {
        P.ptr_bytes = up64((size_t)(P.R + 1) * 3 * sizeof(void *));
        P.BW = (P.Hz.s * cdiv(P.OW, 16) * 16 + (P.S - 1) * P.Hz.d + 32 + 15) / 16 * 16;
        P.rb = P.OH;
        int64_t planes = dir == DIR_BWDF ? P.C : P.N * P.C;
        while (planes * cdiv(P.OH, P.rb) < 16 && P.rb > 1)
            P.rb = cdiv(P.rb, 2);
        while (P.rb > 1 && rows_needed(&P, P.rb) * P.BW > BUF_FLOATS)
            P.rb = cdiv(P.rb, 2);
        P.nrb = cdiv(P.OH, P.rb);
        P.rows_cap = rows_needed(&P, P.rb);
        size_t fl = (size_t)((P.rows_cap + 1) * P.BW) * sizeof(float);
        P.slot_bytes = P.ptr_bytes + up64(fl);
        if (dir == DIR_BWDF) {
            P.nch = 1;
            while (P.C * P.nch < 16 && P.nch * 2 <= P.N &&
                   (size_t)(P.nch * 2 * P.C * P.R * P.S * 16) * sizeof(float) <= PART_BYTES)
                P.nch *= 2;
            hd_conv_book(&L, 0, P.nch * P.C, P.R * P.S * 16, sizeof(float));
        } else {
            hd_conv_book(&L, 0, P.C, P.R * P.S, sizeof(float));
        }
    }
    hd_conv_book(&L, 1, HD_SCRATCH_SLOTS, (int64_t)P.slot_bytes, 1);
    if (L.total != SIZE_MAX)
        L.total += 64;            /* the regions start at the first 64-byte boundary of ws */
    P.L = L;
    return P;
}

/* ---------------- applicability and cost ---------------- */

static int dw_shape(const hd_conv_problem *p, const char **reason)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8 || p->xv != 1 || p->yv != 1 || p->wv != 1) {
        *reason = "the depthwise solvers take FLOAT x, w and y only";
        return 0;
    }
    if (p->nsp != 2) {
        *reason = "the depthwise solvers are 2-d only";
        return 0;
    }
    if (p->G != p->C || p->Cg != 1 || p->Kg != 1) {
        *reason = "not depthwise (one input and one output channel per group)";
        return 0;
    }
    return 1;
}

static int dw_app(const hd_conv_problem *p, int dir, const char **reason)
{
    if (!dw_shape(p, reason))
        return 0;
    size_t ws = make_plan(p, dir).L.total;
    size_t xbytes = (size_t)p->N * (size_t)p->C * (size_t)p->in[1] * (size_t)p->in[2] * sizeof(float);
    size_t cap = xbytes > ((size_t)64 << 20) ? xbytes : ((size_t)64 << 20);
    if (ws == SIZE_MAX || ws > cap) {
        *reason = "its workspace would exceed max(x, 64 MiB)";
        return 0;
    }
    return 1;
}

int hd_conv_dw_app_fwd(const hd_conv_problem *p, const char **r) { return dw_app(p, DIR_FWD, r); }
int hd_conv_dw_app_bwdd(const hd_conv_problem *p, const char **r) { return dw_app(p, DIR_BWDD, r); }
int hd_conv_dw_app_bwdf(const hd_conv_problem *p, const char **r) { return dw_app(p, DIR_BWDF, r); }

size_t hd_conv_dw_ws_fwd(const hd_conv_problem *p) { return make_plan(p, DIR_FWD).L.total; }
size_t hd_conv_dw_ws_bwdd(const hd_conv_problem *p) { return make_plan(p, DIR_BWDD).L.total; }
size_t hd_conv_dw_ws_bwdf(const hd_conv_problem *p) { return make_plan(p, DIR_BWDF).L.total; }

/* One multiply-add per tap with no packing: a tenth of the implicit GEMM's time per
 * multiply-add (far faster than the GEMM solvers on depthwise layers).
 * hd_conv_rank doubles it for this tiny reduction, which still ranks it first. */
double hd_conv_dw_cost(const hd_conv_problem *p)
{
    (void)p;
    return 0.1;
}

/* ---------------- shared execution state ---------------- */

/* Elements from the first to one past the last of an N x C x dims[1] x dims[2] tensor. */
static int64_t tensor_span(const int64_t *dims, const int64_t *st, int64_t N, int64_t C)
{
    return (N - 1) * st[0] + (C - 1) * st[1] + (dims[1] - 1) * st[3] + (dims[2] - 1) * st[4] + 1;
}

/* Small planes: the geometry (hd_dw_splane_geom; src set per plane). */
static void small_geom(dw_ctx *c)
{
    const dw_plan *P = &c->P;
    int64_t w0 = 0, adv = 0;
    memset(c->sidx, 0, sizeof c->sidx);
    memset(c->smask, 0, sizeof c->smask);
    small_table(P, c->sidx, c->smask, &w0, &adv);
    c->sg = (hd_dw_splane_geom){NULL, c->ss[3], P->Hz.src, P->V.s, P->V.pad, P->V.d, P->V.up, P->V.src,
                                (size_t)P->R, (size_t)P->S, (size_t)cdiv(P->OW, 16), w0, adv, c->sidx, c->smask};
    if (!P->flat)
        return;
    /* flat planes: tap (r, s) of result f = o*OW + j reads flat source value
     * f + (qr - o)*OW + (qs - j), the same offset for every result it takes */
    memset(c->fm, 0, sizeof c->fm);
    for (int64_t r = 0; r < P->R; r++)
        for (int64_t s = 0; s < P->S; s++) {
            int64_t t = r * P->S + s;
            c->fd[t] = (int32_t)((r * P->V.d - P->V.pad) * P->OW + (s * P->Hz.d - P->Hz.pad));
            for (int64_t f = 0; f < P->OH * P->OW; f++)
                if (axis_src(&P->V, f / P->OW, r) >= 0 && axis_src(&P->Hz, f % P->OW, s) >= 0)
                    c->fm[HD_DW_FPLANE_VECS * t + f / 16] |= (uint16_t)(1u << (f % 16));
        }
}

void hd_dw_ctx_init(dw_ctx *c, const hd_conv_problem *p, const hd_conv_args *a, int dir)
{
    c->p = p;
    c->a = a;
    c->P = make_plan(p, dir);
    c->k = hd_f32_dw_select(p->isa);
    c->src = dir == DIR_BWDD ? a->y : a->x;
    c->ss = dir == DIR_BWDD ? p->ys : p->xs;
    c->dst = dir == DIR_BWDF ? NULL : a->out;
    c->ds = dir == DIR_FWD ? p->ys : dir == DIR_BWDD ? p->xs : p->ys;
    c->src_end = c->src + tensor_span(dir == DIR_BWDD ? p->out : p->in, c->ss, p->N, p->C);
    /* only backward filter reads dy (forward has no y operand: its a->y is NULL) */
    c->dy_end = a->y ? (const float *)a->y + tensor_span(p->out, p->ys, p->N, p->C) : NULL;
    char *base = (char *)(((uintptr_t)a->ws + 63) & ~(uintptr_t)63);
    c->wpk = (float *)(void *)(base + c->P.L.off[0]);
    c->slots = base + c->P.L.off[1];
    memset(c->slot_ready, 0, sizeof c->slot_ready);
    for (int i = 0; i < HD_SCRATCH_SLOTS; i++)
        c->slot_wg[i] = -1;
    /* Results of a call whose source and result tensors together exceed DW_STREAM_BYTES go
     * around the caches (non-temporal stores of whole lines, beta == 0 and no fused epilogue):
     * they could not stay cached for the next layer anyway, and a streaming store does not
     * read the line it overwrites first.  Below the threshold the tensors may still be in L3 for
     * the next layer, and streaming them out would cost more than it saves.  The AVX-512
     * threshold is the size of a 32 MiB L3: MobileNet-v2's 56x56 144-channel stride-2 layer at
     * batch 16 (36 MB together) ran its backward data and forward faster streamed, its
     * stride-1 neighbour (58 MB) the same either way.  The AVX2 kernels
     * (measured on an AMD machine without AVX-512) gain from streaming from a lower size on. */
    int64_t bytes = (tensor_span(dir == DIR_BWDD ? p->in : p->out, c->ds, p->N, p->C) +
                     tensor_span(dir == DIR_BWDD ? p->out : p->in, c->ss, p->N, p->C)) * (int64_t)sizeof(float);
    int64_t lim = p->isa >= HD_ISA_AVX512 ? DW_STREAM_BYTES : DW_STREAM_BYTES_AVX2;
    c->stream = dir != DIR_BWDF && a->epi.beta == 0 && !a->epi.fused && bytes > lim;
    if (c->P.small)
        small_geom(c);
}

/* Forward: per (image, row block, channel group) of blocked work, or (image, channel, row
 * block) of plane work (IMPLICIT_GEMM, ahead of the generic implicit GEMM). */
const hd_conv_solver hd_solver_fwd_dw = {
    .id = 160, .name = "fwd.depthwise_f32", .dir = HD_CONV_FWD, .algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, .deterministic = 1,
    .applicable = hd_conv_dw_app_fwd, .workspace = hd_conv_dw_ws_fwd, .run = hd_conv_dw_exec_fwd, .cost_factor = 0.1, .cost = hd_conv_dw_cost};

/* Backward data: the correlation of dy (zero-upsampled when strided) with the flipped
 * filter (ALGO_0, ahead of GEMM + col2im). */
const hd_conv_solver hd_solver_bwdd_dw = {
    .id = 260, .name = "bwd_data.depthwise_f32", .dir = HD_CONV_BWD_DATA, .algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, .deterministic = 1,
    .applicable = hd_conv_dw_app_bwdd, .workspace = hd_conv_dw_ws_bwdd, .run = hd_conv_dw_exec_bwdd, .cost_factor = 0.1, .cost = hd_conv_dw_cost};

/* Backward filter: per fixed reduction chunk and channel (group), partial sums added in chunk
 * order (ALGO_0, ahead of im2col + GEMM). */
const hd_conv_solver hd_solver_bwdf_dw = {
    .id = 360, .name = "bwd_filter.depthwise_f32", .dir = HD_CONV_BWD_FILTER, .algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, .deterministic = 1,
    .applicable = hd_conv_dw_app_bwdf, .workspace = hd_conv_dw_ws_bwdf, .run = hd_conv_dw_exec_bwdf, .cost_factor = 0.1, .cost = hd_conv_dw_cost};
