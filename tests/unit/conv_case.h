/*
 * tests/unit/conv_case.h -- what the fp32 convolution solver tests share: a problem case
 * (2-d or 3-d, groups, padding, stride, dilation), a strided FLOAT tensor with its packed
 * logical mirror in NCHW-like, NHWC-like or padded layouts, the descriptors of one problem,
 * and a small deterministic generator (define CONV_CASE_SEED before including to pick the
 * stream).  Header-only, included by one test program each (which defines _GNU_SOURCE
 * first, for MAP_ANONYMOUS).
 */
#ifndef HD_TESTS_CONV_CASE_H
#define HD_TESTS_CONV_CASE_H

#include <cudnn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "ref/conv_ref.h"

#ifndef CONV_CASE_SEED
#define CONV_CASE_SEED 777
#endif

enum { L_NCHW, L_NHWC, L_PADDED, L_COUNT };
enum { D_FWD, D_BWDD, D_BWDF };

typedef struct {
    const char *name;
    int nsp, N, C, K, G;
    int in[3], flt[3], pad[3], str[3], dil[3];
} conv_case;

typedef struct {
    int nb, dims[5], strides[5];
    long span;
    float *mem;
} tens;

static void tens_init(tens *t, int nb, const int *dims, int layout)
{
    t->nb = nb;
    memcpy(t->dims, dims, sizeof(int) * (size_t)nb);
    int *s = t->strides;
    if (layout == L_NHWC) {
        long acc = dims[1];
        s[1] = 1;
        for (int i = nb - 1; i >= 2; i--) {
            s[i] = (int)acc;
            acc *= dims[i];
        }
        s[0] = (int)acc;
    } else {
        long acc = 1;
        for (int i = nb - 1; i >= 0; i--) {
            s[i] = (int)acc;
            acc = acc * dims[i] + (layout == L_PADDED ? 1 : 0);
        }
    }
    long last = 0;
    for (int i = 0; i < nb; i++)
        last += (long)(dims[i] - 1) * s[i];
    t->span = last + 1;
    t->mem = malloc((size_t)t->span * sizeof(float));
}

static long tens_off(const tens *t, long li)
{
    long off = 0;
    for (int i = t->nb - 1; i >= 0; i--) {
        off += (li % t->dims[i]) * t->strides[i];
        li /= t->dims[i];
    }
    return off;
}

static long tens_elems(const tens *t)
{
    long n = 1;
    for (int i = 0; i < t->nb; i++)
        n *= t->dims[i];
    return n;
}

static unsigned rng = CONV_CASE_SEED;
static inline int small_int(int range)
{
    rng = rng * 1103515245u + 12345u;
    return (int)((rng >> 16) % (unsigned)(2 * range + 1)) - range;
}

static inline float rnd_float(void)
{
    rng = rng * 1103515245u + 12345u;
    return (float)((rng >> 8) & 0xffff) / 65536.0f - 0.5f;
}

/* ---- one problem ---- */

typedef struct {
    conv_ref_shape rs;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    tens x, w, y;
} prob;

