/*
 * kernels/pool/pool-ukernels.h -- the pooling micro-kernels.  The direct row kernels under
 * 2-d max pooling forward on row-contiguous layouts (NCHW and the like).  One output row is made in two passes:
 *
 *   vertical:    col[i] = max over r < rows of x[r * ld + i]            i < n
 *   horizontal:  y[j]   = max over k < kw  of col[j * sw + k]           j < ow
 *
 * The caller lays col out as the padded input row (padding columns hold -inf, the identity
 * of max), so the horizontal pass needs no border logic.  Each fold starts from -inf and
 * takes its operands in the order written (rows top to bottom, then taps left to right): a
 * NaN never replaces the running value unless propagate != 0, in which case the first NaN met
 * becomes the running value, bits unchanged, and stays.  Ties (+0/-0) keep the earlier
 * operand.  So NOT_PROPAGATE gives the max of the window's non-NaN values (-inf if none), and
 * PROPAGATE a NaN whenever the window holds one.  Every variant gives bitwise the result of
 * the scalar one.
 *
 * The horizontal pass may read col[] up to HD_POOL_ROW_SLACK floats past col[(ow-1)*sw + kw - 1]
 * (whole-vector loads whose extra lanes are dropped); the caller allocates them.
 */
#ifndef HD_KERNELS_POOL_POOL_UKERNELS_H
#define HD_KERNELS_POOL_POOL_UKERNELS_H

#include <stddef.h>
#include <stdint.h>

#define HD_POOL_ROW_SLACK 32

typedef void (*hd_f32_pool_vmax_fn)(float *col, const float *x, ptrdiff_t ld, int rows, size_t n, int propagate);
typedef void (*hd_f32_pool_hmax_fn)(float *y, const float *col, size_t ow, int kw, int sw, int propagate);

void hd_f32_pool_ukernel_vmax__scalar(float *col, const float *x, ptrdiff_t ld, int rows, size_t n, int propagate);
void hd_f32_pool_ukernel_vmax__avx2(float *col, const float *x, ptrdiff_t ld, int rows, size_t n, int propagate);
void hd_f32_pool_ukernel_vmax__avx512(float *col, const float *x, ptrdiff_t ld, int rows, size_t n, int propagate);

void hd_f32_pool_ukernel_hmax__scalar(float *y, const float *col, size_t ow, int kw, int sw, int propagate);
void hd_f32_pool_ukernel_hmax__avx2(float *y, const float *col, size_t ow, int kw, int sw, int propagate);
void hd_f32_pool_ukernel_hmax__avx512(float *y, const float *col, size_t ow, int kw, int sw, int propagate);

/* Average pooling, the same passes with sums (float, in the order written, each sum starting
 * from its first operand; padding columns hold 0):
 *   vertical:    col[i] = x[i] + x[ld + i] + ... (rows terms)
 *   horizontal:  y[j] = (col[j*sw] + ... + col[j*sw + kw - 1]) / (vdiv * hdiv[j])
 * vdiv and hdiv[j] are the divisor's vertical and horizontal factors (small integers, so the
 * product is exact); the division is IEEE, the same in every variant. */
typedef void (*hd_f32_pool_vsum_fn)(float *col, const float *x, ptrdiff_t ld, int rows, size_t n);
typedef void (*hd_f32_pool_hsum_fn)(float *y, const float *col, size_t ow, int kw, int sw, const float *hdiv,
                                    float vdiv);
void hd_f32_pool_ukernel_vsum__scalar(float *col, const float *x, ptrdiff_t ld, int rows, size_t n);
void hd_f32_pool_ukernel_vsum__avx2(float *col, const float *x, ptrdiff_t ld, int rows, size_t n);
void hd_f32_pool_ukernel_vsum__avx512(float *col, const float *x, ptrdiff_t ld, int rows, size_t n);
void hd_f32_pool_ukernel_hsum__scalar(float *y, const float *col, size_t ow, int kw, int sw, const float *hdiv,
                                      float vdiv);
void hd_f32_pool_ukernel_hsum__avx2(float *y, const float *col, size_t ow, int kw, int sw, const float *hdiv,
                                    float vdiv);
void hd_f32_pool_ukernel_hsum__avx512(float *y, const float *col, size_t ow, int kw, int sw, const float *hdiv,
                                      float vdiv);

