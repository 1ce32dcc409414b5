/*
 * kernels/dwconv/dwconv-ukernels.h -- the micro-kernels under the depthwise convolution solvers
 * (conv_dw_f32.c), each in a scalar, an AVX2 and an AVX-512 variant:
 *
 *   plane row (NCHW-like):  one output row of one channel plane, vectorised along the row;
 *   plane weight row:       accumulates the weight gradient of one channel from one dy row;
 *   blocked row:            one output row of one block of 16 channels, from blocked rows;
 *   blocked weight row:     accumulates the weight gradient of 16 channels from one dy row;
 *   gather / scatter:       copy between a tensor row (any strides: one vector per pixel when
 *                           channels are contiguous, 16x16 transposes when pixels are) and a
 *                           blocked row.
 *
 * The plane kernels read source rows that the caller copied into zeroed, padded buffers, so
 * they never test borders: source element j of the output position o and tap s is
 * row[o*cs + s*cd], and every buffer is readable (and finite) for
 * j < cs*round_up(n, 16) + (S-1)*cd + 32.  The blocked kernels likewise read zero-bordered
 * blocked rows.  Every variant sums in a fixed order, so a result depends on the problem and
 * the ISA only, never on threads.
 */
#ifndef HD_KERNELS_DWCONV_DWCONV_UKERNELS_H
#define HD_KERNELS_DWCONV_DWCONV_UKERNELS_H

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

/* Blocked rows: 16 channels per pixel, pixel i of a row at row + 16*i (lanes past the
 * tensor's channels are zero).  The solver copies source rows into such rows with explicit
 * zero borders, so these kernels have no border tests and no masked loads.
 *
 * Result pixel o < n at out + o*ops, lane l (only the lanes set in mask are written):
 *   alpha * sum_{i < nr} sum_{s < S} w[i][16*s + l] * rows[i][ips*(o*cs + s*cd) + l]
 *   (+ beta * its old value when beta != 0; not read when beta == 0).
 * ips is the pixel stride of the source rows: 16 for blocked rows, the channel count when
 * the rows are an NHWC tensor's own (the solver's in-place interior).  Per result the terms
 * are summed row by row, tap by tap, whatever the pixel blocking, so a result depends on the
 * ISA only.  Unless tight is set, every row must be readable (any values) for
 * ips * ((round_up(n, 16) - 1)*cs + (S-1)*cd) + 16 floats: the 3x3 kernels compute a last
 * partial block of pixels whole and store only its first pixels.  With tight set the kernels
 * read only the pixels the n results use (rows inside a user's tensor). */
typedef struct {
    float *out;
    int64_t ops;
    size_t n;
    const float *const *rows;
    const float *const *w;
    size_t nr, S, cs, cd;
    float alpha, beta;
    unsigned mask;
    int64_t ips;
    int tight;
    int stream;                   /* a hint: stores may bypass the caches (same results) */
} hd_dw_brow_args;

/* Edge rows: a filter of S taps along the row (1 to 3, dilation 1, stride cs) over a run of
 * results read in place from an NHWC tensor, including the results whose taps fall off the
 * row's ends, so a short row is one call instead of an interior run plus border results one
 * at a time.  Chunk column m of row i (m = j*cs + t for result j and tap t) is at
 * rows[i] + ips*(m - skip_l); the columns m < skip_l and m >= (nb-1)*cs + S - skip_r lie
 * outside the source row and their terms are left out (skip_l, skip_r are 0 or 1).
 * Result j < nb, lane l, at out + j*ops:
 *   alpha * sum_{i < nr} sum_{t < S, column inside} w[i][16*t + l] * rows[i][...]
 *   (+ beta * its old value when beta != 0),
 * terms row by row, tap by tap: the bits of the blocked row kernels over zero-bordered rows
 * (a zero term changes no sum but the sign of a zero).  The kernel takes only the
 * combinations hd_dw_erow_takes accepts.  One call may cover nblk blocks of 16 channels that
 * lie back to back (an NHWC row's channel blocks): block b reads rows[i] + 16*b and the
 * weights w[i] + wbs*b and writes out + 16*b, with the bits of one call per block; nblk 0
 * counts as 1.  (One call per block spent a large share of a short chunk's time on the call
 * and its argument set-up.) */
