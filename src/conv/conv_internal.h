/*
 * conv/conv_internal.h -- what the solver files share: workspace layouts (one
 * function per method, used by both the size query and the execution, so the two cannot
 * disagree) and the per-precision entry points of conv_algos.inc.
 */
#ifndef HD_KERNELS_CONV_INTERNAL_H
#define HD_KERNELS_CONV_INTERNAL_H

#include "core/memory.h"
#include "conv/conv_registry.h"

#include <stdint.h>
#include <string.h>
#include <xmmintrin.h>

typedef struct hd_conv_layout {
    size_t off[4];
    size_t total;                 /* SIZE_MAX: does not fit in size_t */
} hd_conv_layout;

/* Whether MR rows LDA floats apart (filter rows, or pixels' channel runs), read in place by
 * an indirect micro-kernel, spread over the sets of a 48 KiB 12-way L1 (64 sets of 64-byte
 * lines): with a row stride of 4 KiB all would share one set and evict each other at every
 * step (such rows are copied or packed instead). */
static inline int hd_conv_rows_spread(int64_t lda, int64_t MR)
{
    int cnt[64] = {0}, most = 0;
    for (int64_t i = 0; i < MR; i++) {
        int set = (int)(((uint64_t)(i * lda) * sizeof(float) >> 6) & 63);
        if (++cnt[set] > most)
            most = cnt[set];
    }
    return most <= 8;
}

/* d[i] = alpha * v[i] + beta * d[i] for i < n, both contiguous (beta == 0: d not read); plain
 * loops over restrict pointers, which the compiler vectorises, and a copy for alpha 1, beta 0. */
static inline void hd_conv_scale_add(float *restrict d, const float *restrict v, int64_t n, float alpha, float beta)
{
    if (beta == 0 && alpha == 1)
        memcpy(d, v, sizeof(float) * (size_t)n);
    else if (beta == 0)
        for (int64_t i = 0; i < n; i++)
            d[i] = alpha * v[i];
    else
        for (int64_t i = 0; i < n; i++)
            d[i] = alpha * v[i] + beta * d[i];
}

/* Into L1: the lines of rows[i] + off .. + n floats for i in [i0, i1) -- the rows of a tile
 * read in place some tiles ahead of the micro-kernel (the hardware prefetcher meets 14 rows
 * of one tile late).  Forced inline: GCC's interprocedural analysis takes a function that
 * only prefetches for one without side effects and deletes the calls (gcc 12, -O2). */
static inline __attribute__((always_inline)) void hd_conv_prefetch_rows(const float *const *rows, int64_t off, int64_t i0, int64_t i1, int64_t n)
{
    for (int64_t i = i0; i < i1; i++)
        for (int64_t b = 0; b < n * (int64_t)sizeof(float); b += 64)
            _mm_prefetch((const char *)(rows[i] + off) + b, _MM_HINT_T0);
}

/* Into L1: every line of the run of N floats from S -- rows a later pack or transform reads
 * that lie a page or a whole filter apart, more streams than the hardware prefetcher follows.
 * Forced inline, as hd_conv_prefetch_rows. */
static inline __attribute__((always_inline)) void hd_conv_prefetch_run(const float *s, int64_t n)
{
    uintptr_t e = (uintptr_t)(s + n);
    for (uintptr_t q = (uintptr_t)s & ~(uintptr_t)63; q < e; q += 64)
        _mm_prefetch((const char *)q, _MM_HINT_T0);
}

/* A stream of prefetches into L2 over ROWS rows of LEN floats, ROW_STRIDE floats apart, from
 * X0: the rows a later copy (a gather of a block of NCHW-like x or dy) will read, issued a few
 * lines per micro-kernel call while the current block is multiplied, so that the copy finds
 * them in the caches.  A few at a time, not all at once: a burst of hundreds of prefetches
 * would hold the core until the memory system takes them. */
typedef struct {
    const char *x0;
    int64_t rs;           /* bytes between rows */
    int64_t nl;           /* lines per row */
    int64_t next, total, per_call;
    const char *row;      /* the row of line NEXT, and NEXT's line within it: a cursor: a step divides
                             nothing (a 64-bit division per line costs more than the prefetch) */
    int64_t line;
} hd_conv_pf;

/* A stream with nothing to prefetch (its steps do nothing). */
#define HD_CONV_PF_NONE {NULL, 0, 1, 0, 0, 0, NULL, 0}