/* The best variants for ISA (an hd_isa_t, e.g. a handle's), capped by what the CPU allows. */
hd_f32_pool_vmax_fn hd_f32_pool_vmax_select(int isa);
hd_f32_pool_hmax_fn hd_f32_pool_hmax_select(int isa);
hd_f32_pool_vsum_fn hd_f32_pool_vsum_select(int isa);
hd_f32_pool_hsum_fn hd_f32_pool_hsum_select(int isa);

/* Pooling on channel-contiguous layouts (NHWC and the like): OW output positions, each a
 * vector of C channels made from its window's input C-vectors.
 *
 *   taps[j * ntaps + t]   the t-th input C-vector of output j (window order, each fold
 *                         runs in that order)
 *   max (op HD_POOL_NHWC_MAX / _MAX_PROPAGATE):  y_j[c] = running max over t, from -inf, with
 *         the NaN and tie rules of the row kernels above
 *   avg (op HD_POOL_NHWC_AVG):  y_j[c] = (taps[0][c] + ... + taps[ntaps-1][c]) / div[j]
 *         (float sums in tap order, one IEEE division)
 *   y_j = y + j * ystride.
 * stream != 0 asks for non-temporal stores (the caller passes it only when every y_j is
 * 64-byte aligned and C is a multiple of 16); the results are the same.  Every variant gives
 * bitwise the result of the scalar one. */
enum { HD_POOL_NHWC_MAX = 0, HD_POOL_NHWC_MAX_PROPAGATE = 1, HD_POOL_NHWC_AVG = 2 };
typedef void (*hd_f32_pool_nhwc_fn)(float *y, size_t ystride, size_t ow, const float *const *taps, int ntaps,
                                    size_t c, int op, const float *div, int stream);
void hd_f32_pool_ukernel_nhwc__scalar(float *y, size_t ystride, size_t ow, const float *const *taps, int ntaps,
                                      size_t c, int op, const float *div, int stream);
void hd_f32_pool_ukernel_nhwc__avx2(float *y, size_t ystride, size_t ow, const float *const *taps, int ntaps,
                                    size_t c, int op, const float *div, int stream);
void hd_f32_pool_ukernel_nhwc__avx512(float *y, size_t ystride, size_t ow, const float *const *taps, int ntaps,
                                      size_t c, int op, const float *div, int stream);
hd_f32_pool_nhwc_fn hd_f32_pool_nhwc_select(int isa);

/* Max pooling backward on channel-contiguous layouts: which tap holds each channel's maximum.
 *   arg[i] = the t < ntaps of taps[t][i] chosen by the running rule (from -inf, a strictly
 *            greater value replaces; with propagate != 0 the first NaN wins and stays), or -1
 *            when none is (only NaNs without propagation, or only -inf)
 * Every variant gives the scalar result. */
typedef void (*hd_f32_pool_argmax_fn)(const float *const *taps, int ntaps, size_t c, int propagate, int32_t *arg);
void hd_f32_pool_ukernel_argmax__scalar(const float *const *taps, int ntaps, size_t c, int propagate, int32_t *arg);
void hd_f32_pool_ukernel_argmax__avx2(const float *const *taps, int ntaps, size_t c, int propagate, int32_t *arg);
void hd_f32_pool_ukernel_argmax__avx512(const float *const *taps, int ntaps, size_t c, int propagate, int32_t *arg);
hd_f32_pool_argmax_fn hd_f32_pool_argmax_select(int isa);

/* The last step of pooling backward: dx[i] = (float)(alpha * acc[i] + beta * dx[i]) in double
 * (dx not read when beta == 0), then acc[i] = 0, for i < n.  Every variant: the scalar bits. */
typedef void (*hd_f32_pool_flush_fn)(float *dx, double *acc, size_t n, double alpha, double beta);
void hd_f32_pool_ukernel_flush__scalar(float *dx, double *acc, size_t n, double alpha, double beta);
void hd_f32_pool_ukernel_flush__avx512(float *dx, double *acc, size_t n, double alpha, double beta);
void hd_f32_pool_ukernel_flush__avx2(float *dx, double *acc, size_t n, double alpha, double beta);
hd_f32_pool_flush_fn hd_f32_pool_flush_select(int isa);

