/*
 * norm/bn_internal.h -- what the files of the batch-normalization engine share: the memory
 * layouts it recognises, row and pixel access, the chunking of the reductions, and the
 * per-call context (bn_layout.c).  Not for use outside src/norm.
 */
#ifndef HD_NORM_BN_INTERNAL_H
#define HD_NORM_BN_INTERNAL_H

#include "norm/bn_engine.h"
#include "kernels/bn/bn-ukernels.h"

/* Pixels per block when channel-contiguous HALF / BFLOAT16 data are converted to float. */
#define HD_BN_BLK 16

/* NCHW-like planes smaller than this many values: a task takes the planes of several
 * consecutive channels (read in memory order, one task's overhead for many small planes), and
 * the apply passes store through the caches (streaming stores of partial lines and a fence
 * per plane cost more than they save).  Per channel the operations and their order are the
 * same whatever the blocking. */
#define HD_BN_PLANE_MIN 4096

static inline int hd_bn_plane_block(const hd_bn_problem *pb)
{
    int b = pb->S >= HD_BN_PLANE_MIN ? 1 : (HD_BN_PLANE_MIN + pb->S - 1) / (pb->S > 0 ? pb->S : 1);
    return b < pb->C ? b : (pb->C > 0 ? pb->C : 1);
}

static inline size_t hd_bn_plane_tasks(const hd_bn_problem *pb, size_t per)
{
    size_t b = (size_t)hd_bn_plane_block(pb);
    return ((size_t)pb->C + b - 1) / b * per;
}

/* A chunk's shifted sums are redone exactly when S2 > HD_BN_CANCEL * M2 (see bn_forward.c). */
#define HD_BN_CANCEL 65536.0

/* ---- layouts ---- */
/* Rows stored contiguously (spatial dims packed inside each (n, c) plane). */
int hd_bn_row_packed(const hd_view *v);
int hd_bn_row_contig(const hd_view *v);     /* ... and FLOAT */
int hd_bn_row_half(const hd_view *v);       /* ... and HALF or BFLOAT16 */
/* Channels contiguous and the spatial dims packed around them (NHWC-like). */
int hd_bn_nhwc_packed(const hd_view *v);
int hd_bn_nhwc_contig(const hd_view *v);    /* ... and FLOAT, HALF or BFLOAT16 */

/* The widening / narrowing kernel of a 16-bit view. */
static inline void hd_bn_to_f32(const hd_bn_f32_kernels *k, const hd_view *v, const void *p, int64_t off, float *f,
                                size_t n)
{
    (v->dtype == CUDNN_DATA_HALF ? k->h2f : k->b2f)((const uint16_t *)p + off, f, n);
}

static inline void hd_bn_from_f32(const hd_bn_f32_kernels *k, const hd_view *v, void *p, int64_t off, const float *f,
                                  size_t n)
{
    (v->dtype == CUDNN_DATA_HALF ? k->f2h : k->f2b)(f, (uint16_t *)p + off, n);
}

/* Row (n, c) of view V into / out of a double buffer (out: alpha * buf + beta * old). */
void hd_bn_load_row(const hd_view *v, const void *p, int n, int c, double *buf);
void hd_bn_store_row(const hd_view *v, void *p, int n, int c, const double *buf, double alpha, double beta);

/* ---- chunks of the reductions ---- */
int hd_bn_chunk_rows(const hd_bn_problem *pb);        /* (n, c) planes per chunk */
int hd_bn_n_chunks(const hd_bn_problem *pb);
int64_t hd_bn_pix_per_chunk(const hd_bn_problem *pb); /* channel-contiguous layouts */
int hd_bn_pix_chunks(const hd_bn_problem *pb);

/* ---- the per-call context ---- */
typedef struct {
    const hd_bn_problem *pb;
    const hd_bn_f32_kernels *k;
    double *rows;            /* nthreads * 3 * S */
    double *parts;           /* C * nchunks * 5 */
    int nch, rows_per;
    const double *in1, *in2, *in3;
    const double *shift;     /* apply passes: the per-feature shift m (NULL: 0) */
    double *out1, *out2;
    double alpha, beta;
    int stream;              /* write outputs with streaming stores (larger than the cache) */
} hd_bn_eng;

void hd_bn_eng_init(hd_bn_eng *e, const hd_bn_problem *pb, void *scratch);

/* A thread's scratch: the row buffers, then room for three blocks of HD_BN_BLK x C floats. */
static inline size_t hd_bn_rows_part(const hd_bn_problem *pb) { return 3 * (size_t)(pb->S > pb->C ? pb->S : pb->C); }
static inline size_t hd_bn_per_thread(const hd_bn_problem *pb)
{
    return hd_bn_rows_part(pb) + 2 * HD_BN_BLK * (size_t)pb->C;
}
static inline double *hd_bn_thread_rows(const hd_bn_eng *e, int thread)
{
    return e->rows + (size_t)thread * hd_bn_per_thread(e->pb);
}
static inline float *hd_bn_thread_blk(const hd_bn_eng *e, int thread)
{
    return (float *)(hd_bn_thread_rows(e, thread) + hd_bn_rows_part(e->pb));
}

/* Calls FN on the runs of chunk CH (pixel range) that are contiguous in memory: a run stays
 * inside one sample.  ARG is passed through. */
typedef void (*hd_bn_run_fn)(hd_bn_eng *e, int64_t n, int64_t s, int64_t len, void *arg);
void hd_bn_for_runs(hd_bn_eng *e, int ch, hd_bn_run_fn fn, void *arg);

/* Pixel (n, s) of a channel-contiguous FLOAT view. */
static inline int64_t hd_bn_pix_off(const hd_view *v, int64_t n, int64_t s) { return n * v->strides[0] + s * v->dims[1]; }
static inline const float *hd_bn_pix(const hd_view *v, const void *p, int64_t n, int64_t s)
{
    return (const float *)p + hd_bn_pix_off(v, n, s);
}

/* What a run callback needs: accumulators, per-channel parameters, the thread's blocks. */
typedef struct {
    double *acc, *acc2;
    const double *mean;
    const float *par;        /* a,b or p,q,r (C floats each) */
    float *blk;              /* 3 blocks of HD_BN_BLK * C floats */
} hd_bn_col_arg;

/* ---- shared by the statistics and the backward sums ---- */
/* Channel C's shift for the one-pass sums: its first element (0 when not finite). */
double hd_bn_chan_shift(const hd_bn_problem *pb, int c);
/* A feature's shift rounded to float (0 when that is not finite), and its additive term
 * ADD scaled by alpha and corrected for the rounding: coef * (x - m) + add equals
 * coef * (x - mf) + add + coef * (mf - m). */
float hd_bn_shift_f32(const hd_bn_eng *e, size_t f, double coef, double add, float *addf);
/* Bytes of float tensors an apply pass touches (TENSORS of them read or written). */
double hd_bn_touched_bytes(const hd_bn_problem *pb, int tensors);

#endif
