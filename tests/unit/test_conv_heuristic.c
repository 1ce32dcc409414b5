/*
 * The default algorithm of every benchmark shape: what cudnnGetConvolution*Algorithm_v7 puts
 * first must succeed, and its workspace must stay within the performance issue's budget --
 * no larger than the larger of the operation's input tensor and 64 MiB -- in every direction,
 * for batch 16 and batch 1, NCHW and NHWC.  Descriptor calls only (nothing is computed), so
 * the whole shape list is cheap to walk.
 *
 * The shapes are the benchmark files in bench/shapes/ (found through HD_ROOT, which
 * tests/run_all.sh exports); without HD_ROOT a built-in cross-section is used.
 */
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct {
    int g, n, c, h, w, k, r, s, p, u, d;
} shape;

static int parse(const char *str, shape *o)
{
    memset(o, 0, sizeof *o);
    o->g = o->u = o->d = 1;
    o->s = -1;
    for (const char *q = str; *q && *q != '_' && *q != '\n';) {
        char key = *q++;
        char *end;
        long v = strtol(q, &end, 10);
        if (end == q)
            return 0;
        q = end;
        switch (key) {
        case 'g': o->g = (int)v; break;
        case 'n': o->n = (int)v; break;
        case 'c': o->c = (int)v; break;
        case 'h': o->h = (int)v; break;
        case 'w': o->w = (int)v; break;
        case 'k': o->k = (int)v; break;
        case 'r': o->r = (int)v; break;
        case 's': o->s = (int)v; break;
        case 'p': o->p = (int)v; break;
        case 'u': o->u = (int)v; break;
        case 'd': o->d = (int)v; break;
        default: return 0;
        }
    }
    if (o->s < 0)
        o->s = o->r;
    if (!o->w)
        o->w = o->h;
    return o->n > 0 && o->c > 0 && o->h > 0 && o->k > 0 && o->r > 0;
}

static const char *builtin[] = {
    "g1n16c3h224w224k64r7s7p3u2_conv1",
    "g1n16c64h56w56k64r1s1p0u1_res2_1x1",
    "g1n16c64h56w56k64r3s3p1u1_res2_3x3",
    "g1n16c256h14w14k256r3s3p1u1_res4_3x3",
    "g1n16c512h7w7k512r3s3p1u1_res5_3x3",
    "g144n16c144h56w56k144r3s3p1u1_dw3",
    "g1n16c64h56w56k64r3s3p2u1d2_dilated2",
};

#define BUDGET ((size_t)64 << 20)

