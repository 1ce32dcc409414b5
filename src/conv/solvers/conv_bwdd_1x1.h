/*
 * conv/solvers/conv_bwdd_1x1.h -- the parts of bwd_data.1x1 (conv_bwdd.h) that its two files
 * share: the plan and the per-call context, and the data movement of
 * conv_bwdd_1x1_move_f32.c (dy and W into micro-panels, the buffered epilogue into dx) that
 * the tasks of conv_bwdd_1x1_f32.c call.
 */
#ifndef HD_CONV_SOLVERS_CONV_BWDD_1X1_H
#define HD_CONV_SOLVERS_CONV_BWDD_1X1_H

#include "conv/conv_registry.h"
#include "core/parallel.h"
#include "kernels/conv/im2col-ukernels.h"
#include "kernels/gemm/gemm-ukernels.h"
#include "kernels/igemm/igemm-ukernels.h"
#include "kernels/transpose/transpose-ukernels.h"

#include <stdint.h>

static inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static inline int64_t rup(int64_t a, int64_t b) { return cdiv(a, b) * b; }
static inline int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

/* The plan: a function of the problem (and the kernel's tile), never of the thread count. */
typedef struct {
    const hd_gemm_kernel *kern;
    int64_t MR, NR;
    int pix;                      /* dy's channels contiguous (NHWC-like) */
    int swap;                     /* positions are the A side: dx^T = dy^T W */
    int inplace;                  /* pix: the indirect kernel reads dy's pixel rows in place */
    int whole;                    /* NHWC, small images, long reduction: one hd_sgemm in place */
    int direct;                   /* tiles within one image go straight into dx */
    int cross;                    /* position blocks run across images */
    int64_t nkb, kc;              /* k block b: dy channels [b*kc, min(Kg, (b+1)*kc)) */
    int64_t nc, npb;              /* positions per block, blocks (per image, or over N*P when cross) */
    int64_t sb;                   /* NCHW: positions per sub-block (one panel) of a block */
    int64_t mb, nmb;              /* dx channels per block, blocks */
    int64_t CT;                   /* tile of the channel side: MR (NCHW) or NR (NHWC) */
    int64_t ld;                   /* NCHW: panel and buffer row length (sb rounded up to NR) */
    int64_t buf_at, aux_at, slot; /* floats: result buffer, (W^T block | W tail panel), slot size */
    int64_t tab_at;               /* pix: the block's pixel-row pointers */
    int wall;                     /* several k blocks: the slot holds W^T (NCHW) or W's panels (swapped) of all of them */
    int win;                      /* swapped NCHW, one position block: W's rows are the B panels, read in place */
    int dyall;                    /* swapped, dy packed (not read in place): the slot holds the dy panel of every k block */
    int64_t pstep;                /* dyall: floats from one k block's dy panel to the next's (per dy row) */
    int chfirst;                  /* swapped, batch 1: tasks run channel blocks fastest (they share the kept dy panel) */
    int tpose;                    /* swapped, strided dx in channel planes: the buffer is transposed before the epilogue */
    int64_t tb_at, tld;           /* tpose: floats to the transposed buffer in the slot, its row length */
} x1_plan;

/* One call's state; the tags say what each thread's scratch slot holds. */
typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    x1_plan L;
    const float *dy, *w;
    float *dx, *slots;
    hd_conv_cols_fn cols;
    hd_f32_igemm_fn ik;           /* the indirect kernel of the packed kernel's ISA (same tile) */
    hd_f32_igemm_strided_fn iks;   /* its strided entry (NULL: none) */
    hd_f32_tile_fn tile;           /* swapped, dx in channel planes at unit stride: the buffer's transpose into dx */
    hd_f32_tile_fn ttile;          /* tpose: the buffer's transpose into the slot */
    int64_t tag[HD_SCRATCH_SLOTS];           /* one k block: the (group, channel block) whose packed W the slot holds */
    int64_t ptag[HD_SCRATCH_SLOTS];          /* dyall: the (group, position block) whose dy panel the slot holds */
    int nthreads;                            /* threads taking tasks (a thread's next task is about this many on) */
    int64_t ntasks;
} x1_ctx;

/*
 * Between the buffer and dx, for dx channels [ch0, ch0+nm) (of the whole tensor) and dy
 * positions [q0, q0+nq), buf[m * ms + j * js].  Each dy position o owns the dx cell
 * [s*o, s*o + s) (clipped to dx) along every dimension (with unit stride, the position
 * itself).  LOAD: the corners to the buffer, times beta (not called when beta = 0).
 * STORE: the buffer to the corners, beta*dx to the rest of the cells.
 */
enum { CELLS_LOAD, CELLS_STORE };

/* conv_bwdd_1x1_move_f32.c (each described there) */
void hd_x1_pack_wt(const x1_ctx *c, int64_t g, int64_t kb, int64_t m0, int64_t nm, float *dst);
void hd_x1_copy_rows(const x1_ctx *c, int64_t g, int64_t r0, int64_t kcb, int64_t q0, int64_t nq, float *dst,
                      int64_t NR);
void hd_x1_pix_rows(const x1_ctx *c, int64_t g, int64_t q0, int64_t nq, const float **tab);
void hd_x1_pack_pix(const x1_ctx *c, int64_t r0, int64_t kcb, int64_t nq, const float *const *tab, float *dst);
void hd_x1_cells(const x1_ctx *c, int mode, int64_t ch0, int64_t nm, int64_t q0, int64_t nq, float *buf, int64_t ms,
                  int64_t js);
void hd_x1_store_planes(const x1_ctx *c, int64_t ch0, int64_t nm, int64_t q0, int64_t nq, const float *buf, int64_t ld);
void hd_x1_pack_w(const x1_ctx *c, const float *wk, int64_t kcb, int64_t nm, float *dst);

#endif