typedef struct {
    float *out;
    int64_t ops;
    size_t nb;
    const float *const *rows;
    const float *const *w;
    size_t nr, S, cs;
    int skip_l, skip_r;
    float alpha, beta;
    int64_t ips;
    int stream;                   /* as in hd_dw_brow_args */
    size_t nblk;
    int64_t wbs;
} hd_dw_erow_args;

/* Chunks of 16, 14, 8 or 7 results; 3 taps at stride 1 or 2 with either end cut, or (the
 * phases of stride-2 backward data) 2 taps at stride 1 cut at the right, 1 tap uncut. */
static inline int hd_dw_erow_takes(int64_t nb, int64_t S, int64_t cs, int64_t skip_l, int64_t skip_r)
{
    if (nb != 7 && nb != 8 && nb != 14 && nb != 16)
        return 0;
    if (skip_l < 0 || skip_l > 1 || skip_r < 0 || skip_r > 1)
        return 0;
    if (S == 3)
        return cs == 1 || cs == 2;
    return cs == 1 && skip_l == 0 && (S == 2 || (S == 1 && skip_r == 0));
}

/* The backward-filter twin of the edge rows: acc[i][16*t + l] += sum over results j < nb, in
 * increasing order, of dy[dps*j + l] * (chunk column j*cs + t of row i), for t < 3, the
 * columns laid out and left out as in hd_dw_erow_args (3 taps, cs 1 or 2, nb as there).  Over
 * nblk channel blocks back to back (0 counts as 1): block b reads rows[i] + 16*b and
 * dy + 16*b and adds into acc[i] + acc_bs*b, as one call per block would. */
typedef struct {
    float *const *acc;
    const float *dy;
    size_t nb;
    const float *const *rows;
    size_t nr, cs;
    int skip_l, skip_r;
    int64_t ips, dps;
    size_t nblk;
    int64_t acc_bs;
} hd_dw_ewrow_args;

/* acc[i][16*s + l] += sum_{o < n} dy[dps*o + l] * rows[i][ips*(o*cs + s*cd) + l] (o increasing).
 * dps and ips are the pixel strides of dy and of the source rows: 16 for blocked rows, the
 * channel count for an NHWC tensor's own rows.  The kernels read only the pixels the sums
 * use. */
typedef struct {
    float *const *acc;
    const float *dy;
    size_t n;
    const float *const *rows;
    size_t nr, S, cs, cd;
    int64_t ips, dps;
} hd_dw_bwrow_args;

/* Channels c < nc of n pixels into blocked rows, 16 channels per block: block b = c / 16 at
 * dst + b*dbs, dst[b*dbs + 16*i + c%16] = src[c*cstr + i*pstr]; lanes past nc are set to 0.
 * Channels contiguous: pixel by pixel, all blocks (the source is read in order).  Pixels
 * contiguous: 16x16 transposes, whose loads may read past a row (not past end, the end of
 * the source tensor): masked loads that miss the cache are far slower. */
typedef void (*hd_dw_gather_fn)(float *dst, int64_t dbs, const float *src, size_t n, int64_t cstr, int64_t pstr,
                                size_t nc, const float *end);

/* d = dst[l*cstr + i*pstr] becomes alpha * src[16*i + l] + beta * d (d not read when beta == 0),
 * i < n, l < nl. */
typedef void (*hd_dw_scatter_fn)(float *dst, int64_t cstr, int64_t pstr, const float *src, size_t n, size_t nl,
                                 float alpha, float beta);

