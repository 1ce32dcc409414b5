/*
 * Depthwise convolution in fp32 (kernels/conv/conv_dw.h): G == C == K, one channel per group,
 * so every channel is an independent 2-d correlation and there is nothing to multiply as a
 * matrix.  The solvers cut the work into tasks and call the micro-kernels of dwconv.h.
 *
 * Forward and backward data are one computation, "result row o = sum over filter rows r and
 * taps s of w'[r][s] * source(o, r, s)", described per axis by dw_axis: the source element of
 * result index o and tap t is b / up with b = o*s - pad + t*d, taken when b >= 0, b % up == 0
 * and b / up is inside the source.  Forward: source x, w' = w, up = 1.  Backward data:
 * source dy, stride 1 over the zero-upsampled dy (up = the convolution stride), w' = the
 * flipped filter, pad' = (R-1)*dil - pad.  Rows of zeros of the upsampled dy are skipped;
 * columns of zeros are multiplied (strided backward data does up x the needed work along a
 * row).
 *
 * Two layouts of work:
 *   plane (NCHW-like, or any strides): a task is (image, channel, block of result rows); it
 *     copies the source rows the block needs into zeroed buffer rows wide enough that the
 *     row kernel vectorises along the output columns without border tests;
 *   pixel (channels contiguous in x and y, C > 1): a task is (image, block of result rows);
 *     the pixel kernel vectorises over 16 channels with the filter packed [block][tap][16].
 * Backward filter sums x * dy over the images and positions of fixed chunks (a function of
 * the problem only) into partial sums in the workspace, then adds the chunks in chunk order,
 * so its result does not depend on the thread count either.
 *
 * Scratch: DW_SLOTS slots taken by thread index (at most DW_SLOTS threads), so the workspace
 * does not depend on the thread count.
 */
#include "kernels/conv/conv_dw.h"

#include "core/cpu.h"
#include "core/parallel.h"
#include "kernels/conv/conv_internal.h"
#include "kernels/conv/dwconv.h"

#include <string.h>

#define DW_SLOTS 8
#define BUF_FLOATS (1 << 20)          /* source rows a plane task buffers: at most 4 MiB */
#define PART_BYTES ((size_t)32 << 20) /* backward-filter partial sums */

hd_dw_kernels hd_f32_dw_select(int isa)
{
    hd_dw_kernels k = {hd_f32_dw_row__scalar, hd_f32_dw_wrow__scalar, hd_f32_dw_px__scalar, hd_f32_dw_pxw__scalar,
                       NULL};
    if (isa >= HD_ISA_AVX512) {
        hd_dw_kernels v = {hd_f32_dw_row__avx512, hd_f32_dw_wrow__avx512, hd_f32_dw_px__avx512,
                           hd_f32_dw_pxw__avx512, hd_f32_dw_px2__avx512};
        k = v;
    } else if (isa >= HD_ISA_AVX2) {
        hd_dw_kernels v = {hd_f32_dw_row__avx2, hd_f32_dw_wrow__avx2, hd_f32_dw_px__avx2, hd_f32_dw_pxw__avx2, NULL};
        k = v;
    }
    return k;
}

enum { DIR_FWD, DIR_BWDD, DIR_BWDF };

typedef struct {
    int64_t s, pad, d, up, src;
} dw_axis;

