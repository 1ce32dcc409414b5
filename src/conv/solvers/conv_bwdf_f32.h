/*
 * conv/solvers/conv_bwdf_f32.h -- what the files of the fp32 backward-filter solvers on the
 * micro-kernels (351, 352) share: the plan, the contexts, and the parts each file provides.
 *
 *   conv_bwdf_plan_f32.c    the plan and workspace, the execution, the solvers
 *   conv_bwdf_rows_f32.c    the row tiles (351), the transposes and gathers both use
 *   conv_bwdf_kmajor_f32.c  the k-major tiles (352)
 *   conv_bwdf_dot_f32.c     the dot tiles (351, one NCHW image of a 1x1 layer)
 */
#ifndef HD_CONV_BWDF_F32_H
#define HD_CONV_BWDF_F32_H

#include "conv/solvers/conv_bwdf.h"

#include "core/parallel.h"
#include "conv/conv_internal.h"
#include "kernels/gemm/gemm-ukernels.h"
#include "kernels/transpose/transpose-ukernels.h"

#include <string.h>

#define BW_KC 512                         /* positions per reduction block: sets the summation order (longer
                                             blocks load and store the result tiles less often) */
#define BW_ROWS 640                       /* filter columns per row tile (whole channels: TRS * CB), about */
#define BW_COLS 256                       /* output channels per tile, at most (before rounding to NR) */
#define BW_MR_MAX 14                      /* the largest micro-kernel tile in the table */
#define BW_NR_MAX 32
#define BW_WAVE_BYTES ((int64_t)4 << 20)  /* channel-contiguous copies of one wave of images: cache-sized */
#define BW_PART_BYTES ((int64_t)16 << 20) /* partial sums of the extra chunks, at most */
#define BW_MIN_TASKS 8
#define BW_SHORT 8                        /* blocks of a short reduction (plan_bw) */
#define BW_SPLIT_ROWS 112                 /* rows of a half row tile, at least (8 A panels of 14) */
#define BW_INPLACE_MAX 256                /* dy read in place as B when its positions are at most this many floats
                                             apart (wider strides: packing is faster) */
#define KM_INPLACE_MAX 4096               /* x read in place as the k-major B up to this position stride (1x1 NHWC
                                             with C = 512..2048: as fast as packing or faster), except strides of
                                             whole 4 KiB (hd_bw_km_inplace_stride) */
#define KM_YIN_BYTES (64 << 10)           /* k-major: dy read in place as A while one block of its rows spans at most
                                             this much (with few output channels the pack, with its zero padding,
                                             costs more than the strided reads; a wider span drops out of L1
                                             between the B panels that re-read it) */
#define BW_MAX_WS ((size_t)64 << 20)
#define BW_AIN_PANELS 4                   /* row tiles read x's channel runs in place as A up to this many B panels */

static inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

typedef struct {
    int tx;                       /* x gets a channel-contiguous copy, a wave of images at a time */
    int xdirect;                  /* 1x1, no padding, NCHW-like x with unit w steps and, for strides (2-d, stride 1
                                     or 2 along w), any row stride: x's panels are transposed from x itself */
    int ty;                       /* dy's channels are not contiguous: B panels are transposed from it */
    int64_t R;                    /* filter columns per group: Cg * TRS */
    int64_t wave, nwave;          /* images per wave, waves */
    int64_t nchunk;               /* reduction chunks */
    int64_t CB, nrb, rows;        /* row tiles: blocks of CB channels, all taps of each (rows = TRS * CB) */
    int64_t ncols, ncb;           /* column tiles: about ncols output channels (before rounding to NR) */
    int local;                    /* one wave and one chunk: a task's tile lives in its scratch area */
    int km;                       /* k-major tiles (KM_RUNS, KM_ROWS; 0: the tiles above) */
    int single;                   /* k-major: one wave, one block: the micro-kernel writes dW itself */
    int64_t npos;                 /* k-major: positions of a (full) wave */
    int64_t kcmax;                /* k-major: positions of one block, at most */
    int64_t nkt, nmt;             /* k-major: tiles of output channels x filter columns per group */
} bw_plan;

enum { KM_RUNS = 1, KM_ROWS = 2 };

/* Image 0 of the wave; channel 0 of group 0 is at base, channels are contiguous. */
typedef struct {
    const float *base;
    int64_t sn, sd, sh, sw;
} bw_src;

static inline bw_src src_user(const float *t, const int64_t s[5], int64_t img0)
{
    bw_src S = {t + img0 * s[0], s[0], s[2], s[3], s[4]};
    return S;
}

