/* Golden vectors from PyTorch (tests/golden/make_golden.py, committed): softmax and
 * log-softmax forward/backward in both modes, and dropout's 1/(1-p) scaling. */
#include "ops_common.h"
#include "golden/softmax_golden.h"
#include "golden/dropout_golden.h"

#include <math.h>

static cudnnHandle_t H;

static void softmax_golden(void)
{
    SECTION("softmax golden (torch)");
    int dims[4] = { GOLD_SM_N, GOLD_SM_C, GOLD_SM_H, GOLD_SM_W };
    const int n = GOLD_SM_N * GOLD_SM_C * GOLD_SM_H * GOLD_SM_W;
    const double *fwd[2][2] = { { gold_sm_instance, gold_sm_instance_log }, { gold_sm_channel, gold_sm_channel_log } };
    const double *bwd[2][2] = { { gold_sm_dx_instance, gold_sm_dx_instance_log },
                                { gold_sm_dx_channel, gold_sm_dx_channel_log } };
    for (int t = 0; t < 2; t++)
        for (int l = 0; l < OPT_NLAYOUTS; l++)
            for (int mode = 0; mode <= 1; mode++)
                for (int lg = 0; lg <= 1; lg++) {
                    cudnnDataType_t dt = t ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
                    opt_t x, y, dy, dx;
                    opt_make(&x, dt, 4, dims, l);
                    opt_make(&y, dt, 4, dims, (l + 1) % OPT_NLAYOUTS);
                    opt_make(&dy, dt, 4, dims, l);
                    opt_make(&dx, dt, 4, dims, (l + 2) % OPT_NLAYOUTS);
                    for (int i = 0; i < n; i++) {
                        opt_set(&x, i, gold_sm_x[i]);
                        opt_set(&dy, i, gold_sm_dy[i]);
                    }
                    ops_scale one, zero;
                    cudnnSoftmaxAlgorithm_t algo = lg ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE;
                    CHECK_OK(cudnnSoftmaxForward(H, algo, (cudnnSoftmaxMode_t)mode, ops_sc(&one, dt, 1), x.desc, x.data,
                                                 ops_sc(&zero, dt, 0), y.desc, y.data));
                    double tol = t ? 1e-6 : 1e-13;
                    CHECK_MSG(opt_compare(&y, fwd[mode][lg], tol, "golden softmax") == 0, "type %d layout %d mode %d log %d",
                              t, l, mode, lg);
                    CHECK_OK(cudnnSoftmaxBackward(H, algo, (cudnnSoftmaxMode_t)mode, ops_sc(&one, dt, 1), y.desc, y.data,
                                                  dy.desc, dy.data, ops_sc(&zero, dt, 0), dx.desc, dx.data));
                    CHECK_MSG(opt_compare(&dx, bwd[mode][lg], tol * 10, "golden softmax bwd") == 0,
                              "type %d layout %d mode %d log %d", t, l, mode, lg);
                    if (!lg) {   /* FAST equals ACCURATE on these moderate inputs */
                        CHECK_OK(cudnnSoftmaxForward(H, CUDNN_SOFTMAX_FAST, (cudnnSoftmaxMode_t)mode,
                                                     ops_sc(&one, dt, 1), x.desc, x.data, ops_sc(&zero, dt, 0), y.desc,
                                                     y.data));
                        CHECK(opt_compare(&y, fwd[mode][0], tol, "golden softmax fast") == 0);
                    }
                    opt_free(&x); opt_free(&y); opt_free(&dy); opt_free(&dx);
                }
}

static void dropout_golden(void)
{
    SECTION("dropout scaling golden (torch)");
    int dims[4] = { 1, 1, 1, GOLD_DO_N };
    for (int k = 0; k < GOLD_DO_NP; k++) {
        float p = gold_do_p[k];
        /* the factor torch applied to the elements it kept */
        double torch_scale = 0;
        int torch_ok = 1;
        for (int i = 0; i < GOLD_DO_N; i++) {
            float yv = gold_do_y[k * GOLD_DO_N + i];
            if (yv != 0) {
                double s = (double)yv / gold_do_x[i];
                if (torch_scale == 0)
                    torch_scale = s;
                torch_ok &= fabs(s - torch_scale) < 1e-6 * torch_scale;
            }
        }
        CHECK(torch_ok && fabs(torch_scale - 1.0 / (1.0 - p)) < 1e-6);
        size_t ss;
        cudnnDropoutGetStatesSize(H, &ss);
        void *states = malloc(ss);
        cudnnDropoutDescriptor_t d;
        cudnnCreateDropoutDescriptor(&d);
        CHECK_OK(cudnnSetDropoutDescriptor(d, H, p, states, ss, 11));
        opt_t x, y;
        opt_make(&x, CUDNN_DATA_FLOAT, 4, dims, OPT_NCHW);
        opt_make(&y, CUDNN_DATA_FLOAT, 4, dims, OPT_NCHW);
        memcpy(x.data, gold_do_x, sizeof gold_do_x);
        unsigned char res[GOLD_DO_N];
        CHECK_OK(cudnnDropoutForward(H, d, x.desc, x.data, y.desc, y.data, res, sizeof res));
        const float *yf = (const float *)y.data;
        int ok = 1;
        for (int i = 0; i < GOLD_DO_N; i++)
            ok &= res[i] ? fabs((double)yf[i] - gold_do_x[i] * torch_scale) <= 2e-7 * fabs(gold_do_x[i] * torch_scale)
                         : yf[i] == 0.0f;
        CHECK_MSG(ok, "p %g", p);
        opt_free(&x);
        opt_free(&y);
        cudnnDestroyDropoutDescriptor(d);
        free(states);
    }
}

int main(void)
{
    H = ops_handle(2);
    softmax_golden();
    dropout_golden();
    cudnnDestroy(H);
    return hd_test_finish();
}
