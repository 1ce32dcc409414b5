/*
 * Backward data of a 1x1, unit-stride, unpadded convolution (kernels/conv/conv_bwdd.h,
 * bwd_data.1x1): per image and group, dx = W^T dy, a plain GEMM (Cg x positions, Kg deep).
 *
 * NHWC-like tensors (channels contiguous, pixels packed across images) and a filter with
 * contiguous channels: the whole batch is one product in place, dx (N*Q x Cg) = dy (N*Q x Kg)
 * * W (Kg x Cg), with alpha and beta given to hd_sgemm (all threads; its result does not
 * depend on their number).  No workspace.
 *
 * Channel planes (NCHW-like): multiplying straight out of dy and into dx (rows a whole plane apart) ran at a third of
 * the GEMM's speed: every block reads Kg and writes Cg cold rows at once.  So a task (group,
 * block of positions, which may run across images so that small images still give wide
 * GEMMs) first copies its dy rows into a private panel (one streaming pass), multiplies
 * panel to panel in cache, and writes dx rows through the epilogue.  The
 * blocks are a function of the problem only and each dx element is one GEMM dot product,
 * so results do not depend on the thread count.
 */
#include "kernels/conv/conv_bwdd.h"

#include "core/parallel.h"
#include "kernels/conv/conv_internal.h"
#include "kernels/gemm.h"

#include <string.h>

#define SLOTS 8                       /* scratch areas, taken by thread index: at most 8 threads */
#define SLOT_FLOATS (512 * 1024)      /* dy panel + dx block of one task: 2 MiB */

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

typedef struct {
    int64_t pb, nb;               /* positions per block, blocks; blocks run across images */
} b1_plan;

static b1_plan plan_b1(const hd_conv_problem *p)
{
    b1_plan L;
    int64_t all = p->N * p->Q, pb = SLOT_FLOATS / (p->Kg + p->Cg) / 16 * 16;
    if (pb < 16)
        pb = 16;
    L.nb = cdiv(all, pb);
    while (p->G * L.nb < 4 && L.nb * 64 < all)   /* small problems: enough tasks */
        L.nb *= 2;
    L.pb = cdiv(all, L.nb);
    L.nb = cdiv(all, L.pb);
    return L;
}

/* Channels contiguous and positions linear across images in dx, dy (NHWC-like), and the
 * filter's channels contiguous: the whole batch is one GEMM in place. */
static int nhwc_in_place(const hd_conv_problem *p)
{
    const int64_t *xs = p->xs, *ys = p->ys;
    int lx = xs[1] == 1 && xs[4] >= p->C && (p->in[1] == 1 || xs[3] == p->in[2] * xs[4]) &&
             (p->in[0] == 1 || xs[2] == p->in[1] * p->in[2] * xs[4]) && (p->N == 1 || xs[0] == p->Q * xs[4]);
    int ly = ys[1] == 1 && ys[4] >= p->K && (p->out[1] == 1 || ys[3] == p->out[2] * ys[4]) &&
             (p->out[0] == 1 || ys[2] == p->out[1] * p->out[2] * ys[4]) && (p->N == 1 || ys[0] == p->P * ys[4]);
    return lx && ly && p->wst[1] == 1 && p->wst[0] >= p->Cg;
}

/* SLOTS x (panel Kg x pb, result Cg x pb); nothing when NHWC-like. */
static hd_conv_layout layout_b1(const hd_conv_problem *p)
{
    b1_plan L = plan_b1(p);
    hd_conv_layout W = {{0}, 0};
    if (nhwc_in_place(p))
        return W;
    hd_conv_book(&W, 1, SLOTS, (p->Kg + p->Cg) * L.pb, sizeof(float));
    return W;
}

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    b1_plan L;
    float *slots;
} b1_ctx;

