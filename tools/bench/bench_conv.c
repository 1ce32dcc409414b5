/*
 * tools/bench/bench_conv.c -- hostdnn-bench --mode=conv: convolutions through the public cuDNN
 * API, the way a cuDNN program calls them (descriptors, an algorithm from
 * cudnnGetConvolution*Algorithm_v7 or cudnnFind*, a workspace of the size it asks for).
 *
 * Per problem and direction (--dir=fwd,bwd_d,bwd_w) it reports, like benchdnn's modes:
 *   --check=perf     median ms over --reps repetitions with 1 and N threads, GFLOP/s (direct
 *                    convolution FLOPs), share of the f32 peak of the machine's widest ISA for that thread count,
 *                    and the N-thread speed-up;
 *   --check=corr     the result against a float64 reference evaluated at up to 512 sampled
 *                    points: error / (sum of |terms| at that point) must stay below 1e-4
 *                    (fp32 accumulation over any algorithm incl. Winograd and FFT);
 *   --check=bitwise  the result of two calls with N threads and one with 1 thread, byte by
 *                    byte (deterministic algorithms must agree);
 *   --check=all      the three;
 *   --check=parse    nothing run: each problem's canonical form, output size and GFLOP.
 * The handle of each thread count is created with HOSTDNN_NUM_THREADS set to it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "core/memory.h"
#include "cudnn.h"

enum { D_FWD, D_BWDD, D_BWDF };
static const char *const dir_name[] = {"fwd", "bwd_d", "bwd_w"};

typedef struct {
    const conv_prob *c;
    int dir, nhwc;
    cudnnTensorDescriptor_t xD, yD;
    cudnnFilterDescriptor_t wD;
    cudnnConvolutionDescriptor_t cD;
    float *x, *w, *y, *out;     /* out: the buffer the direction writes (y, dx or dw) */
    size_t nx, nw, ny, nout;
    int algo;
    void *ws;
    size_t ws_size;
} conv_run;

#define CK(call) do { cudnnStatus_t s_ = (call); if (s_ != CUDNN_STATUS_SUCCESS) { \
    fprintf(stderr, "hostdnn-bench: %s: %s\n", #call, cudnnGetErrorString(s_)); return -1; } } while (0)

static void fill(float *v, size_t n, uint32_t seed)
{
    uint32_t s = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        v[i] = (float)((double)(s >> 8) / (double)(1u << 24) * 2.0 - 1.0);
    }
}

/* Element offsets of the user tensors: NCHW / KCRS, or NHWC / KRSC. */
static size_t xoff(const conv_run *r, size_t n, size_t ch, size_t h, size_t w)
{
    const conv_prob *c = r->c;
    return r->nhwc ? ((n * c->h + h) * c->w + w) * c->c + ch : ((n * c->c + ch) * c->h + h) * c->w + w;
}
static size_t yoff(const conv_run *r, size_t n, size_t k, size_t h, size_t w)
{
    const conv_prob *c = r->c;
    return r->nhwc ? ((n * c->oh + h) * c->ow + w) * c->k + k : ((n * c->k + k) * c->oh + h) * c->ow + w;
}
static size_t woff(const conv_run *r, size_t k, size_t cg, size_t i, size_t j)
{
    const conv_prob *c = r->c;
    size_t Cg = c->c / c->g;
    return r->nhwc ? ((k * c->r + i) * c->s + j) * Cg + cg : ((k * Cg + cg) * c->r + i) * c->s + j;
}