/* Max pooling backward on row-contiguous layouts (NCHW and the like): where the gradient of
 * each of ow outputs of one output row goes.
 *   rows[r]  the r-th window row (r < nrows), laid out as the padded input row (padding
 *            holds -inf, which is never chosen)
 *   t        the tap r * kw + k of rows[r][j * sw + k] chosen for output j by the running rule
 *            over the taps in row-major order (from -inf, a strictly greater value replaces;
 *            with propagate != 0 the first NaN wins and stays), if any
 *   arg[j] = tab[t] + j * sw (the caller's accumulator offset of that tap for output 0,
 *            moved by the stride), or -1 when no tap is chosen or tab[t] < 0
 * May read up to HD_POOL_BWD_ROW_SLACK floats past rows[r][(ow - 1) * sw + kw - 1] (whole
 * vectors whose extra lanes are dropped); the caller allocates them.  Every variant gives the
 * scalar result. */
#define HD_POOL_BWD_ROW_SLACK 48
typedef void (*hd_f32_pool_rowargmax_fn)(const float *const *rows, int nrows, size_t ow, int kw, int sw,
                                         const int32_t *tab, int propagate, int32_t *arg);
void hd_f32_pool_ukernel_rowargmax__scalar(const float *const *rows, int nrows, size_t ow, int kw, int sw,
                                           const int32_t *tab, int propagate, int32_t *arg);
void hd_f32_pool_ukernel_rowargmax__avx512(const float *const *rows, int nrows, size_t ow, int kw, int sw,
                                           const int32_t *tab, int propagate, int32_t *arg);
void hd_f32_pool_ukernel_rowargmax__avx2(const float *const *rows, int nrows, size_t ow, int kw, int sw,
                                         const int32_t *tab, int propagate, int32_t *arg);
hd_f32_pool_rowargmax_fn hd_f32_pool_rowargmax_select(int isa);

/* The flush above for beta == 0 with non-temporal stores where dx is 64-byte aligned, so that
 * writing dx does not first read it into the cache (the scalar variant is the plain flush).
 * The same bits as the scalar flush.  Its stores are weakly ordered: after its last call a
 * task calls the fence of the same ISA (stream_fence_select) before it ends. */
void hd_f32_pool_ukernel_flush_stream__avx512(float *dx, double *acc, size_t n, double alpha, double beta);
hd_f32_pool_flush_fn hd_f32_pool_flush_stream_select(int isa);
typedef void (*hd_f32_pool_fence_fn)(void);
void hd_f32_pool_ukernel_stream_fence__scalar(void);
void hd_f32_pool_ukernel_stream_fence__avx512(void);
hd_f32_pool_fence_fn hd_f32_pool_stream_fence_select(int isa);

/* Average pooling backward by gathering: each dx value sums, in a fixed order, the shares of
 * the outputs whose windows cover it (the callers' "terms", one per candidate output), so that
 * no accumulator array, no zeroing and no second pass over dx are needed.  For every dx value
 *   s = +0.0; for each term in order: s += the term's share (a double);
 *   dx = (float)(alpha * s + beta * dx)   in double (dx not read when beta == 0).
 * With the terms in output order this is bitwise the double sum in output order that
 * cudnnPoolingBackward promises.  Every variant gives the scalar result.
 *
 * Row form (row-contiguous layouts): w values of one dx row; pw the left padding, sw the
 * stride of the window along the row.  Term t reaches column iw when q = iw + pw - k[t] is a
 * multiple of sw, with the share src[t][q / sw].  src[t] must be readable for every index in
 * [-kmax / sw - 1, (w + pw + 16) / sw + 16] (kmax the largest k[t]), with 0.0 wherever the
 * index is not a real output (so that the vector variants may add it to lanes it does not
 * reach: a sum that starts at +0.0 never becomes -0.0, so adding +0.0 leaves it bitwise
 * unchanged). */
typedef void (*hd_f32_pool_gatherrow_fn)(float *dx, size_t w, int pw, int sw, int nterms, const double *const *src,
                                         const int32_t *k, double alpha, double beta);
void hd_f32_pool_ukernel_gatherrow__scalar(float *dx, size_t w, int pw, int sw, int nterms, const double *const *src,
                                           const int32_t *k, double alpha, double beta);
