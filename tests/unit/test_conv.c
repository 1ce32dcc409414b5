/*
 * Convolution correctness: every implemented algorithm of the three directions against the
 * float64 reference (tests/ref/conv_ref.c), over shape classes (1x1, 3x3, 5x5, 7x7 stride 2,
 * dilated, grouped, depthwise, 3-d, N=1, odd sizes, padding, both modes), layouts (NCHW,
 * NHWC, padded strides; NCHW and NHWC filters) and types (FLOAT, DOUBLE, HALF with FLOAT
 * and HALF compute, BFLOAT16).  Fills are small integers, so every result of the GEMM,
 * direct and Winograd F(2x2,3x3) methods is exact and compared with zero tolerance; FFT
 * (2-d and 3-d FFT_TILING) and Winograd F(4x4,3x3) and F(2x2,5x5) results get a tolerance
 * scaled with the reduction length.  Each algorithm runs with exactly the workspace its query
 * returned, and must refuse one byte less with the output untouched.
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "ref/conv_ref.h"

/* ---- storage conversions (exact for the small integers used here) ---- */

static double h2d(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

static uint16_t d2h(double v)                     /* v exactly representable, |v| >= 2^-14 or 0 */
{
    if (isnan(v))
        return 0x7e00;
    uint16_t s = v < 0 ? 0x8000 : 0;
    v = fabs(v);
    if (v == 0)
        return s;
    int e;
    double f = frexp(v, &e);                      /* v = f * 2^e, f in [0.5, 1) */
    int m = (int)(f * 2048) - 1024;
    return (uint16_t)(s | ((e + 14) << 10) | m);
}

static double bf2d(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t d2bf(double v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}

static size_t tsize(cudnnDataType_t t) { return t == CUDNN_DATA_DOUBLE ? 8 : t == CUDNN_DATA_FLOAT ? 4 : 2; }

static double get(const void *b, long i, cudnnDataType_t t)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: return ((const float *)b)[i];
    case CUDNN_DATA_DOUBLE: return ((const double *)b)[i];
    case CUDNN_DATA_HALF: return h2d(((const uint16_t *)b)[i]);
    default: return bf2d(((const uint16_t *)b)[i]);
    }
}

static void put(void *b, long i, cudnnDataType_t t, double v)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: ((float *)b)[i] = (float)v; break;
    case CUDNN_DATA_DOUBLE: ((double *)b)[i] = v; break;
    case CUDNN_DATA_HALF: ((uint16_t *)b)[i] = d2h(v); break;
    default: ((uint16_t *)b)[i] = d2bf(v); break;
    }
}

/* ---- a strided tensor in memory with its logical (packed NCDHW) mirror ---- */

enum { L_NCHW, L_NHWC, L_PADDED };

typedef struct {
    int nb;                       /* 4 or 5 */
    int dims[5];                  /* logical N C (D) H W */
    int strides[5];
    long span;                    /* elements of memory */
    cudnnDataType_t dt;
    void *mem;
} buf;

static void make_strides(buf *b, int layout)
{
    int nb = b->nb, *d = b->dims, *s = b->strides;
    if (layout == L_NHWC) {                        /* C fastest, then W, H, (D), N */
        s[1] = 1;
        long acc = d[1];
        for (int i = nb - 1; i >= 2; i--) {
            s[i] = (int)acc;
            acc *= d[i];
        }
        s[0] = (int)acc;
    } else {
        long acc = 1;
        for (int i = nb - 1; i >= 0; i--) {
            s[i] = (int)acc;
            acc = acc * d[i] + (layout == L_PADDED ? 1 : 0);   /* one unused element per row */
        }
    }
    long last = 0;
    for (int i = 0; i < nb; i++)
        last += (long)(d[i] - 1) * s[i];
    b->span = last + 1;
}

/* Memory offset of logical index li (packed NCDHW). */
static long offset_of(const buf *b, long li)
{
    long off = 0;
    for (int i = b->nb - 1; i >= 0; i--) {
        off += (li % b->dims[i]) * b->strides[i];
        li /= b->dims[i];
    }
    return off;
}

static void buf_alloc(buf *b, cudnnDataType_t dt, double fill)
{
    b->dt = dt;
    b->mem = malloc((size_t)b->span * tsize(dt));
    for (long i = 0; i < b->span; i++)
        put(b->mem, i, dt, fill);
}

static void buf_store(buf *b, const double *logical, long n)
{
    for (long i = 0; i < n; i++)
        put(b->mem, offset_of(b, i), b->dt, logical[i]);
}

