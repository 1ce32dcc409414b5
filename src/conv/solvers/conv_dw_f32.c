/*
 * Depthwise convolution in fp32 (conv/solvers/conv_dw.h): G == C == K, one channel per group,
 * so every channel is an independent 2-d correlation and there is nothing to multiply as a
 * matrix.  The solvers cut the work into tasks and call the micro-kernels of dwconv-ukernels.h.
 *
 * Forward and backward data are one computation, "result row o = sum over filter rows r and
 * taps s of w'[r][s] * source(o, r, s)", described per axis by dw_axis: the source element of
 * result index o and tap t is b / up with b = o*s - pad + t*d, taken when b >= 0, b % up == 0
 * and b / up is inside the source.  Forward: source x, w' = w, up = 1.  Backward data:
 * source dy, stride 1 over the zero-upsampled dy (up = the convolution stride), w' = the
 * flipped filter, pad' = (R-1)*dil - pad.  Rows of zeros of the upsampled dy are skipped.
 *
 * Two layouts of work:
 *   blocked (the default: NHWC, and NCHW with narrow rows): a task is (image, block of result
 *     rows, group of 16-channel blocks: all of them from NHWC at batch >= 8, one from NCHW).
 *     It first copies the source rows its results read into a band of zero-bordered blocked
 *     rows (16 channels per pixel; from NHWC one vector per pixel and block, the source read
 *     in order; from NCHW 16x16 transposes), sized to stay in L2, then computes block by
 *     block, row by row, so consecutive result rows find their rows in L1.  The blocked row
 *     kernels have no border tests, masks or misaligned loads.  Results go straight to NHWC,
 *     or through one blocked row transposed back.  Strided backward data splits each result
 *     row into phases (see dw_phase) instead of multiplying the zeros.  (No software
 *     prefetch of the next task's region: enabled, it measured 5-25% slower.)  From NHWC with whole
 *     16-channel blocks and wide enough rows there is no band: the kernels read the tensor's
 *     rows in place (plan_inplace, inplace_rows).
 *   plane (NCHW with wide rows, odd layouts, C < 4): a task is (image, channel, block of
 *     result rows); it copies the source rows the block needs into zeroed buffer rows wide
 *     enough that the row kernel vectorises along the output columns without border tests
 *     (strided backward data multiplies the zeros along a row).
 * Backward filter sums x * dy over the images and positions of fixed chunks (a function of
 * the problem only) into partial sums in the workspace, then adds the chunks in chunk order,
 * so its result does not depend on the thread count either.
 *
 * Scratch: DW_SLOTS slots taken by thread index (at most DW_SLOTS threads), so the workspace
 * does not depend on the thread count.
 */
#include "conv/solvers/conv_dw.h"

#include "core/cpu.h"
#include "core/parallel.h"
#include "conv/conv_internal.h"
#include "kernels/dwconv/dwconv-ukernels.h"

#include <immintrin.h>
#include <string.h>

#define DW_SLOTS 8
#define BUF_FLOATS (1 << 20)          /* source rows a plane task buffers: at most 4 MiB */
#define PART_BYTES ((size_t)32 << 20) /* backward-filter partial sums */
#define DW_CHUNK 32                   /* in place: results per row and channel block per kernel call */
#define DW_MAXPH 8                    /* blocked backward data: at most this stride along a row */
#define BLK_BAND_BYTES ((int64_t)512 << 10) /* the band of blocked source rows of one task (L2) */
#define BLK_SPLITS 8                  /* blocked tasks per batch wanted (both threads need work at batch 1) */
#define BLK_NCHW_MAXW 40              /* NCHW: result rows wider than this stay plane work */
#define EROW_MAX_CHUNKS 16            /* in place with the edge-row kernel: rows of at most 16 chunks */
#define DW_STREAM_BYTES ((int64_t)64 << 20) /* source and result beyond this: streaming stores (ctx_init) */

enum { DIR_FWD, DIR_BWDD, DIR_BWDF };

typedef struct {
    int64_t s, pad, d, up, src;
} dw_axis;