void hd_f32_pool_ukernel_gatherrow__avx2(float *dx, size_t w, int pw, int sw, int nterms, const double *const *src,
                                         const int32_t *k, double alpha, double beta);
void hd_f32_pool_ukernel_gatherrow__avx512(float *dx, size_t w, int pw, int sw, int nterms, const double *const *src,
                                           const int32_t *k, double alpha, double beta);
hd_f32_pool_gatherrow_fn hd_f32_pool_gatherrow_select(int isa);

/* Pixel form (channel-contiguous layouts): the c channels of one dx position; term t gives
 * channel i the share src[t][i].  stream != 0 (beta == 0 only) asks for non-temporal stores
 * where dx is 64-byte aligned; the caller then calls the stream fence of the same ISA after
 * its last call. */
typedef void (*hd_f32_pool_gatherpix_fn)(float *dx, size_t c, int nterms, const double *const *src, double alpha,
                                         double beta, int stream);
void hd_f32_pool_ukernel_gatherpix__scalar(float *dx, size_t c, int nterms, const double *const *src, double alpha,
                                           double beta, int stream);
void hd_f32_pool_ukernel_gatherpix__avx2(float *dx, size_t c, int nterms, const double *const *src, double alpha,
                                         double beta, int stream);
void hd_f32_pool_ukernel_gatherpix__avx512(float *dx, size_t c, int nterms, const double *const *src, double alpha,
                                           double beta, int stream);
hd_f32_pool_gatherpix_fn hd_f32_pool_gatherpix_select(int isa);

/* Pooling backward where each dx value takes exactly one output's value (average pooling
 * whose windows tile the input, global average pooling):
 *   share:     v[i] = g[i] / div + 0.0f                      i < n   (float, IEEE division)
 *   broadcast: dx[(j * rep + q) * c + i] = v[j * c + i]      j < n, q < rep, i < c
 * With alpha 1 and beta 0, (float)(+0.0 + (double)g / div) is g / div + 0.0f for a float g and
 * an integer div below 2^24: the double quotient rounded to float is the float quotient (double
 * has more than twice float's precision), and + 0.0 turns -0 into +0 in both.  stream != 0
 * asks for non-temporal stores where dx is 64-byte aligned (the caller fences after its last
 * call).  Every variant gives the scalar result. */
typedef void (*hd_f32_pool_share_fn)(float *v, const float *g, size_t n, float div);
typedef void (*hd_f32_pool_broadcast_fn)(float *dx, const float *v, size_t n, size_t rep, size_t c, int stream);
void hd_f32_pool_ukernel_share__scalar(float *v, const float *g, size_t n, float div);
void hd_f32_pool_ukernel_share__avx2(float *v, const float *g, size_t n, float div);
void hd_f32_pool_ukernel_share__avx512(float *v, const float *g, size_t n, float div);
void hd_f32_pool_ukernel_broadcast__scalar(float *dx, const float *v, size_t n, size_t rep, size_t c, int stream);
void hd_f32_pool_ukernel_broadcast__avx2(float *dx, const float *v, size_t n, size_t rep, size_t c, int stream);
void hd_f32_pool_ukernel_broadcast__avx512(float *dx, const float *v, size_t n, size_t rep, size_t c, int stream);
hd_f32_pool_share_fn hd_f32_pool_share_select(int isa);
hd_f32_pool_broadcast_fn hd_f32_pool_broadcast_select(int isa);

