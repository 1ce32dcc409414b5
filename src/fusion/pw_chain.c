/*
 * fusion/pw_chain.c -- a chain of pointwise operations in one pass over the output.
 *
 * The shape is cut into rows along one dimension (the one where the final output is
 * contiguous, so stores stream); a row is processed in chunks that stay in L1: the
 * running value is loaded once into float, every step is applied to the chunk, and only
 * the tensors the user sees are written.  Intermediate results therefore never travel to
 * memory.  Rows are independent, so any thread count gives the same bits.
 */
#include "fusion/fusion.h"
#include "core/convert.h"
#include "core/parallel.h"
#include "kernels/eltwise/eltwise-ukernels.h"

#include <math.h>
#include <string.h>

#define CHUNK 256                    /* floats per step of a row: the buffers stay in L1 */
/* Rows per task: enough work per task to amortise the dispatch. */
#define MIN_TASK_ELEMS 16384

int hd_pw_mode_known(int mode)
{
    return (mode >= CUDNN_POINTWISE_ADD && mode <= CUDNN_POINTWISE_SQRT) ||
           (mode >= CUDNN_POINTWISE_RELU_FWD && mode <= CUDNN_POINTWISE_SWISH_FWD) ||
           (mode >= CUDNN_POINTWISE_RELU_BWD && mode <= CUDNN_POINTWISE_SWISH_BWD);
}

int hd_pw_mode_has_other(int mode)
{
    return (mode >= CUDNN_POINTWISE_ADD && mode <= CUDNN_POINTWISE_MAX) || mode >= CUDNN_POINTWISE_RELU_BWD;
}

static void load(const hd_pw_view *v, int64_t off, int64_t stride, int n, float *dst)
{
    switch (v->dt) {
    case CUDNN_DATA_FLOAT: {
        const float *p = (const float *)v->ptr + off;
        if (stride == 1)
            memcpy(dst, p, (size_t)n * sizeof *dst);
        else
            for (int i = 0; i < n; i++)
                dst[i] = p[i * stride];
        break;
    }
    case CUDNN_DATA_HALF: {
        const uint16_t *p = (const uint16_t *)v->ptr + off;
        for (int i = 0; i < n; i++)
            dst[i] = hd_f16_to_f32(p[i * stride]);
        break;
    }
    case CUDNN_DATA_BFLOAT16: {
        const uint16_t *p = (const uint16_t *)v->ptr + off;
        for (int i = 0; i < n; i++)
            dst[i] = hd_bf16_to_f32(p[i * stride]);
        break;
    }
    default: {                       /* DOUBLE (the backend admits nothing else) */
        const double *p = (const double *)v->ptr + off;
        for (int i = 0; i < n; i++)
            dst[i] = (float)p[i * stride];
        break;
    }
    }
}

static void store(const hd_pw_view *v, int64_t off, int64_t stride, int n, const float *src)
{
    switch (v->dt) {
    case CUDNN_DATA_FLOAT: {
        float *p = (float *)v->ptr + off;
        if (stride == 1)
            memcpy(p, src, (size_t)n * sizeof *src);
        else
            for (int i = 0; i < n; i++)
                p[i * stride] = src[i];
        break;
    }
    case CUDNN_DATA_HALF: {
        uint16_t *p = (uint16_t *)v->ptr + off;
        for (int i = 0; i < n; i++)
            p[i * stride] = hd_f32_to_f16(src[i]);
        break;
    }
    case CUDNN_DATA_BFLOAT16: {
        uint16_t *p = (uint16_t *)v->ptr + off;
        for (int i = 0; i < n; i++)
            p[i * stride] = hd_f32_to_bf16(src[i]);
        break;
    }
    default: {
        double *p = (double *)v->ptr + off;
        for (int i = 0; i < n; i++)
            p[i * stride] = src[i];
        break;
    }
    }
}

static float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

/* Clipped, leaky relu: below the lower clip the line continues with SLOPE. */
static float relu_fwd(const hd_pw_step *s, float x)
{
    if (x != x)
        return s->propagate_nan ? x : s->lower_clip;
    if (x < s->lower_clip)
        return s->lower_clip + s->slope * (x - s->lower_clip);
    return x > s->upper_clip ? s->upper_clip : x;
}

static float relu_grad(const hd_pw_step *s, float x)
{
    if (x <= s->lower_clip)
        return s->slope;
    return x >= s->upper_clip ? 0.0f : 1.0f;
}

static float softplus(float x, float beta)
{
    float bx = beta * x;
    /* log1p(exp(bx)) overflows for large bx, where it equals bx to float precision */
    return (bx > 20.0f ? bx : log1pf(expf(bx))) / beta;
}