/* Small planes and strided rows (NCHW-like: the tensors' rows read and written in place with
 * masked loads and stores): one call computes a whole channel plane, so a 14x14 or 7x7 plane
 * needs neither a zeroed buffer nor a transpose into blocked rows.  A result row is cut into
 * nck chunks of 16 columns; chunk m reads a window of 32 source columns starting at column
 * w0 + m*adv (columns outside [0, sw) read as 0, nothing outside them is read).  Along the
 * row every tap is a table lookup: result column 16*m + j of tap s reads window column
 * idx[16*s + j] when bit j of tmask[s] is set, else 0; the table, the same for every chunk,
 * encodes stride, padding, dilation and, for backward data, the zero-upsampled dy.  Down the
 * plane, result row o and filter row r read source row b = o*vs - vpad + r*vd when b >= 0,
 * b % vup == 0 and b / vup < vsrc (row b / vup).  Per result the terms are summed filter row
 * by row, tap by tap, in increasing order. */
#define HD_DW_SPLANE_MAXS 8       /* taps along a row */
#define HD_DW_SPLANE_MAXRS 25     /* taps of the filter (backward filter keeps one vector each) */

typedef struct {
    const float *src;             /* source row q at src + q*srs, its columns [0, sw) */
    int64_t srs;
    int64_t sw;
    int64_t vs, vpad, vd, vup, vsrc;
    size_t R, S;
    size_t nck;                   /* chunks of 16 result columns per row */
    int64_t w0, adv;              /* window of chunk m: source columns w0 + m*adv + [0, 32) */
    const int32_t *idx;           /* [S][16], each < 32 */
    const uint16_t *tmask;        /* [S] */
} hd_dw_splane_geom;

/* out[o*ors + 16*m + j] (j in the lanes of lmask for the last chunk, all 16 for the others)
 * = alpha * sum (+ beta * its old value when beta != 0; not read when beta == 0), o < oh;
 * w[r*S + s] the weights. */
typedef struct {
    const hd_dw_splane_geom *g;
    float *out;
    int64_t ors;
    size_t oh;
    uint16_t lmask;
    const float *w;
    float alpha, beta;
} hd_dw_splane_args;

/* acc[(r*S + s)*16 + j] += sum over rows o < oh (increasing) and chunks m (increasing) of
 * dy[o*drs + 16*m + j] * (tap s of filter row r at result column 16*m + j), the lanes of the
 * last chunk outside lmask left out. */
typedef struct {
    const hd_dw_splane_geom *g;
    float *acc;
    const float *dy;
    int64_t drs;
    size_t oh;
    uint16_t lmask;
} hd_dw_swplane_args;

/* Flat planes (stride 1, source and result planes of the same shape, both stored with rows
 * back to back, at most 256 values): tap t of every result reads the source value d[t]
 * places further in the flat plane, so a vector of 16 results is one masked load per tap (no
 * permute), and a 7x7 plane is four vectors instead of seven mostly idle rows.  Result f < n,
 * tap t: the term w[t] * src[f + d[t]] when bit f % 16 of m[HD_DW_FPLANE_VECS*t + f / 16] is
 * set, else 0 (lanes whose source lies outside the plane must be clear: they are not read);
 * terms summed tap by tap.  out[f] = alpha * sum (+ beta * out[f] when beta != 0). */
#define HD_DW_FPLANE_MAX 256
#define HD_DW_FPLANE_VECS (HD_DW_FPLANE_MAX / 16)

typedef struct {
    const float *src;
    float *out;
    size_t n, T;
    const int32_t *d;             /* [T] */
    const uint16_t *m;            /* [T][HD_DW_FPLANE_VECS] */
    const float *w;               /* [T] */
    float alpha, beta;
} hd_dw_fplane_args;

/* acc[16*t + f % 16] += dy[f] * (the term of tap t for result f), f < n increasing. */
typedef struct {
    const float *src, *dy;
    float *acc;
    size_t n, T;
    const int32_t *d;
    const uint16_t *m;
} hd_dw_fwplane_args;

