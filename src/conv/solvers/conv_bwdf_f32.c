/*
 * Backward filter in fp32 on the GEMM micro-kernels (conv/solvers/conv_bwdf.h): solver 351 (the
 * row tiles, described first) and 352 (the k-major tiles, section "k-major tiles" below: dW's
 * rows are the tile rows, dy is packed once per wave into A panels, x gathered or read in place
 * as B; with one block of positions in all, the kernel writes dW itself).
 *
 * For one group, with the filter columns ordered (tap, channel) -- r = tap * Cg + c --
 *
 *     dWt[r][k] = sum over positions q of col[r][q] * dy[k][q]
 *
 * is a GEMM whose reduction runs over every output position of every image.  The micro-kernel
 * (gemm-ukernels.h) computes an MR x NR tile of dWt from an A panel (kc positions x MR filter
 * columns) and a B panel (kc positions x NR output channels): both operands are read position
 * by position with their channels side by side.
 *   - A panels are gathered from x: for a position, the MR filter columns of a panel are runs
 *     of consecutive channels of one tap, or of consecutive taps along w when a pixel's
 *     channels are exactly one dilation step apart (C = 3, 7x7: one run per filter row).  An
 *     x whose channels are not contiguous (NCHW) is first transposed, a cache-sized wave of
 *     images at a time, into a channel-contiguous copy (each element once).
 *   - B panels are dy itself, read in place with the position stride as b_stride when its
 *     channels are contiguous, else packed: transposed from NCHW straight into the panel, or
 *     copied where an image boundary or the tail of the channels gets in the way.
 * Result tiles -- all taps of a block of channels (rows) x up to 256 output channels -- stay in
 * cache while the reduction walks through blocks of BW_KC positions (beta = 1 after the first
 * block), and the task that completes a tile writes it to dW while it is still hot.
 *
 * Determinism (both solvers): the positions of each wave are cut into BW_KC blocks and the
 * blocks into a number of chunks that depends on the problem only; a task owns one (chunk,
 * group, tile) and accumulates its blocks in order into the chunk's own partial sums, wave after wave; the
 * final store adds the chunks in chunk order and applies alpha and beta.  Neither the thread
 * count nor the kernel's tile shape changes any sum, and AVX2 and AVX-512 kernels (one fused
 * multiply-add per position, in order) give the same bits.
 */
#include "conv/solvers/conv_bwdf.h"

#include "core/parallel.h"
#include "conv/conv_internal.h"
#include "kernels/gemm/gemm-ukernels.h"
#include "kernels/transpose/transpose-ukernels.h"

#include <string.h>

#define BW_SLOTS 8                        /* scratch areas; at most this many threads */
#define BW_KC 512                         /* positions per reduction block: sets the summation order (512 measured
                                             5-10% faster than 256 on ResNet layers) */
#define BW_ROWS 640                       /* filter columns per row tile (whole channels: TRS * CB), about */
#define BW_COLS 256                       /* output channels per tile, at most (before rounding to NR) */
#define BW_MR_MAX 14                      /* the largest micro-kernel tile in the table */
#define BW_NR_MAX 32
#define BW_WAVE_BYTES ((int64_t)4 << 20)  /* channel-contiguous copies of one wave of images: cache-sized */
#define BW_PART_BYTES ((int64_t)16 << 20) /* partial sums of the extra chunks, at most */
#define BW_MIN_TASKS 8
#define BW_SHORT 8                        /* blocks of a short reduction (plan_bw) */
#define BW_SPLIT_ROWS 112                 /* rows of a half row tile, at least (8 A panels of 14) */
#define BW_INPLACE_MAX 256                /* dy read in place as B when its positions are at most this many floats
                                             apart (wider strides: packing measured faster, K = 512) */
#define KM_INPLACE_MAX 4096               /* x read in place as the k-major B up to this position stride (1x1 NHWC
                                             with C = 512..2048: as fast as packing or faster), except strides of
                                             whole 4 KiB (km_inplace_stride) */
#define BW_MAX_WS ((size_t)64 << 20)
#define BW_AIN_PANELS 4                   /* row tiles read x's channel runs in place as A up to this many B panels */

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* ---------------- the plan: a function of the problem only ---------------- */

