/*
 * hostdnn_ops.c -- the hostdnn side of the memory-bound part of `make bench-compare`: times the
 * element-wise / reduction primitives on one large fp32 tensor in the NCHW or NHWC layout,
 * through the public cuDNN API only, as a user would call them.
 *
 *   hostdnn_ops [--reps R] [--threads 1,2] [--layout nchw|nhwc] [--n N --c C --h H --w W] [OP...]
 *   OP: see all_ops below  (default: all)
 *
 * Default tensor: N=32 C=64 H=W=112 fp32 = 98 MiB.  HOSTDNN_NUM_THREADS is read when a handle is
 * created, so each thread count gets its own handle (setenv, then cudnnCreate).
 * Output, one line per op and thread count:
 *   "<shape> <op>/<layout> hostdnn-t<threads> <median ms> <GB/s>"
 *
 * GB/s counts the bytes each operation has to move at the very least, with E = N*C*H*W elements
 * of 4 bytes and nothing cached between passes (the tensors are far larger than the caches):
 *   relu relu6 sigmoid tanh   activation forward: read x, write y            8E
 *   relu_bwd   cudnnActivationBackward: read dy and y, write dx             12E
 *   add        C = A + B (cudnnOpTensor ADD, beta 0): read A, B, write C     12E
 *   add_bias   cudnnAddTensor, C += bias (1 x C x 1 x 1): read C, write C    8E
 *   bn_fwd     statistics need one pass over x; normalising reads x
 *              again and writes y                                          12E
 *   bn_bwd     the two per-channel sums read x and dy; dx then reads x
 *              and dy again and writes dx                                  20E
 *   bn_infer   cudnnBatchNormalizationForwardInference: read x, write y     8E
 *   pool_max   3x3 stride 2 pad 1: read x once, write y (E/4)               4E + 4E/4
 *   pool_max_bwd  cudnnPoolingBackward of pool_max: read x and dy (E/4),
 *              write dx (the argmax is found again from x)                  8E + 4E/4
 *   pool_avg   AVERAGE 2x2 stride 2: read x, write y (E/4)                  4E + 4E/4
 *   pool_gap   global AVERAGE (window H x W): read x                        4E
 *   pool_avg_bwd  cudnnPoolingBackward of pool_avg: read dy (E/4), write dx 4E + 4E/4
 *   pool_gap_bwd  cudnnPoolingBackward of pool_gap: read dy (N*C), write dx 4E
 *   softmax    CHANNEL, at each (n,h,w) over C: read x, write y              8E
 *   softmax_inst  INSTANCE, over C*H*W per image: read x, write y           8E
 *   softmax_bwd   CHANNEL backward: read y and dy, write dx                 12E
 *   nchw2nhwc  cudnnTransformTensor to the other layout: read x, write y    8E
 * The same counts are used by onednn_ops.c, so the GB/s columns compare like with like.
 */
#define _POSIX_C_SOURCE 200809L
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_time.h"

#define CK(x) do { cudnnStatus_t s_ = (x); if (s_ != CUDNN_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudnnGetErrorString(s_)); exit(1); } } while (0)

static const char *all_ops[] = {"relu", "relu6", "sigmoid", "tanh", "relu_bwd", "add", "add_bias", "bn_fwd",
                                "bn_bwd", "bn_infer", "pool_max", "pool_max_bwd", "pool_avg", "pool_gap", "softmax", "softmax_inst",
                                "softmax_bwd", "nchw2nhwc", "pool_avg_bwd", "pool_gap_bwd"};
#define NOPS (sizeof all_ops / sizeof all_ops[0])

static float *filled(size_t n, unsigned seed)
{
    float *p = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        p[i] = (float)((i * 7 + seed) % 13) * 0.1f - 0.6f;
    return p;
}

/* Everything one run needs: tensors and descriptors, made once and shared by the ops. */
typedef struct {
    int n, c, h, w, oh, ow;
    int nhwc;                /* the user layout */
    size_t e, eo;
    float *x, *x2, *y, *dy, *dx, *yo;
    float *scale, *bias, *rmean, *rvar, *smean, *sinv, *dscale, *dbias;
    cudnnTensorDescriptor_t xd, yod, yad, ygd, otherd, bnd, biasd;
    cudnnActivationDescriptor_t act[4];    /* relu, clipped relu 6, sigmoid, tanh */
    cudnnOpTensorDescriptor_t opt;
    cudnnPoolingDescriptor_t pool, pavg, pgap;
} ctx;