/* Max pooling backward by gathering, channel-contiguous layouts (NHWC and the like).
 * argmax8: the argmax kernel above with the tap as an int8 (callers keep ntaps <= 127).
 * maxgatherrow: the w positions of one dx row (position iw at dx + iw * dxw, c channels each)
 * from the outputs whose windows cover them (the "terms"), in output order:
 *   covering output rows r < nrows: argmax row arg[r] (output ow's c taps at ow * c), gradient
 *     row g[r] (output ow's c values at ow * gw), ty[r] the window row this dx row is in;
 *   covering outputs of column iw: ncov[iw] entries (ow, tx, width) at col[(iw * ncol + m) * 3],
 *     tx the window column iw is in, width the window's real columns;
 *   term (r, m), taken r first then m, gives channel i the gradient g[r][ow * gw + i] when
 *   arg[r][ow * c + i] == ty[r] * width + tx (that output's maximum is this position), else
 *   nothing; per channel
 *     s = +0.0; for each term in order: if hit, s += (double)gradient;
 *     dx[i] = (float)(alpha * s + beta * dx[i])   in double (dx not read when beta == 0)
 * bitwise the double sum in output order that cudnnPoolingBackward promises, without
 * accumulator rows or a flush pass.  nrows * ncol <= 128.  stream != 0 (beta == 0 only) asks
 * for non-temporal stores where dx is 64-byte aligned; the caller then calls the stream fence
 * of the same ISA after its last call.  Every variant gives the scalar result; the select
 * functions give NULL where no vector variant exists (the caller keeps the scatter path). */
typedef void (*hd_f32_pool_argmax8_fn)(const float *const *taps, int ntaps, size_t c, int propagate, int8_t *arg);
typedef void (*hd_f32_pool_maxgatherrow_fn)(float *dx, ptrdiff_t dxw, size_t w, size_t c, int nrows,
                                            const int8_t *const *arg, const float *const *g, const int32_t *ty,
                                            ptrdiff_t gw, const int32_t *col, const int32_t *ncov, int ncol,
                                            double alpha, double beta, int stream);
void hd_f32_pool_ukernel_argmax8__scalar(const float *const *taps, int ntaps, size_t c, int propagate, int8_t *arg);
void hd_f32_pool_ukernel_argmax8__avx512(const float *const *taps, int ntaps, size_t c, int propagate, int8_t *arg);
void hd_f32_pool_ukernel_maxgatherrow__scalar(float *dx, ptrdiff_t dxw, size_t w, size_t c, int nrows,
                                              const int8_t *const *arg, const float *const *g, const int32_t *ty,
                                              ptrdiff_t gw, const int32_t *col, const int32_t *ncov, int ncol,
                                              double alpha, double beta, int stream);
void hd_f32_pool_ukernel_maxgatherrow__avx512(float *dx, ptrdiff_t dxw, size_t w, size_t c, int nrows,
                                              const int8_t *const *arg, const float *const *g, const int32_t *ty,
                                              ptrdiff_t gw, const int32_t *col, const int32_t *ncov, int ncol,
                                              double alpha, double beta, int stream);
hd_f32_pool_argmax8_fn hd_f32_pool_argmax8_select(int isa);
hd_f32_pool_maxgatherrow_fn hd_f32_pool_maxgatherrow_select(int isa);

/* Max pooling backward 3x3 stride 2, channel-contiguous layouts, fused: one output row's
 * argmax and the sums of its gradients in one pass over its taps, so that nothing is kept
 * per output.  Output j < ow has the window columns 2j - pw, 2j - pw + 1, 2j - pw + 2 (those
 * in [0, w)) of the rows xr[0], xr[1], xr[2] (NULL: a row outside the input); position col
 * of row r at xr[r] + col * xw (pw is 0 or 1), output j's c gradients at g + j * gw; xr[3]
 * and xr[4] (the next output row's new rows) and gpf (its gradients) are only prefetched (NULL:
 * none).  Its gradient goes to
 * the window's first maximum in row-major order (the argmax rule above).
 * A window's first row (top) is the previous output row's last (bottom), and its first
 * column (shared column j, at 2j - pw) the previous output's last: the carries hold the
 * previous output row's part of the sums of its bottom row:
 *   cdin[j * cp + i]  shared column j (j <= ow), a double (up to four terms reach it)
 *   cfin[j * cp + i]  centre column of output j (j < ow), a float (at most two terms)
 * with cp = HD_POOL_MAX3S2_CP(c); the kernel writes this row's into cdout / cfout (zeros
 * for the first output row of a task).  Every dx value is the sum, in output order, of the
 * gradients whose argmax it is, from +0.0, rounded once to float (alpha 1, beta 0): bitwise
 * the double rule, floats summing where at most two terms reach (see maxgatherrow).  The
 * kernel writes the c channels of the window's top row into dtop and of its middle row into
 * dmid (position col at + col * dxw; NULL: not written), for the columns 2j - pw and
 * 2j - pw + 1 (j <= ow, the second for j < ow) that lie in [0, w); the caller sees that
 * every dx position is such a column.  max3s2_last writes the row held by a carry (the last
 * output row's bottom row) the same way.  stream != 0 asks for non-temporal stores where dx
 * is 64-byte aligned (the caller fences after its last call).  Every variant gives the
 * scalar result; the select functions give NULL where no vector variant exists. */