static void prob_make(prob *P, const conv_case *c, int layout, int flip)
{
    memset(P, 0, sizeof *P);
    conv_ref_shape *s = &P->rs;
    s->N = c->N, s->C = c->C, s->K = c->K, s->G = c->G, s->flip = flip;
    for (int j = 0; j < 3; j++) {
        s->in[j] = c->in[j], s->flt[j] = c->flt[j], s->pad[j] = c->pad[j];
        s->str[j] = c->str[j], s->dil[j] = c->dil[j];
    }
    conv_ref_out_dims(s);
    int nb = c->nsp + 2, o = 3 - c->nsp;
    int xdims[5] = {c->N, c->C}, ydims[5] = {c->N, c->K}, wdims[5] = {c->K, c->C / c->G};
    int pad[3], str[3], dil[3];
    for (int j = 0; j < c->nsp; j++) {
        xdims[2 + j] = c->in[o + j], ydims[2 + j] = s->out[o + j], wdims[2 + j] = c->flt[o + j];
        pad[j] = c->pad[o + j], str[j] = c->str[o + j], dil[j] = c->dil[o + j];
    }
    tens_init(&P->x, nb, xdims, layout);
    tens_init(&P->y, nb, ydims, layout);
    tens_init(&P->w, nb, wdims, layout == L_NHWC ? L_NHWC : L_NCHW);
    cudnnCreateTensorDescriptor(&P->xd);
    cudnnCreateTensorDescriptor(&P->yd);
    cudnnCreateFilterDescriptor(&P->wd);
    cudnnCreateConvolutionDescriptor(&P->cd);
    cudnnSetTensorNdDescriptor(P->xd, CUDNN_DATA_FLOAT, nb, xdims, P->x.strides);
    cudnnSetTensorNdDescriptor(P->yd, CUDNN_DATA_FLOAT, nb, ydims, P->y.strides);
    cudnnSetFilterNdDescriptor(P->wd, CUDNN_DATA_FLOAT, layout == L_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, nb,
                               wdims);
    cudnnSetConvolutionNdDescriptor(P->cd, c->nsp, pad, str, dil, flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    cudnnSetConvolutionGroupCount(P->cd, c->G);
}

static void prob_free(prob *P)
{
    free(P->x.mem), free(P->w.mem), free(P->y.mem);
    cudnnDestroyTensorDescriptor(P->xd);
    cudnnDestroyTensorDescriptor(P->yd);
    cudnnDestroyFilterDescriptor(P->wd);
    cudnnDestroyConvolutionDescriptor(P->cd);
}

/* Fill every element of T (padding too) with FILL, then the logical elements from L. */
static void tens_load(tens *t, const double *l, float fill)
{
    for (long i = 0; i < t->span; i++)
        t->mem[i] = fill;
    long n = tens_elems(t);
    for (long i = 0; i < n; i++)
        t->mem[tens_off(t, i)] = (float)l[i];
}

/* Run direction DIR of P with ALGO and exactly the workspace its query gives (one byte less
 * with SHORT_WS); the queried size goes to *WS_OUT when given. */
static inline cudnnStatus_t conv_case_run(cudnnHandle_t h, prob *P, int dir, int algo, float alpha, float beta,
                                          int short_ws, size_t *ws_out)
{
    size_t ws = 0;
    cudnnStatus_t st;
    if (dir == D_FWD)
        st = cudnnGetConvolutionForwardWorkspaceSize(h, P->xd, P->wd, P->cd, P->yd, (cudnnConvolutionFwdAlgo_t)algo, &ws);
    else if (dir == D_BWDD)
        st = cudnnGetConvolutionBackwardDataWorkspaceSize(h, P->wd, P->yd, P->cd, P->xd,
                                                          (cudnnConvolutionBwdDataAlgo_t)algo, &ws);
    else
        st = cudnnGetConvolutionBackwardFilterWorkspaceSize(h, P->xd, P->yd, P->cd, P->wd,
                                                            (cudnnConvolutionBwdFilterAlgo_t)algo, &ws);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (ws_out)
        *ws_out = ws;
    size_t give = short_ws && ws > 0 ? ws - 1 : ws;
    void *mem = give ? malloc(give) : NULL;
    if (dir == D_FWD)
        st = cudnnConvolutionForward(h, &alpha, P->xd, P->x.mem, P->wd, P->w.mem, P->cd, (cudnnConvolutionFwdAlgo_t)algo,
                                     mem, give, &beta, P->yd, P->y.mem);
    else if (dir == D_BWDD)
        st = cudnnConvolutionBackwardData(h, &alpha, P->wd, P->w.mem, P->yd, P->y.mem, P->cd,
                                          (cudnnConvolutionBwdDataAlgo_t)algo, mem, give, &beta, P->xd, P->x.mem);
    else
        st = cudnnConvolutionBackwardFilter(h, &alpha, P->xd, P->x.mem, P->yd, P->y.mem, P->cd,
                                            (cudnnConvolutionBwdFilterAlgo_t)algo, mem, give, &beta, P->wd, P->w.mem);
    free(mem);
    return st;
}

/* A handle whose computations use NT threads. */
static inline cudnnHandle_t conv_case_handle(int nt)
{
    char v[16];
    snprintf(v, sizeof v, "%d", nt);
    setenv("HOSTDNN_NUM_THREADS", v, 1);
    cudnnHandle_t h = NULL;
    cudnnCreate(&h);
    unsetenv("HOSTDNN_NUM_THREADS");
    return h;
}

/* RUN(h, ARG, out) computes a fixed set of problems on handle H and writes their N results to
 * OUT (with OUT NULL it only returns N).  The results on handles of 2, 3 and 5 threads must be
 * bitwise those of 1 thread; WHAT names the set in the failure message. */
static inline void conv_case_check_threads(long (*run)(cudnnHandle_t h, int arg, float *out), int arg,
                                           const char *what)
{
    long n = run(NULL, arg, NULL);
    float *a = malloc(sizeof(float) * (size_t)n), *b = malloc(sizeof(float) * (size_t)n);
    cudnnHandle_t h1 = conv_case_handle(1);
    run(h1, arg, a);
    cudnnDestroy(h1);
    static const int counts[] = {2, 3, 5};
    for (int i = 0; i < 3; i++) {
        cudnnHandle_t h = conv_case_handle(counts[i]);
        run(h, arg, b);
        cudnnDestroy(h);
        CHECK_MSG(!memcmp(a, b, sizeof(float) * (size_t)n), "%s: %d threads differ from 1", what, counts[i]);
    }
    free(a), free(b);
}

/* Run CHILD once per HOSTDNN_MAX_ISA cap (scalar, avx2, avx512; index CAP), each in its own
 * process with a 2-thread handle; a child's failed checks fail this section.  CHILD may
 * write N floats of results to OUT: avx2 and avx512 must then agree bit for bit, and scalar
 * (separately rounded multiply and add) within 1e-4 relative.  Call it before the process
 * starts worker threads (fork copies only the calling thread). */
#ifdef _WIN32
/* Windows has no fork(): the program runs itself again for each cap (it calls this first
 * thing in main, so the child does nothing else), and the child's results come back in a
 * file. */
static inline void conv_case_check_isa(long n, void (*child)(cudnnHandle_t h, int cap, float *out))
{
    const char *me = getenv("HD_CONV_ISA_CHILD"), *out_path = getenv("HD_CONV_ISA_OUT");
    size_t count = (size_t)(n > 0 ? n : 1);
    if (me && out_path) {
        float *out = calloc(count, sizeof(float));
        cudnnHandle_t h = conv_case_handle(2);
        child(h, atoi(me), out);
        cudnnDestroy(h);
        FILE *f = fopen(out_path, "wb");
        int wrote = f && fwrite(out, sizeof(float), count, f) == count;
        if (f)
            fclose(f);
        fflush(NULL);
        exit(hd_t_failed || !wrote ? 1 : 0);
    }
    SECTION("every HOSTDNN_MAX_ISA cap");
    const char *caps[3] = {"scalar", "avx2", "avx512"};
    float *shared = calloc(3 * count, sizeof(float));
    char self[MAX_PATH], dir[MAX_PATH], path[MAX_PATH + 64], idx[8];
    DWORD len = GetModuleFileNameA(NULL, self, sizeof self);
    if (!shared || len == 0 || len >= sizeof self || GetTempPathA(sizeof dir, dir) == 0) {
        CHECK(0);
        free(shared);
        return;
    }
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%shd_conv_isa_%lu_%d", dir, (unsigned long)GetCurrentProcessId(), i);
        snprintf(idx, sizeof idx, "%d", i);
        _putenv_s("HOSTDNN_MAX_ISA", caps[i]);
        _putenv_s("HD_CONV_ISA_CHILD", idx);
        _putenv_s("HD_CONV_ISA_OUT", path);
        fflush(NULL);
        intptr_t rc = _spawnl(_P_WAIT, self, self, (const char *)NULL);
        _putenv_s("HOSTDNN_MAX_ISA", "");
        _putenv_s("HD_CONV_ISA_CHILD", "");
        _putenv_s("HD_CONV_ISA_OUT", "");
        FILE *f = fopen(path, "rb");
        int got = f && fread(shared + (size_t)i * count, sizeof(float), count, f) == count;
        if (f)
            fclose(f);
        remove(path);
        CHECK_MSG(rc == 0 && got, "checks failed under HOSTDNN_MAX_ISA=%s", caps[i]);
    }
    if (n > 0) {
        CHECK_MSG(!memcmp(shared + n, shared + 2 * n, sizeof(float) * (size_t)n), "avx2 and avx512 results differ");
        long far = 0;
        for (long i = 0; i < n; i++)
            if (!(fabsf(shared[i] - shared[n + i]) <= 1e-4f * (1 + fabsf(shared[i]))))
                far++;
        CHECK_MSG(far == 0, "%ld scalar results differ from avx2 beyond rounding", far);
    }
    free(shared);
}
#else
static inline void conv_case_check_isa(long n, void (*child)(cudnnHandle_t h, int cap, float *out))
{
    SECTION("every HOSTDNN_MAX_ISA cap");
    const char *caps[3] = {"scalar", "avx2", "avx512"};
    size_t bytes = sizeof(float) * 3 * (size_t)(n > 0 ? n : 1);
    float *shared = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        CHECK(0);
        return;
    }
    for (int i = 0; i < 3; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            setenv("HOSTDNN_MAX_ISA", caps[i], 1);
            cudnnHandle_t h = conv_case_handle(2);
            child(h, i, shared + (size_t)i * (size_t)n);
            cudnnDestroy(h);
            _exit(hd_t_failed ? 1 : 0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "checks failed under HOSTDNN_MAX_ISA=%s", caps[i]);
    }
    if (n > 0) {
        CHECK_MSG(!memcmp(shared + n, shared + 2 * n, sizeof(float) * (size_t)n), "avx2 and avx512 results differ");
        long far = 0;
        for (long i = 0; i < n; i++)
            if (!(fabsf(shared[i] - shared[n + i]) <= 1e-4f * (1 + fabsf(shared[i]))))
                far++;
        CHECK_MSG(far == 0, "%ld scalar results differ from avx2 beyond rounding", far);
    }
    munmap(shared, bytes);
}
#endif /* _WIN32 */

#endif