static unsigned rng = 12345;
static int small_int(int range)
{
    rng = rng * 1103515245u + 12345u;
    return (int)((rng >> 16) % (unsigned)(2 * range + 1)) - range;
}

/* ---- cases ---- */

typedef struct {
    const char *name;
    int nsp, N, C, K, G;
    int in[3], flt[3], pad[3], str[3], dil[3];
} shape_case;

static const shape_case shapes[] = {
    {"1x1", 2, 2, 4, 6, 1, {1, 5, 4}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"3x3 pad", 2, 2, 3, 4, 1, {1, 6, 7}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"5x5 pad2 N=1", 2, 1, 2, 3, 1, {1, 7, 6}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {"7x7 stride 2", 2, 1, 2, 3, 1, {1, 11, 12}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2}, {1, 1, 1}},
    {"3x3 dilated 2", 2, 2, 2, 3, 1, {1, 7, 8}, {1, 3, 3}, {0, 2, 1}, {1, 1, 1}, {1, 2, 2}},
    {"grouped 2", 2, 2, 4, 6, 2, {1, 5, 5}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"depthwise", 2, 2, 4, 4, 4, {1, 6, 5}, {1, 3, 3}, {0, 1, 1}, {1, 2, 1}, {1, 1, 1}},
    {"odd 2x3 stride 3x2", 2, 3, 3, 2, 1, {1, 9, 7}, {1, 2, 3}, {0, 1, 0}, {1, 3, 2}, {1, 1, 2}},
    {"kernel > input", 2, 1, 1, 2, 1, {1, 2, 3}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"3x3 several FFT tiles", 2, 1, 2, 2, 1, {1, 37, 41}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"5x4 several FFT tiles", 2, 1, 1, 2, 1, {1, 33, 30}, {1, 5, 4}, {0, 2, 0}, {1, 1, 1}, {1, 1, 1}},
    {"3d 3x3x3", 3, 2, 2, 3, 1, {4, 5, 4}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
    {"3d stride dil grouped", 3, 1, 4, 2, 2, {5, 4, 6}, {2, 3, 2}, {1, 0, 1}, {2, 1, 2}, {1, 1, 2}},
};

typedef struct {
    cudnnDataType_t dt, ct;
    const char *name;
} type_case;

static const type_case types[] = {
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, "float"},
    {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, "double"},
    {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, "half (pseudo)"},
    {CUDNN_DATA_HALF, CUDNN_DATA_HALF, "half (true)"},
    {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, "bfloat16"},
};

static cudnnHandle_t handle;
static int runs;

typedef struct {
    conv_ref_shape rs;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    buf x, y, w;                  /* w: nb dims K C (T) R S, strides from the filter format */
    double *lx, *lw, *ly;
} setup;

static void setup_make(setup *S, const shape_case *sc, const type_case *tc, int layout, int wfmt, int flip)
{
    memset(S, 0, sizeof *S);
    conv_ref_shape *r = &S->rs;
    r->N = sc->N, r->C = sc->C, r->K = sc->K, r->G = sc->G, r->flip = flip;
    for (int i = 0; i < 3; i++) {
        r->in[i] = sc->in[i], r->flt[i] = sc->flt[i], r->pad[i] = sc->pad[i];
        r->str[i] = sc->str[i], r->dil[i] = sc->dil[i];
    }
    conv_ref_out_dims(r);
    int nb = sc->nsp + 2, off = 3 - sc->nsp;
    S->x.nb = S->y.nb = S->w.nb = nb;
    S->x.dims[0] = r->N, S->x.dims[1] = r->C;
    S->y.dims[0] = r->N, S->y.dims[1] = r->K;
    S->w.dims[0] = r->K, S->w.dims[1] = r->C / r->G;
    for (int i = 0; i < sc->nsp; i++) {
        S->x.dims[2 + i] = r->in[off + i];
        S->y.dims[2 + i] = r->out[off + i];
        S->w.dims[2 + i] = r->flt[off + i];
    }
    make_strides(&S->x, layout);
    make_strides(&S->y, layout);
    make_strides(&S->w, wfmt == 1 ? L_NHWC : L_NCHW);
    cudnnCreateTensorDescriptor(&S->xd);
    cudnnCreateTensorDescriptor(&S->yd);
    cudnnCreateFilterDescriptor(&S->wd);
    cudnnCreateConvolutionDescriptor(&S->cd);
    CHECK_OK(cudnnSetTensorNdDescriptor(S->xd, tc->dt, nb, S->x.dims, S->x.strides));
    CHECK_OK(cudnnSetTensorNdDescriptor(S->yd, tc->dt, nb, S->y.dims, S->y.strides));
    CHECK_OK(cudnnSetFilterNdDescriptor(S->wd, tc->dt, wfmt == 1 ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, nb,
                                        S->w.dims));
    CHECK_OK(cudnnSetConvolutionNdDescriptor(S->cd, sc->nsp, sc->pad + off, sc->str + off, sc->dil + off,
                                             flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION, tc->ct));
    CHECK_OK(cudnnSetConvolutionGroupCount(S->cd, sc->G));
    long nx = conv_ref_x_elems(r), nw = conv_ref_w_elems(r), ny = conv_ref_y_elems(r);
    int range = tc->dt == CUDNN_DATA_BFLOAT16 ? 1 : 2;
    S->lx = malloc(nx * sizeof(double));
    S->lw = malloc(nw * sizeof(double));
    S->ly = malloc(ny * sizeof(double));
    for (long i = 0; i < nx; i++)
        S->lx[i] = small_int(range);
    for (long i = 0; i < nw; i++)
        S->lw[i] = small_int(range);
    for (long i = 0; i < ny; i++)
        S->ly[i] = small_int(range);
    buf_alloc(&S->x, tc->dt, 77);
    buf_alloc(&S->w, tc->dt, 77);
    buf_alloc(&S->y, tc->dt, 77);
    buf_store(&S->x, S->lx, nx);
    buf_store(&S->w, S->lw, nw);
    buf_store(&S->y, S->ly, ny);
}

