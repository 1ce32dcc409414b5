/*
 * conv/solvers/conv_fwd_f32.h -- what the files of the forward fp32 blocked-GEMM solvers
 * (150-153) share: the plan of a problem (tiling and kernel choices), the execution context,
 * and the parts each file provides.  conv_fwd_plan_f32.c describes the method.
 *
 *   conv_fwd_plan_f32.c    the plan, the workspace layout, the family's solvers
 *   conv_fwd_gather_f32.c  filter packing and the gathered column panels (solver 150)
 *   conv_fwd_rows_f32.c    the row table over NHWC-like x (152) and the wide tiles (153)
 *   conv_fwd_block_f32.c   one task: every k block of a channel block x position block, and
 *                          the epilogue from the task's buffer
 *   conv_fwd_1x1_f32.c     plain 1x1 at batch 1 with the roles swapped (positions the 14-row side)
 */
#ifndef HD_CONV_FWD_F32_H
#define HD_CONV_FWD_F32_H

#include "conv/solvers/conv_fast.h"

#include "core/parallel.h"
#include "conv/conv_internal.h"
#include "kernels/conv/im2col-ukernels.h"
#include "kernels/igemm/igemm-ukernels.h"
#include "kernels/gemm/gemm-ukernels.h"

#include <stdint.h>
#include <string.h>

#define FW_KC 256          /* most reduction rows per k block (sets the rounding: never ISA-dependent) */
#define FW_NC 256          /* target positions per block */
#define FW_MC 512          /* most result channels per block */
#define FW_UNIT 32         /* position blocks are multiples of this (every kernel's tile width divides it) */
#define FW_SMALL_IMAGE 128 /* images with fewer positions are blocked across images */
#define FW_MIN_TASKS 4     /* cut small problems finer, down to this many tasks (each channel
                              block gathers the same columns again: not too fine) */
#define FW_X_CACHED (1 << 20) /* x of at most this many bytes is read in place by 1x1 blocks */
#define FW_SMALL_FILTER 16384 /* packed filters up to this many floats are packed by each task */
#define FW_GROUP_WORK 16384 /* groups per task: at least this many filter values (M x CRS) */
#define FW_FILTER_CACHED (1 << 20) /* filters read in place up to this many bytes stay cached between
                                         tiles: no prefetch of their rows (it would only cost issue slots) */
#define FW_SSEG_MAX 64     /* most segments a strided kernel call takes (more: the pointer kernel) */
#define FW_COLS_OUT_A (128 << 10) /* x in place: column tiles outside while the block's filter is at most this many bytes */
#define FW_COLS_OUT_X (768 << 10) /* ... and the block's x at least this many (well over an AVX2 core's L2) */
#define FW_B1_XBLOCK (256 << 10) /* batch 1, 1x1: bytes of x's rows that a position block's k block reads, at most */
#define FW_PF_ROWS 4       /* x's lines of a new channel are prefetched this many panel rows ahead */

static inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static inline int64_t rup(int64_t a, int64_t b) { return cdiv(a, b) * b; }
static inline int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

/* A piece of a position block whose source offsets are affine: positions [j, j+len) read
 * x at off + k * str[2]*xs[4] (+ the channel and tap parts; padding not yet applied). */
typedef struct {
    int64_t j, len, off;
} fw_seg;

typedef struct {
    const hd_gemm_kernel *kern;
    int64_t MR, NR;
    int pix;                      /* x's channels contiguous: reduction order (tap, channel), and the
                                     roles swap (positions the A side, read from x in place) */
    int64_t M, R, P;              /* result channels per group, reduction length, positions per image */
    int64_t nkb, kc;              /* k blocks: block b is rows [b*kc, min(R, (b+1)*kc)) */
    int64_t AR, BR;               /* tile rows/cols of the (channel, position) side: MR/NR or NR/MR */
    int64_t Mpad;                 /* M rounded up to the channel side's tile */
    int64_t mb, nmb;              /* result channels per block (a multiple of the tile), blocks */
    int64_t nc, npb;              /* positions per block, blocks (per image; over all images when cross) */
    int64_t ncpad;                /* nc rounded up to the position side's tile */
    int cross;                    /* position blocks run across images */
    int direct_b;                 /* 1x1 NCHW: x itself is the B panel */
    int pf_next;                  /* 1x1 NCHW-like x, blocks smaller than an image: the next block's
                                     rows of x are prefetched while the kernels run on this one */
    int a_late;                   /* filter tiles packed by the task that uses them, into its slot */
    int b_late;                   /* swapped, the same: each task packs its B tiles of a k block */
    int a_direct;                 /* a_late, and the kernel reads the filter rows in place instead */
    int a_stream;                 /* a_direct with a filter too large to stay cached: the kernel's
                                     streaming entry, which prefetches those rows */
    int a_copy;                   /* a_late, rows contiguous but aliasing in L1: copied per tile
                                     with a padded stride (no transpose), read by the indirect kernel */
    int x_copy;                   /* swapped, x's position rows aliasing in L1 (C = 1024: 4 KiB
                                     apart): a tile's MR rows of a k block are copied, padded */
    int64_t gpt;                  /* groups per task */
    int cbuf;                     /* results go through the task's buffer and the epilogue */
    int64_t slot;                 /* floats of one scratch slot: panel, result buffer, segments, bits */
    int64_t buf_at, seg_at, bits_at, abuf_at, bpack_at, bstride;
    int64_t tab_at, zero_at, iseg_at; /* pix: row-pointer table; zero row; kernel segments */
    int64_t patch_at;             /* wide: copies of the runs that a border cuts */
    int wide;                     /* pix with one table entry per filter row (x_wide) */
    int64_t rl, nunits;           /* pix: run length (Cg, or S*Cg when wide) and runs per position */
    int wide_tiles;               /* wide x through the strided kernel, tile by tile, no row table */
    int t1x1;                     /* plain 1x1 at batch 1, roles swapped: positions the MR side, read
                                     in place, channels the NR side (conv_fwd_1x1_f32.c) */
} fw_plan;