static inline bw_src src_copy(const float *t, int64_t ch, const int64_t dims[3])
{
    bw_src S = {t, dims[0] * dims[1] * dims[2] * ch, dims[1] * dims[2] * ch, dims[2] * ch, ch};
    return S;
}

typedef struct {
    const hd_conv_problem *p;
    const float *src;
    const int64_t *ss, *dims;
    int64_t ch, npos, img0;
    float *dst;
    int64_t pblocks;              /* position blocks per image */
} tr_ctx;

#define TR_POS 1024                       /* positions per transpose task (enough tasks at batch 1) */
#define TR_CH 16
#define TR_SUB 32

typedef void (*copy_runs_fn)(float *dst, int64_t dstride, const float *src, int64_t sstride, int64_t len,
                             int64_t count);

typedef struct {
    const hd_conv_problem *p;
    bw_plan L;
    const hd_gemm_kernel *kern;
    hd_isa_t isa;
    copy_runs_fn copy;
    int64_t MR, NR, cb, ncb;      /* column tiles rounded to the kernel */
    bw_src X, Y;
    int ylin;                     /* dy's positions are one stride apart: 1 within an image, 2 across the wave */
    int merge;                    /* consecutive taps along w continue a run of channels */
    int64_t wave, nimg, npos, nblk;   /* k-major: npos is every position */
    float *part, *slots;
    size_t hd_bw_slot_floats;
    const hd_conv_args *a;
    int fuse_store;               /* one chunk: each task stores its tile after the last wave */
    int tapmem;                   /* k-major tiles: gathered taps are in dW's memory order */
    const float *apack;           /* k-major tiles: dy packed into A panels, per group kpan panels */
    int64_t kpan, kt;             /* k-major: A panels per group, output channels per tile */
    int xlin;                     /* k-major, 1x1: x's positions are one stride apart (B read in place) */
    int yin;                      /* k-major: dy's channels contiguous, its positions one stride apart across the
                                     wave, few output channels: the A panels are dy itself, read in place */
    int apk;                      /* k-major, one tile of filter columns, dy channel-contiguous: each task packs
                                     its own A panels, block by block */
    int ain;                      /* row tiles, 1x1: x's channel runs are the A panels in place (1 within an
                                     image, 2 across the wave) */
} bw_ctx;

/* A run of filter columns of one panel: taps (t, r, s0 .. s1) of one filter row, from
 * channel c0 of tap s0 on, len values, landing at lane `lane` of the panel. */
typedef struct {
    int64_t t, r, s0, s1, c0, len, lane;
} bw_seg;

#define ST_K 16                           /* output channels per task of the separate store */

typedef void (*store_fn)(const float *const *rows, int64_t ne, int64_t nk, int64_t plane, int64_t nchunk, float *dw,
                         int64_t ldw, float alpha, float beta);

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    const bw_plan *L;
    const float *part;
} st_ctx;

/* conv_bwdf_plan_f32.c */
int hd_bw_km_inplace_stride(int64_t sw);
size_t hd_bw_slot_floats(const bw_plan *L);
size_t hd_bw_km_slot_floats(const bw_plan *L, const hd_conv_problem *p);

/* conv_bwdf_rows_f32.c */
void hd_bw_transpose_wave(const hd_conv_problem *p, const float *src, const int64_t *ss, const int64_t *dims,
                          int64_t ch, int64_t img0, int64_t nimg, float *dst, int nt);
void hd_bw_copy_runs_scalar(float *dst, int64_t dstride, const float *src, int64_t sstride, int64_t len,
                            int64_t count);
void hd_bw_xrows_transpose(const bw_ctx *c, const float *xc, int64_t nr, int64_t pos, int64_t cnt, float *dst,
                           int64_t ld);
void hd_bw_gather_a(const bw_ctx *c, int64_t g, int64_t cb0, int64_t cbw, int64_t r0, int64_t mr, int64_t q0,
                    int64_t kcur, float *dst, int64_t MR);
const float *hd_bw_panel_b(const bw_ctx *c, int64_t g, int64_t k0, int64_t nr, int64_t q0, int64_t kcur, float *buf,
                           size_t *bs, int64_t NR, int inplace);
void hd_bw_st_task(void *vctx, size_t task, int thread);
void hd_bw_task(void *vctx, size_t task, int thread);

/* conv_bwdf_kmajor_f32.c */
void hd_bw_km_exec(bw_ctx *c, const hd_conv_problem *p, const hd_conv_args *a, hd_conv_layout W, int nt);

/* conv_bwdf_dot_f32.c */
int hd_bw_dot_fits(const hd_conv_problem *p);
void hd_bw_dot_exec(const hd_conv_problem *p, const hd_conv_args *a, int nt);

#endif