static inline int64_t axis_src(const dw_axis *A, int64_t o, int64_t t)
{
    int64_t b = o * A->s - A->pad + t * A->d;
    if (b < 0)
        return -1;
    if (A->up > 1) {
        if (b % A->up)
            return -1;
        b /= A->up;
    }
    return b < A->src ? b : -1;
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static size_t up64(size_t b) { return (b + 63) & ~(size_t)63; }

/* One phase of a blocked result row: result columns ooff + ostep*j (j < n), S taps read at
 * blocked-row pixel b0 + j*cs + t*cd; their weights are packed from tap tap0 on and are the
 * filter columns s0 + t*step (of the flipped filter for backward data). */
typedef struct {
    int64_t n, ostep, ooff, S, cs, cd, b0, tap0, s0, step;
} blk_phase;

/* ---------------- the plan: one function for the workspace size and the execution ---------------- */

typedef struct {
    int dir, blk;
    dw_axis V, Hz;                /* rows and columns of the source, per result row / column */
    int64_t OH, OW;               /* result rows and columns (dy's for backward filter) */
    int64_t N, C, R, S, CB;       /* CB: channel blocks of 16 */
    int64_t rb, nrb;              /* result rows per block, blocks per image */
    int64_t rows_cap, BW;         /* plane: source rows a block buffers, buffer row width */
    int64_t nch;                  /* backward filter: reduction chunks */
    /* blocked */
    int64_t nph, taps;            /* phases of a result row, packed taps per filter row */
    blk_phase ph[DW_MAXPH];
    int64_t qlo, Wp, qf0, qf1;    /* blocked row pixel i holds source column qlo + i (zero outside [qf0, qf1)) */
    int64_t Wa;                   /* pixels of a band row: Wp, or more for the kernels' reads past the row */
    int inpl;                     /* NHWC interior read in place (see plan_inplace) */
    int64_t ol, oh;               /* in place: interior results [ol, oh) */
    int erow;                     /* in place with the edge-row kernel: phase k of a row in */
    int64_t nek[2], ekw[2];       /* nek chunks of ekw results, */
    int ek_sl[2], ek_sr[2];       /* the first leaving out ek_sl columns at the left, the last ek_sr at the right */
    int64_t BR;                   /* source rows of a task's band (per channel block) */
    int64_t band_rows;            /* band rows in a slot: cbg * BR, or 0 when in place needs none */
    int64_t G, cbg;               /* channel groups per image row block, channel blocks per group */
    size_t off_dyb, off_scr, off_w, off_ptr;   /* within a slot */
    size_t ptr_bytes, slot_bytes;
    hd_conv_layout L;
} dw_plan;

static int64_t rows_needed(const dw_plan *P, int64_t rb)
{
    int64_t span = ((rb - 1) * P->V.s + (P->R - 1) * P->V.d) / P->V.up + 1;
    return span < P->V.src ? span : P->V.src;
}

/* Backward data along a row (blocked work): the result columns of one phase (o = ph + up*j)
 * meet the same taps s = s0, s0 + up/g, ... (g = gcd(d, up)) of the flipped filter, which read
 * source columns j - pad + t*d' with d' = d/g: a stride-1 correlation with fewer taps and no
 * zeros.  dw_phase describes phase ph. */
typedef struct {
    int64_t s0, ns, step;         /* first tap, number of taps, tap index step */
    int64_t pad, d;               /* the stride-1 correlation over j */
    int64_t n;                    /* result columns of the phase */
} dw_phase;

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
 * one column past each end of the source row.  Before it, a 14-wide row ran as an 8-result
 * block, a 4-result block and two border results one at a time (chains of one multiply-add),
 * 7-wide rows were copied into the band, and so were the rows of strided backward data. */
static int plan_erow(dw_plan *P)
{
    static const int64_t widths[] = {16, 14, 8, 7};
    if (hd_cpu_isa() < HD_ISA_AVX512 || P->nph > 2 || P->R > 64)
        return 0;
    for (int64_t k = 0; k < P->nph; k++) {
        const blk_phase *f = &P->ph[k];
        int64_t n = f->n, w = 0, base = P->qlo + f->b0;
        if (f->S < 1 || f->cd != 1 || n < 1 || (P->dir == DIR_BWDF && f->S != 3))
            return 0;
        for (int i = 0; i < 4 && !w; i++)
            if (n % widths[i] == 0)
                w = widths[i];
        /* strided backward data: rows of at most two chunks per phase (dw2's 112-wide dx, four
           chunks, measured 17-20% slower in place than with the band on two threads) */
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
 * kernels take the tensors' pixel strides.  The results whose taps reach past a row end (at most 8 at each
 * end) run one by one over their taps inside the row.  That saves the band copy (27% of the
 * profile of MobileNet-v2's dw3 at batch 16, whose tensors live in L3).  Rows with fewer than
 * 8 interior results (7x7 layers) stay with the band, where one kernel call covers a row. */
static void plan_inplace(dw_plan *P, const hd_conv_problem *p)
{
    /* the source (x, or dy for backward data) and the other tensor (y, dx, or dy for backward filter) */
    const int64_t *ss = P->dir == DIR_BWDD ? p->ys : p->xs, *ds = P->dir == DIR_BWDD ? p->xs : p->ys;
    if (P->C % 16 || ss[1] != 1 || ds[1] != 1)
        return;
    if (plan_erow(P))
        return;
    if (P->nph != 1)
        return;
    const blk_phase *f = &P->ph[0];
    int64_t base = P->qlo + f->b0, hi = P->Hz.src - 1 - (f->S - 1) * f->cd - base;
    int64_t ol = base >= 0 ? 0 : cdiv(-base, f->cs), oh = hi < 0 ? 0 : min64(f->n, hi / f->cs + 1);
    /* backward filter: its copies of 14-wide rows cost less than the edge results' calls
     * (measured 5-10% slower in place on MobileNet-v2's 14x14 layers, 25-35% faster on 56x56) */
    if (f->S < 1 || oh - ol < (P->dir == DIR_BWDF ? 24 : 8) || ol > 8 || f->n - oh > 8)
        return;
    P->inpl = 1, P->ol = ol, P->oh = oh;
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
    P.blk = use_blk(p, &P) && blk_geometry(&P);
    if (P.blk) {
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
    hd_conv_book(&L, 1, DW_SLOTS, (int64_t)P.slot_bytes, 1);
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
 * multiply-add (measured 10x to 30x faster than the GEMM solvers on MobileNet-v2 layers).
 * hd_conv_rank doubles it for this tiny reduction, which still ranks it first. */
double hd_conv_dw_cost(const hd_conv_problem *p)
{
    (void)p;
    return 0.1;
}

/* ---------------- shared execution state ---------------- */

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    dw_plan P;
    hd_dw_kernels k;
    const float *src;             /* x, or dy for backward data */
    const float *src_end, *dy_end;/* one past the last element of src and of dy */
    const int64_t *ss;
    float *dst;                   /* y or dx (unused for backward filter) */
    const int64_t *ds;
    float *wpk;                   /* plane: packed filter, or the backward-filter partial sums */
    char *slots;
    int slot_ready[DW_SLOTS];     /* the slot's buffer rows are zeroed (each thread its own) */
    int64_t slot_wg[DW_SLOTS];    /* blocked forward / backward data: the channel group whose
                                     weights the slot holds packed in this call (-1: none) */
    int stream;                   /* blocked forward / backward data: streaming stores (see ctx_init) */
} dw_ctx;

/* Elements from the first to one past the last of an N x C x dims[1] x dims[2] tensor. */
static int64_t tensor_span(const int64_t *dims, const int64_t *st, int64_t N, int64_t C)
{
    return (N - 1) * st[0] + (C - 1) * st[1] + (dims[1] - 1) * st[3] + (dims[2] - 1) * st[4] + 1;
}

static void ctx_init(dw_ctx *c, const hd_conv_problem *p, const hd_conv_args *a, int dir)
{
    c->p = p;
    c->a = a;
    c->P = make_plan(p, dir);
    c->k = hd_f32_dw_select(hd_cpu_isa());
    c->src = dir == DIR_BWDD ? a->y : a->x;
    c->ss = dir == DIR_BWDD ? p->ys : p->xs;
    c->dst = dir == DIR_BWDF ? NULL : a->out;
    c->ds = dir == DIR_FWD ? p->ys : dir == DIR_BWDD ? p->xs : p->ys;
    c->src_end = c->src + tensor_span(dir == DIR_BWDD ? p->out : p->in, c->ss, p->N, p->C);
    c->dy_end = (const float *)a->y + tensor_span(p->out, p->ys, p->N, p->C);
    char *base = (char *)(((uintptr_t)a->ws + 63) & ~(uintptr_t)63);
    c->wpk = (float *)(void *)(base + c->P.L.off[0]);
    c->slots = base + c->P.L.off[1];
    memset(c->slot_ready, 0, sizeof c->slot_ready);
    for (int i = 0; i < DW_SLOTS; i++)
        c->slot_wg[i] = -1;
    /* Results of a call whose source and result tensors together exceed DW_STREAM_BYTES go
     * around the caches (non-temporal stores of whole lines, beta == 0 and no fused epilogue):
     * they could not stay cached for the next layer anyway, and a streaming store does not
     * read the line it overwrites first.  MobileNet-v2's dw2 (96 MB) at batch 16, two threads:
     * forward 2.37 -> 1.96 ms, backward data 4.27 -> 3.60; dw1 and dw3 (51-58 MB), whose
     * tensors this host's L3 keeps, measured 2-15% slower with them. */
    int64_t bytes = (tensor_span(dir == DIR_BWDD ? p->in : p->out, c->ds, p->N, p->C) +
                     tensor_span(dir == DIR_BWDD ? p->out : p->in, c->ss, p->N, p->C)) * (int64_t)sizeof(float);
    c->stream = dir != DIR_BWDF && a->epi.beta == 0 && !a->epi.fused && bytes > DW_STREAM_BYTES;
}

/* The fused bias-activation epilogue (forward only): v is alpha * the sum; off indexes y and z. */
static inline float fuse(const hd_conv_epilogue *e, float v, int64_t off, int64_t ch)
{
    float r = v + ((const float *)e->bias)[ch * e->bias_stride];
    float alpha2 = (float)e->alpha2;
    if (alpha2 != 0)
        r += alpha2 * ((const float *)e->z)[off];
    if (e->relu && !(r > 0))
        r = 0;
    return r;
}

/* ---------------- blocked work ---------------- */

typedef struct {
    float *band;                  /* [channel block][BR][Wa][16]: source rows qa.. of the task */
    float *dyb;                   /* backward filter: [channel block][rb][OW][16], the task's dy rows */
    float *scr, *w;               /* one result row [OW][16]; weights [block][R][taps][16] */
    const float **rows, **rowsf, **wf;
    float **acc;
} blk_slot;

static blk_slot blk_slot_of(dw_ctx *c, int thread)
{
    const dw_plan *P = &c->P;
    char *b = c->slots + (size_t)thread * P->slot_bytes;
    blk_slot s;
    s.band = (float *)(void *)b;
    s.dyb = (float *)(void *)(b + P->off_dyb);
    s.scr = (float *)(void *)(b + P->off_scr);
    s.w = (float *)(void *)(b + P->off_w);
    s.rows = (const float **)(void *)(b + P->off_ptr);
    s.rowsf = s.rows + P->R;
    s.wf = s.rowsf + P->R;
    s.acc = (float **)(void *)(s.wf + P->R);
    if (!c->slot_ready[thread]) {          /* band row borders: zero, never written */
        int64_t l = 16 * (P->qf0 - P->qlo), h = 16 * (P->qf1 - P->qlo), W16 = 16 * P->Wa;
        for (int64_t r = 0; r < P->band_rows; r++) {
            memset(s.band + r * W16, 0, (size_t)l * sizeof(float));
            memset(s.band + r * W16 + h, 0, (size_t)(W16 - h) * sizeof(float));
        }
        c->slot_ready[thread] = 1;
    }
    return s;
}

/* Source rows [*qa, *qb] that result rows [o0, o1) read (*qa > *qb: none). */
static void band_span(const dw_plan *P, int64_t o0, int64_t o1, int64_t *qa, int64_t *qb)
{
    *qa = INT64_MAX, *qb = -1;
    for (int64_t o = o0; o < o1; o++)
        for (int64_t r = 0; r < P->R; r++) {
            int64_t q = axis_src(&P->V, o, r);
            if (q >= 0)
                *qa = min64(*qa, q), *qb = max64(*qb, q);
        }
}

/* Copy source rows [qa, qb] (all nc channels at src) into the band, the source read in order. */
static void fill_band(const dw_ctx *c, const blk_slot *s, const float *src, int64_t qa, int64_t qb, size_t nc)
{
    const dw_plan *P = &c->P;
    if (P->qf1 <= P->qf0)
        return;
    for (int64_t q = qa; q <= qb; q++)
        c->k.gather(s->band + ((q - qa) * P->Wa + P->qf0 - P->qlo) * 16, P->BR * P->Wa * 16,
                    src + q * c->ss[3] + P->qf0 * c->ss[4], (size_t)(P->qf1 - P->qf0), c->ss[1], c->ss[4], nc,
                    c->src_end);
}

/* The weights of channel block cb, [filter row][packed tap][16] (zero past C). */
static void pack_blk(const dw_ctx *c, int64_t cb, float *w)
{
    const hd_conv_problem *p = c->p;
    const dw_plan *P = &c->P;
    const float *wt = c->a->w;
    int bwd = P->dir == DIR_BWDD;
    int64_t c0 = cb * 16, nl = min64(16, P->C - c0);
    for (int64_t r = 0; r < P->R; r++)
        for (int64_t k = 0; k < P->nph; k++) {
            const blk_phase *f = &P->ph[k];
            for (int64_t t = 0; t < f->S; t++) {
                int64_t s = f->s0 + t * f->step;
                int64_t off = hd_conv_w_off(p, c0, 0, 0, bwd ? P->R - 1 - r : r, bwd ? P->S - 1 - s : s);
                float *d = w + (r * P->taps + f->tap0 + t) * 16;
                int64_t l = 0;
                for (; l < nl; l++)
                    d[l] = wt[off + l * p->wst[0]];
                for (; l < 16; l++)
                    d[l] = 0.0f;
            }
        }
}

/* In place: result j of a row reads source columns col + t*cd, t < S; [*t0, *t1) are the taps
 * inside the row (a contiguous range: the columns grow with the tap).  Returns col. */
static int64_t edge_taps(const dw_plan *P, int64_t j, int64_t *t0, int64_t *t1)
{
    const blk_phase *f = &P->ph[0];
    int64_t col = P->qlo + f->b0 + j * f->cs;
    *t0 = 0, *t1 = f->S;
    while (*t0 < *t1 && col + *t0 * f->cd < 0)
        ++*t0;
    while (*t1 > *t0 && col + (*t1 - 1) * f->cd >= P->Hz.src)
        --*t1;
    return col;
}

/* In place: the source rows result row o reads (filter row r of each in wr), column 0 of
 * row i at srow[i]; returns how many. */
static size_t inplace_src_rows(const dw_ctx *c, const float *src, int64_t o, const float **srow, int64_t *wr)
{
    size_t nr = 0;
    for (int64_t r = 0; r < c->P.R; r++) {
        int64_t q = axis_src(&c->P.V, o, r);
        if (q >= 0 && nr < 64) {
            srow[nr] = src + q * c->ss[3];
            wr[nr++] = r;
        }
    }
    return nr;
}

/* In place: results [e0, e1) of one row and channel block, whose first or last taps fall
 * outside the source row: each result alone, over its taps inside the row, which adds the
 * same nonzero terms in the same order as the zero-bordered rows of the band would.  nr
 * rows, column 0 of row i at srow[i]; wf[i] the packed weights of row i from tap 0; ba has
 * the rest (its source pixel stride the tensor's). */
static void edge_results(const dw_ctx *c, const blk_slot *sl, const float *const *srow, const float *const *wf,
                         size_t nr, int64_t e0, int64_t e1, hd_dw_brow_args *ba)
{
    const dw_plan *P = &c->P;
    const blk_phase *f = &P->ph[0];
    float *out = ba->out;
    for (int64_t j = e0; j < e1; j++) {
        int64_t t0, t1, col = edge_taps(P, j, &t0, &t1);
        for (size_t i = 0; i < nr; i++) {
            sl->rowsf[i] = srow[i] + (col + t0 * f->cd) * c->ss[4];
            sl->wf[i] = wf[i] + t0 * 16;
        }
        ba->out = out + j * ba->ops;
        ba->n = 1;
        ba->S = (size_t)(t1 - t0);
        ba->nr = t1 > t0 ? nr : 0;
        c->k.brow(ba);
    }
    ba->out = out;
}

/* In place: result rows [o0, o1) of image n, channel blocks [0, nb) from channel c0 (src is
 * the image's source at channel c0).  Row by row, and within a row DW_CHUNK results at a time
 * over all channel blocks, so the stores and the source reads advance through memory
 * together (channel block by channel block over whole rows measured 10-20% slower); the
 * edge results last, when the interior has brought their pixels into L1.  Software
 * prefetch of the next row measured slower with two threads. */
static void inplace_rows(dw_ctx *c, blk_slot *sl, const float *src, int64_t n, int64_t c0, int64_t nb, int64_t o0,
                         int64_t o1)
{
    const dw_plan *P = &c->P;
    const blk_phase *f = &P->ph[0];
    const hd_conv_epilogue *e = &c->a->epi;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    int64_t RT16 = P->R * P->taps * 16, xps = c->ss[4], yps = c->ds[4];
    for (int64_t o = o0; o < o1; o++) {
        int64_t wr[64];
        const float *rows[64], *srow[64], *wrow[64];
        size_t nr = inplace_src_rows(c, src, o, rows, wr);
        float *orow = c->dst + n * c->ds[0] + c0 + o * c->ds[3];
        for (int64_t j0 = P->ol; j0 < P->oh; j0 += DW_CHUNK) {
            int64_t j1 = min64(j0 + DW_CHUNK, P->oh), first = (P->qlo + f->b0 + j0 * f->cs) * xps;
            for (int64_t b = 0; b < nb; b++) {
                for (size_t i = 0; i < nr; i++) {
                    sl->rowsf[i] = rows[i] + 16 * b + first;
                    sl->wf[i] = sl->w + b * RT16 + wr[i] * P->taps * 16;
                }
                hd_dw_brow_args ba = {orow + 16 * b + j0 * yps, yps, (size_t)(j1 - j0), sl->rowsf, sl->wf, nr,
                                      (size_t)f->S, (size_t)f->cs, (size_t)f->cd, alpha, beta, 0xffffu, xps, 1,
                                      c->stream};
                c->k.brow(&ba);
            }
        }
        for (int64_t b = 0; b < nb; b++) {
            for (size_t i = 0; i < nr; i++) {
                srow[i] = rows[i] + 16 * b;
                wrow[i] = sl->w + b * RT16 + wr[i] * P->taps * 16;
            }
            hd_dw_brow_args ba = {orow + 16 * b, yps, 0, sl->rowsf, sl->wf, nr, 0, (size_t)f->cs, (size_t)f->cd,
                                  alpha, beta, 0xffffu, xps, 1, c->stream};
            edge_results(c, sl, srow, wrow, nr, 0, P->ol, &ba);
            edge_results(c, sl, srow, wrow, nr, P->oh, f->n, &ba);
        }
    }
}

/* In place with the edge-row kernel (plan_erow): result rows [o0, o1) of image n, channel
 * blocks [0, nb) from channel c0, row by row, chunk by chunk, and per chunk phase by phase
 * over all channel blocks, so the stores of the two phases of a strided backward data fill
 * one stretch of dx. */
static void erow_rows(dw_ctx *c, blk_slot *sl, const float *src, int64_t n, int64_t c0, int64_t nb, int64_t o0,
                      int64_t o1)
{
    const dw_plan *P = &c->P;
    const hd_conv_epilogue *e = &c->a->epi;
    float alpha = (float)e->alpha, beta = (float)e->beta;
    int64_t RT16 = P->R * P->taps * 16, xps = c->ss[4], yps = c->ds[4];
    for (int64_t o = o0; o < o1; o++) {
        int64_t wr[64];
        const float *rows[64];
        size_t nr = inplace_src_rows(c, src, o, rows, wr);
        float *orow = c->dst + n * c->ds[0] + c0 + o * c->ds[3];
        int64_t nk = max64(P->nek[0], P->nph > 1 ? P->nek[1] : 0);
        for (int64_t k = 0; k < nk; k++) {
            for (int64_t ph = 0; ph < P->nph; ph++) {
                const blk_phase *f = &P->ph[ph];
                if (k >= P->nek[ph])
                    continue;
                int skl = k == 0 ? P->ek_sl[ph] : 0, skr = k == P->nek[ph] - 1 ? P->ek_sr[ph] : 0;
                int64_t j0 = k * P->ekw[ph], col = P->qlo + f->b0 + j0 * f->cs + skl;   /* first column read */
                for (int64_t b = 0; b < nb; b++) {
                    for (size_t i = 0; i < nr; i++) {
                        sl->rowsf[i] = rows[i] + 16 * b + col * xps;
                        sl->wf[i] = sl->w + b * RT16 + (wr[i] * P->taps + f->tap0) * 16;
                    }
                    hd_dw_erow_args ea = {orow + 16 * b + (f->ooff + j0 * f->ostep) * yps, yps * f->ostep,
                                          (size_t)P->ekw[ph], sl->rowsf, sl->wf, nr, (size_t)f->S, (size_t)f->cs,
                                          skl, skr, alpha, beta, xps, c->stream};
                    c->k.erow(&ea);
                }
            }
        }
    }
}

/* Task (image, result row block, channel group) of forward or backward data: copy the band,
 * then channel block by channel block, result row by row (consecutive rows share band rows,
 * in L1). */
static void blk_rows(void *vctx, size_t task, int thread)
{
    dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    blk_slot sl = blk_slot_of(c, thread);
    int64_t t = (int64_t)task, g = t % P->G, rbi = t / P->G % P->nrb, n = t / (P->G * P->nrb);
    int64_t cb0 = g * P->cbg, nb = min64(P->cbg, P->CB - cb0), c0 = cb0 * 16;
    int64_t o0 = rbi * P->rb, o1 = min64(o0 + P->rb, P->OH), RT16 = P->R * P->taps * 16, qa, qb;
    size_t nc = (size_t)min64(16 * nb, P->C - c0);
    /* The weights depend on the channel group only: a slot keeps the group it packed last,
     * so a thread packs each group once per call, not once per (image, row block) task.  (With
     * one group of 36 blocks, MobileNet-v2's 14x14 and 7x7 layers at batch 16, packing them
     * per task, a strided gather of R*S*C floats, took as long as the convolution.) */
    if (c->slot_wg[thread] != g) {
        for (int64_t b = 0; b < nb; b++)
            pack_blk(c, cb0 + b, sl.w + b * RT16);
        c->slot_wg[thread] = g;
    }
    const float *src = c->src + n * c->ss[0] + c0 * c->ss[1];
    const hd_conv_epilogue *e = &c->a->epi;
    int direct = c->ds[1] == 1 && !e->fused, inpl = P->inpl && direct;
    if (inpl) {
        if (P->erow)
            erow_rows(c, &sl, src, n, c0, nb, o0, o1);
        else
            inplace_rows(c, &sl, src, n, c0, nb, o0, o1);
        return;
    }
    band_span(P, o0, o1, &qa, &qb);
    fill_band(c, &sl, src, qa, qb, nc);
    float alpha = (float)e->alpha, beta = (float)e->beta;
    for (int64_t b = 0; b < nb; b++) {
        size_t nl = (size_t)min64(16, P->C - c0 - 16 * b);
        const float *bb = sl.band + b * P->BR * P->Wa * 16;
        for (int64_t o = o0; o < o1; o++) {
            size_t nr = 0;
            int64_t wr[64];
            for (int64_t r = 0; r < P->R; r++) {
                int64_t q = axis_src(&P->V, o, r);
                if (q >= 0 && nr < 64) {
                    sl.rows[nr] = bb + (q - qa) * P->Wa * 16;
                    wr[nr++] = r;
                }
            }
            int64_t doff = n * c->ds[0] + (c0 + 16 * b) * c->ds[1] + o * c->ds[3];
            float *out = direct ? c->dst + doff : sl.scr;
            int64_t ops = direct ? c->ds[4] : 16;
            for (int64_t ph = 0; ph < P->nph; ph++) {
                const blk_phase *f = &P->ph[ph];
                for (size_t i = 0; i < nr; i++) {
                    sl.rowsf[i] = sl.rows[i] + 16 * f->b0;
                    sl.wf[i] = sl.w + b * RT16 + (wr[i] * P->taps + f->tap0) * 16;
                }
                hd_dw_brow_args ba = {out + f->ooff * ops, ops * f->ostep, (size_t)f->n, sl.rowsf, sl.wf,
                                      f->S ? nr : 0, (size_t)f->S, (size_t)f->cs, (size_t)f->cd,
                                      direct || e->fused ? alpha : 1.0f, direct ? beta : 0.0f,
                                      direct ? (1u << nl) - 1u : 0xffffu, 16, 0, direct && c->stream};
                c->k.brow(&ba);
            }
            if (e->fused) {
                for (int64_t j = 0; j < P->OW; j++)
                    for (size_t l = 0; l < nl; l++) {
                        int64_t off = doff + j * c->ds[4] + (int64_t)l * c->ds[1];
                        c->dst[off] = fuse(e, sl.scr[16 * j + (int64_t)l], off, c0 + 16 * b + (int64_t)l);
                    }
            } else if (!direct) {
                c->k.scatter(c->dst + doff, c->ds[1], c->ds[4], sl.scr, (size_t)P->OW, nl, alpha, beta);
            }
        }
    }
}

/* blk_rows, then a store fence when the task streamed its results (weakly ordered stores
 * must be visible before the pool reports the task done). */
static void blk_task(void *vctx, size_t task, int thread)
{
    blk_rows(vctx, task, thread);
    if (((const dw_ctx *)vctx)->stream)
        _mm_sfence();
}

/* In place, backward filter: the partial sums acc ([channel block][R][S][16]) of dy rows
 * [o0, o1) of one image over channel blocks [0, nb) (src and dy at the image and the first
 * channel).  Per sum the pixels still come row by row in increasing order -- the left edge
 * results, the interior, the right edge -- and an edge result adds only its taps inside the
 * row (the band's zero border adds zeros there), so the sums are the band path's bits.
 * Row by row over all channel blocks, as the forward in place. */
static void inplace_wrows(dw_ctx *c, blk_slot *sl, const float *src, const float *dy, float *acc, int64_t nb,
                          int64_t o0, int64_t o1)
{
    const dw_plan *P = &c->P;
    const blk_phase *f = &P->ph[0];
    int64_t RS16 = P->R * P->S * 16, xps = c->ss[4], dps = c->ds[4], base = P->qlo + f->b0;
    for (int64_t o = o0; o < o1; o++) {
        int64_t wr[64];
        const float *srow[64];
        size_t nr = inplace_src_rows(c, src, o, srow, wr);
        if (!nr)
            continue;
        const float *drow = dy + o * c->ds[3];
        if (P->erow) {             /* whole chunks, their border pixels included */
            for (int64_t k = 0; k < P->nek[0]; k++) {
                int skl = k == 0 ? P->ek_sl[0] : 0, skr = k == P->nek[0] - 1 ? P->ek_sr[0] : 0;
                int64_t j0 = k * P->ekw[0], col = base + j0 * f->cs + skl;
                for (int64_t b = 0; b < nb; b++) {
                    for (size_t i = 0; i < nr; i++) {
                        sl->rows[i] = srow[i] + 16 * b + col * xps;
                        sl->acc[i] = acc + b * RS16 + wr[i] * P->S * 16;
                    }
                    hd_dw_ewrow_args ea = {sl->acc, drow + 16 * b + j0 * dps, (size_t)P->ekw[0], sl->rows, nr,
                                           (size_t)f->cs, skl, skr, xps, dps};
                    c->k.ewrow(&ea);
                }
            }
            continue;
        }
        for (int64_t b = 0; b < nb; b++) {
            float *accb = acc + b * RS16;
            for (int64_t j = 0; j < f->n; j++) {
                int64_t t0 = 0, t1 = f->S, n = 1;
                if (j == P->ol)                   /* the interior in one call */
                    n = P->oh - P->ol;
                else
                    edge_taps(P, j, &t0, &t1);
                if (t1 > t0) {
                    for (size_t i = 0; i < nr; i++) {
                        sl->rows[i] = srow[i] + 16 * b + (base + j * f->cs + t0 * f->cd) * xps;
                        sl->acc[i] = accb + wr[i] * P->S * 16 + t0 * 16;
                    }
                    hd_dw_bwrow_args wa = {sl->acc, drow + 16 * b + j * dps, (size_t)n, sl->rows, nr,
                                           (size_t)(t1 - t0), (size_t)f->cs, (size_t)f->cd, xps, dps};
                    c->k.bwrow(&wa);
                }
                j += n - 1;
            }
        }
    }
}

/* Backward filter, task (image, dy row block, channel group): partial sums of its own, per
 * channel block at part[(chunk*CB + cb)*RS*16] with chunk = image*nrb + row block; each sum
 * runs over the dy rows of the task in order, each row's pixels in order. */
static void blk_wtask(void *vctx, size_t task, int thread)
{
    dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    const hd_conv_problem *p = c->p;
    blk_slot sl = blk_slot_of(c, thread);
    int64_t t = (int64_t)task, g = t % P->G, chunk = t / P->G, rbi = chunk % P->nrb, n = chunk / P->nrb;
    int64_t cb0 = g * P->cbg, nb = min64(P->cbg, P->CB - cb0), c0 = cb0 * 16;
    int64_t o0 = rbi * P->rb, o1 = min64(o0 + P->rb, P->OH), RS16 = P->R * P->S * 16, qa, qb;
    size_t nc = (size_t)min64(16 * nb, P->C - c0);
    float *acc = c->wpk + (chunk * P->CB + cb0) * RS16;
    memset(acc, 0, (size_t)(nb * RS16) * sizeof *acc);
    const float *src = c->src + n * c->ss[0] + c0 * c->ss[1];
    const float *dy = (const float *)c->a->y + n * p->ys[0] + c0 * p->ys[1];
    if (P->inpl) {
        inplace_wrows(c, &sl, src, dy, acc, nb, o0, o1);
        return;
    }
    band_span(P, o0, o1, &qa, &qb);
    fill_band(c, &sl, src, qa, qb, nc);
    for (int64_t o = o0; o < o1; o++)
        c->k.gather(sl.dyb + (o - o0) * P->OW * 16, P->rb * P->OW * 16, dy + o * p->ys[3], (size_t)P->OW, p->ys[1],
                    p->ys[4], nc, c->dy_end);
    for (int64_t b = 0; b < nb; b++) {
        const float *bb = sl.band + b * P->BR * P->Wa * 16;
        for (int64_t o = o0; o < o1; o++) {
            size_t nr = 0;
            for (int64_t r = 0; r < P->R; r++) {
                int64_t q = axis_src(&P->V, o, r);
                if (q >= 0) {
                    sl.rows[nr] = bb + (q - qa) * P->Wa * 16;
                    sl.acc[nr++] = acc + b * RS16 + r * P->S * 16;
                }
            }
            if (!nr)
                continue;
            hd_dw_bwrow_args wa = {sl.acc, sl.dyb + (b * P->rb + o - o0) * P->OW * 16, (size_t)P->OW, sl.rows, nr,
                                   (size_t)P->S, (size_t)P->Hz.s, (size_t)P->Hz.d, 16, 16};
            c->k.bwrow(&wa);
        }
    }
}

/* dw of channel block `task`: the partial sums of its chunks added in chunk order. */
static void blk_wstore(void *vctx, size_t task, int thread)
{
    (void)thread;
    const dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    int64_t cb = (int64_t)task, RS = P->R * P->S, c0 = cb * 16, nl = min64(16, P->C - c0);
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    float *dw = c->a->out;
    for (int64_t tap = 0; tap < RS; tap++) {
        float sums[16];
        const float *q = c->wpk + cb * RS * 16 + tap * 16;
        for (int l = 0; l < 16; l++)
            sums[l] = q[l];
        for (int64_t k = 1; k < P->nch; k++)
            for (int l = 0; l < 16; l++)
                sums[l] += q[k * P->CB * RS * 16 + l];
        for (int64_t l = 0; l < nl; l++) {
            float *d = dw + hd_conv_w_off(c->p, c0 + l, 0, 0, tap / P->S, tap % P->S);
            *d = beta == 0 ? alpha * sums[l] : alpha * sums[l] + beta * *d;
        }
    }
}

/* ---------------- plane work ---------------- */

typedef struct {
    const float **rows;
    const float **w;
    float *buf;                   /* rows_cap buffer rows, then one spare row */
} dw_slot;

static dw_slot slot_of(dw_ctx *c, int thread)
{
    char *b = c->slots + (size_t)thread * c->P.slot_bytes;
    if (!c->slot_ready[thread]) {
        memset(b + c->P.ptr_bytes, 0, (size_t)(c->P.rows_cap * c->P.BW) * sizeof(float));
        c->slot_ready[thread] = 1;
    }
    dw_slot s;
    s.rows = (const float **)(void *)b;
    s.w = (const float **)(void *)(b + (size_t)(c->P.R + 1) * sizeof(void *));
    s.buf = (float *)(void *)(b + c->P.ptr_bytes);
    return s;
}

/* Copy source row SRC (element q at src[q*st]) into a buffer row: element q goes to
 * j = q*up + pad, the index the kernels read for b = q*up.  The other elements of the row
 * are zero: the same j are written for every row, so each slot is zeroed once per call
 * (slot_ready) and only these are rewritten. */
static void fill_row(float *buf, int64_t BW, const float *src, int64_t st, const dw_axis *A)
{
    int64_t q0 = 0, q1 = A->src;
    if (A->pad < 0)
        q0 = cdiv(-A->pad, A->up);
    if (q1 > cdiv(BW - A->pad, A->up))
        q1 = cdiv(BW - A->pad, A->up);
    if (A->up == 1 && st == 1) {
        if (q0 < q1)
            memcpy(buf + q0 + A->pad, src + q0, (size_t)(q1 - q0) * sizeof *buf);
        return;
    }
    for (int64_t q = q0; q < q1; q++)
        buf[q * A->up + A->pad] = src[q * st];
}

/* Source rows [*lo, *hi] that result rows [o0, o1) read; *lo > *hi when none. */
static void row_span(const dw_plan *P, int64_t o0, int64_t o1, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX, *hi = -1;
    for (int64_t o = o0; o < o1; o++)
        for (int64_t r = 0; r < P->R; r++) {
            int64_t q = axis_src(&P->V, o, r);
            if (q >= 0) {
                *lo = q < *lo ? q : *lo;
                *hi = q > *hi ? q : *hi;
            }
        }
}

/* Buffer the source rows of result rows [o0, o1) of the plane at PLANE; returns the first. */
static int64_t buffer_rows(dw_ctx *c, const dw_slot *sl, const float *plane, int64_t o0, int64_t o1)
{
    int64_t lo, hi;
    row_span(&c->P, o0, o1, &lo, &hi);
    for (int64_t q = lo; q <= hi; q++)
        fill_row(sl->buf + (q - lo) * c->P.BW, c->P.BW, plane + q * c->ss[3], c->ss[4], &c->P.Hz);
    return lo;
}


static void pack_filter(const dw_ctx *c, float *wpk)
{
    const hd_conv_problem *p = c->p;
    const dw_plan *P = &c->P;
    int bwd = P->dir == DIR_BWDD;
    for (int64_t ch = 0; ch < P->C; ch++)
        for (int64_t r = 0; r < P->R; r++)
            for (int64_t s = 0; s < P->S; s++)
                wpk[(ch * P->R + r) * P->S + s] = ((const float *)c->a->w)[hd_conv_w_off(
                    p, ch, 0, 0, bwd ? P->R - 1 - r : r, bwd ? P->S - 1 - s : s)];
}

static void plane_task(void *vctx, size_t task, int thread)
{
    dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    dw_slot sl = slot_of(c, thread);
    int64_t t = (int64_t)task, rbi = t % P->nrb, ch = (t / P->nrb) % P->C, n = t / (P->nrb * P->C);
    int64_t o0 = rbi * P->rb, o1 = o0 + P->rb < P->OH ? o0 + P->rb : P->OH;
    int64_t lo = buffer_rows(c, &sl, c->src + n * c->ss[0] + ch * c->ss[1], o0, o1);
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    const float *wc = c->wpk + ch * P->R * P->S;
    float *spare = sl.buf + P->rows_cap * P->BW;
    const hd_conv_epilogue *e = &c->a->epi;
    int direct = c->ds[4] == 1 && !e->fused;
    for (int64_t o = o0; o < o1; o++) {
        size_t nr = 0;
        for (int64_t r = 0; r < P->R; r++) {
            int64_t q = axis_src(&P->V, o, r);
            if (q >= 0) {
                sl.rows[nr] = sl.buf + (q - lo) * P->BW;
                sl.w[nr++] = wc + r * P->S;
            }
        }
        float *orow = c->dst + n * c->ds[0] + ch * c->ds[1] + o * c->ds[3];
        hd_dw_row_args ra = {direct ? orow : spare, (size_t)P->OW, sl.rows, sl.w, nr, (size_t)P->S,
                             (size_t)P->Hz.s, (size_t)P->Hz.d, direct || e->fused ? alpha : 1.0f,
                             direct ? beta : 0.0f};
        c->k.row(&ra);
        if (e->fused) {
            int64_t off = n * c->ds[0] + ch * c->ds[1] + o * c->ds[3];
            for (int64_t j = 0; j < P->OW; j++)
                orow[j * c->ds[4]] = fuse(e, spare[j], off + j * c->ds[4], ch);
        } else if (!direct) {
            for (int64_t j = 0; j < P->OW; j++) {
                float *d = orow + j * c->ds[4];
                *d = beta == 0 ? alpha * spare[j] : alpha * spare[j] + beta * *d;
            }
        }
    }
}


static void exec_data(const hd_conv_problem *p, const hd_conv_args *a, int dir)
{
    dw_ctx c;
    ctx_init(&c, p, a, dir);
    int nt = a->nthreads < DW_SLOTS ? a->nthreads : DW_SLOTS;
    if (c.P.blk) {
        hd_parallel_for((size_t)(c.P.N * c.P.nrb * c.P.G), nt, blk_task, &c);
        return;
    }
    pack_filter(&c, c.wpk);
    hd_parallel_for((size_t)(c.P.N * c.P.C * c.P.nrb), nt, plane_task, &c);
}

void hd_conv_dw_exec_fwd(const hd_conv_problem *p, const hd_conv_args *a) { exec_data(p, a, DIR_FWD); }
void hd_conv_dw_exec_bwdd(const hd_conv_problem *p, const hd_conv_args *a) { exec_data(p, a, DIR_BWDD); }

/* ---------------- backward filter ---------------- */

/* Plane: task (channel, chunk of images); lanes of 16 partial sums per tap. */
static void wplane_task(void *vctx, size_t task, int thread)
{
    dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    const hd_conv_problem *p = c->p;
    dw_slot sl = slot_of(c, thread);
    int64_t t = (int64_t)task, chunk = t % P->nch, ch = t / P->nch;
    int64_t RS16 = P->R * P->S * 16;
    float *acc = c->wpk + (chunk * P->C + ch) * RS16;
    memset(acc, 0, (size_t)RS16 * sizeof *acc);
    float *spare = sl.buf + P->rows_cap * P->BW;
    const float *dy = c->a->y;
    float **accr = (float **)(void *)sl.w;    /* the weight-pointer array holds accumulator rows here */
    for (int64_t n = P->N * chunk / P->nch; n < P->N * (chunk + 1) / P->nch; n++)
        for (int64_t o0 = 0; o0 < P->OH; o0 += P->rb) {
            int64_t o1 = o0 + P->rb < P->OH ? o0 + P->rb : P->OH;
            int64_t lo = buffer_rows(c, &sl, c->src + n * c->ss[0] + ch * c->ss[1], o0, o1);
            for (int64_t o = o0; o < o1; o++) {
                size_t nr = 0;
                for (int64_t r = 0; r < P->R; r++) {
                    int64_t q = axis_src(&P->V, o, r);
                    if (q >= 0) {
                        sl.rows[nr] = sl.buf + (q - lo) * P->BW;
                        accr[nr++] = acc + r * P->S * 16;
                    }
                }
                const float *drow = dy + n * p->ys[0] + ch * p->ys[1] + o * p->ys[3];
                if (p->ys[4] != 1) {
                    for (int64_t j = 0; j < P->OW; j++)
                        spare[j] = drow[j * p->ys[4]];
                    drow = spare;
                }
                hd_dw_wrow_args wa = {accr, drow, (size_t)P->OW, sl.rows, nr, (size_t)P->S, (size_t)P->Hz.s,
                                      (size_t)P->Hz.d};
                c->k.wrow(&wa);
            }
        }
}


/* Plane: dw of channel `task`, its chunks in chunk order and each chunk's 16 lanes in lane
 * order. */
static void wstore_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    int64_t RS = P->R * P->S, b = (int64_t)task;
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    float *dw = c->a->out;
    for (int64_t r = 0; r < P->R; r++)
        for (int64_t s = 0; s < P->S; s++) {
            float sum = 0.0f;
            for (int64_t k = 0; k < P->nch; k++) {
                const float *l = c->wpk + ((k * P->C + b) * RS + r * P->S + s) * 16;
                for (int i = 0; i < 16; i++)
                    sum += l[i];
            }
            float *d = dw + hd_conv_w_off(c->p, b, 0, 0, r, s);
            *d = beta == 0 ? alpha * sum : alpha * sum + beta * *d;
        }
}

/* Two parallel calls: the partial sums, then dw (a busy machine costs one more barrier only). */
void hd_conv_dw_exec_bwdf(const hd_conv_problem *p, const hd_conv_args *a)
{
    dw_ctx c;
    ctx_init(&c, p, a, DIR_BWDF);
    int nt = a->nthreads < DW_SLOTS ? a->nthreads : DW_SLOTS;
    if (c.P.blk) {
        hd_parallel_for((size_t)(c.P.N * c.P.nrb * c.P.G), nt, blk_wtask, &c);
        hd_parallel_for((size_t)c.P.CB, nt, blk_wstore, &c);
        return;
    }
    hd_parallel_for((size_t)(c.P.C * c.P.nch), nt, wplane_task, &c);
    hd_parallel_for((size_t)c.P.C, nt, wstore_task, &c);
}