static void setup_free(setup *S)
{
    cudnnDestroyTensorDescriptor(S->xd);
    cudnnDestroyTensorDescriptor(S->yd);
    cudnnDestroyFilterDescriptor(S->wd);
    cudnnDestroyConvolutionDescriptor(S->cd);
    free(S->x.mem), free(S->y.mem), free(S->w.mem);
    free(S->lx), free(S->lw), free(S->ly);
}

enum { FWD, BWD_DATA, BWD_FILTER };
static const char *dir_name[] = {"fwd", "bwd_data", "bwd_filter"};
static const int algo_count[] = {CUDNN_CONVOLUTION_FWD_ALGO_COUNT, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                 CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT};

static cudnnStatus_t ws_size(setup *S, int dir, int algo, size_t *sz)
{
    switch (dir) {
    case FWD: return cudnnGetConvolutionForwardWorkspaceSize(handle, S->xd, S->wd, S->cd, S->yd, algo, sz);
    case BWD_DATA: return cudnnGetConvolutionBackwardDataWorkspaceSize(handle, S->wd, S->yd, S->cd, S->xd, algo, sz);
    default: return cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, S->xd, S->yd, S->cd, S->wd, algo, sz);
    }
}

static cudnnStatus_t run(cudnnHandle_t h, setup *S, int dir, int algo, void *ws, size_t wsz, double alpha,
                         double beta)
{
    float fa = (float)alpha, fb = (float)beta;
    int dbl = S->x.dt == CUDNN_DATA_DOUBLE;
    const void *pa = dbl ? (const void *)&alpha : (const void *)&fa, *pb = dbl ? (const void *)&beta : (const void *)&fb;
    switch (dir) {
    case FWD:
        return cudnnConvolutionForward(h, pa, S->xd, S->x.mem, S->wd, S->w.mem, S->cd, algo, ws, wsz, pb, S->yd,
                                       S->y.mem);
    case BWD_DATA:
        return cudnnConvolutionBackwardData(h, pa, S->wd, S->w.mem, S->yd, S->y.mem, S->cd, algo, ws, wsz, pb, S->xd,
                                            S->x.mem);
    default:
        return cudnnConvolutionBackwardFilter(h, pa, S->xd, S->x.mem, S->yd, S->y.mem, S->cd, algo, ws, wsz, pb,
                                              S->wd, S->w.mem);
    }
}

/* The output buffer of DIR and its logical contents before the call. */
static buf *out_buf(setup *S, int dir) { return dir == FWD ? &S->y : dir == BWD_DATA ? &S->x : &S->w; }
static double *out_logical(setup *S, int dir) { return dir == FWD ? S->ly : dir == BWD_DATA ? S->lx : S->lw; }
static long out_elems(setup *S, int dir)
{
    return dir == FWD ? conv_ref_y_elems(&S->rs) : dir == BWD_DATA ? conv_ref_x_elems(&S->rs) : conv_ref_w_elems(&S->rs);
}