typedef struct {
    int tx;                       /* x gets a channel-contiguous copy, a wave of images at a time */
    int xdirect;                  /* 1x1, stride 1, no padding, NCHW-like x: A panels are transposed from x */
    int ty;                       /* dy's channels are not contiguous: B panels are transposed from it */
    int64_t R;                    /* filter columns per group: Cg * TRS */
    int64_t wave, nwave;          /* images per wave, waves */
    int64_t nchunk;               /* reduction chunks */
    int64_t CB, nrb, rows;        /* row tiles: blocks of CB channels, all taps of each (rows = TRS * CB) */
    int64_t ncols, ncb;           /* column tiles: about ncols output channels (before rounding to NR) */
    int local;                    /* one wave and one chunk: a task's tile lives in its scratch area */
    int km;                       /* k-major tiles (KM_RUNS, KM_ROWS; 0: the tiles above) */
    int single;                   /* k-major: one wave, one block: the micro-kernel writes dW itself */
    int64_t npos;                 /* k-major: positions of a (full) wave */
    int64_t kcmax;                /* k-major: positions of one block, at most */
    int64_t nkt, nmt;             /* k-major: tiles of output channels x filter columns per group */
} bw_plan;

enum { KM_RUNS = 1, KM_ROWS = 2 };

/* The k-major tiles can take problems whose filter columns, in dW's memory order, are cheap
 * to gather from x: runs of channels of one tap (KRSC, or 1x1) from a channel-contiguous x,
 * or im2col rows of one channel and tap (KCRS, or 1x1) from any other x. */
static int km_mode(const hd_conv_problem *p)
{
    int xchan = p->xs[1] == 1 || p->C == 1;
    int krsc = p->wst[1] == 1 || p->TRS == 1, kcrs = (p->wst[4] == 1 && p->wst[1] == p->TRS) || p->TRS == 1;
    return xchan && krsc ? KM_RUNS : !xchan && kcrs ? KM_ROWS : 0;
}

/* Floats moved per output position besides the micro-kernel's own reads, for the row tiles
 * (x gathered into A panels once per column tile, NCHW x copied, NCHW dy transposed once per
 * row tile) and for the k-major tiles (dy packed once, x gathered once per tile of output
 * channels unless read in place, im2col rows of an NCHW x written then transposed, strided
 * ones element by element).  Measured on ResNet-50 layers (1 thread): the side that moves
 * less was the faster one, within the noise where the two are close. */
static double row_moves(const hd_conv_problem *p, int tx, int ty, int64_t nrb, int64_t ncb)
{
    return (double)(p->G * ncb) * (double)p->CRS + (tx ? (double)p->C * (double)p->Q / (double)p->P : 0.0) +
           (ty ? (double)nrb * (double)p->K : 0.0);
}

/* Whether x's positions SW floats apart may be read in place as the k-major B panel.  A stride
 * of a multiple of 4 KiB (NHWC x with C = 1024) puts every row of the panel in the same few
 * cache sets: on a 2 MiB 16-way L2 (Intel) the 512-row panel no longer stays in L2 between
 * the tiles that reuse it, and res4_reduce NHWC ran at half the speed of packing it. */
static int km_inplace_stride(int64_t sw) { return sw <= KM_INPLACE_MAX && sw % 1024 != 0; }

static double km_moves(const hd_conv_problem *p, int mode, int xdirect, int64_t nkt)
{
    int inplace = mode == KM_RUNS && p->TRS == 1 && p->xs[1] == 1 && km_inplace_stride(p->xs[4]);
    for (int j = 0; j < 3; j++)
        inplace = inplace && p->str[j] == 1 && p->pad[j] == 0;
    /* strided im2col rows go element by element (AVX-512 gathers measured slower still); for
       1x1 layers the row tiles' copy of x is then the cheaper way (res4a_proj NCHW) */
    double w = inplace ? 0.0 : mode == KM_RUNS || xdirect ? 1.0 : p->str[2] == 1 ? 1.5 : p->TRS > 1 ? 3.0 : 8.0;
    /* an NCHW dy is transposed into the A panels: counted twice (expand layers NCHW, batch 16:
       the row tiles measured 10-28% faster where the plain count called a tie) */
    double pack = p->ys[1] != 1 && p->K > 1 ? 2.0 : 1.0;
    return pack * (double)p->K + (double)(p->G * nkt) * w * (double)p->CRS;
}