typedef struct {
    void (*row)(const hd_dw_row_args *a);
    void (*wrow)(const hd_dw_wrow_args *a);
    void (*brow)(const hd_dw_brow_args *a);
    void (*bwrow)(const hd_dw_bwrow_args *a);
    void (*erow)(const hd_dw_erow_args *a);   /* NULL: none for this ISA */
    void (*ewrow)(const hd_dw_ewrow_args *a); /* NULL: none for this ISA */
    void (*splane)(const hd_dw_splane_args *a);   /* NULL: none for this ISA */
    void (*swplane)(const hd_dw_swplane_args *a); /* NULL: none for this ISA */
    void (*fplane)(const hd_dw_fplane_args *a);   /* NULL: none for this ISA */
    void (*fwplane)(const hd_dw_fwplane_args *a); /* NULL: none for this ISA */
    hd_dw_gather_fn gather;
    hd_dw_scatter_fn scatter;
} hd_dw_kernels;

void hd_f32_dwconv_ukernel_row__scalar(const hd_dw_row_args *a);
void hd_f32_dwconv_ukernel_wrow__scalar(const hd_dw_wrow_args *a);
void hd_f32_dwconv_ukernel_brow__scalar(const hd_dw_brow_args *a);
void hd_f32_dwconv_ukernel_bwrow__scalar(const hd_dw_bwrow_args *a);
void hd_f32_dwconv_ukernel_gather__scalar(float *dst, int64_t dbs, const float *src, size_t n, int64_t cstr,
                                          int64_t pstr, size_t nc, const float *end);
void hd_f32_dwconv_ukernel_scatter__scalar(float *dst, int64_t cstr, int64_t pstr, const float *src, size_t n,
                                           size_t nl, float alpha, float beta);
void hd_f32_dwconv_ukernel_row__avx2(const hd_dw_row_args *a);
void hd_f32_dwconv_ukernel_wrow__avx2(const hd_dw_wrow_args *a);
void hd_f32_dwconv_ukernel_brow__avx2(const hd_dw_brow_args *a);
void hd_f32_dwconv_ukernel_bwrow__avx2(const hd_dw_bwrow_args *a);
void hd_f32_dwconv_ukernel_row__avx512(const hd_dw_row_args *a);
void hd_f32_dwconv_ukernel_erow__avx512(const hd_dw_erow_args *a);
void hd_f32_dwconv_ukernel_ewrow__avx512(const hd_dw_ewrow_args *a);
void hd_f32_dwconv_ukernel_wrow__avx512(const hd_dw_wrow_args *a);
void hd_f32_dwconv_ukernel_splane__avx512(const hd_dw_splane_args *a);
void hd_f32_dwconv_ukernel_swplane__avx512(const hd_dw_swplane_args *a);
void hd_f32_dwconv_ukernel_fplane__avx512(const hd_dw_fplane_args *a);
void hd_f32_dwconv_ukernel_fwplane__avx512(const hd_dw_fwplane_args *a);
void hd_f32_dwconv_ukernel_brow__avx512(const hd_dw_brow_args *a);
void hd_f32_dwconv_ukernel_bwrow__avx512(const hd_dw_bwrow_args *a);
void hd_f32_dwconv_ukernel_gather__avx512(float *dst, int64_t dbs, const float *src, size_t n, int64_t cstr,
                                          int64_t pstr, size_t nc, const float *end);
void hd_f32_dwconv_ukernel_gather__avx2(float *dst, int64_t dbs, const float *src, size_t n, int64_t cstr, int64_t pstr,
                                        size_t nc, const float *end);
void hd_f32_dwconv_ukernel_scatter__avx2(float *dst, int64_t cstr, int64_t pstr, const float *src, size_t n, size_t nl,
                                         float alpha, float beta);
void hd_f32_dwconv_ukernel_scatter__avx512(float *dst, int64_t cstr, int64_t pstr, const float *src, size_t n,
                                           size_t nl, float alpha, float beta);

/* The best variants for ISA (an hd_isa_t, lowered to what the CPU allows). */
hd_dw_kernels hd_f32_dw_select(int isa);

#endif