static const float one = 1.0f, zero = 0.0f;

static void run_op(cudnnHandle_t h, ctx *c, const char *op)
{
    static const char *acts[4] = {"relu", "relu6", "sigmoid", "tanh"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(op, acts[i])) {
            CK(cudnnActivationForward(h, c->act[i], &one, c->xd, c->x, &zero, c->xd, c->y));
            return;
        }
    if (!strcmp(op, "relu_bwd")) {
        CK(cudnnActivationBackward(h, c->act[0], &one, c->xd, c->y, c->xd, c->dy, c->xd, c->x, &zero, c->xd, c->dx));
    } else if (!strcmp(op, "add")) {
        CK(cudnnOpTensor(h, c->opt, &one, c->xd, c->x, &one, c->xd, c->x2, &zero, c->xd, c->y));
    } else if (!strcmp(op, "add_bias")) {
        CK(cudnnAddTensor(h, &one, c->biasd, c->bias, &one, c->xd, c->y));
    } else if (!strcmp(op, "bn_fwd")) {
        CK(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, c->xd, c->x, c->xd, c->y,
                                                  c->bnd, c->scale, c->bias, 0.1, c->rmean, c->rvar, 1e-5,
                                                  c->smean, c->sinv));
    } else if (!strcmp(op, "bn_bwd")) {
        CK(cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, c->xd, c->x, c->xd,
                                           c->dy, c->xd, c->dx, c->bnd, c->scale, c->dscale, c->dbias, 1e-5,
                                           c->smean, c->sinv));
    } else if (!strcmp(op, "bn_infer")) {
        CK(cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, c->xd, c->x, c->xd, c->y,
                                                   c->bnd, c->scale, c->bias, c->rmean, c->rvar, 1e-5));
    } else if (!strcmp(op, "pool_max")) {
        CK(cudnnPoolingForward(h, c->pool, &one, c->xd, c->x, &zero, c->yod, c->yo));
    } else if (!strcmp(op, "pool_max_bwd")) {
        CK(cudnnPoolingBackward(h, c->pool, &one, c->yod, c->yo, c->yod, c->dy, c->xd, c->x, &zero, c->xd, c->dx));
    } else if (!strcmp(op, "pool_avg")) {
        CK(cudnnPoolingForward(h, c->pavg, &one, c->xd, c->x, &zero, c->yad, c->yo));
    } else if (!strcmp(op, "pool_gap")) {
        CK(cudnnPoolingForward(h, c->pgap, &one, c->xd, c->x, &zero, c->ygd, c->yo));
    } else if (!strcmp(op, "pool_avg_bwd")) {
        CK(cudnnPoolingBackward(h, c->pavg, &one, c->yad, c->yo, c->yad, c->dy, c->xd, c->x, &zero, c->xd, c->dx));
    } else if (!strcmp(op, "pool_gap_bwd")) {
        CK(cudnnPoolingBackward(h, c->pgap, &one, c->ygd, c->yo, c->ygd, c->dy, c->xd, c->x, &zero, c->xd, c->dx));
    } else if (!strcmp(op, "softmax") || !strcmp(op, "softmax_inst")) {
        cudnnSoftmaxMode_t m = op[7] ? CUDNN_SOFTMAX_MODE_INSTANCE : CUDNN_SOFTMAX_MODE_CHANNEL;
        CK(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, m, &one, c->xd, c->x, &zero, c->xd, c->y));
    } else if (!strcmp(op, "softmax_bwd")) {
        CK(cudnnSoftmaxBackward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, c->xd, c->y, c->xd, c->dy,
                                &zero, c->xd, c->dx));
    } else if (!strcmp(op, "nchw2nhwc")) {
        CK(cudnnTransformTensor(h, &one, c->xd, c->x, &zero, c->otherd, c->y));
    }
}