/* v = step(v, o) on N elements.  ADD, MUL and the GELUs run on the eltwise kernels of the
 * handle's ISA (the same roundings as a plain loop for ADD and MUL; GELU within the bound of
 * kernels/eltwise/f32-gelu-poly.h); the others are float loops. */
static void apply(const hd_pw_step *s, const hd_eltwise_table *k, float *v, const float *o, int n)
{
    const float a1 = s->alpha1, a2 = s->alpha2;
    switch (s->mode) {
    case CUDNN_POINTWISE_ADD:
        k->add3((size_t)n, v, o, v, a1, a2, 0.0f);
        break;
    case CUDNN_POINTWISE_MUL:
        k->mul3((size_t)n, v, o, v, a1, a2, 0.0f);
        break;
    case CUDNN_POINTWISE_MIN:
        for (int i = 0; i < n; i++)
            v[i] = fminf(a1 * v[i], a2 * o[i]);
        break;
    case CUDNN_POINTWISE_MAX:
        for (int i = 0; i < n; i++)
            v[i] = fmaxf(a1 * v[i], a2 * o[i]);
        break;
    case CUDNN_POINTWISE_SQRT:
        for (int i = 0; i < n; i++)
            v[i] = sqrtf(a1 * v[i]);
        break;
    case CUDNN_POINTWISE_RELU_FWD:
        for (int i = 0; i < n; i++)
            v[i] = relu_fwd(s, a1 * v[i]);
        break;
    case CUDNN_POINTWISE_TANH_FWD:
        for (int i = 0; i < n; i++)
            v[i] = tanhf(a1 * v[i]);
        break;
    case CUDNN_POINTWISE_SIGMOID_FWD:
        for (int i = 0; i < n; i++)
            v[i] = sigmoidf(a1 * v[i]);
        break;
    case CUDNN_POINTWISE_ELU_FWD:
        for (int i = 0; i < n; i++) {
            float x = a1 * v[i];
            v[i] = x > 0 ? x : s->elu_alpha * expm1f(x);
        }
        break;
    case CUDNN_POINTWISE_GELU_FWD:
        k->gelu((size_t)n, v, v, a1);
        break;
    case CUDNN_POINTWISE_SOFTPLUS_FWD:
        for (int i = 0; i < n; i++)
            v[i] = softplus(a1 * v[i], s->softplus_beta);
        break;
    case CUDNN_POINTWISE_SWISH_FWD:
        for (int i = 0; i < n; i++) {
            float x = a1 * v[i];
            v[i] = x * sigmoidf(s->swish_beta * x);
        }
        break;
    case CUDNN_POINTWISE_RELU_BWD:
        for (int i = 0; i < n; i++)
            v[i] = a1 * v[i] * relu_grad(s, a2 * o[i]);
        break;
    case CUDNN_POINTWISE_TANH_BWD:
        for (int i = 0; i < n; i++) {
            float t = tanhf(a2 * o[i]);
            v[i] = a1 * v[i] * (1.0f - t * t);
        }
        break;
    case CUDNN_POINTWISE_SIGMOID_BWD:
        for (int i = 0; i < n; i++) {
            float t = sigmoidf(a2 * o[i]);
            v[i] = a1 * v[i] * t * (1.0f - t);
        }
        break;
    case CUDNN_POINTWISE_ELU_BWD:
        for (int i = 0; i < n; i++) {
            float x = a2 * o[i];
            v[i] = a1 * v[i] * (x > 0 ? 1.0f : s->elu_alpha * expf(x));
        }
        break;
    case CUDNN_POINTWISE_GELU_BWD:
        k->gelu_bwd((size_t)n, o, v, v, a2, a1);
        break;
    case CUDNN_POINTWISE_SOFTPLUS_BWD:
        for (int i = 0; i < n; i++)
            v[i] = a1 * v[i] * sigmoidf(s->softplus_beta * a2 * o[i]);
        break;
    case CUDNN_POINTWISE_SWISH_BWD:
        for (int i = 0; i < n; i++) {
            float x = a2 * o[i], t = sigmoidf(s->swish_beta * x);
            v[i] = a1 * v[i] * (t + s->swish_beta * x * t * (1.0f - t));
        }
        break;
    default:
        break;                       /* refused by the backend before it gets here */
    }
}

typedef struct {
    const hd_pw_chain *c;
    const hd_eltwise_table *k;
    int inner;                       /* the dimension a row runs along */
    int64_t rows, rows_per_task;
} chain_ctx;

