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

#include <float.h>
#include <math.h>
#include <string.h>

#define CHUNK 256                    /* a multiple of GELU_BLOCK */
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

/*
 * GELU is x Phi(x), Phi the standard normal distribution (the erf form).  libm's erff and
 * expf are calls the compiler cannot vectorize and cost most of a matmul + gelu graph, so
 * Phi is computed here in double, without branches, over blocks of GELU_BLOCK values (a fixed
 * trip count the compiler vectorizes at -O2):
 *   e^y (y <= 0) as 2^k e^r, |r| <= ln2/2, e^r by its Taylor polynomial to r^7 (relative
 *   error below 1e-8), 2^k put straight into the exponent bits;
 *   erf(u), u >= 0, by Abramowitz and Stegun's formula 7.1.26 (absolute error below 1.5e-7),
 *   odd for u < 0.
 * So Phi is within 1e-7 of the exact value, and GELU and its derivative within 2e-7 (1 + |x|).
 */
#define GELU_BLOCK 8

static inline double exp_nonpos(double y)
{
    const double shifter = 6755399441055744.0;   /* 1.5 * 2^52: adding it rounds to an integer kept in the low bits */
    y = y < -700.0 ? -700.0 : y;
    double kd = y * 1.4426950408889634 + shifter;
    uint64_t kb;
    memcpy(&kb, &kd, sizeof kb);
    kd -= shifter;
    double r = (y - kd * 0.6931471803691238) - kd * 1.9082149292705877e-10;   /* ln 2 in two parts */
    double p = 1 + r * (1 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720 + r * (1.0 / 5040)))))));
    uint64_t sb = (kb + 1023) << 52;             /* the low bits of kb hold 2^51 + k */
    double scale;
    memcpy(&scale, &sb, sizeof scale);
    return p * scale;
}

/* Phi(x) and the normal density for GELU_BLOCK values (no branches: the loop vectorizes). */
static void phi_block(const double *x, double *cdf, double *pdf)
{
    for (int i = 0; i < GELU_BLOCK; i++) {
        double v = x[i], u = fabs(v) * 0.70710678118654752, t = 1.0 / (1.0 + 0.3275911 * u);
        double e = exp_nonpos(-u * u);
        double poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
        cdf[i] = 0.5 + 0.5 * copysign(1.0 - poly * e, v);
        pdf[i] = 0.39894228040143268 * e;         /* e = exp(-x^2 / 2) */
    }
}

static float softplus(float x, float beta)
{
    float bx = beta * x;
    /* log1p(exp(bx)) overflows for large bx, where it equals bx to float precision */
    return (bx > 20.0f ? bx : log1pf(expf(bx))) / beta;
}

/* v = step(v, o) on N elements. */
static void apply(const hd_pw_step *s, float *v, const float *o, int n)
{
    const float a1 = s->alpha1, a2 = s->alpha2;
    switch (s->mode) {
    case CUDNN_POINTWISE_ADD:
        for (int i = 0; i < n; i++)
            v[i] = a1 * v[i] + a2 * o[i];
        break;
    case CUDNN_POINTWISE_MUL:
        for (int i = 0; i < n; i++)
            v[i] = (a1 * v[i]) * (a2 * o[i]);
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
        /* whole blocks: the chunk buffers have room past N (CHUNK is a multiple of GELU_BLOCK) */
        for (int i = 0; i < n; i += GELU_BLOCK) {
            double x[GELU_BLOCK], cdf[GELU_BLOCK], pdf[GELU_BLOCK];
            for (int j = 0; j < GELU_BLOCK; j++)
                x[j] = a1 * v[i + j];
            phi_block(x, cdf, pdf);
            for (int j = 0; j < GELU_BLOCK; j++)
                v[i + j] = (float)(x[j] * cdf[j]);
        }
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
        for (int i = 0; i < n; i += GELU_BLOCK) {
            double x[GELU_BLOCK], cdf[GELU_BLOCK], pdf[GELU_BLOCK];
            for (int j = 0; j < GELU_BLOCK; j++)
                x[j] = a2 * o[i + j];
            phi_block(x, cdf, pdf);
            for (int j = 0; j < GELU_BLOCK; j++)
                v[i + j] = (float)(a1 * v[i + j] * (cdf[j] + x[j] * pdf[j]));
        }
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
    float v[CHUNK] = {0}, o[CHUNK] = {0};   /* GELU reads whole blocks past a short chunk */
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
                apply(s, v, o, n);
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