/* Positions of a tensor (strides s, dims d) addressed as pos * s[4]. */
static inline int linear_positions(const int64_t s[5], const int64_t d[3])
{
    return (d[1] == 1 || s[3] == d[2] * s[4]) && (d[0] == 1 || s[2] == d[1] * d[2] * s[4]);
}

/* Most kernel segments of one k block (swapped): runs of channels of one tap. */
static inline int64_t fw_nseg_max(const fw_plan *L) { return imin(L->nunits, cdiv(L->kc, L->rl) + 1); }

/* Floats of the zero row: a run of x (pix), a k block of a filter row (a_direct). */
static inline int64_t fw_nzero(const fw_plan *L) { return imax(L->pix ? L->rl : 0, L->a_direct ? L->kc : 0); }

/* Row stride of the copied filter rows (a_copy) or x rows (x_copy): off the 4 KiB multiples. */
static inline int64_t fw_acopy_ld(const fw_plan *L) { return L->kc + 16; }

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    fw_plan L;
    const float *x, *w;
    float *y;
    float *apack, *slots;
    int cbuf;
    hd_conv_mrun_fn mrun;
    hd_conv_cols_fn cols;
    hd_f32_igemm_fn ik;             /* the indirect kernel (swapped, a_copy), tile MR x NR as kern */
    hd_f32_igemm_fn ik_stream;      /* its entry for filter rows read in place (a_direct) */
    hd_f32_igemm_strided_fn ik_strided; /* its entry for equally spaced rows; NULL: none */
    int wide_tiles;                 /* wide x through ik_strided, tile by tile, no row table */
    int nthreads;                   /* threads taking tasks (a thread's next task is about this many on) */
    int64_t ntasks;                 /* hd_fw_task's tasks */
} fw_ctx;

/* Source coordinate along spatial dim j for output coordinate o and tap t; -1 outside. */
static inline int64_t src_coord(const hd_conv_problem *p, int j, int64_t o, int64_t t)
{
    int64_t i = o * p->str[j] - p->pad[j] + t * p->dil[j];
    return i >= 0 && i < p->in[j] ? i : -1;
}

/* A position cursor: global index q (image-major when blocks cross images). */
typedef struct {
    int64_t n, od, oh, ow;
} poscur;

static inline poscur pos_at(const hd_conv_problem *p, int64_t n, int64_t q)
{
    poscur u;
    u.n = n + q / p->P;
    q %= p->P;
    u.ow = q % p->out[2];
    u.oh = (q / p->out[2]) % p->out[1];
    u.od = q / (p->out[2] * p->out[1]);
    return u;
}

static inline void pos_advance(const hd_conv_problem *p, poscur *u, int64_t cnt)
{
    u->ow += cnt;
    if (u->ow == p->out[2]) {
        u->ow = 0;
        if (++u->oh == p->out[1]) {
            u->oh = 0;
            if (++u->od == p->out[0])
                u->od = 0, u->n++;
        }
    }
}

/* conv_fwd_plan_f32.c */
int hd_fw_filter_rows_contiguous(const hd_conv_problem *p, int pix);

/* conv_fwd_gather_f32.c */
void hd_fw_copy_tile_rows(const hd_igemm_seg *sg, size_t nsg, size_t row0, size_t rows, size_t MR, float *dst,
                          int64_t ld, const float **out);
void hd_fw_pack_w_tile(const fw_ctx *c, int64_t g, int64_t kb, int64_t q, float *dst);
void hd_fw_pack_w_task(void *vctx, size_t task, int thread);
void hd_fw_cols_c(float *dst, int64_t ld, int64_t T, const float *const *src, int64_t cnt);
void hd_fw_mrun_c(float *d, const float *src, int64_t step, const uint8_t *bits, int64_t bit0, int64_t cnt);
int64_t hd_fw_block_geometry(const fw_ctx *c, int64_t n, int64_t q0, int64_t nq, fw_seg *seg, uint8_t *bits,
                             int64_t bstride);
void hd_fw_gather_b_rows(const fw_ctx *c, const fw_seg *seg, int64_t ns, const uint8_t *bits, int64_t bstride,
                         int64_t chb, int64_t r0, int64_t kcb, int64_t nq, float *dst, int64_t ld);

/* conv_fwd_rows_f32.c */
void hd_fw_build_rows(const fw_ctx *c, int64_t n, int64_t chb, int64_t q0, int64_t nq, int64_t ld,
                      const float **tab, const float *zero, float *patch);
int64_t hd_fw_row_segments(const fw_plan *L, const float *const *tab, int64_t ld, int64_t r0, int64_t kcb,
                           hd_igemm_seg *sg);
void hd_fw_block_wide(fw_ctx *c, float *panel, int64_t g, int64_t n, int64_t chb, int64_t q0, int64_t nq,
                      int64_t m0, int64_t nm, float *ybase, float alpha, float beta);

/* conv_fwd_1x1_f32.c */
void hd_fw_block_t1x1(fw_ctx *c, float *panel, int64_t q0, int64_t nq, int64_t m0, int64_t nm);

/* conv_fwd_block_f32.c */
void hd_fw_store_from_buffer(const fw_ctx *c, int64_t n, int64_t ch0, int64_t nm, int64_t q0, int64_t nq,
                             const float *buf, int64_t ld, int swap);
void hd_fw_task(void *vctx, size_t task, int thread);

#endif
