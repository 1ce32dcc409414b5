/*
 * Batched matmul -> bias -> GELU as one backend graph, where the chain runs on each block of
 * C's rows right after the GEMM writes it (src/fusion/matmul.c): against a float64 reference,
 * and bitwise the same on 1, 2 and 3 threads (the row blocks follow the thread count; with
 * few rows per thread the GEMM is split along n instead, and that must not change the bits
 * either).  A is read transposed in place, B is broadcast over the batch; C is virtual, or a
 * tensor the user sees with the biased value stored too.
 */
#define _POSIX_C_SOURCE 200809L
#include <cudnn.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "unit/backend_util.h"
#include "unit/fused_graph.h"

enum { BT = 2, KK = 40, NN = 37, MMAX = 75 };

static float af[BT * KK * MMAX], bf[KK * NN], zf[NN];

/* y (and v = C + bias when STORE_V) for M rows with THREADS threads; the matmul's C is a
 * user tensor when C_VISIBLE. */
static int run(int m, int threads, int c_visible, float *y, float *v, float *c)
{
    char nt[8];
    snprintf(nt, sizeof nt, "%d", threads);
    setenv("HOSTDNN_NUM_THREADS", nt, 1);
    cudnnHandle_t h;
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return 0;
    int64_t ad[3] = {BT, m, KK}, as[3] = {(int64_t)m * KK, 1, m};   /* stored K x M: read transposed */
    int64_t bdm[3] = {1, KK, NN}, cd[3] = {BT, m, NN}, zd[3] = {1, 1, NN};
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    bd a = keep(mk_tensor_full(1, 3, ad, as, dt, false, 1)), b = keep(mk_tensor_full(2, 3, bdm, NULL, dt, false, 1));
    bd ct = keep(mk_tensor_full(10, 3, cd, NULL, dt, !c_visible, 1)), z = keep(mk_tensor_full(3, 3, zd, NULL, dt, false, 1));
    bd vt = keep(mk_tensor_full(11, 3, cd, NULL, dt, !c_visible, 1)), yt = keep(mk_tensor_full(4, 3, cd, NULL, dt, false, 1));
    bd mm = op_matmul(a, b, ct);
    pw_param add = pw_mode(CUDNN_POINTWISE_ADD), gelu = pw_mode(CUDNN_POINTWISE_GELU_FWD);
    bd ops[3] = {mm, op_pw(&add, ct, z, vt, 1, 1), op_pw(&gelu, vt, NULL, yt, 1, 1)};
    bd g = mk_graph(h, ops, 3);
    int64_t ws;
    cudnnStatus_t st;
    bd plan = mk_plan(h, g, 0, &ws, &st);
    int ok = plan != NULL;
    CHECK(ok);
    if (plan) {
        int64_t uids[6] = {1, 2, 3, 4, 10, 11};
        void *ptrs[6] = {af, bf, zf, y, c, v};
        void *buf = ws > 0 ? malloc((size_t)ws) : NULL;
        CHECK_OK(run_plan(h, plan, c_visible ? 6 : 4, uids, ptrs, buf));
        free(buf);
    }
    release_all();
    cudnnDestroy(h);
    unsetenv("HOSTDNN_NUM_THREADS");
    return ok;
}

static void check(int m, int c_visible)
{
    size_t ne = (size_t)BT * m * NN;
    float *y[3], *v[3], *c[3];
    for (int t = 0; t < 3; t++) {
        y[t] = malloc(ne * sizeof(float)), v[t] = malloc(ne * sizeof(float)), c[t] = malloc(ne * sizeof(float));
        fill_nan(y[t], ne), fill_nan(v[t], ne), fill_nan(c[t], ne);
        if (!run(m, t + 1, c_visible, y[t], v[t], c[t]))
            goto out;
    }
    double err = 0, verr = 0;
    for (int q = 0; q < BT; q++)
        for (int i = 0; i < m; i++)
            for (int j = 0; j < NN; j++) {
                double s = 0;
                for (int k = 0; k < KK; k++)
                    s += (double)af[(size_t)q * m * KK + (size_t)k * m + i] * bf[k * NN + j];
                double sb = s + zf[j], want = 0.5 * sb * (1 + erf(sb / sqrt(2.0)));
                size_t o = ((size_t)q * m + i) * NN + j;
                double d = fabs(y[0][o] - want) / (1 + fabs(want));
                err = d <= err ? err : isnan(d) ? INFINITY : d;
                if (c_visible) {
                    d = fabs(c[0][o] - s) / (1 + fabs(s)) + fabs(v[0][o] - sb) / (1 + fabs(sb));
                    verr = d <= verr ? verr : isnan(d) ? INFINITY : d;
                }
            }
    CHECK_MSG(err < 1e-5, "M %d, C %s: error %g", m, c_visible ? "visible" : "virtual", err);
    CHECK_MSG(verr < 1e-5, "M %d: C and C + bias error %g", m, verr);
    for (int t = 1; t < 3; t++) {
        CHECK_MSG(memcmp(y[0], y[t], ne * sizeof(float)) == 0, "M %d: %d threads differ from 1 in y", m, t + 1);
        if (c_visible)
            CHECK_MSG(memcmp(v[0], v[t], ne * sizeof(float)) == 0 && memcmp(c[0], c[t], ne * sizeof(float)) == 0,
                      "M %d: %d threads differ from 1 in C or v", m, t + 1);
    }
out:
    for (int t = 0; t < 3; t++)
        free(y[t]), free(v[t]), free(c[t]);
}

int main(void)
{
    fill(af, sizeof af / sizeof *af, 3), fill(bf, KK * NN, 4), fill(zf, NN, 5);
    for (int i = 0; i < KK * NN; i++)
        bf[i] *= 0.5f;               /* keep C around [-3, 3], where GELU bends */
    const int ms[2] = {MMAX, 20};    /* 75: row blocks on every thread count; 20: split along n on 2 and 3 */
    for (int i = 0; i < 2; i++)
        for (int vis = 0; vis < 2; vis++)
            check(ms[i], vis);
    return hd_test_finish();
}
