/*
 * Backward filter fp32, the dot tiles of solver 351 (conv_bwdf_f32.h): for a 1x1, unit-stride,
 * unpadded layer of one image whose x and dy rows are position-contiguous (NCHW), each dW
 * value is the dot product of a dy row and an x row, both read in place.  The GEMM tiles
 * would transpose both operands into panels first; with the few positions of one image
 * (a short reduction) those transposes cost a large share of the arithmetic.
 *
 * A task owns up to DOT_KT output channels (fewer in larger images, so that their dy rows
 * stay in L2 while the task walks its tiles) x one tile of 6 channels of one group and writes
 * them into dW itself (alpha and beta applied by the kernel): the sums are the kernel's fixed
 * order (bwdf-ukernels.h), so neither the thread count nor the ISA changes a bit.  The tile's
 * 6 x rows are read again for every 4 dy rows that stream past them (from L1 in 28x28 layers,
 * from L2 in larger ones).
 */
#include "conv/solvers/conv_bwdf_f32.h"

#define DOT_MK 4
#define DOT_MC 6
#define DOT_KT 64                 /* output channels per task, at most */
#define DOT_DY_BYTES (192 << 10)  /* a task's dy rows, at most: they stay in L2 across its tiles */
#define DOT_MIN_P 512             /* fewer positions: the lane tree and the stores of each tile weigh too much
                                     against its sums (14x14 layers with many channels ran slower than on
                                     the GEMM tiles) */

typedef void (*dot_fn)(int64_t mk, int64_t mc, int64_t len, const float *dy, int64_t ldy, const float *x,
                       int64_t ldx, float *dw, int64_t ldw, float alpha, float beta);

/* Positions one float apart over the whole image. */
static int rows_contiguous(const int64_t s[5], const int64_t dims[3])
{
    return s[4] == 1 && (dims[1] == 1 || s[3] == dims[2]) && (dims[0] == 1 || s[2] == dims[1] * dims[2]);
}

int hd_bw_dot_fits(const hd_conv_problem *p)
{
    if (p->TRS != 1 || p->N != 1 || p->P < DOT_MIN_P || p->wst[1] != 1)
        return 0;
    for (int j = 0; j < 3; j++)
        if (p->str[j] != 1 || p->pad[j] != 0)
            return 0;
    return p->xs[1] != 1 && p->ys[1] != 1 && rows_contiguous(p->xs, p->in) && rows_contiguous(p->ys, p->out);
}

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    dot_fn fn;
    int64_t kt;                   /* output channels per task: a multiple of DOT_MK */
    int64_t nkb, ncb;             /* tasks per group: blocks of kt output channels x tiles of channels */
} dot_ctx;

static void dot_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const dot_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    int64_t t = (int64_t)task, cb = t % c->ncb, kb = (t / c->ncb) % c->nkb, g = t / (c->ncb * c->nkb);
    int64_t k0 = kb * c->kt, k1 = min64(k0 + c->kt, p->Kg);
    int64_t c0 = cb * DOT_MC, mc = min64(DOT_MC, p->Cg - c0);
    const float *dy = (const float *)c->a->y + g * p->Kg * p->ys[1];
    const float *x = (const float *)c->a->x + g * p->Cg * p->xs[1];
    float *dw = (float *)c->a->out + g * p->Kg * p->wst[0];
    float alpha = (float)c->a->epi.alpha, beta = (float)c->a->epi.beta;
    for (int64_t k = k0; k < k1; k += DOT_MK)
        c->fn(min64(DOT_MK, k1 - k), mc, p->P, dy + k * p->ys[1], p->ys[1], x + c0 * p->xs[1], p->xs[1],
              dw + k * p->wst[0] + c0, p->wst[0], alpha, beta);
}

void hd_bw_dot_exec(const hd_conv_problem *p, const hd_conv_args *a, int nt)
{
    dot_ctx c = {p, a,
                 p->isa >= HD_ISA_AVX512 ? hd_f32_bwdf_ukernel_dot4x6__avx512
                 : p->isa >= HD_ISA_AVX2 ? hd_f32_bwdf_ukernel_dot4x6__avx2
                                         : hd_f32_bwdf_ukernel_dot4x6__scalar,
                 0, 0, cdiv(p->Cg, DOT_MC)};
    c.kt = DOT_DY_BYTES / (p->P * (int64_t)sizeof(float)) / DOT_MK * DOT_MK;
    c.kt = c.kt < DOT_MK ? DOT_MK : c.kt > DOT_KT ? DOT_KT : c.kt;
    c.nkb = cdiv(p->Kg, c.kt);
    hd_parallel_deal((size_t)(p->G * c.nkb * c.ncb), nt, dot_task, &c);
}
