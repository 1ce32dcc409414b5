/*
 * conv/solvers/conv_dw_f32.h -- what the depthwise fp32 solver files share (160, 260, 360):
 * the plan, the execution context, the per-thread slots and the parts each file provides.
 *
 *   conv_dw_plan_f32.c     the plan, applicability, workspace, execution context, the solvers
 *   conv_dw_blocked_f32.c  blocked work (bands of 16-channel blocks, or rows in place)
 *   conv_dw_plane_f32.c    plane work and small planes, the entry points, backward filter
 */
#ifndef HD_CONV_DW_F32_H
#define HD_CONV_DW_F32_H

#include "conv/solvers/conv_dw.h"

#include "core/cpu.h"
#include "core/parallel.h"
#include "conv/conv_internal.h"
#include "kernels/dwconv/dwconv-ukernels.h"

#include <immintrin.h>
#include <string.h>

#define BUF_FLOATS (1 << 20)          /* source rows a plane task buffers: at most 4 MiB */
#define PART_BYTES ((size_t)32 << 20) /* backward-filter partial sums */
#define DW_CHUNK 32                   /* in place: results per row and channel block per kernel call */
#define DW_MAXPH 8                    /* blocked backward data: at most this stride along a row */
#define BLK_BAND_BYTES ((int64_t)512 << 10) /* the band of blocked source rows of one task (L2) */
#define BLK_SPLITS 8                  /* blocked tasks per batch wanted (both threads need work at batch 1) */
#define BLK_NCHW_MAXW 112             /* NCHW: result rows wider than this stay plane work */
#define EROW_MAX_CHUNKS 16            /* in place with the edge-row kernel: rows of at most 16 chunks */
#define DW_SMALL_MAXW 16              /* NCHW: result rows at most this wide run as small planes */
#define DW_STREAM_BYTES ((int64_t)32 << 20) /* source and result beyond this: streaming stores (hd_dw_ctx_init) */
#define DW_STREAM_BYTES_AVX2 ((int64_t)8 << 20) /* the same for the AVX2 kernels */

enum { DIR_FWD, DIR_BWDD, DIR_BWDF };

typedef struct {
    int64_t s, pad, d, up, src;
} dw_axis;

static inline int64_t axis_src(const dw_axis *A, int64_t o, int64_t t)
{
    int64_t b = o * A->s - A->pad + t * A->d;
    if (b < 0)
        return -1;
    if (A->up > 1) {
        if (b % A->up)
            return -1;
        b /= A->up;
    }
    return b < A->src ? b : -1;
}

static inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline size_t up64(size_t b) { return (b + 63) & ~(size_t)63; }

/* One phase of a blocked result row: result columns ooff + ostep*j (j < n), S taps read at
 * blocked-row pixel b0 + j*cs + t*cd; their weights are packed from tap tap0 on and are the
 * filter columns s0 + t*step (of the flipped filter for backward data). */
typedef struct {
    int64_t n, ostep, ooff, S, cs, cd, b0, tap0, s0, step;
} blk_phase;

typedef struct {
    int dir, blk;
    int small;                    /* small planes read in place (plan_small) */
    int flat;                     /* small planes as flat vectors (plan_flat) */
    dw_axis V, Hz;                /* rows and columns of the source, per result row / column */
    int64_t OH, OW;               /* result rows and columns (dy's for backward filter) */
    int64_t N, C, R, S, CB;       /* CB: channel blocks of 16 */
    int64_t rb, nrb;              /* result rows per block, blocks per image */
    int64_t rows_cap, BW;         /* plane: source rows a block buffers, buffer row width */
    int64_t nch;                  /* backward filter: reduction chunks */
    /* blocked */
    int64_t nph, taps;            /* phases of a result row, packed taps per filter row */
    blk_phase ph[DW_MAXPH];
    int64_t qlo, Wp, qf0, qf1;    /* blocked row pixel i holds source column qlo + i (zero outside [qf0, qf1)) */
    int64_t Wa;                   /* pixels of a band row: Wp, or more for the kernels' reads past the row */
    int inpl;                     /* NHWC interior read in place (see plan_inplace) */
    int64_t ol, oh;               /* in place: interior results [ol, oh) */
    int erow;                     /* in place with the edge-row kernel: phase k of a row in */
    int64_t nek[2], ekw[2];       /* nek chunks of ekw results, */
    int ek_sl[2], ek_sr[2];       /* the first leaving out ek_sl columns at the left, the last ek_sr at the right */
    int64_t BR;                   /* source rows of a task's band (per channel block) */
    int64_t band_rows;            /* band rows in a slot: cbg * BR, or 0 when in place needs none */
    int64_t G, cbg;               /* channel groups per image row block, channel blocks per group */
    size_t off_dyb, off_scr, off_w, off_ptr;   /* within a slot */
    size_t ptr_bytes, slot_bytes;
    hd_conv_layout L;
} dw_plan;