static int setup(conv_run *r, cudnnHandle_t h)
{
    const conv_prob *c = r->c;
    cudnnTensorFormat_t f = r->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    CK(cudnnCreateTensorDescriptor(&r->xD));
    CK(cudnnCreateTensorDescriptor(&r->yD));
    CK(cudnnCreateFilterDescriptor(&r->wD));
    CK(cudnnCreateConvolutionDescriptor(&r->cD));
    CK(cudnnSetTensor4dDescriptor(r->xD, f, CUDNN_DATA_FLOAT, (int)c->n, (int)c->c, (int)c->h, (int)c->w));
    CK(cudnnSetFilter4dDescriptor(r->wD, CUDNN_DATA_FLOAT, f, (int)c->k, (int)(c->c / c->g), (int)c->r, (int)c->s));
    CK(cudnnSetConvolution2dDescriptor(r->cD, (int)c->pad_h, (int)c->pad_w, (int)c->stride_h, (int)c->stride_w,
                                       (int)c->dil_h, (int)c->dil_w, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CK(cudnnSetConvolutionGroupCount(r->cD, (int)c->g));
    CK(cudnnSetTensor4dDescriptor(r->yD, f, CUDNN_DATA_FLOAT, (int)c->n, (int)c->k, (int)c->oh, (int)c->ow));
    r->nx = c->n * c->c * c->h * c->w;
    r->ny = c->n * c->k * c->oh * c->ow;
    r->nw = c->k * (c->c / c->g) * c->r * c->s;
    /* aligned like cudaMalloc'd buffers (a malloc'd one starts 16 bytes past a cache line) */
    r->x = hd_aligned_alloc(r->nx * sizeof(float));
    r->y = hd_aligned_alloc(r->ny * sizeof(float));
    r->w = hd_aligned_alloc(r->nw * sizeof(float));
    if (!r->x || !r->y || !r->w) {
        fprintf(stderr, "hostdnn-bench: out of memory\n");
        return -1;
    }
    fill(r->x, r->nx, 1);
    fill(r->w, r->nw, 2);
    fill(r->y, r->ny, 3);
    r->out = r->dir == D_FWD ? r->y : r->dir == D_BWDD ? r->x : r->w;
    r->nout = r->dir == D_FWD ? r->ny : r->dir == D_BWDD ? r->nx : r->nw;
    (void)h;
    return 0;
}

static int pick_algo(conv_run *r, cudnnHandle_t h, const bench_opts *o, char *name, size_t len)
{
    int got = 0;
    if (o->conv_algo >= 0) {
        r->algo = o->conv_algo;
    } else if (r->dir == D_FWD) {
        cudnnConvolutionFwdAlgoPerf_t p[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        if (o->conv_find)
            CK(cudnnFindConvolutionForwardAlgorithm(h, r->xD, r->wD, r->cD, r->yD, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, p));
        else
            CK(cudnnGetConvolutionForwardAlgorithm_v7(h, r->xD, r->wD, r->cD, r->yD, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, p));
        r->algo = p[0].algo;
    } else if (r->dir == D_BWDD) {
        cudnnConvolutionBwdDataAlgoPerf_t p[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        if (o->conv_find)
            CK(cudnnFindConvolutionBackwardDataAlgorithm(h, r->wD, r->yD, r->cD, r->xD, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, p));
        else
            CK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, r->wD, r->yD, r->cD, r->xD, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, p));
        r->algo = p[0].algo;
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t p[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        if (o->conv_find)
            CK(cudnnFindConvolutionBackwardFilterAlgorithm(h, r->xD, r->yD, r->cD, r->wD, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, p));
        else
            CK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, r->xD, r->yD, r->cD, r->wD, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, p));
        r->algo = p[0].algo;
    }
    if (r->dir == D_FWD)
        CK(cudnnGetConvolutionForwardWorkspaceSize(h, r->xD, r->wD, r->cD, r->yD, (cudnnConvolutionFwdAlgo_t)r->algo, &r->ws_size));
    else if (r->dir == D_BWDD)
        CK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, r->wD, r->yD, r->cD, r->xD, (cudnnConvolutionBwdDataAlgo_t)r->algo, &r->ws_size));
    else
        CK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, r->xD, r->yD, r->cD, r->wD, (cudnnConvolutionBwdFilterAlgo_t)r->algo, &r->ws_size));
    r->ws = r->ws_size ? hd_aligned_alloc(r->ws_size) : NULL;
    if (r->ws_size && !r->ws) {
        fprintf(stderr, "hostdnn-bench: cannot allocate a %zu-byte workspace\n", r->ws_size);
        return -1;
    }
    snprintf(name, len, "%s algo %d", o->conv_find ? "find" : o->conv_algo >= 0 ? "forced" : "heuristic", r->algo);
    return 0;
}