static bw_plan plan_bw(const hd_conv_problem *p, int kmajor)
{
    bw_plan L;
    L.tx = p->xs[1] != 1 && p->C > 1;
    L.xdirect = 0;
    if (L.tx && p->TRS == 1 && p->xs[4] == 1 && (p->in[1] == 1 || p->xs[3] == p->in[2]) &&
        (p->in[0] == 1 || p->xs[2] == p->in[1] * p->in[2])) {
        L.xdirect = 1;
        for (int j = 0; j < 3; j++)
            if (p->str[j] != 1 || p->pad[j] != 0)
                L.xdirect = 0;
        L.tx = !L.xdirect;
    }
    L.ty = p->ys[1] != 1 && p->K > 1;
    L.R = p->CRS;
    int64_t per_img = L.tx ? p->C * p->Q : 0;
    L.wave = p->N;
    if (per_img > 0) {
        L.wave = BW_WAVE_BYTES / 4 / per_img;
        L.wave = L.wave < 1 ? 1 : L.wave > p->N ? p->N : L.wave;
    }
    L.nwave = cdiv(p->N, L.wave);
    L.wave = cdiv(p->N, L.nwave);             /* balanced waves */
    L.nrb = cdiv(p->Cg, BW_ROWS / p->TRS > 1 ? BW_ROWS / p->TRS : 1);
    L.CB = cdiv(p->Cg, L.nrb);
    L.rows = p->TRS * L.CB;
    L.ncb = cdiv(p->Kg, BW_COLS);
    L.ncols = cdiv(p->Kg, L.ncb);
    int64_t last = p->N - (L.nwave - 1) * L.wave;   /* images of the smallest (last) wave */
    int64_t blocks = cdiv(last * p->P, BW_KC);
    int64_t tiles = p->G * L.nrb * L.ncb;
    int64_t part = p->K * L.R * 4;
    L.nchunk = 1;
    while (tiles * L.nchunk < BW_MIN_TASKS && L.nchunk * 2 <= blocks && part * L.nchunk * 2 <= BW_PART_BYTES)
        L.nchunk *= 2;
    L.local = L.nwave == 1 && L.nchunk == 1;
    L.km = kmajor ? km_mode(p) : 0;
    /* one block in all: k-major (the kernel then writes dW itself); else the side moving less */
    if (L.km && p->N * p->P > BW_KC &&
        !(km_moves(p, L.km, L.km == KM_ROWS && L.xdirect, cdiv(p->Kg, 512)) < row_moves(p, L.tx, L.ty, L.nrb, L.ncb)))
        L.km = 0;
    /* A short reduction in one wave (at most BW_SHORT blocks: batch-1 56x56 and 28x28 layers)
       with one or two tiles: row tiles halved (to 4 tiles where that adds no A panels, else 2),
       without chunks -- no partial sums, no separate store pass, each tile stored while hot.
       Four dealt tasks rather than two: a thread slowed by another process on its core then
       leaves its next task to the other.  Measured (2 threads, batch 1): res2_3x3 NHWC 0.70 ->
       0.63-0.67 ms, res3_3x3 NCHW 0.73 -> 0.67 ms, the others the same within the noise.  The
       sums do not change with the row tiles, only with the chunks, and neither depends on the
       thread count.  (Four or more tiles -- batch-16 14x14 layers -- keep their chunks.)  An
       NCHW dy is transposed into the B panels once per row tile: there the row tiles are not
       split (res2_3x3 NCHW measured 2-11% slower split in two). */
    if (!L.km && L.nwave == 1 && L.nchunk > 1 && blocks <= BW_SHORT && tiles <= 2) {
        int64_t nrb = L.nrb;
        while (!L.ty && tiles * (nrb * 2 / L.nrb) <= 4 && p->TRS * cdiv(p->Cg, nrb * 2) >= BW_SPLIT_ROWS &&
               (tiles * (nrb / L.nrb) < 2 ||
                nrb * 2 * cdiv(p->TRS * cdiv(p->Cg, nrb * 2), BW_MR_MAX) <= nrb * cdiv(p->TRS * cdiv(p->Cg, nrb), BW_MR_MAX)))
            nrb *= 2;
        tiles = tiles * (nrb / L.nrb);
        if (tiles == 2 || tiles == 4) {
            L.nrb = nrb;
            L.CB = cdiv(p->Cg, nrb);
            L.rows = p->TRS * L.CB;
            L.nchunk = 1;
            L.local = 1;
        }
    }
    L.npos = p->N * p->P;
    L.nkt = L.nmt = 1;
    if (L.km) {
        L.tx = 0;
        L.xdirect = L.km == KM_ROWS && L.xdirect;
        /* waves: dy of a wave packed into A panels, about BW_WAVE_BYTES */
        int64_t per_img = p->G * (p->Kg + BW_MR_MAX - 1) * p->P * 4;
        L.wave = BW_WAVE_BYTES / per_img;
        L.wave = L.wave < 1 ? 1 : L.wave > p->N ? p->N : L.wave;
        L.nwave = cdiv(p->N, L.wave);
        L.wave = cdiv(p->N, L.nwave);
        L.npos = L.wave * p->P;
        L.kcmax = min64(L.npos, BW_KC);
        L.single = L.nwave == 1 && L.npos <= BW_KC;
        L.nkt = cdiv(p->Kg, 512);    /* the packed dy is shared: only B is gathered per task */
        L.nchunk = 1;
        if (L.single) {
            /* up to 512 filter columns, cut finer until there are 16 tasks */
            L.nmt = cdiv(p->CRS, 512);
            while (p->G * L.nkt * L.nmt < 2 * BW_MIN_TASKS && p->CRS / (L.nmt * 2) >= 64)
                L.nmt *= 2;
            while (p->G * L.nkt * L.nmt < 2 * BW_MIN_TASKS && p->Kg / (L.nkt * 2) >= 28)
                L.nkt *= 2;
        } else {
            /* B panels of one tile (kc x 256 columns, 512 KiB) stay in L2 across the tile's A panels */
            L.nmt = cdiv(p->CRS, 256);
            int64_t lastw = p->N - (L.nwave - 1) * L.wave;
            int64_t blocks = cdiv(lastw * p->P, BW_KC), tiles = p->G * L.nkt * L.nmt;
            while (tiles * L.nchunk < BW_MIN_TASKS && L.nchunk * 2 <= blocks && part * L.nchunk * 2 <= BW_PART_BYTES)
                L.nchunk *= 2;
        }
        L.local = !L.single && L.nwave == 1 && L.nchunk == 1;
    }
    return L;
}