/* Offset of row R in view V: R enumerates every dimension but the inner one, last fastest. */
static int64_t row_offset(const chain_ctx *x, const int64_t *strides, int64_t r)
{
    int64_t off = 0;
    for (int d = x->c->nd - 1; d >= 0; d--) {
        if (d == x->inner)
            continue;
        int64_t i = r % x->c->dims[d];
        r /= x->c->dims[d];
        off += i * strides[d];
    }
    return off;
}

static void chain_task(void *ctx, size_t task, int thread)
{
    (void)thread;
    const chain_ctx *x = ctx;
    const hd_pw_chain *c = x->c;
    const int in = x->inner;
    const int64_t len = c->dims[in];
    float v[CHUNK], o[CHUNK];
    int64_t r0 = (int64_t)task * x->rows_per_task, r1 = r0 + x->rows_per_task;
    if (r1 > x->rows)
        r1 = x->rows;
    for (int64_t r = r0; r < r1; r++) {
        int64_t base_in = row_offset(x, c->in.strides, r);
        int64_t base_o[HD_PW_MAX_STEPS], base_s[HD_PW_MAX_STEPS];
        for (int k = 0; k < c->nsteps; k++) {
            base_o[k] = c->step[k].has_other ? row_offset(x, c->step[k].other.strides, r) : 0;
            base_s[k] = c->step[k].store ? row_offset(x, c->step[k].out.strides, r) : 0;
        }
        for (int64_t j = 0; j < len; j += CHUNK) {
            int n = (int)(len - j < CHUNK ? len - j : CHUNK);
            load(&c->in, base_in + j * c->in.strides[in], c->in.strides[in], n, v);
            for (int k = 0; k < c->nsteps; k++) {
                const hd_pw_step *s = &c->step[k];
                if (s->has_other)
                    load(&s->other, base_o[k] + j * s->other.strides[in], s->other.strides[in], n, o);
                apply(s, x->k, v, o, n);
                if (s->store)
                    store(&s->out, base_s[k] + j * s->out.strides[in], s->out.strides[in], n, v);
            }
        }
    }
}

void hd_pw_chain_run(const hd_pw_chain *c, int nthreads)
{
    chain_ctx x;
    x.c = c;
    x.k = hd_eltwise_kernels(c->isa);
    /* Rows run along the dimension where the last written tensor is densest. */
    const hd_pw_view *last = &c->in;
    for (int k = 0; k < c->nsteps; k++)
        if (c->step[k].store)
            last = &c->step[k].out;
    x.inner = c->nd - 1;
    int64_t best = INT64_MAX;
    for (int d = 0; d < c->nd; d++)
        if (c->dims[d] > 1 && last->strides[d] > 0 && last->strides[d] < best) {
            best = last->strides[d];
            x.inner = d;
        }
    int64_t total = 1;
    for (int d = 0; d < c->nd; d++)
        total *= c->dims[d];
    x.rows = total / c->dims[x.inner];
    int64_t per = MIN_TASK_ELEMS / c->dims[x.inner];
    x.rows_per_task = per < 1 ? 1 : per;
    size_t tasks = (size_t)((x.rows + x.rows_per_task - 1) / x.rows_per_task);
    hd_parallel_for(tasks, nthreads, chain_task, &x);
}

static size_t elem_bytes(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_HALF || dt == CUDNN_DATA_BFLOAT16 ? 2 : dt == CUDNN_DATA_DOUBLE ? 8 : 4;
}

static void view_at(hd_pw_view *v, int nd, const int64_t *lo)
{
    int64_t off = 0;
    for (int d = 0; d < nd; d++)
        off += lo[d] * v->strides[d];
    if (v->ptr)
        v->ptr = (char *)v->ptr + off * (int64_t)elem_bytes(v->dt);
}

void hd_pw_chain_run_box(const hd_pw_chain *c, const int64_t *lo, const int64_t *count, int nthreads)
{
    /* The box is a chain of its own: the same views moved to its first element. */
    hd_pw_chain b = *c;
    memcpy(b.dims, count, (size_t)c->nd * sizeof *count);
    view_at(&b.in, c->nd, lo);
    for (int k = 0; k < c->nsteps; k++) {
        if (b.step[k].has_other)
            view_at(&b.step[k].other, c->nd, lo);
        if (b.step[k].store)
            view_at(&b.step[k].out, c->nd, lo);
    }
    for (int d = 0; d < c->nd; d++)
        if (count[d] <= 0)
            return;
    hd_pw_chain_run(&b, nthreads);
}