static void set4(cudnnTensorDescriptor_t d, int nhwc, int n, int c, int h, int w)
{
    CHECK_OK(cudnnSetTensor4dDescriptor(d, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
}

static void check_shape(cudnnHandle_t h, const char *name, const shape *sh, int nhwc)
{
    char where[200];
    snprintf(where, sizeof where, "%s n%d %s", name, sh->n, nhwc ? "NHWC" : "NCHW");
    SECTION(where);
    cudnnTensorDescriptor_t xD, yD;
    cudnnFilterDescriptor_t wD;
    cudnnConvolutionDescriptor_t cD;
    cudnnCreateTensorDescriptor(&xD);
    cudnnCreateTensorDescriptor(&yD);
    cudnnCreateFilterDescriptor(&wD);
    cudnnCreateConvolutionDescriptor(&cD);
    set4(xD, nhwc, sh->n, sh->c, sh->h, sh->w);
    CHECK_OK(cudnnSetFilter4dDescriptor(wD, CUDNN_DATA_FLOAT, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, sh->k,
                                        sh->c / sh->g, sh->r, sh->s));
    CHECK_OK(cudnnSetConvolution2dDescriptor(cD, sh->p, sh->p, sh->u, sh->u, sh->d, sh->d, CUDNN_CROSS_CORRELATION,
                                             CUDNN_DATA_FLOAT));
    CHECK_OK(cudnnSetConvolutionGroupCount(cD, sh->g));
    int n, c, oh, ow;
    CHECK_OK(cudnnGetConvolution2dForwardOutputDim(cD, xD, wD, &n, &c, &oh, &ow));
    set4(yD, nhwc, n, c, oh, ow);
    size_t xbytes = (size_t)sh->n * sh->c * sh->h * sh->w * 4, ybytes = (size_t)n * c * oh * ow * 4;
    int got = 0;
    size_t ws = 0;

    cudnnConvolutionFwdAlgoPerf_t fp[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, xD, wD, cD, yD, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, fp));
    CHECK(got > 0 && fp[0].status == CUDNN_STATUS_SUCCESS);
    CHECK_OK(cudnnGetConvolutionForwardWorkspaceSize(h, xD, wD, cD, yD, fp[0].algo, &ws));
    CHECK_MSG(ws <= (xbytes > BUDGET ? xbytes : BUDGET), "forward algo %d needs %zu bytes (x %zu)", (int)fp[0].algo,
              ws, xbytes);

    cudnnConvolutionBwdDataAlgoPerf_t dp[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    CHECK_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, wD, yD, cD, xD, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got,
                                                         dp));
    CHECK(got > 0 && dp[0].status == CUDNN_STATUS_SUCCESS);
    CHECK_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, wD, yD, cD, xD, dp[0].algo, &ws));
    CHECK_MSG(ws <= (ybytes > BUDGET ? ybytes : BUDGET), "backward data algo %d needs %zu bytes (dy %zu)",
              (int)dp[0].algo, ws, ybytes);

    cudnnConvolutionBwdFilterAlgoPerf_t wp[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, xD, yD, cD, wD, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                           &got, wp));
    CHECK(got > 0 && wp[0].status == CUDNN_STATUS_SUCCESS);
    CHECK_OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xD, yD, cD, wD, wp[0].algo, &ws));
    CHECK_MSG(ws <= (xbytes > BUDGET ? xbytes : BUDGET), "backward filter algo %d needs %zu bytes (x %zu)",
              (int)wp[0].algo, ws, xbytes);

    cudnnDestroyConvolutionDescriptor(cD);
    cudnnDestroyFilterDescriptor(wD);
    cudnnDestroyTensorDescriptor(yD);
    cudnnDestroyTensorDescriptor(xD);
}

static int check_line(cudnnHandle_t h, const char *line)
{
    shape sh;
    if (!parse(line, &sh))
        return 0;
    char name[160];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(line, "\n"), line);
    for (int batch = 0; batch < 2; batch++) {
        shape b = sh;
        if (batch)
            b.n = 1;
        for (int nhwc = 0; nhwc < 2; nhwc++)
            check_shape(h, name, &b, nhwc);
    }
    return 1;
}

int main(void)
{
    cudnnHandle_t h;
    CHECK_OK(cudnnCreate(&h));
    int shapes = 0;
    const char *root = getenv("HD_ROOT");
    static const char *files[] = {"resnet50.txt", "vgg16.txt", "mobilenet_v2.txt", "misc.txt", "report.txt"};
    if (root && *root) {
        for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
            char path[1024];
            snprintf(path, sizeof path, "%s/bench/shapes/%s", root, files[i]);
            FILE *f = fopen(path, "r");
            CHECK_MSG(f != NULL, "cannot open %s", path);
            if (!f)
                continue;
            char line[256];
            while (fgets(line, sizeof line, f))
                if (line[0] != '#' && line[0] != '\n')
                    shapes += check_line(h, line);
            fclose(f);
        }
    } else {
        for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
            shapes += check_line(h, builtin[i]);
    }
    CHECK(shapes > 0);
    printf("%d shapes x 2 batches x 2 layouts x 3 directions\n", shapes);
    cudnnDestroy(h);
    return hd_test_finish();
}
