/* kernels/transpose/f32-transpose-scalar.c -- reference tile and the tiled driver. */
#include "kernels/transpose/transpose.h"
#include "core/cpu.h"
#include "core/parallel.h"

#define TILE 32

void hd_f32_tile_scalar(int64_t r, int64_t c, const float *in, int64_t ldi, float *out, int64_t ldo, float alpha,
                        float beta)
{
    for (int64_t j = 0; j < c; j++)
        for (int64_t i = 0; i < r; i++) {
            float v = alpha * in[i * ldi + j];
            out[j * ldo + i] = beta != 0.0f ? v + beta * out[j * ldo + i] : v;
        }
}

typedef struct {
    hd_f32_tile_fn tile;
    int64_t rows, cols, tr, tc;
    const float *in;
    float *out;
    float alpha, beta;
} tp_ctx;

static void tp_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const tp_ctx *c = vctx;
    int64_t per = c->tr * c->tc;
    int64_t b = (int64_t)task / per, t = (int64_t)task % per;
    int64_t i0 = (t / c->tc) * TILE, j0 = (t % c->tc) * TILE;
    int64_t r = c->rows - i0 < TILE ? c->rows - i0 : TILE, cc = c->cols - j0 < TILE ? c->cols - j0 : TILE;
    const float *in = c->in + b * c->rows * c->cols + i0 * c->cols + j0;
    float *out = c->out + b * c->rows * c->cols + j0 * c->rows + i0;
    c->tile(r, cc, in, c->cols, out, c->rows, c->alpha, c->beta);
}

void hd_f32_transpose(int isa, int nthreads, int64_t batch, int64_t rows, int64_t cols, const void *in, void *out,
                      float alpha, float beta)
{
    tp_ctx c;
    int cap = (int)hd_cpu_isa();
    c.tile = (isa < cap ? isa : cap) >= HD_ISA_AVX2 ? hd_f32_tile_avx2 : hd_f32_tile_scalar;
    c.rows = rows;
    c.cols = cols;
    c.tr = (rows + TILE - 1) / TILE;
    c.tc = (cols + TILE - 1) / TILE;
    c.in = in;
    c.out = out;
    c.alpha = alpha;
    c.beta = beta;
    size_t ntasks = (size_t)(batch * c.tr * c.tc);
    /* tiles are small: keep tiny transposes on one thread */
    if ((int64_t)ntasks * TILE * TILE < 65536)
        nthreads = 1;
    hd_parallel_for(ntasks, nthreads, tp_task, &c);
}