static inline void hd_conv_pf_start(hd_conv_pf *f, const float *x0, int64_t row_stride, int64_t len, int64_t rows,
                                    int64_t calls)
{
    f->x0 = (const char *)x0;
    f->rs = row_stride * (int64_t)sizeof(float);
    f->nl = (len + 15) / 16 + 1;   /* + 1: a row may start within a line */
    f->next = 0;
    f->total = rows > 0 ? rows * f->nl : 0;
    f->per_call = calls > 0 ? (f->total + calls - 1) / calls : f->total;
    f->row = f->x0;
    f->line = 0;
}

/* Forced inline (see hd_conv_prefetch_rows). */
static inline __attribute__((always_inline)) void hd_conv_pf_step(hd_conv_pf *f)
{
    int64_t end = f->next + f->per_call < f->total ? f->next + f->per_call : f->total;
    for (; f->next < end; f->next++) {
        _mm_prefetch(f->row + f->line * 64, _MM_HINT_T1);
        if (++f->line == f->nl) {
            f->line = 0;
            f->row += f->rs;
        }
    }
}

/* Book region I of ROWS x COLS elements of ESIZE bytes, 64-byte aligned. */
static inline void hd_conv_book(hd_conv_layout *L, int i, int64_t rows, int64_t cols, size_t esize)
{
    size_t n, b;
    if (L->total == SIZE_MAX || hd_mul_size((size_t)rows, (size_t)cols, &n) || hd_mul_size(n, esize, &b) ||
        b > SIZE_MAX - 128 - L->total) {
        L->total = SIZE_MAX;
        return;
    }
    L->off[i] = L->total;
    L->total += (b + 63) & ~(size_t)63;
}

static inline size_t hd_conv_esize(const hd_conv_problem *p) { return p->dbl ? sizeof(double) : sizeof(float); }

/* Column tile of the tiled backward-filter method (ALGO_3). */
#define HD_CONV_BWDF_TILE 256

/* The im2col matrix of a 1x1, stride-1, unpadded convolution is x itself when x is stored
 * in the accumulation type with each channel's spatial plane packed: no column buffer. */
static inline int hd_conv_x_is_col(const hd_conv_problem *p)
{
    int native = (p->dbl && p->xdt == CUDNN_DATA_DOUBLE) || (!p->dbl && p->xdt == CUDNN_DATA_FLOAT);
    return native && p->TRS == 1 && p->pad[0] == 0 && p->pad[1] == 0 && p->pad[2] == 0 && p->str[0] == 1 &&
           p->str[1] == 1 && p->str[2] == 1 && p->xs[4] == 1 && p->xs[3] == p->in[2] &&
           (p->in[0] == 1 || p->xs[2] == p->in[1] * p->in[2]);
}

/* Explicit im2col + GEMM forward: packed filter, columns (none when x is the column
 * matrix), GEMM result. */
static inline hd_conv_layout hd_conv_layout_fwd_gemm(const hd_conv_problem *p)
{
    hd_conv_layout L = {{0}, 0};
    hd_conv_book(&L, 0, p->K, p->CRS, hd_conv_esize(p));
    hd_conv_book(&L, 1, hd_conv_x_is_col(p) ? 0 : p->CRS, p->P, hd_conv_esize(p));
    hd_conv_book(&L, 2, p->Kg, p->P, hd_conv_esize(p));
    return L;
}

/* Implicit GEMM with precomputed offsets: per filter tap (offset, dt, dr, ds) and per output
 * position (offset, d0, h0, w0), as int64. */
static inline hd_conv_layout hd_conv_layout_fwd_precomp(const hd_conv_problem *p)
{
    hd_conv_layout L = {{0}, 0};
    hd_conv_book(&L, 0, p->CRS, 4, sizeof(int64_t));
    hd_conv_book(&L, 1, p->P, 4, sizeof(int64_t));
    return L;
}

/* Backward data GEMM + col2im: packed filter, dy of one image and group, columns, dx accumulator. */
static inline hd_conv_layout hd_conv_layout_bwdd_gemm(const hd_conv_problem *p)
{
    hd_conv_layout L = {{0}, 0};
    hd_conv_book(&L, 0, p->K, p->CRS, hd_conv_esize(p));
    hd_conv_book(&L, 1, p->Kg, p->P, hd_conv_esize(p));
    hd_conv_book(&L, 2, p->CRS, p->P, hd_conv_esize(p));
    hd_conv_book(&L, 3, p->Cg, p->Q, hd_conv_esize(p));
    return L;
}

/* Backward filter im2col + GEMM: columns (all positions, or a tile of them), dy, dw accumulator. */
static inline hd_conv_layout hd_conv_layout_bwdf_gemm(const hd_conv_problem *p, int tiled)
{
    int64_t cols = tiled && p->P > HD_CONV_BWDF_TILE ? HD_CONV_BWDF_TILE : p->P;
    hd_conv_layout L = {{0}, 0};
    hd_conv_book(&L, 0, p->CRS, cols, hd_conv_esize(p));
    hd_conv_book(&L, 1, p->Kg, cols, hd_conv_esize(p));
    hd_conv_book(&L, 2, p->K, p->CRS, hd_conv_esize(p));
    return L;
}