static int run_once(conv_run *r, cudnnHandle_t h)
{
    const float one = 1.0f, zero = 0.0f;
    if (r->dir == D_FWD)
        CK(cudnnConvolutionForward(h, &one, r->xD, r->x, r->wD, r->w, r->cD, (cudnnConvolutionFwdAlgo_t)r->algo,
                                   r->ws, r->ws_size, &zero, r->yD, r->y));
    else if (r->dir == D_BWDD)
        CK(cudnnConvolutionBackwardData(h, &one, r->wD, r->w, r->yD, r->y, r->cD, (cudnnConvolutionBwdDataAlgo_t)r->algo,
                                        r->ws, r->ws_size, &zero, r->xD, r->x));
    else
        CK(cudnnConvolutionBackwardFilter(h, &one, r->xD, r->x, r->yD, r->y, r->cD,
                                          (cudnnConvolutionBwdFilterAlgo_t)r->algo, r->ws, r->ws_size, &zero, r->wD,
                                          r->w));
    return 0;
}

/* Median ms per call: each repetition repeats the call for at least min_time seconds. */
static double time_ms(conv_run *r, cudnnHandle_t h, const bench_opts *o)
{
    double v[64];
    if (run_once(r, h))
        return -1;                                /* warm-up */
    for (int i = 0; i < o->reps; i++) {
        int calls = 0;
        double t0 = bench_now(), t;
        do {
            if (run_once(r, h))
                return -1;
            calls++;
            t = bench_now() - t0;
        } while (t < o->min_time);
        v[i] = 1e3 * t / calls;
    }
    return bench_median(v, (size_t)o->reps);
}

/* float64 value of the output element at flat index i (in the layout of r), with the sum of
 * |terms| in *mag.  The inputs are the run's own buffers (the output buffer is not among them). */
static double ref_point(const conv_run *r, size_t i, double *mag)
{
    const conv_prob *c = r->c;
    size_t Cg = c->c / c->g, Kg = c->k / c->g;
    double s = 0, m = 0;
    if (r->dir == D_FWD) {
        size_t n, k, oh, ow;
        if (r->nhwc) {
            k = i % c->k, ow = (i / c->k) % c->ow, oh = (i / (c->k * c->ow)) % c->oh, n = i / (c->k * c->ow * c->oh);
        } else {
            ow = i % c->ow, oh = (i / c->ow) % c->oh, k = (i / (c->ow * c->oh)) % c->k, n = i / (c->ow * c->oh * c->k);
        }
        size_t g = k / Kg;
        for (size_t cg = 0; cg < Cg; cg++)
            for (size_t a = 0; a < c->r; a++)
                for (size_t b = 0; b < c->s; b++) {
                    long ih = (long)(oh * c->stride_h + a * c->dil_h) - (long)c->pad_h;
                    long iw = (long)(ow * c->stride_w + b * c->dil_w) - (long)c->pad_w;
                    if (ih < 0 || iw < 0 || ih >= (long)c->h || iw >= (long)c->w)
                        continue;
                    double t = (double)r->x[xoff(r, n, g * Cg + cg, (size_t)ih, (size_t)iw)] * r->w[woff(r, k, cg, a, b)];
                    s += t, m += t < 0 ? -t : t;
                }
    } else if (r->dir == D_BWDD) {
        size_t n, ch, ih, iw;
        if (r->nhwc) {
            ch = i % c->c, iw = (i / c->c) % c->w, ih = (i / (c->c * c->w)) % c->h, n = i / (c->c * c->w * c->h);
        } else {
            iw = i % c->w, ih = (i / c->w) % c->h, ch = (i / (c->w * c->h)) % c->c, n = i / (c->w * c->h * c->c);
        }
        size_t g = ch / Cg, cg = ch % Cg;
        for (size_t kk = 0; kk < Kg; kk++)
            for (size_t a = 0; a < c->r; a++)
                for (size_t b = 0; b < c->s; b++) {
                    long vh = (long)(ih + c->pad_h) - (long)(a * c->dil_h), vw = (long)(iw + c->pad_w) - (long)(b * c->dil_w);
                    if (vh < 0 || vw < 0 || vh % (long)c->stride_h || vw % (long)c->stride_w)
                        continue;
                    size_t oh = (size_t)vh / c->stride_h, ow = (size_t)vw / c->stride_w;
                    if (oh >= c->oh || ow >= c->ow)
                        continue;
                    size_t k = g * Kg + kk;
                    double t = (double)r->y[yoff(r, n, k, oh, ow)] * r->w[woff(r, k, cg, a, b)];
                    s += t, m += t < 0 ? -t : t;
                }
    } else {
        size_t k, cg, a, b;
        if (r->nhwc) {
            cg = i % Cg, b = (i / Cg) % c->s, a = (i / (Cg * c->s)) % c->r, k = i / (Cg * c->s * c->r);
        } else {
            b = i % c->s, a = (i / c->s) % c->r, cg = (i / (c->s * c->r)) % Cg, k = i / (c->s * c->r * Cg);
        }
        size_t g = k / Kg;
        for (size_t n = 0; n < c->n; n++)
            for (size_t oh = 0; oh < c->oh; oh++)
                for (size_t ow = 0; ow < c->ow; ow++) {
                    long ih = (long)(oh * c->stride_h + a * c->dil_h) - (long)c->pad_h;
                    long iw = (long)(ow * c->stride_w + b * c->dil_w) - (long)c->pad_w;
                    if (ih < 0 || iw < 0 || ih >= (long)c->h || iw >= (long)c->w)
                        continue;
                    double t = (double)r->y[yoff(r, n, k, oh, ow)] * r->x[xoff(r, n, g * Cg + cg, (size_t)ih, (size_t)iw)];
                    s += t, m += t < 0 ? -t : t;
                }
    }
    *mag = m;
    return s;
}