static inline int64_t axis_src(const dw_axis *A, int64_t o, int64_t t)
{
    return hd_dw_src(o, t, A->s, A->pad, A->d, A->up, A->src);
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* ---------------- the plan: one function for the workspace size and the execution ---------------- */

typedef struct {
    int dir, pix;
    dw_axis V, Hz;                /* rows and columns of the source, per result row / column */
    int64_t OH, OW;               /* result rows and columns (dy's for backward filter) */
    int64_t N, C, R, S, CB;       /* CB: channel blocks of 16 (pixel: CB + 1 are booked, for the
                                   * blocks shifted to 64-byte boundaries, see chan_shift) */
    int64_t rb, nrb;              /* result rows per block, blocks per image */
    int64_t rows_cap, BW;         /* plane: source rows a block buffers, buffer row width */
    int64_t nch;                  /* backward filter: reduction chunks */
    size_t ptr_bytes, slot_bytes;
    hd_conv_layout L;
} dw_plan;

static int64_t rows_needed(const dw_plan *P, int64_t rb)
{
    int64_t span = ((rb - 1) * P->V.s + (P->R - 1) * P->V.d) / P->V.up + 1;
    return span < P->V.src ? span : P->V.src;
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
    P.pix = p->C > 1 && p->xs[1] == 1 && p->ys[1] == 1;
    P.ptr_bytes = ((size_t)(P.R + 1) * 3 * sizeof(void *) + 63) & ~(size_t)63;
    hd_conv_layout L = {{0}, 0};
    if (P.pix) {
        P.nrb = P.OH < cdiv(32, P.N) ? P.OH : cdiv(32, P.N);
        P.rb = cdiv(P.OH, P.nrb);
        P.nrb = cdiv(P.OH, P.rb);
        /* forward: one result row of every channel, for the fused bias-activation epilogue */
        size_t fl = dir == DIR_FWD ? (size_t)(P.OW * P.C) * sizeof(float) : 0;
        P.slot_bytes = P.ptr_bytes + ((fl + 63) & ~(size_t)63);
        if (dir == DIR_BWDF) {
            int64_t steps = P.N * P.OH;       /* chunks of at least 4 dy rows, at most 32 */
            P.nch = steps / 4 < 1 ? 1 : steps / 4 > 32 ? 32 : steps / 4;
            while (P.nch > 1 && (size_t)(P.nch * (P.CB + 1) * 16 * P.R * P.S) * sizeof(float) > PART_BYTES)
                P.nch /= 2;
            hd_conv_book(&L, 0, P.nch * (P.CB + 1) * 16, P.R * P.S, sizeof(float));
        } else {
            hd_conv_book(&L, 0, (P.CB + 1) * 16, P.R * P.S, sizeof(float));
        }
    } else {
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
        P.slot_bytes = P.ptr_bytes + ((fl + 63) & ~(size_t)63);
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
    const int64_t *ss;
    float *dst;                   /* y or dx (unused for backward filter) */
    const int64_t *ds;
    float *wpk;                   /* packed filter, or the backward-filter partial sums */
    char *slots;
    int slot_ready[DW_SLOTS];     /* plane: the slot's buffer rows are zeroed (each thread its own) */
    size_t sh;                    /* pixel: channel shift of the packed blocks (chan_shift) */
    int nt;                       /* pixel: non-temporal stores of the result (see exec_data) */
} dw_ctx;

/* Pixel work with the AVX-512 kernels: shift the channel blocks so that they start on 64-byte
 * boundaries of the source (every pixel and row of it then alike), instead of splitting every
 * vector access across two cache lines when the tensor is not 64-byte aligned (malloc'd
 * buffers usually are not).  Sums per channel are the same either way. */
static size_t chan_shift(const dw_plan *P, const float *src, const int64_t *ss)
{
    if (!P->pix || hd_cpu_isa() < HD_ISA_AVX512 || ss[0] % 16 || ss[3] % 16 || ss[4] % 16)
        return 0;
    return (size_t)(((uintptr_t)src / sizeof(float)) % 16);
}

typedef struct {
    const float **rows;
    const float **w;
    size_t *rtap;
    float *buf;                   /* plane: rows_cap buffer rows, then one spare row; pixel
                                   * forward: one result row of all channels */
} dw_slot;

static dw_slot slot_of(dw_ctx *c, int thread)
{
    char *b = c->slots + (size_t)thread * c->P.slot_bytes;
    if (!c->P.pix && !c->slot_ready[thread]) {
        memset(b + c->P.ptr_bytes, 0, (size_t)(c->P.rows_cap * c->P.BW) * sizeof(float));
        c->slot_ready[thread] = 1;
    }
    dw_slot s;
    s.rows = (const float **)(void *)b;
    s.w = (const float **)(void *)(b + (size_t)(c->P.R + 1) * sizeof(void *));
    s.rtap = (size_t *)(void *)(b + (size_t)(c->P.R + 1) * 2 * sizeof(void *));
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

/* ---------------- forward and backward data ---------------- */

/* Strided backward data with channels contiguous: the result columns of one phase
 * (o = ph + up*j) meet the same taps s = s0, s0 + up/g, ... (g = gcd(d, up)), which read source
 * columns j - pad + t*d' with d' = d/g: a stride-1 correlation with fewer taps and no zeros.
 * dw_phase describes phase ph; its taps' weights are packed after those of the earlier phases. */
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

static int use_phases(const dw_plan *P) { return P->pix && P->dir == DIR_BWDD && P->Hz.up > 1; }

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

static void pack_filter(const dw_ctx *c, float *wpk)
{
    const hd_conv_problem *p = c->p;
    const dw_plan *P = &c->P;
    int bwd = P->dir == DIR_BWDD;
    int64_t sh = (int64_t)c->sh, blk = (P->CB + 1) * 16;
    if (P->pix)
        memset(wpk, 0, (size_t)(blk * P->R * P->S) * sizeof *wpk);
    if (use_phases(P)) {
        float *base = wpk;
        for (int64_t ph = 0; ph < P->Hz.up && ph < P->OW; ph++) {
            dw_phase f = phase_of(P, ph);
            for (int64_t ch = 0; ch < P->C; ch++)
                for (int64_t r = 0; r < P->R; r++)
                    for (int64_t t = 0; t < f.ns; t++) {
                        int64_t s = f.s0 + t * f.step;
                        base[(((ch + sh) / 16 * P->R + r) * f.ns + t) * 16 + (ch + sh) % 16] =
                            ((const float *)c->a->w)[hd_conv_w_off(p, ch, 0, 0, P->R - 1 - r, P->S - 1 - s)];
                    }
            base += blk * P->R * f.ns;
        }
        return;
    }
    for (int64_t ch = 0; ch < P->C; ch++)
        for (int64_t r = 0; r < P->R; r++)
            for (int64_t s = 0; s < P->S; s++) {
                float v = ((const float *)c->a->w)[hd_conv_w_off(p, ch, 0, 0, bwd ? P->R - 1 - r : r,
                                                                 bwd ? P->S - 1 - s : s)];
                if (P->pix)
                    wpk[(((ch + sh) / 16 * P->R + r) * P->S + s) * 16 + (ch + sh) % 16] = v;
                else
                    wpk[(ch * P->R + r) * P->S + s] = v;
            }
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

/* One result row of strided backward data, phase by phase (see dw_phase). */
static void phase_rows(const dw_ctx *c, const dw_slot *sl, size_t nr, float *out)
{
    const dw_plan *P = &c->P;
    const hd_conv_epilogue *e = &c->a->epi;
    float beta = (float)e->beta;
    const float *w = c->wpk;
    for (int64_t ph = 0; ph < P->Hz.up && ph < P->OW; ph++) {
        dw_phase f = phase_of(P, ph);
        if (f.ns == 0) {               /* no tap reaches these columns: alpha * 0 + beta * dx */
            for (int64_t j = 0; j < f.n; j++)
                for (int64_t ch = 0; ch < P->C; ch++) {
                    float *d = out + (ph + j * P->Hz.up) * c->ds[4] + ch;
                    *d = beta == 0 ? 0.0f : beta * *d;
                }
            continue;
        }
        hd_dw_px_args pa = {out + ph * c->ds[4], c->ds[4] * P->Hz.up, (size_t)f.n, (size_t)P->C, sl->rows, sl->rtap,
                            nr, c->ss[4], P->Hz.src, w, (size_t)(P->R * f.ns), (size_t)f.ns, 1, f.pad, f.d, 1,
                            (float)e->alpha, beta, c->sh, 0};
        c->k.px(&pa);
        w += (P->CB + 1) * 16 * P->R * f.ns;
    }
}

/* Result row o reads every filter row, at vertical stride 1 (a pair of rows can share loads). */
static int full_unit_row(const dw_plan *P, int64_t o)
{
    return P->V.s == 1 && P->V.up == 1 && P->V.d == 1 && axis_src(&P->V, o, 0) >= 0 &&
           axis_src(&P->V, o, P->R - 1) >= 0;
}

static void pixel_task(void *vctx, size_t task, int thread)
{
    dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    dw_slot sl = slot_of(c, thread);
    int64_t t = (int64_t)task, rbi = t % P->nrb, n = t / P->nrb;
    int64_t o0 = rbi * P->rb, o1 = o0 + P->rb < P->OH ? o0 + P->rb : P->OH;
    const hd_conv_epilogue *e = &c->a->epi;
    for (int64_t o = o0; o < o1;) {
        int pair = c->k.px2 && !e->fused && !use_phases(P) && o + 1 < o1 && full_unit_row(P, o) && full_unit_row(P, o + 1);
        size_t nr = 0;
        for (int64_t r = 0; r < P->R + pair; r++) {
            int64_t q = pair ? axis_src(&P->V, o, 0) + r : axis_src(&P->V, o, r);
            if (q >= 0) {
                sl.rows[nr] = c->src + n * c->ss[0] + q * c->ss[3];
                sl.rtap[nr++] = (size_t)r;
            }
        }
        int64_t off = n * c->ds[0] + o * c->ds[3];
        if (use_phases(P)) {
            phase_rows(c, &sl, nr, c->dst + off);
            o++;
            continue;
        }
        hd_dw_px_args pa = {e->fused ? sl.buf : c->dst + off, e->fused ? P->C : c->ds[4], (size_t)P->OW,
                            (size_t)P->C, sl.rows, sl.rtap, nr - (size_t)pair, c->ss[4], P->Hz.src, c->wpk,
                            (size_t)(P->R * P->S), (size_t)P->S, P->Hz.s, P->Hz.pad, P->Hz.d, P->Hz.up,
                            (float)e->alpha, e->fused ? 0.0f : (float)e->beta, c->sh, c->nt && !e->fused};
        if (pair) {
            c->k.px2(&pa, c->dst + off + c->ds[3]);
            o += 2;
            continue;
        }
        c->k.px(&pa);
        if (e->fused)
            for (int64_t j = 0; j < P->OW; j++)
                for (int64_t ch = 0; ch < P->C; ch++)
                    c->dst[off + j * c->ds[4] + ch] = fuse(e, sl.buf[j * P->C + ch], off + j * c->ds[4] + ch, ch);
        o++;
    }
}

static void exec_data(const hd_conv_problem *p, const hd_conv_args *a, int dir)
{
    dw_ctx c;
    c.p = p;
    c.a = a;
    c.P = make_plan(p, dir);
    c.k = hd_f32_dw_select(hd_cpu_isa());
    c.src = dir == DIR_FWD ? a->x : a->y;
    c.ss = dir == DIR_FWD ? p->xs : p->ys;
    c.dst = a->out;
    c.ds = dir == DIR_FWD ? p->ys : p->xs;
    c.wpk = (float *)(void *)((char *)a->ws + c.P.L.off[0]);
    c.slots = (char *)a->ws + c.P.L.off[1];
    memset(c.slot_ready, 0, sizeof c.slot_ready);
    c.sh = chan_shift(&c.P, c.src, c.ss);
    /* a result of 16 MiB or more, not blended: store it past the caches (AVX-512 only), its
     * write-allocate reads would cost as much again as the stores */
    c.nt = c.sh == chan_shift(&c.P, c.dst, c.ds) && c.P.pix && hd_cpu_isa() >= HD_ISA_AVX512 &&
           a->epi.beta == 0 && (double)c.P.N * (double)c.P.C * (double)c.P.OH * (double)c.P.OW * 4 >= 16.0 * (1 << 20);
    pack_filter(&c, c.wpk);
    int nt = a->nthreads < DW_SLOTS ? a->nthreads : DW_SLOTS;
    if (c.P.pix)
        hd_parallel_for((size_t)(c.P.N * c.P.nrb), nt, pixel_task, &c);
    else
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

/* Pixel: task = chunk of (image, dy row) steps, all channels; partials packed like the filter. */
static void wpixel_task(void *vctx, size_t task, int thread)
{
    dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    const hd_conv_problem *p = c->p;
    dw_slot sl = slot_of(c, thread);
    int64_t chunk = (int64_t)task, RSC = P->R * P->S * (P->CB + 1) * 16, steps = P->N * P->OH;
    float *acc = c->wpk + chunk * RSC;
    memset(acc, 0, (size_t)RSC * sizeof *acc);
    const float *dy = c->a->y;
    for (int64_t st = steps * chunk / P->nch; st < steps * (chunk + 1) / P->nch; st++) {
        int64_t n = st / P->OH, o = st % P->OH;
        size_t nr = 0;
        for (int64_t r = 0; r < P->R; r++) {
            int64_t q = axis_src(&P->V, o, r);
            if (q >= 0) {
                sl.rows[nr] = c->src + n * c->ss[0] + q * c->ss[3];
                sl.rtap[nr++] = (size_t)r;
            }
        }
        hd_dw_pxw_args wa = {acc, dy + n * p->ys[0] + o * p->ys[3], p->ys[4], (size_t)P->OW, (size_t)P->C, sl.rows,
                             sl.rtap, nr, c->ss[4], P->Hz.src, (size_t)(P->R * P->S), (size_t)P->S, P->Hz.s,
                             P->Hz.pad, P->Hz.d, c->sh};
        c->k.pxw(&wa);
    }
}

/* Store the channels of one task of dw: pixel, the 16 channels of packed block `task`, their
 * sums over the chunks added in chunk order (16 lanes at a time); plane, channel `task`, its
 * chunks in chunk order and each chunk's 16 lanes in lane order.  One parallel call after the
 * accumulation, so a busy machine costs one more barrier only. */
static void wstore_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const dw_ctx *c = vctx;
    const dw_plan *P = &c->P;
    int64_t RS = P->R * P->S;
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    float *dw = c->a->out;
    int64_t b = (int64_t)task, len = RS * (P->CB + 1) * 16;
    float sums[16];
    for (int64_t r = 0; r < P->R; r++)
        for (int64_t s = 0; s < P->S; s++) {
            int64_t tap = r * P->S + s;
            if (P->pix) {
                const float *p = c->wpk + (b * RS + tap) * 16;
                for (int i = 0; i < 16; i++)
                    sums[i] = p[i];
                for (int64_t k = 1; k < P->nch; k++)
                    for (int i = 0; i < 16; i++)
                        sums[i] += p[k * len + i];
                for (int i = 0; i < 16; i++) {
                    int64_t ch = b * 16 + i - (int64_t)c->sh;
                    if (ch < 0 || ch >= P->C)
                        continue;
                    float *d = dw + hd_conv_w_off(c->p, ch, 0, 0, r, s);
                    *d = beta == 0 ? alpha * sums[i] : alpha * sums[i] + beta * *d;
                }
            } else {
                float sum = 0.0f;
                for (int64_t k = 0; k < P->nch; k++) {
                    const float *l = c->wpk + ((k * P->C + b) * RS + tap) * 16;
                    for (int i = 0; i < 16; i++)
                        sum += l[i];
                }
                float *d = dw + hd_conv_w_off(c->p, b, 0, 0, r, s);
                *d = beta == 0 ? alpha * sum : alpha * sum + beta * *d;
            }
        }
}

void hd_conv_dw_exec_bwdf(const hd_conv_problem *p, const hd_conv_args *a)
{
    dw_ctx c;
    c.p = p;
    c.a = a;
    c.P = make_plan(p, DIR_BWDF);
    c.k = hd_f32_dw_select(hd_cpu_isa());
    c.src = a->x;
    c.ss = p->xs;
    c.dst = NULL;
    c.ds = p->ys;
    c.wpk = (float *)(void *)((char *)a->ws + c.P.L.off[0]);
    c.slots = (char *)a->ws + c.P.L.off[1];
    memset(c.slot_ready, 0, sizeof c.slot_ready);
    c.sh = chan_shift(&c.P, c.src, c.ss);
    int nt = a->nthreads < DW_SLOTS ? a->nthreads : DW_SLOTS;
    if (c.P.pix)
        hd_parallel_for((size_t)c.P.nch, nt, wpixel_task, &c);
    else
        hd_parallel_for((size_t)(c.P.C * c.P.nch), nt, wplane_task, &c);
    hd_parallel_for((size_t)(c.P.pix ? c.P.CB + 1 : c.P.C), nt, wstore_task, &c);
}