/* Run DIR/ALGO and compare with alpha*ref + beta*old; restores the output afterwards. */
static void check_algo(setup *S, int dir, int algo, const char *what, double alpha, double beta)
{
    size_t wsz = 0;
    cudnnStatus_t st = ws_size(S, dir, algo, &wsz);
    if (st == CUDNN_STATUS_NOT_SUPPORTED)
        return;
    CHECK_OK(st);
    buf *o = out_buf(S, dir);
    size_t bytes = (size_t)o->span * tsize(o->dt);
    void *saved = malloc(bytes);
    memcpy(saved, o->mem, bytes);
    /* the workspace starts 4 bytes past malloc's alignment: every solver must work from any
       float-aligned start (hostdnn rounds it up to a cache line within the queried size), and
       the buffer ends exactly at the queried size, for the sanitizers */
    char *wsmem = wsz ? malloc(wsz + 4) : NULL;
    void *ws = wsmem ? wsmem + 4 : NULL;
    if (wsz > 0) {                                 /* one byte less is refused, output untouched */
        CHECK_STATUS(run(handle, S, dir, algo, ws, wsz - 1, alpha, beta), CUDNN_STATUS_BAD_PARAM);
        CHECK_MSG(memcmp(saved, o->mem, bytes) == 0, "%s: output written by a refused call", what);
    }
    long n = out_elems(S, dir);
    double *ref = malloc(n * sizeof(double));
    if (dir == FWD)
        conv_ref_fwd(&S->rs, S->lx, S->lw, ref);
    else if (dir == BWD_DATA)
        conv_ref_bwd_data(&S->rs, S->ly, S->lw, ref);
    else
        conv_ref_bwd_filter(&S->rs, S->lx, S->ly, ref);
    if (beta == 0) {                               /* beta == 0: the output is not read */
        double nan = NAN;
        for (long i = 0; i < n; i++)
            put(o->mem, offset_of(o, i), o->dt, nan);
    }
    st = run(handle, S, dir, algo, ws, wsz, alpha, beta);
    CHECK_MSG(st == CUDNN_STATUS_SUCCESS, "%s: %s", what, cudnnGetErrorString(st));
    runs++;
    const double *old = out_logical(S, dir);
    /* FFT rounds (not exact on integers): tolerance scaled with the reduction length */
    int fft = (dir == FWD && (algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT || algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING)) ||
              (dir == BWD_DATA && (algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT ||
                                   algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING)) ||
              (dir == BWD_FILTER && (algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT ||
                                     algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING));
    const conv_ref_shape *r = &S->rs;
    long taps = (long)r->flt[0] * r->flt[1] * r->flt[2];
    long len = dir == FWD ? r->C / r->G * taps : dir == BWD_DATA ? r->K / r->G * taps
                                                                 : (long)r->N * r->out[0] * r->out[1] * r->out[2];
    double tol = fft ? (o->dt == CUDNN_DATA_DOUBLE ? 1e-10 : 2e-5) * (double)len * 4 * fabs(alpha) : 0;
    /* Winograd F(4x4,3x3) (forward WINOGRAD_NONFUSED on FLOAT data, solver 109) rounds too:
     * its error is at most (Cg + 16) u times the absolute-value Winograd sum, which is at most
     * 48^2 max|x| max|w| per input channel (derivation in docs/algorithms.md); |x|, |w| <= 2 */
    if (dir == FWD && algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED && o->dt == CUDNN_DATA_FLOAT)
        tol = (double)(r->C / r->G + 16) * 0x1p-24 * 2304.0 * (double)(r->C / r->G) * 4 * fabs(alpha);
    /* and so does its backward-data form (solver 207): the same bound over the K / G channels */
    if (dir == BWD_DATA && algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED && o->dt == CUDNN_DATA_FLOAT)
        tol = (double)(r->K / r->G + 16) * 0x1p-24 * 2304.0 * (double)(r->K / r->G) * 4 * fabs(alpha);
    /* and its backward-filter form (solver 307): (T + 20) u S over the T 4x4 tiles of dy, with
     * S <= T * 225 * 100 * (5/3)^2 max|x| max|dy| (the row sums of |A|, |B^T| and the column
     * sums of |G|; docs/algorithms.md); 3x3 stride-1 problems only, the rest go to solver 306 */
    if (dir == BWD_FILTER && algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED &&
        o->dt == CUDNN_DATA_FLOAT) {
        double T = (double)r->N * (double)((r->out[1] + 3) / 4) * (double)((r->out[2] + 3) / 4);
        tol = (T + 20) * 0x1p-24 * T * 62500.0 * 4 * fabs(alpha);
    }
    /* Winograd F(2x2,5x5) (solvers 110, 208, 308; any type) rounds in every type: forward and
     * backward data within (L + 16) u S, S <= L * 49 * (31/24)^2 * 100 max|x| max|w| over the
     * L = Cg (K / G) channels summed; backward filter within (T + 20) u S over the T 2x2 dy
     * tiles, S <= T * 900 * (8/3)^2 max|x| max|dy| (docs/algorithms.md); float arithmetic
     * except for DOUBLE data */
    int wino5 = r->flt[1] == 5 && r->flt[2] == 5 &&
                ((dir == FWD && algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED) ||
                 (dir == BWD_DATA && algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED) ||
                 (dir == BWD_FILTER && algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED));
    if (wino5) {
        double u = o->dt == CUDNN_DATA_DOUBLE ? 0x1p-53 : 0x1p-24;
        double L = dir == BWD_DATA ? r->K / r->G : r->C / r->G;
        double T = (double)r->N * (double)((r->out[1] + 1) / 2) * (double)((r->out[2] + 1) / 2);
        tol = dir == BWD_FILTER ? (T + 20) * u * T * 6400.0 * 4 * fabs(alpha)
                                : (L + 16) * u * L * 8200.0 * 4 * fabs(alpha);
    }
    long bad = 0, first = -1;
    for (long i = 0; i < n; i++) {
        double want = alpha * ref[i] + (beta != 0 ? beta * old[i] : 0);
        double got = get(o->mem, offset_of(o, i), o->dt);
        if (!(fabs(got - want) <= tol)) {
            if (first < 0)
                first = i;
            bad++;
        }
    }
    CHECK_MSG(bad == 0, "%s: %ld of %ld wrong (first %ld: got %g want %g)", what, bad, n, first,
              first >= 0 ? get(o->mem, offset_of(o, first), o->dt) : 0.0,
              first >= 0 ? alpha * ref[first] + beta * old[first] : 0.0);
    /* gaps of padded layouts are untouched (beta != 0 runs keep the 77 fill) */
    if (beta != 0 && o->span > n) {
        long touched = 0;
        char *mark = calloc((size_t)o->span, 1);
        for (long i = 0; i < n; i++)
            mark[offset_of(o, i)] = 1;
        for (long i = 0; i < o->span; i++)
            if (!mark[i] && get(o->mem, i, o->dt) != 77)
                touched++;
        CHECK_MSG(touched == 0, "%s: %ld gap elements written", what, touched);
        free(mark);
    }
    memcpy(o->mem, saved, bytes);
    free(saved), free(wsmem), free(ref);
}