/* Winograd F(2x2, 3x3): transformed filter U (16 x G*Kg*Cg); for the non-fused method also
 * the transformed input V (16 x ci x tiles) and product M (16 x co x tiles) of one image and
 * group, where (ci, co) = (Cg, Kg) forward and (Kg, Cg) for backward data. */
static inline hd_conv_layout hd_conv_layout_winograd(const hd_conv_problem *p, int bwd, int fused)
{
    int64_t oh = bwd ? p->in[1] : p->out[1], ow = bwd ? p->in[2] : p->out[2];
    int64_t tiles = ((oh + 1) / 2) * ((ow + 1) / 2);
    int64_t ci = bwd ? p->Kg : p->Cg, co = bwd ? p->Cg : p->Kg;
    hd_conv_layout L = {{0}, 0};
    hd_conv_book(&L, 0, 16 * p->G, co * ci, hd_conv_esize(p));
    if (!fused) {
        hd_conv_book(&L, 1, 16 * ci, tiles, hd_conv_esize(p));
        hd_conv_book(&L, 2, 16 * co, tiles, hd_conv_esize(p));
    }
    return L;
}

/* FFT plane size: powers of two covering the padded input, or the tile of FFT_TILING (32, or
 * 64 when the filter is wider than 16) -- smaller when the whole padded image fits a smaller
 * plane, so small images with many channels (e.g. folded problems) do not book 32x32 spectra
 * for every filter. */
static inline void hd_conv_fft_size(const hd_conv_problem *p, int tiled, int64_t *hf, int64_t *wf)
{
    if (tiled) {
        int64_t big = p->flt[1] > p->flt[2] ? p->flt[1] : p->flt[2];
        int64_t cap = big > 16 ? 64 : 32, need = 2;
        int64_t ph = p->in[1] + 2 * p->pad[1], pw = p->in[2] + 2 * p->pad[2];
        while (need < cap && (need < ph || need < pw || need < big))
            need <<= 1;
        *hf = *wf = need;
        return;
    }
    int64_t h = 1, w = 1;
    while (h < p->in[1] + 2 * p->pad[1])
        h <<= 1;
    while (w < p->in[2] + 2 * p->pad[2])
        w <<= 1;
    *hf = h, *wf = w;
}

/* FFT: twiddles, then planes of Hf x Wf complex values (two T each):
 *   forward          A = K*Cg filter spectra, B = Cg input spectra, C = Kg output planes
 *   backward data    A = K*Cg filter spectra, B = Kg dy spectra,    C = Cg output planes
 *   backward filter  A = K*Cg accumulators,   B = Cg input spectra, C = Kg dy spectra */
static inline hd_conv_layout hd_conv_layout_fft(const hd_conv_problem *p, int dir, int tiled)
{
    int64_t hf, wf;
    hd_conv_fft_size(p, tiled, &hf, &wf);
    int64_t plane = hf * wf, f = hf > wf ? hf : wf;
    size_t cs = 2 * hd_conv_esize(p);
    hd_conv_layout L = {{0}, 0};
    hd_conv_book(&L, 0, f / 2 + 1, 1, cs);
    hd_conv_book(&L, 1, p->K * p->Cg, plane, cs);
    hd_conv_book(&L, 2, dir == 1 ? p->Kg : p->Cg, plane, cs);
    hd_conv_book(&L, 3, dir == 1 ? p->Cg : p->Kg, plane, cs);
    return L;
}

/* Backward-filter Winograd (non-fused): V (16 x Cg x tiles), transformed dy (16 x Kg x tiles)
 * of one image and group, and the accumulated products M (16 x K x Cg); tiles over the output. */
static inline hd_conv_layout hd_conv_layout_winograd_bwdf(const hd_conv_problem *p)
{
    int64_t tiles = ((p->out[1] + 1) / 2) * ((p->out[2] + 1) / 2);
    hd_conv_layout L = {{0}, 0};
    hd_conv_book(&L, 0, 16 * p->Cg, tiles, hd_conv_esize(p));
    hd_conv_book(&L, 1, 16 * p->Kg, tiles, hd_conv_esize(p));
    hd_conv_book(&L, 2, 16 * p->K, p->Cg, hd_conv_esize(p));
    return L;
}

