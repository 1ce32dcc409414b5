/*
 * tools/bench/bench.h -- hostdnn-bench, a small benchdnn-like driver: shared declarations.
 *
 * Modes: peak (FMA throughput), stream (memory bandwidth), gemm (hd_sgemm/hd_dgemm), conv
 * (convolutions through the public cuDNN API: performance, correctness against a float64
 * reference on sampled points, bitwise repeatability).  See docs/performance.md.
 */
#ifndef HD_BENCH_H
#define HD_BENCH_H

#include <stddef.h>

#include "core/cpu.h"

/* ---- options shared by every mode ---- */
typedef struct {
    int threads[2];      /* thread counts to measure: 1 and N */
    int nthread_counts;
    int reps;            /* repetitions per measurement (the median is reported) */
    double min_time;     /* seconds each repetition runs at least (calls are repeated) */
    hd_isa_t isa;        /* kernel family for gemm (lowered to what the CPU allows) */
    int dt_double;       /* gemm data type: 0 f32, 1 f64 */
    int verbose;
    /* conv mode */
    const char *conv_dirs;   /* comma list of fwd, bwd_d, bwd_w (default: all three) */
    int conv_nhwc;           /* user tensors NHWC (filter KRSC) instead of NCHW (KCRS) */
    int conv_find;           /* pick the algorithm with cudnnFind (else the _v7 first choice) */
    int conv_algo;           /* >= 0: force this algorithm enum */
    int check;               /* 0 performance, 1 correctness, 2 bitwise repeatability, 3 all,
                              * 4 parse only (print each problem's canonical form) */
} bench_opts;

/* ---- timing and statistics (timer.c) ---- */
double bench_now(void);                        /* seconds, monotonic */
double bench_cpu_now(void);                    /* CPU seconds used by the process so far */
double bench_median(double *v, size_t n);      /* sorts v */

/* ---- problem strings (problem.c) ---- */
typedef enum { PROB_GEMM, PROB_CONV } prob_kind;

typedef struct {
    char transa, transb;         /* 'N' or 'T' */
    size_t m, n, k;
} gemm_prob;

/* Convolution in the cuDNN/MIOpen letter style: g1n16c64h56w56k64r3s3p1u1 (2-D for now). */
typedef struct {
    size_t g, n, c, h, w, k, r, s;   /* groups, batch, in channels, in height/width, out
                                        channels, filter height/width */
    size_t pad_h, pad_w, stride_h, stride_w, dil_h, dil_w;
    size_t oh, ow;                   /* output size, derived */
} conv_prob;

typedef struct {
    prob_kind kind;
    char text[320];              /* canonical form, usable as a repro */
    char name[64];               /* what followed '_' in the problem string, if anything */
    union {
        gemm_prob gemm;
        conv_prob conv;
    } u;
} bench_prob;

/* Parse S into P; returns 0, or -1 with a reason in ERR (ERRLEN bytes). */
int bench_parse_problem(const char *s, bench_prob *p, char *err, size_t errlen);
double bench_prob_flops(const bench_prob *p);

/* ---- modes ---- */
/* Peak FMA throughput in GFLOP/s for ISA, element size ESIZE (4 or 8) and THREADS threads;
 * 0 if the ISA is not available.  Cached after the first measurement. */
double bench_peak_gflops(hd_isa_t isa, size_t esize, int threads, const bench_opts *o);
/* One peak measurement lasting about SECONDS, for interleaving with other measurements. */
double bench_peak_sample(hd_isa_t isa, size_t esize, int threads, double seconds);
int bench_mode_peak(const bench_opts *o);
int bench_mode_stream(const bench_opts *o, size_t mbytes);
int bench_mode_gemm(const bench_opts *o, const bench_prob *probs, size_t n);
/* Load a reference GEMM to compare with ("dnnl"); 0 on success. */
int bench_load_ref(const char *name);
int bench_mode_conv(const bench_opts *o, const bench_prob *probs, size_t n);
int bench_mode_ukernel(const bench_opts *o);

/* ISA-specific FMA loops (peak-*.c): run ITERS iterations, return a value to keep alive. */
double bench_fma_loop_f32_avx512(size_t iters);
double bench_fma_loop_f64_avx512(size_t iters);
double bench_fma_loop_f32_avx2(size_t iters);
double bench_fma_loop_f64_avx2(size_t iters);
double bench_fma_loop_f32_scalar(size_t iters);
double bench_fma_loop_f64_scalar(size_t iters);
/* FLOPs one iteration of each loop performs (per family), for GFLOP/s. */
#define BENCH_FMA_ACC 24   /* independent accumulators in every loop */

#endif