static void b1_task(void *vctx, size_t task, int thread)
{
    const b1_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    const hd_conv_args *a = c->a;
    int64_t t = (int64_t)task, b = t % c->L.nb, g = t / c->L.nb, Q = p->Q, all = p->N * Q;
    int64_t q0 = b * c->L.pb, np = all - q0 < c->L.pb ? all - q0 : c->L.pb;
    float *panel = c->slots + (size_t)thread * (size_t)((p->Kg + p->Cg) * c->L.pb), *res = panel + p->Kg * np;
    const float *dy = (const float *)a->y + g * p->Kg * p->ys[1];
    for (int64_t q = q0; q < q0 + np;) {          /* one run of positions per image */
        int64_t n = q / Q, i = q % Q, cnt = Q - i < q0 + np - q ? Q - i : q0 + np - q;
        for (int64_t k = 0; k < p->Kg; k++)
            memcpy(panel + k * np + (q - q0), dy + n * p->ys[0] + k * p->ys[1] + i, sizeof(float) * (size_t)cnt);
        q += cnt;
    }
    hd_sgemm(1, 'T', 'N', (size_t)p->Cg, (size_t)np, (size_t)p->Kg, 1.0f, (const float *)a->w + g * p->Kg * p->wst[0],
             (size_t)p->wst[0], panel, (size_t)np, 0.0f, res, (size_t)np);
    float alpha = (float)a->epi.alpha, beta = (float)a->epi.beta;
    float *dx = (float *)a->out + g * p->Cg * p->xs[1];
    for (int64_t q = q0; q < q0 + np;) {
        int64_t n = q / Q, i = q % Q, cnt = Q - i < q0 + np - q ? Q - i : q0 + np - q;
        for (int64_t cl = 0; cl < p->Cg; cl++) {
            float *o = dx + n * p->xs[0] + cl * p->xs[1] + i;
            const float *v = res + cl * np + (q - q0);
            if (beta == 0)
                for (int64_t j = 0; j < cnt; j++)
                    o[j] = alpha * v[j];
            else
                for (int64_t j = 0; j < cnt; j++)
                    o[j] = alpha * v[j] + beta * o[j];
        }
        q += cnt;
    }
}

/* Spatial positions of a tensor (strides S, dims D) contiguous: pos * 1. */
static int planes(const int64_t s[5], const int64_t d[3])
{
    return s[4] == 1 && (d[1] == 1 || s[3] == d[2]) && (d[0] == 1 || s[2] == d[1] * d[2]);
}

size_t hd_conv_bwdd_1x1_ws(const hd_conv_problem *p) { return layout_b1(p).total; }

int hd_conv_bwdd_1x1_app(const hd_conv_problem *p, const char **reason)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8 || p->xv != 1 || p->yv != 1 || p->wv != 1) {
        *reason = "the 1x1 backward-data solver takes FLOAT x, w and y only";
        return 0;
    }
    for (int j = 0; j < 3; j++)
        if (p->flt[j] != 1 || p->pad[j] != 0 || p->str[j] != 1) {
            *reason = "needs a 1x1 filter, unit stride and no padding";
            return 0;
        }
    if (!nhwc_in_place(p) && (!planes(p->xs, p->in) || !planes(p->ys, p->out))) {
        *reason = "needs packed channel planes (NCHW-like) or packed pixels (NHWC-like) in dx and dy";
        return 0;
    }
    if (p->Cg * p->Kg < 64) {
        *reason = "too few channels for a GEMM";
        return 0;
    }
    if (hd_conv_bwdd_1x1_ws(p) == SIZE_MAX) {
        *reason = "its workspace would not fit in size_t";
        return 0;
    }
    return 1;
}

double hd_conv_bwdd_1x1_cost(const hd_conv_problem *p)
{
    (void)p;
    return 0.25;
}

void hd_conv_bwdd_1x1_exec(const hd_conv_problem *p, const hd_conv_args *a)
{
    if (nhwc_in_place(p)) {                        /* dx (N*Q x Cg) = dy (N*Q x Kg) * W (Kg x Cg) */
        for (int64_t g = 0; g < p->G; g++)
            hd_sgemm(a->nthreads, 'N', 'N', (size_t)(p->N * p->Q), (size_t)p->Cg, (size_t)p->Kg, (float)a->epi.alpha,
                     (const float *)a->y + g * p->Kg, (size_t)p->ys[4], (const float *)a->w + g * p->Kg * p->wst[0],
                     (size_t)p->wst[0], (float)a->epi.beta, (float *)a->out + g * p->Cg, (size_t)p->xs[4]);
        return;
    }
    hd_conv_layout W = layout_b1(p);
    b1_ctx c;
    c.p = p;
    c.a = a;
    c.L = plan_b1(p);
    c.slots = (float *)((char *)a->ws + W.off[1]);
    int nt = a->nthreads < SLOTS ? a->nthreads : SLOTS;
    hd_parallel_for((size_t)(p->G * c.L.nb), nt, b1_task, &c);
}