static int check_corr(conv_run *r, cudnnHandle_t h, double *worst)
{
    if (run_once(r, h))
        return -1;
    size_t samples = r->nout < 512 ? r->nout : 512;
    *worst = 0;
    int bad = 0;
    for (size_t q = 0; q < samples; q++) {
        size_t i = samples == r->nout ? q : (size_t)((double)q * (double)(r->nout - 1) / (double)(samples - 1));
        double mag, ref = ref_point(r, i, &mag);
        double err = (double)r->out[i] - ref;
        err = err < 0 ? -err : err;
        double rel = mag > 0 ? err / mag : err;
        if (rel > *worst)
            *worst = rel;
        if (!(rel <= 1e-4))
            bad++;
    }
    return bad;
}

static int check_bitwise(conv_run *r, cudnnHandle_t h1, cudnnHandle_t hn)
{
    float *a = malloc(r->nout * sizeof(float)), *b = malloc(r->nout * sizeof(float));
    int diff = -1;
    if (a && b && !run_once(r, hn)) {
        memcpy(a, r->out, r->nout * sizeof(float));
        if (!run_once(r, hn)) {
            memcpy(b, r->out, r->nout * sizeof(float));
            diff = memcmp(a, b, r->nout * sizeof(float)) != 0;
            if (!run_once(r, h1))
                diff |= (memcmp(a, r->out, r->nout * sizeof(float)) != 0) << 1;
        }
    }
    free(a);
    free(b);
    return diff;
}

static void teardown(conv_run *r)
{
    cudnnDestroyTensorDescriptor(r->xD);
    cudnnDestroyTensorDescriptor(r->yD);
    cudnnDestroyFilterDescriptor(r->wD);
    cudnnDestroyConvolutionDescriptor(r->cD);
    hd_aligned_free(r->x);
    hd_aligned_free(r->y);
    hd_aligned_free(r->w);
    hd_aligned_free(r->ws);
}

static cudnnHandle_t handle_with_threads(int n)
{
    char v[16];
    snprintf(v, sizeof v, "%d", n);
    setenv("HOSTDNN_NUM_THREADS", v, 1);
    cudnnHandle_t h = NULL;
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return NULL;
    return h;
}

