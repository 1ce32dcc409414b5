/*
 * tests/rnn_test_util.h -- tensor/filter descriptors for the RNN tests.
 *
 * Uses cudnnCreateTensorDescriptor / cudnnSetTensorNdDescriptor (and the filter pair) when
 * the library implements them.  While they are still NOT_SUPPORTED stubs (the RNN work was
 * built in parallel with them), it falls back to a test-only object laid out like
 * src/core/desc.h, so the RNN code can be tested on its own; the fallback is never used once
 * the real setters exist.
 */
#ifndef HD_TEST_RNN_UTIL_H
#define HD_TEST_RNN_UTIL_H

#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <cudnn.h>

#define RTU_TAG_TENSOR 0x68640002u
#define RTU_TAG_FILTER 0x68640003u

struct rtu_tensor { uint32_t tag, size_class; cudnnDataType_t dtype; int nbDims; int dims[CUDNN_DIM_MAX];
                    int strides[CUDNN_DIM_MAX]; cudnnTensorFormat_t format; int vect_c; int packed; };
struct rtu_filter { uint32_t tag, size_class; cudnnDataType_t dtype; cudnnTensorFormat_t format; int nbDims;
                    int dims[CUDNN_DIM_MAX]; int vect_c; };

static int rtu_fake_tensors = -1;   /* 1 when the fallback is in use */

static inline cudnnTensorDescriptor_t rtu_tensor(cudnnDataType_t dt, int nb, const int *dims)
{
    int strides[CUDNN_DIM_MAX];
    strides[nb - 1] = 1;
    for (int i = nb - 2; i >= 0; i--)
        strides[i] = strides[i + 1] * dims[i + 1];
    cudnnTensorDescriptor_t t = NULL;
    if (rtu_fake_tensors != 1 && cudnnCreateTensorDescriptor(&t) == CUDNN_STATUS_SUCCESS) {
        rtu_fake_tensors = 0;
        if (cudnnSetTensorNdDescriptor(t, dt, nb, dims, strides) != CUDNN_STATUS_SUCCESS) {
            cudnnDestroyTensorDescriptor(t);
            return NULL;
        }
        return t;
    }
    rtu_fake_tensors = 1;
    struct rtu_tensor *f = calloc(1, sizeof *f);
    f->tag = RTU_TAG_TENSOR;
    f->dtype = dt;
    f->nbDims = nb;
    for (int i = 0; i < nb; i++) { f->dims[i] = dims[i]; f->strides[i] = strides[i]; }
    f->format = CUDNN_TENSOR_NCHW;
    f->vect_c = 1;
    f->packed = 1;
    return (cudnnTensorDescriptor_t)(void *)f;
}

/* An empty (created, never set) tensor descriptor, for outputs. */
static inline cudnnTensorDescriptor_t rtu_tensor_empty(void)
{
    cudnnTensorDescriptor_t t = NULL;
    if (rtu_fake_tensors != 1 && cudnnCreateTensorDescriptor(&t) == CUDNN_STATUS_SUCCESS) {
        rtu_fake_tensors = 0;
        return t;
    }
    rtu_fake_tensors = 1;
    struct rtu_tensor *f = calloc(1, sizeof *f);
    f->tag = RTU_TAG_TENSOR;
    return (cudnnTensorDescriptor_t)(void *)f;
}

static inline void rtu_tensor_free(cudnnTensorDescriptor_t t)
{
    if (!t) return;
    if (rtu_fake_tensors == 1) free((void *)t);
    else cudnnDestroyTensorDescriptor(t);
}

/* Read a tensor descriptor back (real getter, or the fallback's fields). */
static inline int rtu_tensor_get(cudnnTensorDescriptor_t t, cudnnDataType_t *dt, int *nb, int *dims, int *strides)
{
    if (rtu_fake_tensors == 1) {
        const struct rtu_tensor *f = (const void *)t;
        *dt = f->dtype; *nb = f->nbDims;
        for (int i = 0; i < f->nbDims; i++) { dims[i] = f->dims[i]; strides[i] = f->strides[i]; }
        return 0;
    }
    return cudnnGetTensorNdDescriptor(t, CUDNN_DIM_MAX, dt, nb, dims, strides) == CUDNN_STATUS_SUCCESS ? 0 : -1;
}

static int rtu_fake_filters = -1;