/* Partial sums (nchunk x G x R x Kg; none when local), the channel-contiguous copy of x for
 * one wave, then BW_SLOTS scratch areas (A panels of one tile, its B panels, its sums when
 * local). */
static size_t slot_floats(const bw_plan *L)
{
    int64_t cols = L->ncols + BW_NR_MAX - 1;
    return (size_t)(BW_MR_MAX * BW_KC + cols * BW_KC + (L->local ? L->rows * cols : 0));
}

/* k-major: B panels of one tile (the largest, kernel-independent bound), the im2col rows of
 * one panel before their transpose, the tile's sums when local. */
static size_t km_slot_floats(const bw_plan *L, const hd_conv_problem *p)
{
    int64_t mt = cdiv(p->CRS, L->nmt) + BW_NR_MAX - 1, kt = cdiv(p->Kg, L->nkt) + BW_MR_MAX - 1;
    return (size_t)(mt * L->kcmax + BW_NR_MAX * L->kcmax + (L->local ? kt * mt : 0));
}

static hd_conv_layout layout_bw(const hd_conv_problem *p, int kmajor)
{
    bw_plan L = plan_bw(p, kmajor);
    hd_conv_layout W = {{0}, 0};
    if (L.km) {            /* dy of a wave packed into A panels (any kernel's MR), partial sums, the slots */
        hd_conv_book(&W, 0, p->G * (p->Kg + BW_MR_MAX - 1), L.npos, sizeof(float));
        hd_conv_book(&W, 1, L.single || L.local ? 0 : L.nchunk * p->K, p->CRS, sizeof(float));
        hd_conv_book(&W, 2, BW_SLOTS, (int64_t)km_slot_floats(&L, p), sizeof(float));
        return W;
    }
    hd_conv_book(&W, 0, L.local ? 0 : L.nchunk * p->K, L.R, sizeof(float));
    hd_conv_book(&W, 1, L.tx ? L.wave * p->Q : 0, p->C, sizeof(float));
    hd_conv_book(&W, 2, BW_SLOTS, (int64_t)slot_floats(&L), sizeof(float));
    return W;
}

/* ---------------- channel-contiguous sources ---------------- */

/* Image 0 of the wave; channel 0 of group 0 is at base, channels are contiguous. */
typedef struct {
    const float *base;
    int64_t sn, sd, sh, sw;
} bw_src;

static bw_src src_user(const float *t, const int64_t s[5], int64_t img0)
{
    bw_src S = {t + img0 * s[0], s[0], s[2], s[3], s[4]};
    return S;
}

static bw_src src_copy(const float *t, int64_t ch, const int64_t dims[3])
{
    bw_src S = {t, dims[0] * dims[1] * dims[2] * ch, dims[1] * dims[2] * ch, dims[2] * ch, ch};
    return S;
}