static double op_bytes(const ctx *c, const char *op)
{
    double e = (double)c->e * 4.0;
    if (!strcmp(op, "add") || !strcmp(op, "bn_fwd") || !strcmp(op, "relu_bwd") || !strcmp(op, "softmax_bwd"))
        return 3 * e;
    if (!strcmp(op, "bn_bwd"))
        return 5 * e;
    if (!strcmp(op, "pool_max") || !strcmp(op, "pool_avg"))
        return e + (double)c->eo * 4.0;
    if (!strcmp(op, "pool_gap") || !strcmp(op, "pool_gap_bwd"))
        return e;
    if (!strcmp(op, "pool_avg_bwd"))
        return e + (double)c->n * c->c * (c->h / 2) * (c->w / 2) * 4.0;
    if (!strcmp(op, "pool_max_bwd"))
        return 2 * e + (double)c->eo * 4.0;
    return 2 * e;
}

static void setup(ctx *c)
{
    c->e = (size_t)c->n * c->c * c->h * c->w;
    c->oh = (c->h + 2 - 3) / 2 + 1;
    c->ow = (c->w + 2 - 3) / 2 + 1;
    c->eo = (size_t)c->n * c->c * c->oh * c->ow;   /* the largest pooling output */
    c->x = filled(c->e, 0), c->x2 = filled(c->e, 3), c->y = filled(c->e, 5), c->dy = filled(c->e, 1);
    c->dx = filled(c->e, 2), c->yo = filled(c->eo, 4);
    float **pc[] = {&c->scale, &c->bias, &c->rmean, &c->rvar, &c->smean, &c->sinv, &c->dscale, &c->dbias};
    for (size_t i = 0; i < sizeof pc / sizeof pc[0]; i++)
        *pc[i] = filled((size_t)c->c, (unsigned)i);
    for (int i = 0; i < c->c; i++)
        c->rvar[i] = 1.0f, c->sinv[i] = 1.0f;
    cudnnTensorFormat_t f = c->nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    cudnnTensorFormat_t other = c->nhwc ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
    cudnnTensorDescriptor_t *tds[] = {&c->xd, &c->yod, &c->yad, &c->ygd, &c->otherd, &c->bnd, &c->biasd};
    for (size_t i = 0; i < sizeof tds / sizeof tds[0]; i++)
        CK(cudnnCreateTensorDescriptor(tds[i]));
    CK(cudnnSetTensor4dDescriptor(c->xd, f, CUDNN_DATA_FLOAT, c->n, c->c, c->h, c->w));
    CK(cudnnSetTensor4dDescriptor(c->otherd, other, CUDNN_DATA_FLOAT, c->n, c->c, c->h, c->w));
    CK(cudnnSetTensor4dDescriptor(c->yod, f, CUDNN_DATA_FLOAT, c->n, c->c, c->oh, c->ow));
    CK(cudnnSetTensor4dDescriptor(c->yad, f, CUDNN_DATA_FLOAT, c->n, c->c, c->h / 2, c->w / 2));
    CK(cudnnSetTensor4dDescriptor(c->ygd, f, CUDNN_DATA_FLOAT, c->n, c->c, 1, 1));
    CK(cudnnSetTensor4dDescriptor(c->biasd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, c->c, 1, 1));
    CK(cudnnDeriveBNTensorDescriptor(c->bnd, c->xd, CUDNN_BATCHNORM_SPATIAL));
    static const cudnnActivationMode_t modes[4] = {CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_CLIPPED_RELU,
                                                   CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_TANH};
    for (int i = 0; i < 4; i++) {
        CK(cudnnCreateActivationDescriptor(&c->act[i]));
        CK(cudnnSetActivationDescriptor(c->act[i], modes[i], CUDNN_NOT_PROPAGATE_NAN, 6.0));
    }
    CK(cudnnCreateOpTensorDescriptor(&c->opt));
    CK(cudnnSetOpTensorDescriptor(c->opt, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    CK(cudnnCreatePoolingDescriptor(&c->pool));
    CK(cudnnSetPooling2dDescriptor(c->pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 2, 2));
    CK(cudnnCreatePoolingDescriptor(&c->pavg));
    CK(cudnnSetPooling2dDescriptor(c->pavg, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 2, 2,
                                   0, 0, 2, 2));
    CK(cudnnCreatePoolingDescriptor(&c->pgap));
    CK(cudnnSetPooling2dDescriptor(c->pgap, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, c->h,
                                   c->w, 0, 0, 1, 1));
}

static void teardown(ctx *c)
{
    float *bufs[] = {c->x, c->x2, c->y, c->dy, c->dx, c->yo, c->scale, c->bias,
                     c->rmean, c->rvar, c->smean, c->sinv, c->dscale, c->dbias};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    cudnnTensorDescriptor_t tds[] = {c->xd, c->yod, c->yad, c->ygd, c->otherd, c->bnd, c->biasd};
    for (size_t i = 0; i < sizeof tds / sizeof tds[0]; i++)
        cudnnDestroyTensorDescriptor(tds[i]);
    for (int i = 0; i < 4; i++)
        cudnnDestroyActivationDescriptor(c->act[i]);
    cudnnDestroyOpTensorDescriptor(c->opt);
    cudnnDestroyPoolingDescriptor(c->pool);
    cudnnDestroyPoolingDescriptor(c->pavg);
    cudnnDestroyPoolingDescriptor(c->pgap);
}

int main(int argc, char **argv)
{
    int reps = 5;
    const char *threads = "1,2";
    ctx c;
    memset(&c, 0, sizeof c);
    c.n = 32, c.c = 64, c.h = 112, c.w = 112;
    const char *ops[NOPS];
    size_t nops = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int *dim = !strcmp(a, "--n") ? &c.n : !strcmp(a, "--c") ? &c.c : !strcmp(a, "--h") ? &c.h
                 : !strcmp(a, "--w") ? &c.w : NULL;
        if (dim && i + 1 < argc) {
            *dim = atoi(argv[++i]);
        } else if (!strcmp(a, "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(a, "--threads") && i + 1 < argc) {
            threads = argv[++i];
        } else if (!strcmp(a, "--layout") && i + 1 < argc) {
            c.nhwc = !strcmp(argv[++i], "nhwc");
        } else {
            size_t k = 0;
            while (k < NOPS && strcmp(all_ops[k], a))
                k++;
            if (k == NOPS || nops == NOPS) {
                fprintf(stderr, "usage: hostdnn_ops [--reps R] [--threads 1,2] [--layout nchw|nhwc] "
                                "[--n N --c C --h H --w W] [op...]\nops:");
                for (k = 0; k < NOPS; k++)
                    fprintf(stderr, " %s", all_ops[k]);
                fprintf(stderr, "\n");
                return 2;
            }
            ops[nops++] = all_ops[k];
        }
    }
    if (reps < 1 || reps > 1000 || c.n < 1 || c.c < 1 || c.h < 3 || c.w < 3) {
        fprintf(stderr, "hostdnn_ops: bad --reps or size\n");
        return 2;
    }
    if (!nops)
        for (; nops < NOPS; nops++)
            ops[nops] = all_ops[nops];
    setup(&c);
    char shape[64];
    snprintf(shape, sizeof shape, "n%dc%dh%dw%d", c.n, c.c, c.h, c.w);
    double *t = malloc((size_t)reps * sizeof *t);
    char tl[64];
    snprintf(tl, sizeof tl, "%s", threads);
    for (char *save = NULL, *tok = strtok_r(tl, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int th = atoi(tok);
        if (th < 1)
            continue;
        setenv("HOSTDNN_NUM_THREADS", tok, 1);
        cudnnHandle_t h;
        CK(cudnnCreate(&h));
        for (size_t k = 0; k < nops; k++) {
            if (!strcmp(ops[k], "bn_bwd")) /* saved statistics from a real forward pass */
                run_op(h, &c, "bn_fwd");
            if (!strcmp(ops[k], "relu_bwd") || !strcmp(ops[k], "softmax_bwd"))   /* y of a real forward */
                run_op(h, &c, ops[k][0] == 'r' ? "relu" : "softmax");
            run_op(h, &c, ops[k]); /* warm-up: page faults, thread start */
            int done = 0; /* a very slow path stops after 3 s of repetitions (at least 1) */
            for (double spent = 0; done < reps && (done == 0 || spent < 3000); done++) {
                double t0 = now_ms();
                run_op(h, &c, ops[k]);
                t[done] = now_ms() - t0;
                spent += t[done];
            }
            qsort(t, (size_t)done, sizeof *t, cmp_d);
            double med = done % 2 ? t[done / 2] : 0.5 * (t[done / 2 - 1] + t[done / 2]);
            printf("%s %s/%s hostdnn-t%d %.3f %.2f\n", shape, ops[k], c.nhwc ? "nhwc" : "nchw", th, med,
                   op_bytes(&c, ops[k]) / (med * 1e6));
            fflush(stdout);
        }
        CK(cudnnDestroy(h));
    }
    free(t);
    teardown(&c);
    return 0;
}