/* Backward data along a row (blocked work): the result columns of one phase (o = ph + up*j)
 * meet the same taps s = s0, s0 + up/g, ... (g = gcd(d, up)) of the flipped filter, which read
 * source columns j - pad + t*d' with d' = d/g: a stride-1 correlation with fewer taps and no
 * zeros.  dw_phase describes phase ph. */
typedef struct {
    int64_t s0, ns, step;         /* first tap, number of taps, tap index step */
    int64_t pad, d;               /* the stride-1 correlation over j */
    int64_t n;                    /* result columns of the phase */
} dw_phase;

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    dw_plan P;
    hd_dw_kernels k;
    const float *src;             /* x, or dy for backward data */
    const float *src_end, *dy_end;/* one past the last element of src and of dy */
    const int64_t *ss;
    float *dst;                   /* y or dx (unused for backward filter) */
    const int64_t *ds;
    float *wpk;                   /* plane: packed filter, or the backward-filter partial sums */
    char *slots;
    int slot_ready[HD_SCRATCH_SLOTS];     /* the slot's buffer rows are zeroed (each thread its own) */
    int64_t slot_wg[HD_SCRATCH_SLOTS];    /* blocked forward / backward data: the channel group whose
                                     weights the slot holds packed in this call (-1: none) */
    int stream;                   /* blocked forward / backward data: streaming stores (see hd_dw_ctx_init) */
    hd_dw_splane_geom sg;         /* small planes: the geometry (src set per plane) */
    int32_t sidx[HD_DW_SPLANE_MAXS * 16];
    uint16_t smask[HD_DW_SPLANE_MAXS];
    int32_t fd[HD_DW_SPLANE_MAXRS];  /* flat planes: each tap's offset and masks */
    uint16_t fm[HD_DW_SPLANE_MAXRS * HD_DW_FPLANE_VECS];
} dw_ctx;

/* The fused bias-activation epilogue (forward only): v is alpha * the sum; off indexes y and z. */
static inline float fuse(const hd_conv_epilogue *e, float v, int64_t off, int64_t ch)
{
    float r = v + ((const float *)e->bias)[ch * e->bias_stride];
    float alpha2 = (float)e->alpha2;
    if (alpha2 != 0)
        r += alpha2 * ((const float *)e->z)[off];
    if (e->relu && !(r > 0))
        r = 0;
    return r;
}

typedef struct {
    float *band;                  /* [channel block][BR][Wa][16]: source rows qa.. of the task */
    float *dyb;                   /* backward filter: [channel block][rb][OW][16], the task's dy rows */
    float *scr, *w;               /* one result row [OW][16]; weights [block][R][taps][16] */
    const float **rows, **rowsf, **wf;
    float **acc;
} blk_slot;

typedef struct {
    const float **rows;
    const float **w;
    float *buf;                   /* rows_cap buffer rows, then one spare row */
} dw_slot;

/* conv_dw_plan_f32.c */
void hd_dw_ctx_init(dw_ctx *c, const hd_conv_problem *p, const hd_conv_args *a, int dir);

/* conv_dw_blocked_f32.c */
void hd_dw_blk_task(void *vctx, size_t task, int thread);
void hd_dw_blk_wtask(void *vctx, size_t task, int thread);
void hd_dw_blk_wstore(void *vctx, size_t task, int thread);

#endif