typedef struct {
    const hd_conv_problem *p;
    const float *src;
    const int64_t *ss, *dims;
    int64_t ch, npos, img0;
    float *dst;
    int64_t pblocks;              /* position blocks per image */
} tr_ctx;

#define TR_POS 1024                       /* positions per transpose task (enough tasks at batch 1) */
#define TR_CH 16
#define TR_SUB 32

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
    if (lin && hd_cpu_isa() >= HD_ISA_AVX512) {
        for (int64_t c0 = 0; c0 < c->ch; c0 += TR_CH)      /* TR_CH streams of TR_POS positions */
            hd_f32_bwdf_ukernel_transpose__avx512(min64(TR_CH, c->ch - c0), nq, src + c0 * s[1] + q0, s[1], dst + c0,
                                                  c->ch);
        return;
    }
    if (lin) {
        hd_f32_tile_fn tile =
            hd_cpu_isa() >= HD_ISA_AVX2 ? hd_f32_transpose_ukernel__avx2 : hd_f32_transpose_ukernel__scalar;
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

static void transpose_wave(const hd_conv_problem *p, const float *src, const int64_t *ss, const int64_t *dims,
                           int64_t ch, int64_t img0, int64_t nimg, float *dst, int nt)
{
    tr_ctx c = {p, src, ss, dims, ch, dims[0] * dims[1] * dims[2], img0, dst, 0};
    c.pblocks = cdiv(c.npos, TR_POS);
    hd_parallel_deal((size_t)(nimg * c.pblocks), nt, tr_task, &c);
}

/* ---------------- the GEMM tasks ---------------- */

typedef void (*copy_runs_fn)(float *dst, int64_t dstride, const float *src, int64_t sstride, int64_t len,
                             int64_t count);

typedef struct {
    const hd_conv_problem *p;
    bw_plan L;
    const hd_gemm_kernel *kern;
    hd_isa_t isa;
    copy_runs_fn copy;
    int64_t MR, NR, cb, ncb;      /* column tiles rounded to the kernel */
    bw_src X, Y;
    int ylin;                     /* dy's positions are one stride apart: 1 within an image, 2 across the wave */
    int merge;                    /* consecutive taps along w continue a run of channels */
    int64_t wave, nimg, npos, nblk;   /* k-major: npos is every position */
    float *part, *slots;
    size_t slot_floats;
    const hd_conv_args *a;
    int fuse_store;               /* one chunk: each task stores its tile after the last wave */
    int tapmem;                   /* k-major tiles: gathered taps are in dW's memory order */
    const float *apack;           /* k-major tiles: dy packed into A panels, per group kpan panels */
    int64_t kpan, kt;             /* k-major: A panels per group, output channels per tile */
    int xlin;                     /* k-major, 1x1: x's positions are one stride apart (B read in place) */
    int ain;                      /* row tiles, 1x1: x's channel runs are the A panels in place (1 within an
                                     image, 2 across the wave) */
} bw_ctx;

/* A run of filter columns of one panel: taps (t, r, s0 .. s1) of one filter row, from
 * channel c0 of tap s0 on, len values, landing at lane `lane` of the panel. */
typedef struct {
    int64_t t, r, s0, s1, c0, len, lane;
} bw_seg;

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

static void copy_runs_scalar(float *dst, int64_t dstride, const float *src, int64_t sstride, int64_t len,
                             int64_t count)
{
    for (int64_t o = 0; o < count; o++, dst += dstride, src += sstride)
        for (int64_t i = 0; i < len; i++)
            dst[i] = src[i];
}

/* Pack the A panel of rows [r0, r0+mr) of the row tile of channels cb0 .. cb0+cbw-1 of group
 * g, for the kcur positions of the wave from q0 on: dst[j * MR + lane], lanes from mr on zero. */
/* gather_a for xdirect problems: the panel's channels are rows of x over the positions, so
 * each image's run of positions is one transpose into the panel. */
static void gather_a_transposed(const bw_ctx *c, int64_t g, int64_t ch0, int64_t mr, int64_t q0, int64_t kcur,
                                float *dst, int64_t MR)
{
    const hd_conv_problem *p = c->p;
    const int64_t P = p->P, cs = p->xs[1];
    for (int64_t j = 0; j < kcur;) {
        int64_t img = (q0 + j) / P, pos = (q0 + j) % P, cnt = min64(P - pos, kcur - j);
        const float *src = c->X.base + img * c->X.sn + (g * p->Cg + ch0) * cs + pos;
        if (c->isa >= HD_ISA_AVX512)
            hd_f32_bwdf_ukernel_transpose__avx512(mr, cnt, src, cs, dst + j * MR, MR);
        else
            (c->isa >= HD_ISA_AVX2 ? hd_f32_transpose_ukernel__avx2
                                   : hd_f32_transpose_ukernel__scalar)(mr, cnt, src, cs, dst + j * MR, MR, 1.0f, 0.0f);
        j += cnt;
    }
    if (mr < MR)
        for (int64_t j = 0; j < kcur; j++)
            memset(dst + j * MR + mr, 0, (size_t)(MR - mr) * sizeof(float));
}

static void gather_a(const bw_ctx *c, int64_t g, int64_t cb0, int64_t cbw, int64_t r0, int64_t mr, int64_t q0,
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
            hd_f32_tile_fn tile =
                c->isa >= HD_ISA_AVX2 ? hd_f32_transpose_ukernel__avx2 : hd_f32_transpose_ukernel__scalar;
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
static const float *panel_b(const bw_ctx *c, int64_t g, int64_t k0, int64_t nr, int64_t q0, int64_t kcur, float *buf,
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

#define ST_K 16                           /* output channels per task of the separate store */

typedef void (*store_fn)(const float *const *rows, int64_t ne, int64_t nk, int64_t plane, int64_t nchunk, float *dw,
                         int64_t ldw, float alpha, float beta);

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
    hd_isa_t isa = hd_cpu_isa();
    store_fn st = isa >= HD_ISA_AVX512 ? hd_f32_bwdf_ukernel_store__avx512
                  : isa >= HD_ISA_AVX2 ? hd_f32_bwdf_ukernel_store__avx2
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

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    const bw_plan *L;
    const float *part;
} st_ctx;

static void st_task(void *vctx, size_t task, int thread)
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

/* One (chunk, group, row tile, column tile): its blocks of the wave's positions, in order. */
static void bw_task(void *vctx, size_t task, int thread)
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
    float *A = c->slots + (size_t)thread * c->slot_floats;
    float *Bt = A + BW_MR_MAX * BW_KC;
    size_t ldc = (size_t)(c->L.local ? c->cb : p->Kg);
    float *C = c->L.local ? Bt + (c->L.ncols + BW_NR_MAX - 1) * BW_KC
                          : c->part + chunk * p->K * c->L.R + (g * c->L.R + cb0 * p->TRS) * p->Kg + k0;
    int64_t b0 = c->nblk * chunk / c->L.nchunk, b1 = c->nblk * (chunk + 1) / c->L.nchunk;
    hd_f32_gemm_ukernel_fn uk = c->kern->f32;
    for (int64_t b = b0; b < b1; b++) {
        int64_t q0 = b * BW_KC, kcur = min64(BW_KC, c->npos - q0);
        float beta = c->wave == 0 && b == b0 ? 0.0f : 1.0f;
        const float *B[BW_COLS / 4 + 1];
        size_t bs[BW_COLS / 4 + 1];
        for (int64_t jp = 0; jp < bpan; jp++)
            B[jp] = panel_b(c, g, k0 + jp * NR, min64(NR, nk - jp * NR), q0, kcur, Bt + jp * NR * BW_KC, &bs[jp], NR,
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
            gather_a(c, g, cb0, cbw, ip * MR, min64(MR, nrow - ip * MR), q0, kcur, A, MR);
            for (int64_t jp = 0; jp < bpan; jp++)
                uk((size_t)min64(MR, nrow - ip * MR), (size_t)min64(NR, nk - jp * NR), (size_t)kcur, A, B[jp], bs[jp],
                   C + ip * MR * (int64_t)ldc + jp * NR, ldc, 1.0f, beta);
        }
    }
    if (c->fuse_store && c->wave == c->L.nwave - 1)   /* the tile's sums are complete and still in cache */
        store_tile(p, c->a, &c->L, C, (int64_t)ldc, 0, g, rbi, k0, nk);
}

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
            const float *src = xg + img * xs[0] + m0 * xs[1] + pos;
            if (c->isa >= HD_ISA_AVX512)
                hd_f32_bwdf_ukernel_transpose__avx512(nr, cnt, src, xs[1], dst + (q - q0) * NR, NR);
            else
                tile(nr, cnt, src, xs[1], dst + (q - q0) * NR, NR, 1.0f, 0.0f);
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
    panel_b(c, g, k0, min64(c->MR, c->p->Kg - k0), 0, c->npos, dst, &bs, c->MR, 0);
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
    float *Bt = c->slots + (size_t)thread * c->slot_floats, *T = Bt + c->cb * c->L.kcmax;
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
                gather_a(c, g, 0, p->Cg, mm, nr, q0, kcur, dst, NR);
            } else {
                km_gather_rows(c, g, mm, nr, q0, kcur, T, dst);
            }
        }
        for (int64_t k = k0; k < k0 + nk; k += MR) {
            const float *A = c->apack + ((g * c->kpan + k / MR) * c->npos + q0) * MR;
            float *Ck = C + (k - k0) * (int64_t)ldc;
            for (int64_t jp = 0; jp < bpan; jp++)
                uk((size_t)min64(MR, k0 + nk - k), (size_t)min64(NR, nm - jp * NR), (size_t)kcur, A, B[jp], bs[jp],
                   Ck + jp * NR, ldc, alpha, beta);
        }
    }
    if (c->L.local)
        km_store(p, c->a, 1, C, (int64_t)ldc, 0, g * p->Kg + k0, nk, m0, nm);
}