int bench_mode_conv(const bench_opts *o, const bench_prob *probs, size_t n)
{
    if (o->check == 4) {
        for (size_t i = 0; i < n; i++)
            if (probs[i].kind == PROB_CONV)
                printf("%s%s%s  output %zux%zu, %.3f GFLOP per forward pass\n", probs[i].text,
                       probs[i].name[0] ? "_" : "", probs[i].name, probs[i].u.conv.oh, probs[i].u.conv.ow,
                       bench_prob_flops(&probs[i]) * 1e-9);
        return 0;
    }
    const char *dirs = o->conv_dirs ? o->conv_dirs : "fwd,bwd_d,bwd_w";
    int nt = o->threads[o->nthread_counts - 1];
    cudnnHandle_t h1 = handle_with_threads(1), hn = handle_with_threads(nt);
    if (!h1 || !hn) {
        fprintf(stderr, "hostdnn-bench: cudnnCreate failed\n");
        return 1;
    }
    int check = o->check, failures = 0;
    double peak1 = 0, peakn = 0;
    if (check == 0 || check == 3) {
        /* The machine's widest vector unit: the kernels that run are that ISA's. */
        peak1 = bench_peak_gflops(hd_cpu_isa(), 4, 1, o);
        if (nt > 1)
            peakn = bench_peak_gflops(hd_cpu_isa(), 4, nt, o);
    }
    printf("== conv: %s tensors, fp32, algorithm from %s; median of %d; %% of the %s f32 peak "
           "(%.1f GFLOP/s 1T, %.1f %dT)\n",
           o->conv_nhwc ? "NHWC" : "NCHW", o->conv_algo >= 0 ? "--algo" : o->conv_find ? "cudnnFind" : "_v7",
           o->reps, hd_isa_name(hd_cpu_isa()), peak1, peakn, nt);
    for (size_t i = 0; i < n; i++) {
        if (probs[i].kind != PROB_CONV)
            continue;
        for (int d = 0; d < 3; d++) {
            if (!strstr(dirs, dir_name[d]))
                continue;
            conv_run r;
            memset(&r, 0, sizeof r);
            r.c = &probs[i].u.conv;
            r.dir = d;
            r.nhwc = o->conv_nhwc;
            char algo[64];
            if (setup(&r, hn) || pick_algo(&r, hn, o, algo, sizeof algo)) {
                printf("%s%s%s %-5s  error (see above)\n", probs[i].text, probs[i].name[0] ? "_" : "", probs[i].name,
                       dir_name[d]);
                failures++;
                teardown(&r);
                continue;
            }
            double flops = bench_prob_flops(&probs[i]);
            printf("%s%s%s %-5s %-14s ws %6.1f MiB", probs[i].text, probs[i].name[0] ? "_" : "", probs[i].name,
                   dir_name[d], algo, (double)r.ws_size / (1 << 20));
            if (check == 0 || check == 3) {
                double t1 = time_ms(&r, h1, o), tn = -1;
                if (nt > 1)
                    tn = time_ms(&r, hn, o);
                if (t1 < 0 || (nt > 1 && tn < 0)) {
                    failures++;
                } else {
                    double g1 = flops / (t1 * 1e6);
                    printf("  1T %8.2f ms %7.1f GFLOP/s %3.0f%%", t1, g1, peak1 > 0 ? 100 * g1 / peak1 : 0);
                    if (nt > 1) {
                        double gn = flops / (tn * 1e6);
                        printf("  %dT %8.2f ms %7.1f GFLOP/s %3.0f%%  x%.2f", nt, tn, gn,
                               peakn > 0 ? 100 * gn / peakn : 0, t1 / tn);
                    }
                }
            }
            if (check == 1 || check == 3) {
                double worst = 0;
                int bad = check_corr(&r, hn, &worst);
                printf("  corr %s (worst %.1e)", bad ? "FAIL" : "ok", worst);
                failures += bad != 0;
            }
            if (check == 2 || check == 3) {
                int diff = check_bitwise(&r, h1, hn);
                printf("  bitwise %s", diff < 0 ? "error" : diff == 0 ? "identical" : diff == 1 ? "DIFFERS between runs"
                                                                                  : "DIFFERS between thread counts");
                failures += diff != 0;
            }
            printf("\n");
            fflush(stdout);
            teardown(&r);
        }
    }
    cudnnDestroy(h1);
    cudnnDestroy(hn);
    if (check)
        printf("conv: %d problem(s) failed\n", failures);
    return failures != 0;
}