#define HD_POOL_MAX3S2_CP(c) (((c) + 15) / 16 * 16)
typedef void (*hd_f32_pool_max3s2_fn)(float *dtop, float *dmid, ptrdiff_t dxw, const float *const *xr, ptrdiff_t xw,
                                      size_t w, int pw, const float *g, const float *gpf, ptrdiff_t gw, size_t ow, size_t c,
                                      const double *cdin, const float *cfin, double *cdout, float *cfout,
                                      int propagate, int stream);
typedef void (*hd_f32_pool_max3s2_last_fn)(float *d, ptrdiff_t dxw, size_t w, int pw, size_t ow, size_t c,
                                           const double *cd, const float *cf, int stream);
void hd_f32_pool_ukernel_max3s2__scalar(float *dtop, float *dmid, ptrdiff_t dxw, const float *const *xr, ptrdiff_t xw,
                                        size_t w, int pw, const float *g, const float *gpf, ptrdiff_t gw, size_t ow, size_t c,
                                        const double *cdin, const float *cfin, double *cdout, float *cfout,
                                        int propagate, int stream);
void hd_f32_pool_ukernel_max3s2__avx512(float *dtop, float *dmid, ptrdiff_t dxw, const float *const *xr, ptrdiff_t xw,
                                        size_t w, int pw, const float *g, const float *gpf, ptrdiff_t gw, size_t ow, size_t c,
                                        const double *cdin, const float *cfin, double *cdout, float *cfout,
                                        int propagate, int stream);
void hd_f32_pool_ukernel_max3s2_last__scalar(float *d, ptrdiff_t dxw, size_t w, int pw, size_t ow, size_t c,
                                             const double *cd, const float *cf, int stream);
void hd_f32_pool_ukernel_max3s2_last__avx512(float *d, ptrdiff_t dxw, size_t w, int pw, size_t ow, size_t c,
                                             const double *cd, const float *cf, int stream);
hd_f32_pool_max3s2_fn hd_f32_pool_max3s2_select(int isa);
hd_f32_pool_max3s2_last_fn hd_f32_pool_max3s2_last_select(int isa);

/* The same pass along a row of one channel plane (NCHW and the like: columns contiguous):
 * xr, g, dtop and dmid as above with c = 1 and unit strides; the carries are plain arrays
 * (cdin[j], j <= ow; cfin[j], j < ow).  max3s2w_last writes the row held by a carry.  The
 * vector variant takes 16 outputs at once (the window's columns as even and odd input
 * columns).  Every variant gives the scalar result. */
typedef void (*hd_f32_pool_max3s2w_fn)(float *dtop, float *dmid, const float *const *xr, size_t w, int pw,
                                       const float *g, size_t ow, const double *cdin, const float *cfin,
                                       double *cdout, float *cfout, int propagate);
typedef void (*hd_f32_pool_max3s2w_last_fn)(float *d, size_t w, int pw, size_t ow, const double *cd, const float *cf);
void hd_f32_pool_ukernel_max3s2w__scalar(float *dtop, float *dmid, const float *const *xr, size_t w, int pw,
                                         const float *g, size_t ow, const double *cdin, const float *cfin,
                                         double *cdout, float *cfout, int propagate);
void hd_f32_pool_ukernel_max3s2w__avx512(float *dtop, float *dmid, const float *const *xr, size_t w, int pw,
                                         const float *g, size_t ow, const double *cdin, const float *cfin,
                                         double *cdout, float *cfout, int propagate);
void hd_f32_pool_ukernel_max3s2w_last__scalar(float *d, size_t w, int pw, size_t ow, const double *cd, const float *cf);
hd_f32_pool_max3s2w_fn hd_f32_pool_max3s2w_select(int isa);
hd_f32_pool_max3s2w_last_fn hd_f32_pool_max3s2w_last_select(int isa);

#endif