static void km_exec(bw_ctx *c, const hd_conv_problem *p, const hd_conv_args *a, hd_conv_layout W, int nt)
{
    c->tapmem = 1;
    c->kpan = cdiv(p->Kg, c->MR);
    c->apack = (const float *)((char *)a->ws + W.off[0]);
    c->part = (float *)((char *)a->ws + W.off[1]);
    c->slot_floats = km_slot_floats(&c->L, p);
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
                  (p->in[0] == 1 || c->X.sd == p->in[1] * p->in[2] * c->X.sw) && km_inplace_stride(c->X.sw);
        for (int j = 0; j < 3; j++)
            c->xlin = c->xlin && p->str[j] == 1 && p->pad[j] == 0;
        if (c->xlin && (nimg == 1 || c->X.sn == p->Q * c->X.sw))
            c->xlin = 2;
        c->wave = w;
        c->nimg = nimg;
        c->npos = nimg * p->P;
        c->nblk = cdiv(c->npos, BW_KC);
        hd_parallel_deal((size_t)(p->G * c->kpan), nt, km_pack_task, c);
        hd_parallel_deal((size_t)(c->L.nchunk * p->G * c->ncb * cdiv(p->CRS, c->cb)), nt, km_task, c);
    }
    if (!c->L.single && !c->L.local)
        hd_parallel_deal((size_t)cdiv(p->K, ST_K), nt, km_store_task, c);
}

