/*
 * The solver contract seen from outside: the dispatch record names the solver through the
 * structured hook (hostdnnDebugGetConvSolver), not only in its text; the text carries a
 * hostdnn-bench repro; HOSTDNN_CONV_FORCE runs the solver it names when that solver takes
 * the problem and the requested algorithm, and otherwise warns and chooses as usual;
 * HOSTDNN_CONV_DISABLE still turns solvers off; forcing never changes the workspace that the
 * size query and the run agree on.  See docs/solvers.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostdnn.h"
#include "harness.h"

static int last_id, last_dir, last_algo, records, warned;
static char last_text[1024];

static void cb(cudnnSeverity_t sev, void *ud, const cudnnDebug_t *dbg, const char *msg)
{
    (void)ud;
    int id, dir, algo;
    if (hostdnnDebugGetConvSolver(dbg, &id, &dir, &algo)) {
        last_id = id, last_dir = dir, last_algo = algo;
        records++;
        snprintf(last_text, sizeof last_text, "%s", msg);
    }
    if (sev == CUDNN_SEV_WARNING && msg && strstr(msg, "HOSTDNN_CONV_FORCE"))
        warned++;
}

typedef struct {
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t c;
    float *xm, *wm, *ym;
} conv;

static void conv_make(conv *v, int n, int c, int hw, int k, int r, int pad, cudnnTensorFormat_t f)
{
    cudnnCreateTensorDescriptor(&v->x);
    cudnnCreateTensorDescriptor(&v->y);
    cudnnCreateFilterDescriptor(&v->w);
    cudnnCreateConvolutionDescriptor(&v->c);
    cudnnSetTensor4dDescriptor(v->x, f, CUDNN_DATA_FLOAT, n, c, hw, hw);
    cudnnSetFilter4dDescriptor(v->w, CUDNN_DATA_FLOAT, f, k, c, r, r);
    cudnnSetConvolution2dDescriptor(v->c, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    int on, oc, oh, ow;
    cudnnGetConvolution2dForwardOutputDim(v->c, v->x, v->w, &on, &oc, &oh, &ow);
    cudnnSetTensor4dDescriptor(v->y, f, CUDNN_DATA_FLOAT, on, oc, oh, ow);
    size_t nx = (size_t)n * c * hw * hw, nw = (size_t)k * c * r * r, ny = (size_t)on * oc * oh * ow;
    v->xm = calloc(nx, sizeof(float));
    v->wm = calloc(nw, sizeof(float));
    v->ym = calloc(ny, sizeof(float));
    for (size_t i = 0; i < nx; i++)
        v->xm[i] = (float)(i % 7) - 3;
    for (size_t i = 0; i < nw; i++)
        v->wm[i] = (float)(i % 5) - 2;
}

static void conv_free(conv *v)
{
    cudnnDestroyTensorDescriptor(v->x);
    cudnnDestroyTensorDescriptor(v->y);
    cudnnDestroyFilterDescriptor(v->w);
    cudnnDestroyConvolutionDescriptor(v->c);
    free(v->xm), free(v->wm), free(v->ym);
}

/* Forward with ALGO; the solver the hook saw (0 when none), and the status in *st. */
static int run_fwd(cudnnHandle_t h, conv *v, int algo, cudnnStatus_t *st)
{
    size_t ws = 0;
    *st = cudnnGetConvolutionForwardWorkspaceSize(h, v->x, v->w, v->c, v->y, algo, &ws);
    if (*st != CUDNN_STATUS_SUCCESS)
        return 0;
    void *m = ws ? malloc(ws) : NULL;
    float one = 1, zero = 0;
    last_id = 0, records = 0;
    *st = cudnnConvolutionForward(h, &one, v->x, v->xm, v->w, v->wm, v->c, algo, m, ws, &zero, v->y, v->ym);
    free(m);
    return records == 1 ? last_id : 0;
}