static void correctness(void)
{
    SECTION("correctness");
    for (unsigned si = 0; si < sizeof shapes / sizeof *shapes; si++)
        for (unsigned ti = 0; ti < sizeof types / sizeof *types; ti++)
            for (int layout = 0; layout < 3; layout++)
                for (int wfmt = 0; wfmt < 2; wfmt++) {
                    int flip = (si + layout + ti) % 2;
                    setup S;
                    setup_make(&S, &shapes[si], &types[ti], layout, wfmt, flip);
                    for (int dir = 0; dir < 3; dir++)
                        for (int algo = 0; algo < algo_count[dir]; algo++) {
                            char what[200];
                            snprintf(what, sizeof what, "%s %s layout %d wfmt %d %s %s algo %d", shapes[si].name,
                                     types[ti].name, layout, wfmt, flip ? "conv" : "xcorr", dir_name[dir], algo);
                            int blend = (si + algo) % 2;
                            check_algo(&S, dir, algo, what, blend ? 2 : 1, blend ? -1 : 0);
                        }
                    setup_free(&S);
                }
}

int main(void)
{
    /* one thread: many tiny problems, where a shared loaded machine makes thread start-up
     * dominate; test_conv_api checks every algorithm bitwise on 1 vs 3 threads */
    setenv("HOSTDNN_NUM_THREADS", "1", 0);
    CHECK_OK(cudnnCreate(&handle));
    correctness();
    printf("%d algorithm runs compared with the reference\n", runs);
    cudnnDestroy(handle);
    return hd_test_finish();
}