/* ---------------- the solver ---------------- */

/* The two solvers share the plan: 351 always takes the row tiles, 352 the k-major tiles
 * where the plan picks them (and refuses the rest). */
static void exec_bw(const hd_conv_problem *p, const hd_conv_args *a, int kmajor)
{
    hd_conv_layout W = layout_bw(p, kmajor);
    bw_ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.L = plan_bw(p, kmajor);
    c.kern = hd_gemm_kernel_for(sizeof(float), hd_cpu_isa());
    c.isa = hd_cpu_isa();
    c.MR = (int64_t)c.kern->mr;
    c.NR = (int64_t)c.kern->nr;
    c.cb = cdiv(c.L.ncols, c.NR) * c.NR;
    c.ncb = cdiv(p->Kg, c.cb);
    c.part = (float *)((char *)a->ws + W.off[0]);
    c.slots = (float *)((char *)a->ws + W.off[2]);
    c.slot_floats = slot_floats(&c.L);
    c.a = a;
    c.fuse_store = c.L.nchunk == 1;
    c.copy = hd_cpu_isa() >= HD_ISA_AVX512 ? hd_f32_bwdf_ukernel_runs__avx512
           : hd_cpu_isa() >= HD_ISA_AVX2   ? hd_f32_bwdf_ukernel_runs__avx2
                                           : copy_runs_scalar;
    float *xt = (float *)((char *)a->ws + W.off[1]);
    int nt = a->nthreads < BW_SLOTS ? a->nthreads : BW_SLOTS;
    if (c.L.km) {
        km_exec(&c, p, a, W, nt);
        return;
    }
    for (int64_t w = 0; w < c.L.nwave; w++) {
        int64_t img0 = w * c.L.wave, nimg = min64(c.L.wave, p->N - img0);
        if (c.L.tx)
            transpose_wave(p, a->x, p->xs, p->in, p->C, img0, nimg, xt, nt);
        c.X = c.L.tx ? src_copy(xt, p->C, p->in) : src_user(a->x, p->xs, img0);
        c.Y = src_user(a->y, p->ys, img0);
        c.merge = p->dil[2] * c.X.sw == p->Cg;
        c.ylin = (p->out[1] == 1 || c.Y.sh == p->out[2] * c.Y.sw) &&
                 (p->out[0] == 1 || c.Y.sd == p->out[1] * p->out[2] * c.Y.sw);
        if (c.ylin && (nimg == 1 || c.Y.sn == p->P * c.Y.sw))
            c.ylin = 2;
        /* A panels in place: a 1x1, unit-stride, unpadded problem whose x (or its copy) has its
           channels contiguous and its positions one stride apart, not a multiple of 4 KiB (all
           steps would share an L1 set: res4_reduce NHWC, C = 1024, ran 1.5x slower), with a
           kernel that takes A in place (its reads stay inside x: whole panels only).  Used by
           tiles of at most BW_AIN_PANELS B panels: each re-reads the A panel, from L1 when
           packed, from L2 in place (8 panels, K = 256: 8% slower).  res2 1x1 NHWC at batch
           16, two threads: 1.88 -> 1.76 ms; at batch 1 0.100 -> 0.087 ms. */
        c.ain = 0;
        if (c.kern->f32_sa && p->TRS == 1 && !c.L.xdirect && (c.L.tx || p->xs[1] == 1) && c.X.sw % 1024 != 0) {
            c.ain = (p->in[1] == 1 || c.X.sh == p->in[2] * c.X.sw) && (p->in[0] == 1 || c.X.sd == p->in[1] * p->in[2] * c.X.sw);
            for (int j = 0; j < 3; j++)
                c.ain = c.ain && p->str[j] == 1 && p->pad[j] == 0;
            if (c.ain && (nimg == 1 || c.X.sn == p->Q * c.X.sw))
                c.ain = 2;
        }
        c.wave = w;
        c.nimg = nimg;
        c.npos = nimg * p->P;
        c.nblk = cdiv(c.npos, BW_KC);
        hd_parallel_deal((size_t)(c.L.nchunk * p->G * c.L.nrb * c.ncb), nt, bw_task, &c);
    }
    if (!c.fuse_store) {
        st_ctx sc = {p, a, &c.L, c.part};
        hd_parallel_deal((size_t)(p->G * c.L.nrb * cdiv(p->Kg, ST_K)), nt, st_task, &sc);
    }
}

