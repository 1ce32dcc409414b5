// frontend_check.cpp -- the outputs of cudnn-frontend v0.2's fusion samples, against float64.
//
// The samples (conv_sample.cpp, fusion_sample.cpp) run their graphs but do not look at what
// they wrote.  This file calls the same sample functions, unmodified, on inputs it chose, and
// compares each output element with a float64 reference computed here from the definition
// of the graph the sample builds.  Built by tests/samples/run_cudnn_frontend.sh with the
// samples' objects and Catch2's main.
#include "catch.hpp"
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cmath>
#include <cstdio>
#include <vector>
#include "conv_sample.h"
#include "fusion_sample.h"

namespace {

std::vector<float> random_values(size_t n, unsigned seed)
{
    std::vector<float> v(n);
    for (auto &x : v) {
        seed = seed * 1664525u + 1013904223u;
        x = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
    return v;
}

size_t count(const int64_t *d, int n)
{
    size_t c = 1;
    for (int i = 0; i < n; i++)
        c *= (size_t)d[i];
    return c;
}

// Offset of (a, b, c, d) of a 4-d tensor of dims D, packed NCHW or NHWC.
size_t at(const int64_t *d, bool nhwc, int64_t a, int64_t b, int64_t c, int64_t e)
{
    return nhwc ? (size_t)(((a * d[2] + c) * d[3] + e) * d[1] + b) : (size_t)(((a * d[1] + b) * d[2] + c) * d[3] + e);
}

// Device copies of host values, as float or rounded to half (then HOST holds the rounded values).
struct Buf {
    void *dev = nullptr;
    std::vector<float> host;
    bool half;
    Buf(std::vector<float> v, bool h) : host(std::move(v)), half(h)
    {
        size_t n = host.size();
        cudaMalloc(&dev, n * (half ? 2 : 4));
        if (half) {
            std::vector<__half> t(n);
            for (size_t i = 0; i < n; i++) {
                t[i] = __float2half(host[i]);
                host[i] = __half2float(t[i]);
            }
            cudaMemcpy(dev, t.data(), n * 2, cudaMemcpyHostToDevice);
        } else {
            cudaMemcpy(dev, host.data(), n * 4, cudaMemcpyHostToDevice);
        }
    }
    Buf(size_t n, bool h) : Buf(std::vector<float>(n, NAN), h) {}
    ~Buf() { cudaFree(dev); }
    std::vector<float> read() const
    {
        size_t n = host.size();
        std::vector<float> out(n);
        if (half) {
            std::vector<__half> t(n);
            cudaMemcpy(t.data(), dev, n * 2, cudaMemcpyDeviceToHost);
            for (size_t i = 0; i < n; i++)
                out[i] = __half2float(t[i]);
        } else {
            cudaMemcpy(out.data(), dev, n * 4, cudaMemcpyDeviceToHost);
        }
        return out;
    }
};

// Forward convolution at output (n, k, p, q), float64; FLIP for CUDNN_CONVOLUTION.
double conv_fwd(const Buf &x, const int64_t *xd, const Buf &w, const int64_t *wd, bool nhwc, const int64_t *pad,
                const int64_t *str, bool flip, int64_t n, int64_t k, int64_t p, int64_t q)
{
    double s = 0;
    for (int64_t c = 0; c < wd[1]; c++)
        for (int64_t r = 0; r < wd[2]; r++)
            for (int64_t t = 0; t < wd[3]; t++) {
                int64_t h = p * str[0] - pad[0] + r, ww = q * str[1] - pad[1] + t;
                if (h < 0 || ww < 0 || h >= xd[2] || ww >= xd[3])
                    continue;
                int64_t rr = flip ? wd[2] - 1 - r : r, tt = flip ? wd[3] - 1 - t : t;
                s += (double)x.host[at(xd, nhwc, n, c, h, ww)] * w.host[at(wd, nhwc, k, c, rr, tt)];
            }
    return s;
}

// Worst |got - want| / (1 + |want|); NaN counts as infinitely wrong.
struct Worst {
    double e = 0;
    void add(double got, double want)
    {
        double d = std::fabs(got - want) / (1 + std::fabs(want));
        e = d <= e ? e : std::isnan(d) ? INFINITY : d;
    }
};

double relu(double v) { return v > 0 ? v : 0; }

}  // namespace

TEST_CASE("ConvBiasAct output against float64", "[check]")
{
    int64_t xd[4] = {2, 8, 6, 6}, wd[4] = {16, 8, 3, 3}, yd[4] = {2, 16, 6, 6}, pad[2] = {1, 1}, str[2] = {1, 1},
            dil[2] = {1, 1};
    Buf x(random_values(count(xd, 4), 1), false), w(random_values(count(wd, 4), 2), false);
    Buf z(random_values(count(yd, 4), 3), false), b(random_values(32, 4), false), y(count(yd, 4), false);
    run_conv_add_bias_activation(xd, pad, str, dil, wd, yd, CUDNN_DATA_FLOAT, (float *)x.dev, (float *)w.dev,
                                 (float *)y.dev, (float *)z.dev, (float *)b.dev);
    auto got = y.read();
    Worst e;
    for (int64_t n = 0; n < 2; n++)
        for (int64_t k = 0; k < 16; k++)
            for (int64_t p = 0; p < 6; p++)
                for (int64_t q = 0; q < 6; q++) {
                    size_t o = at(yd, false, n, k, p, q);
                    // conv -> + 0.5 z -> + b[n][k] -> relu (CUDNN_CONVOLUTION: flipped filter)
                    double v = conv_fwd(x, xd, w, wd, false, pad, str, true, n, k, p, q) + 0.5 * z.host[o] +
                               b.host[(size_t)(n * 16 + k)];
                    e.add(got[o], relu(v));
                }
    std::printf("ConvBiasAct: worst relative error %g\n", e.e);
    REQUIRE(e.e < 1e-5);
}

TEST_CASE("ConvScaleBiasAddAct output against float64", "[check]")
{
    int64_t xd[4] = {2, 8, 9, 9}, wd[4] = {16, 8, 3, 3}, yd[4] = {2, 16, 5, 5}, sd[4] = {1, 16, 1, 1},
            pad[2] = {1, 1}, str[2] = {2, 2}, dil[2] = {1, 1};
    Buf x(random_values(count(xd, 4), 5), true), w(random_values(count(wd, 4), 6), true);
    Buf s(random_values(16, 7), true), b(random_values(16, 8), true), a(random_values(count(yd, 4), 9), true);
    Buf y(count(yd, 4), true);
    run_conv_scale_bias_add_relu(xd, wd, yd, sd, sd, yd, CUDNN_DATA_HALF, 2, pad, dil, str, x.dev, w.dev, y.dev, s.dev,
                                 b.dev, a.dev);
    auto got = y.read();
    Worst e;
    for (int64_t n = 0; n < 2; n++)
        for (int64_t k = 0; k < 16; k++)
            for (int64_t p = 0; p < 5; p++)
                for (int64_t q = 0; q < 5; q++) {
                    size_t o = at(yd, true, n, k, p, q);
                    double v = conv_fwd(x, xd, w, wd, true, pad, str, false, n, k, p, q) * s.host[(size_t)k] +
                               b.host[(size_t)k] + a.host[o];
                    e.add(got[o], relu(v));
                }
    std::printf("ConvScaleBiasAddAct (half): worst relative error %g\n", e.e);
    REQUIRE(e.e < 1e-2);
}

TEST_CASE("MatmulBiasAct output against float64", "[check]")
{
    int64_t ad[3] = {2, 8, 16}, bd[3] = {2, 16, 12}, cd[3] = {2, 8, 12}, zd[3] = {2, 1, 12};
    Buf a(random_values(count(ad, 3), 10), true), b(random_values(count(bd, 3), 11), true);
    Buf z(random_values(count(zd, 3), 12), true), c(count(cd, 3), true);
    run_matmul_bias_gelu(ad, bd, cd, zd, CUDNN_DATA_HALF, a.dev, b.dev, c.dev, z.dev);
    auto got = c.read();
    Worst e;
    for (int64_t q = 0; q < 2; q++)
        for (int64_t i = 0; i < 8; i++)
            for (int64_t j = 0; j < 12; j++) {
                double s = z.host[(size_t)(q * 12 + j)];
                for (int64_t k = 0; k < 16; k++)
                    s += (double)a.host[(size_t)((q * 8 + i) * 16 + k)] * b.host[(size_t)((q * 16 + k) * 12 + j)];
                e.add(got[(size_t)((q * 8 + i) * 12 + j)], 0.5 * s * (1 + std::erf(s / std::sqrt(2.0))));
            }
    std::printf("MatmulBiasAct (half): worst relative error %g\n", e.e);
    REQUIRE(e.e < 1e-2);
}

TEST_CASE("ConvDrelu output against float64", "[check]")
{
    int64_t xd[4] = {2, 8, 7, 7}, wd[4] = {16, 8, 3, 3}, yd[4] = {2, 16, 7, 7}, pad[2] = {1, 1}, str[2] = {1, 1},
            dil[2] = {1, 1};
    Buf x(random_values(count(xd, 4), 13), true), w(random_values(count(wd, 4), 14), true);
    Buf act(random_values(count(yd, 4), 15), true), y(count(yd, 4), true);
    run_conv_drelu(xd, pad, str, dil, wd, yd, CUDNN_DATA_HALF, x.dev, w.dev, y.dev, act.dev);
    auto got = y.read();
    Worst e;
    for (int64_t n = 0; n < 2; n++)
        for (int64_t k = 0; k < 16; k++)
            for (int64_t p = 0; p < 7; p++)
                for (int64_t q = 0; q < 7; q++) {
                    size_t o = at(yd, true, n, k, p, q);
                    double v = conv_fwd(x, xd, w, wd, true, pad, str, false, n, k, p, q);
                    e.add(got[o], act.host[o] > 0 ? v : 0);
                }
    std::printf("ConvDrelu (half): worst relative error %g\n", e.e);
    REQUIRE(e.e < 1e-2);
}

TEST_CASE("DgradDrelu output against float64", "[check]")
{
    int64_t dxd[4] = {2, 8, 7, 7}, wd[4] = {16, 8, 3, 3}, dyd[4] = {2, 16, 7, 7}, pad[2] = {1, 1}, str[2] = {1, 1},
            dil[2] = {1, 1};
    Buf dy(random_values(count(dyd, 4), 16), true), w(random_values(count(wd, 4), 17), true);
    Buf act(random_values(count(dxd, 4), 18), true), dx(count(dxd, 4), true);
    run_dgrad_drelu(dxd, pad, str, dil, wd, dyd, CUDNN_DATA_HALF, dx.dev, w.dev, dy.dev, act.dev);
    auto got = dx.read();
    Worst e;
    for (int64_t n = 0; n < 2; n++)
        for (int64_t c = 0; c < 8; c++)
            for (int64_t h = 0; h < 7; h++)
                for (int64_t ww = 0; ww < 7; ww++) {
                    // dx[n][c][h][w] = sum over k, r, t of dy[n][k][h + 1 - r][w + 1 - t] w[k][c][r][t]
                    double s = 0;
                    for (int64_t k = 0; k < 16; k++)
                        for (int64_t r = 0; r < 3; r++)
                            for (int64_t t = 0; t < 3; t++) {
                                int64_t p = h + pad[0] - r, q = ww + pad[1] - t;
                                if (p < 0 || q < 0 || p >= 7 || q >= 7)
                                    continue;
                                s += (double)dy.host[at(dyd, true, n, k, p, q)] * w.host[at(wd, true, k, c, r, t)];
                            }
                    size_t o = at(dxd, true, n, c, h, ww);
                    e.add(got[o], act.host[o] > 0 ? s : 0);
                }
    std::printf("DgradDrelu (half): worst relative error %g\n", e.e);
    REQUIRE(e.e < 1e-2);
}