int main(void)
{
    cudnnHandle_t h;
    unsetenv("HOSTDNN_CONV_FORCE");
    unsetenv("HOSTDNN_CONV_DISABLE");
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return 1;
    cudnnSetCallback(CUDNN_SEV_INFO_EN | CUDNN_SEV_WARNING_EN, NULL, cb);
    conv v;
    conv_make(&v, 2, 16, 12, 16, 3, 1, CUDNN_TENSOR_NCHW);
    cudnnStatus_t st;
    const int precomp = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;

    SECTION("hook");
    CHECK_EQ_INT(hostdnnDebugGetConvSolver(NULL, NULL, NULL, NULL), 0);
    CHECK_EQ_INT(run_fwd(h, &v, precomp, &st), 150);
    CHECK_OK(st);
    CHECK_EQ_INT(last_dir, 0);
    CHECK_EQ_INT(last_algo, precomp);
    CHECK_MSG(strstr(last_text, "fwd.blocked_gemm_f32 (id 150)") != NULL, "%s", last_text);
    CHECK_MSG(strstr(last_text, "hostdnn-bench --mode=conv --dir=fwd --layout=nchw --dt=f32 --algo=1 "
                                "g1n2c16h12w12k16r3s3p1q1u1v1l1j1") != NULL, "%s", last_text);
    CHECK_EQ_INT(run_fwd(h, &v, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, &st), 104);

    SECTION("force");
    float ref0 = 0;
    run_fwd(h, &v, precomp, &st);
    ref0 = v.ym[5];
    setenv("HOSTDNN_CONV_FORCE", "102", 1);
    warned = 0;
    CHECK_EQ_INT(run_fwd(h, &v, precomp, &st), 102);
    CHECK_OK(st);
    CHECK(v.ym[5] == ref0);                       /* small integers: exact either way */
    CHECK_EQ_INT(warned, 0);
    setenv("HOSTDNN_CONV_FORCE", "fwd.implicit_precomp_gemm", 1);
    CHECK_EQ_INT(run_fwd(h, &v, precomp, &st), 102);
    /* a solver of another algorithm: ignored for this one */
    CHECK_EQ_INT(run_fwd(h, &v, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, &st), 104);
    /* the dot variant does not take this problem: warning, then the usual choice */
    setenv("HOSTDNN_CONV_FORCE", "fwd.dot_f32", 1);
    warned = 0;
    CHECK_EQ_INT(run_fwd(h, &v, precomp, &st), 150);
    CHECK_OK(st);
    CHECK(warned >= 1);
    /* an unknown name: warning, then the usual choice */
    setenv("HOSTDNN_CONV_FORCE", "no.such_solver", 1);
    warned = 0;
    CHECK_EQ_INT(run_fwd(h, &v, precomp, &st), 150);
    CHECK(warned >= 1);
    /* disabled wins over forced */
    setenv("HOSTDNN_CONV_FORCE", "102", 1);
    setenv("HOSTDNN_CONV_DISABLE", "102", 1);
    CHECK_EQ_INT(run_fwd(h, &v, precomp, &st), 150);
    unsetenv("HOSTDNN_CONV_FORCE");

    SECTION("disable");
    setenv("HOSTDNN_CONV_DISABLE", "150", 1);
    CHECK_EQ_INT(run_fwd(h, &v, precomp, &st), 102);
    setenv("HOSTDNN_CONV_DISABLE", "150,102", 1);
    CHECK_EQ_INT(run_fwd(h, &v, precomp, &st), 0);
    CHECK_STATUS(st, CUDNN_STATUS_NOT_SUPPORTED);
    unsetenv("HOSTDNN_CONV_DISABLE");
    conv u0;
    conv_make(&u0, 2, 16, 12, 16, 3, 1, CUDNN_TENSOR_NHWC);
    setenv("HOSTDNN_CONV_DISABLE", "150", 1);                  /* the family: 152 and 153 too */
    CHECK_EQ_INT(run_fwd(h, &u0, precomp, &st), 102);
    setenv("HOSTDNN_CONV_DISABLE", "152,153", 1);              /* the variants alone */
    CHECK_EQ_INT(run_fwd(h, &u0, precomp, &st), 102);
    unsetenv("HOSTDNN_CONV_DISABLE");
    conv_free(&u0);

    SECTION("variants");
    conv u;
    conv_make(&u, 2, 16, 12, 16, 3, 1, CUDNN_TENSOR_NHWC);   /* x's channels contiguous */
    int id = run_fwd(h, &u, precomp, &st);
    CHECK_MSG(id == 152 || id == 153, "NHWC ran %d", id);
    CHECK_MSG(strstr(last_text, "--layout=nhwc") != NULL, "%s", last_text);
    /* the variants never share a problem: forcing 150 on it falls back with a warning */
    setenv("HOSTDNN_CONV_FORCE", "150", 1);
    warned = 0;
    CHECK_EQ_INT(run_fwd(h, &u, precomp, &st), id);
    CHECK(warned >= 1);
    unsetenv("HOSTDNN_CONV_FORCE");
    conv_free(&u);

    conv_free(&v);
    cudnnSetCallback(0, NULL, NULL);
    cudnnDestroy(h);
    return hd_test_finish();
}
