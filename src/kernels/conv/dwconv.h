/*
 * kernels/conv/dwconv.h -- the micro-kernels under the depthwise convolution solvers
 * (conv_dw_f32.c).  Four kernels, each in a scalar, an AVX2 and an AVX-512 variant:
 *
 *   plane row (NCHW-like):  one output row of one channel plane, vectorised along the row;
 *   plane weight row:       accumulates the weight gradient of one channel from one dy row;
 *   pixel row (NHWC-like):  one output row of all channels, vectorised over channels;
 *   pixel weight row:       accumulates the weight gradient of all channels from one dy row.
 *
 * The plane kernels read source rows that the caller copied into zeroed, padded buffers, so
 * they never test borders: source element j of the output position o and tap s is
 * row[o*cs + s*cd], and every buffer is readable (and finite) for
 * j < cs*round_up(n, 16) + (S-1)*cd + 32.  The pixel kernels read the user's tensors in
 * place and test the borders themselves.  Every variant sums in a fixed order, so a result
 * depends on the problem and the ISA only, never on threads.
 */
#ifndef HD_KERNELS_CONV_DWCONV_H
#define HD_KERNELS_CONV_DWCONV_H

#include <stddef.h>
#include <stdint.h>

/* Lanes of the plane weight-row accumulators: output position o adds into lane o % 16 of its
 * tap, whatever the ISA, so the lanes are summed in one fixed order afterwards. */
#define HD_DW_LANES 16

/* out[o] = alpha * sum_{i < nr} sum_{s < S} w[i][s] * rows[i][o*cs + s*cd] (+ beta * out[o]
 * when beta != 0; out is not read when beta == 0), o < n. */
typedef struct {
    float *out;
    size_t n;
    const float *const *rows;
    const float *const *w;        /* S weights per source row */
    size_t nr, S, cs, cd;
    float alpha, beta;
} hd_dw_row_args;

/* acc[i][s*16 + o%16] += dy[o] * rows[i][o*cs + s*cd] for i < nr, s < S, o < n; dy holds
 * exactly n readable floats. */
typedef struct {
    float *const *acc;
    const float *dy;
    size_t n;
    const float *const *rows;
    size_t nr, S, cs, cd;
} hd_dw_wrow_args;

/* Channels contiguous.  Output pixel o (o < n) at out + o*ops, channel c at +c.  Source row i
 * holds pixel q at rows[i] + q*ips; the tap (rtap[i], s) of output pixel o reads source
 * pixel b / up where b = o*cs - pad + s*cd, when b >= 0, b % up == 0 and b / up < W.
 * Weights are packed [channel block][R*S taps][16 channels] (zero past C); tap (r, s) is
 * r*S + s.  up > 1 is the zero-upsampled source of strided backward data. */
typedef struct {
    float *out;
    int64_t ops;
    size_t n, C;
    const float *const *rows;
    const size_t *rtap;
    size_t nr;
    int64_t ips, W;
    const float *w;
    size_t RS, S;
    int64_t cs, pad, cd, up;
    float alpha, beta;
    size_t sh;                    /* AVX-512 only (0 elsewhere): lane l of channel block b is channel
                                   * b*16 - sh + l, so blocks start on 64-byte boundaries when the
                                   * channel-0 addresses do not; the weights are packed likewise */
    int nt;                       /* AVX-512 only: full, 64-byte aligned output vectors may be stored
                                   * non-temporally (large outputs that will not stay in cache) */
} hd_dw_px_args;

/* acc (packed like the weights) += dy[o][c] * x(tap, o)[c] over the n pixels of one dy row
 * (dy pixel o at dy + o*dps); the source addressing is that of hd_dw_px_args with up == 1. */
typedef struct {
    float *acc;
    const float *dy;
    int64_t dps;
    size_t n, C;
    const float *const *rows;
    const size_t *rtap;
    size_t nr;
    int64_t ips, W;
    size_t RS, S;
    int64_t cs, pad, cd;
    size_t sh;                    /* as in hd_dw_px_args (the sums are packed likewise) */
} hd_dw_pxw_args;

/* Two consecutive output rows at vertical stride and dilation 1 with every filter row inside:
 * a->rows holds nr + 1 consecutive source rows with rtap[i] = i; the first output row (a->out)
 * reads rows 0..nr-1, the second (out2) rows 1..nr.  Each source vector then serves both rows.
 * Bitwise the same as two hd_dw_px_args calls. */
typedef void (*hd_dw_px2_fn)(const hd_dw_px_args *a, float *out2);

typedef struct {
    void (*row)(const hd_dw_row_args *a);
    void (*wrow)(const hd_dw_wrow_args *a);
    void (*px)(const hd_dw_px_args *a);
    void (*pxw)(const hd_dw_pxw_args *a);
    hd_dw_px2_fn px2;             /* NULL: the caller makes two px calls */
} hd_dw_kernels;

void hd_f32_dw_row__scalar(const hd_dw_row_args *a);
void hd_f32_dw_wrow__scalar(const hd_dw_wrow_args *a);
void hd_f32_dw_px__scalar(const hd_dw_px_args *a);
void hd_f32_dw_pxw__scalar(const hd_dw_pxw_args *a);
void hd_f32_dw_row__avx2(const hd_dw_row_args *a);
void hd_f32_dw_wrow__avx2(const hd_dw_wrow_args *a);
void hd_f32_dw_px__avx2(const hd_dw_px_args *a);
void hd_f32_dw_pxw__avx2(const hd_dw_pxw_args *a);
void hd_f32_dw_row__avx512(const hd_dw_row_args *a);
void hd_f32_dw_wrow__avx512(const hd_dw_wrow_args *a);
void hd_f32_dw_px__avx512(const hd_dw_px_args *a);
void hd_f32_dw_pxw__avx512(const hd_dw_pxw_args *a);
void hd_f32_dw_px2__avx512(const hd_dw_px_args *a, float *out2);

/* The best variants for ISA (an hd_isa_t). */
hd_dw_kernels hd_f32_dw_select(int isa);

/* Pixel range [lo, hi) of an output row where tap s of every s < S stays inside a source
 * row of width W (up == 1): lo = ceil(pad / cs), hi = floor((W - 1 + pad - (S-1)*cd) / cs) + 1,
 * clamped to [0, n]; lo >= hi when there is no such pixel. */
static inline void hd_dw_inside(int64_t n, int64_t W, int64_t S, int64_t cs, int64_t pad, int64_t cd, int64_t *lo,
                                int64_t *hi)
{
    int64_t l = pad <= 0 ? 0 : (pad + cs - 1) / cs;
    int64_t top = W - 1 + pad - (S - 1) * cd;
    int64_t h = top < 0 ? 0 : top / cs + 1;
    *lo = l > n ? n : l;
    *hi = h > n ? n : h < *lo ? *lo : h;
}

/* Source pixel of output pixel o and tap s, or -1 outside (pixel kernels). */
static inline int64_t hd_dw_src(int64_t o, int64_t s, int64_t cs, int64_t pad, int64_t cd, int64_t up, int64_t W)
{
    int64_t b = o * cs - pad + s * cd;
    if (b < 0)
        return -1;
    if (up > 1) {
        if (b % up)
            return -1;
        b /= up;
    }
    return b < W ? b : -1;
}

#endif
