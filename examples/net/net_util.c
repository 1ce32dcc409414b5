/*
 * net_util.c -- device buffers, descriptors, random numbers and the clock for the layer toolkit.
 */
#define _POSIX_C_SOURCE 200809L
#include "net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void net_fail(const char *file, int line, const char *call, const char *why)
{
    fprintf(stderr, "%s:%d %s failed: %s\n", file, line, call, why);
    exit(1);
}

float *net_alloc(size_t n)
{
    void *p = NULL;
    CKCUDA(cudaMalloc(&p, (n ? n : 1) * sizeof(float)));
    CKCUDA(cudaMemset(p, 0, (n ? n : 1) * sizeof(float)));
    return p;
}

void net_upload(float *dst, const float *src, size_t n)
{
    CKCUDA(cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyHostToDevice));
}

void net_download(float *dst, const float *src, size_t n)
{
    CKCUDA(cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyDeviceToHost));
}

void net_tensor(cudnnTensorDescriptor_t *d, cudnnTensorFormat_t f, int n, int c, int h, int w)
{
    CKDNN(cudnnCreateTensorDescriptor(d));
    CKDNN(cudnnSetTensor4dDescriptor(*d, f, CUDNN_DATA_FLOAT, n, c, h, w));
}

/* A linear congruential generator: the same weights and data on every run and machine. */
float net_rand(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 16777216.0f;
}

float net_randn(unsigned *state)
{
    float u = net_rand(state), v = net_rand(state);
    return sqrtf(-2.0f * logf(u + 1e-7f)) * cosf(6.2831853f * v);
}

double net_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double net_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