void hd_conv_bwdf_uk_exec(const hd_conv_problem *p, const hd_conv_args *a) { exec_bw(p, a, 0); }
void hd_conv_bwdf_km_exec(const hd_conv_problem *p, const hd_conv_args *a) { exec_bw(p, a, 1); }
size_t hd_conv_bwdf_uk_ws(const hd_conv_problem *p) { return layout_bw(p, 0).total; }
size_t hd_conv_bwdf_km_ws(const hd_conv_problem *p) { return layout_bw(p, 1).total; }

static int app_bw(const hd_conv_problem *p, const char **reason, int kmajor)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8 || p->xv != 1 || p->yv != 1 || p->wv != 1) {
        *reason = "the micro-kernel backward filter takes FLOAT x, dy and dw only";
        return 0;
    }
    if (p->Kg < 8 || p->CRS < 8) {
        *reason = "too few output channels or filter columns per group for the micro-kernel tiles";
        return 0;
    }
    if (kmajor && !plan_bw(p, 1).km) {
        *reason = "the row tiles (351) move less data for this problem (or its filter order does not suit the "
                  "k-major gathers)";
        return 0;
    }
    size_t ws = layout_bw(p, kmajor).total;
    size_t xbytes = (size_t)(p->N * p->C) * (size_t)p->Q * sizeof(float);
    if (ws == SIZE_MAX || ws > (xbytes > BW_MAX_WS ? xbytes : BW_MAX_WS)) {
        *reason = "its workspace would pass max(x, 64 MiB)";
        return 0;
    }
    return 1;
}

int hd_conv_bwdf_uk_app(const hd_conv_problem *p, const char **reason) { return app_bw(p, reason, 0); }
int hd_conv_bwdf_km_app(const hd_conv_problem *p, const char **reason) { return app_bw(p, reason, 1); }

double hd_conv_bwdf_uk_cost(const hd_conv_problem *p)
{
    (void)p;
    return 0.3;
}