/* Winograd F(2x2, 5x5) on 6x6 tiles (conv_winograd5.inc): as F(2x2,3x3) above with 36
 * transformed-domain points instead of 16 -- U (36 x G*co*ci), V (36 x ci x tiles) and M
 * (36 x co x tiles) of one image and group; tiles over the output (dx for backward data). */
static inline hd_conv_layout hd_conv_layout_winograd5(const hd_conv_problem *p, int bwd)
{
    int64_t oh = bwd ? p->in[1] : p->out[1], ow = bwd ? p->in[2] : p->out[2];
    int64_t tiles = ((oh + 1) / 2) * ((ow + 1) / 2);
    int64_t ci = bwd ? p->Kg : p->Cg, co = bwd ? p->Cg : p->Kg;
    hd_conv_layout L = {{0}, 0};
    hd_conv_book(&L, 0, 36 * p->G, co * ci, hd_conv_esize(p));
    hd_conv_book(&L, 1, 36 * ci, tiles, hd_conv_esize(p));
    hd_conv_book(&L, 2, 36 * co, tiles, hd_conv_esize(p));
    return L;
}

/* Backward-filter F(2x2, 5x5): V (36 x Cg x tiles), transformed dy (36 x Kg x tiles) of one
 * image and group, accumulated products M (36 x K x Cg). */
static inline hd_conv_layout hd_conv_layout_winograd5_bwdf(const hd_conv_problem *p)
{
    int64_t tiles = ((p->out[1] + 1) / 2) * ((p->out[2] + 1) / 2);
    hd_conv_layout L = {{0}, 0};
    hd_conv_book(&L, 0, 36 * p->Cg, tiles, hd_conv_esize(p));
    hd_conv_book(&L, 1, 36 * p->Kg, tiles, hd_conv_esize(p));
    hd_conv_book(&L, 2, 36 * p->K, p->Cg, hd_conv_esize(p));
    return L;
}

/* 3-d FFT_TILING transform sizes (conv_fft3d.inc), per dimension (D, H, W): the power of two
 * covering the padded input, capped at the one covering twice the filter (at least 8), so a
 * transform always yields at least half its length of outputs per tile while small volumes
 * take one transform of their own size. */
static inline void hd_conv_fft3d_size(const hd_conv_problem *p, int64_t f[3])
{
    for (int d = 0; d < 3; d++) {
        int64_t padded = p->in[d] + 2 * p->pad[d], cap = 8, need = 1;
        while (cap < 2 * p->flt[d])
            cap <<= 1;
        while (need < padded && need < cap)
            need <<= 1;
        f[d] = need;
    }
}

/* 3-d FFT_TILING: twiddles, then Df x Hf x Wf complex volumes, assigned as the 2-d FFT's
 * (hd_conv_layout_fft): A = K*Cg filter spectra or accumulators, B and C the per-image
 * spectra of the two other tensors. */
static inline hd_conv_layout hd_conv_layout_fft3d(const hd_conv_problem *p, int dir)
{
    int64_t f[3];
    hd_conv_fft3d_size(p, f);
    int64_t vol = f[0] * f[1] * f[2], big = f[0];
    for (int d = 1; d < 3; d++)
        big = f[d] > big ? f[d] : big;
    size_t cs = 2 * hd_conv_esize(p);
    hd_conv_layout L = {{0}, 0};
    hd_conv_book(&L, 0, big / 2 + 1, 1, cs);
    hd_conv_book(&L, 1, p->K * p->Cg, vol, cs);
    hd_conv_book(&L, 2, dir == 1 ? p->Kg : p->Cg, vol, cs);
    hd_conv_book(&L, 3, dir == 1 ? p->Cg : p->Kg, vol, cs);
    return L;
}

#define HD_CONV_DECLARE(sfx) \
    void hd_conv_bwdf_wino_nonfused_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_fwd_wino5_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdd_wino5_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdf_wino5_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_fwd_fft3d_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdd_fft3d_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdf_fft3d_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_fwd_fft_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdd_fft_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdf_fft_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_fwd_fft_tiling_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdd_fft_tiling_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdf_fft_tiling_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_fwd_wino_nonfused_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_fwd_wino_fused_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdd_wino_nonfused_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdd_wino_fused_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_fwd_gemm_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_fwd_implicit_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_fwd_precomp_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_fwd_direct_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdd_gemm_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdd_direct_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdf_gemm_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdf_tiled_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_bwdf_direct_##sfx(const hd_conv_problem *p, const hd_conv_args *a); \
    void hd_conv_im2col_##sfx(const hd_conv_problem *p, const void *x, int64_t n, int64_t g, int64_t p0, \
                              int64_t np, void *dst, int64_t ld, int nthreads);
HD_CONV_DECLARE(f32)
HD_CONV_DECLARE(f64)

#endif
