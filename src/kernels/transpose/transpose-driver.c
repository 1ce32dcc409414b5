/*
 * kernels/transpose/transpose-driver.c -- the batched transpose (hd_f32_transpose): fixed
 * tiles dealt to threads, each run by the tile micro-kernel of the ISA.
 */
#include "kernels/transpose/transpose-ukernels.h"
#include "core/cpu.h"
#include "core/parallel.h"

/* Work is cut into fixed blocks of up to BLOCK_R x BLOCK_C elements (one task each, the
 * same cut for every thread count).  A block reads 16 source rows of 1 KiB (few streams, so
 * the hardware prefetchers keep up with them all) and writes one 64-byte line
 * of each of its 256 destination rows. */
#define BLOCK_R 16
#define BLOCK_C 256

typedef struct {
    hd_f32_tile_fn tile;
    int64_t rows, cols, br, bc;      /* bc: column blocks per matrix, br: row blocks */
    const float *in;
    float *out;
    float alpha, beta;
} tp_ctx;

static void tp_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const tp_ctx *c = vctx;
    int64_t per = c->br * c->bc;
    int64_t b = (int64_t)task / per, t = (int64_t)task % per;
    int64_t i0 = (t / c->bc) * BLOCK_R, j0 = (t % c->bc) * BLOCK_C;
    int64_t r = c->rows - i0 < BLOCK_R ? c->rows - i0 : BLOCK_R;
    int64_t cc = c->cols - j0 < BLOCK_C ? c->cols - j0 : BLOCK_C;
    const float *in = c->in + b * c->rows * c->cols + i0 * c->cols + j0;
    float *out = c->out + b * c->rows * c->cols + j0 * c->rows + i0;
    c->tile(r, cc, in, c->cols, out, c->rows, c->alpha, c->beta);
}


void hd_f32_transpose(int isa, int nthreads, int64_t batch, int64_t rows, int64_t cols, const void *in, void *out,
                      float alpha, float beta)
{
    tp_ctx c;
    c.tile = hd_f32_tile_select(isa);
    /* Outputs far beyond the caches, not read (beta 0), in whole aligned 64-byte lines: stream
     * them past the caches, which saves the read for ownership (a third of the traffic). */
    if (c.tile == hd_f32_transpose_ukernel__avx512 && beta == 0.0f && rows % 16 == 0 && ((uintptr_t)out & 63) == 0 &&
        batch * rows * cols * (int64_t)sizeof(float) >= HD_TRANSPOSE_STREAM_BYTES)
        c.tile = hd_f32_transpose_ukernel_nt__avx512;
    c.rows = rows;
    c.cols = cols;
    c.br = (rows + BLOCK_R - 1) / BLOCK_R;
    c.bc = (cols + BLOCK_C - 1) / BLOCK_C;
    c.in = in;
    c.out = out;
    c.alpha = alpha;
    c.beta = beta;
    size_t ntasks = (size_t)(batch * c.br * c.bc);
    /* keep tiny transposes on one thread */
    if (batch * rows * cols < 65536)
        nthreads = 1;
    hd_parallel_for(ntasks, nthreads, tp_task, &c);
}