static inline cudnnFilterDescriptor_t rtu_filter(cudnnDataType_t dt, int nb, const int *dims)
{
    cudnnFilterDescriptor_t w = NULL;
    if (rtu_fake_filters != 1 && cudnnCreateFilterDescriptor(&w) == CUDNN_STATUS_SUCCESS) {
        rtu_fake_filters = 0;
        if (nb > 0 && cudnnSetFilterNdDescriptor(w, dt, CUDNN_TENSOR_NCHW, nb, dims) != CUDNN_STATUS_SUCCESS) {
            cudnnDestroyFilterDescriptor(w);
            return NULL;
        }
        return w;
    }
    rtu_fake_filters = 1;
    struct rtu_filter *f = calloc(1, sizeof *f);
    f->tag = RTU_TAG_FILTER;
    f->dtype = dt;
    f->nbDims = nb;
    for (int i = 0; i < nb; i++) f->dims[i] = dims[i];
    f->vect_c = 1;
    return (cudnnFilterDescriptor_t)(void *)f;
}

static inline void rtu_filter_free(cudnnFilterDescriptor_t w)
{
    if (!w) return;
    if (rtu_fake_filters == 1) free((void *)w);
    else cudnnDestroyFilterDescriptor(w);
}

static inline int rtu_filter_get(cudnnFilterDescriptor_t w, cudnnDataType_t *dt, int *nb, int *dims)
{
    if (rtu_fake_filters == 1) {
        const struct rtu_filter *f = (const void *)w;
        *dt = f->dtype; *nb = f->nbDims;
        for (int i = 0; i < f->nbDims; i++) dims[i] = f->dims[i];
        return 0;
    }
    cudnnTensorFormat_t fmt;
    return cudnnGetFilterNdDescriptor(w, CUDNN_DIM_MAX, dt, &fmt, nb, dims) == CUDNN_STATUS_SUCCESS ? 0 : -1;
}

/* binary16 helpers for the tests, written with frexp/ldexp (finite values, |v| < 65504). */
static inline uint16_t rtu_to_half(double v)
{
    uint16_t s = v < 0 ? 0x8000 : 0;
    v = fabs(v);
    if (v == 0)
        return s;
    int e;
    frexp(v, &e);
    int E = e - 1;
    if (E < -14)
        return (uint16_t)(s | (uint16_t)nearbyint(v * ldexp(1.0, 24)));
    double q = nearbyint((v / ldexp(1.0, E) - 1.0) * 1024.0);
    if (q == 1024.0) { q = 0; E++; }
    return (uint16_t)(s | (uint16_t)((E + 15) << 10) | (uint16_t)q);
}

static inline double rtu_from_half(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e ? ldexp(1024.0 + m, e - 25) : ldexp((double)m, -24);
    return (h & 0x8000) ? -v : v;
}

/* Deterministic pseudo-random values in [-a, a]. */
static inline double rtu_rand(unsigned *s, double a)
{
    *s = *s * 1664525u + 1013904223u;
    return ((double)(*s >> 8) / (double)(1u << 24) * 2.0 - 1.0) * a;
}

/* The same bidirectional, linear-input, standard-algorithm network as a legacy (v6) and a v8
 * descriptor (dropout DD, NULL for none), and per-step x and y tensors of batch_of_t[t] rows
 * (x of IN, y of 2 * HID columns): what the legacy-API tests compare with the v8 calls.
 * Returns the first status that is not SUCCESS. */
static inline cudnnStatus_t rtu_legacy_pair(cudnnHandle_t h, cudnnRNNMode_t cell, cudnnDataType_t dt,
                                            cudnnDropoutDescriptor_t dd, int in, int hid, int layers, int T,
                                            const int *batch_of_t, cudnnRNNDescriptor_t *r6,
                                            cudnnRNNDescriptor_t *r8, cudnnTensorDescriptor_t *xs,
                                            cudnnTensorDescriptor_t *ys)
{
    cudnnStatus_t st;
    if ((st = cudnnCreateRNNDescriptor(r6)) != CUDNN_STATUS_SUCCESS ||
        (st = cudnnCreateRNNDescriptor(r8)) != CUDNN_STATUS_SUCCESS ||
        (st = cudnnSetRNNDescriptor_v6(h, *r6, hid, layers, dd, CUDNN_LINEAR_INPUT, CUDNN_BIDIRECTIONAL, cell,
                                       CUDNN_RNN_ALGO_STANDARD, dt)) != CUDNN_STATUS_SUCCESS ||
        (st = cudnnSetRNNDescriptor_v8(*r8, CUDNN_RNN_ALGO_STANDARD, cell, CUDNN_RNN_DOUBLE_BIAS,
                                       CUDNN_BIDIRECTIONAL, CUDNN_LINEAR_INPUT, dt, dt, CUDNN_DEFAULT_MATH, in,
                                       hid, hid, layers, dd, 0)) != CUDNN_STATUS_SUCCESS)
        return st;
    for (int t = 0; t < T; t++) {
        int xd3[3] = { batch_of_t[t], in, 1 }, yd3[3] = { batch_of_t[t], 2 * hid, 1 };
        xs[t] = rtu_tensor(dt, 3, xd3);
        ys[t] = rtu_tensor(dt, 3, yd3);
    }
    return CUDNN_STATUS_SUCCESS;
}

#endif
