/*
 * Backward data as forward convolutions (conv/solvers/conv_bwdd.h, bwd_data.phased_fwd).
 *
 * Along one spatial dimension, dx[i] = sum over (o, r) with o*str - pad + r*dil = i of
 * dy[o] * w[r].  Write i = a + str*i' with the phase a in [0, str).  The taps that reach
 * phase a are those with (a + pad - r*dil) divisible by str: r = r0 + m*rs (rs = str /
 * gcd(str, dil)), m = 0..J-1, and they meet dy at o = i' + off - m*e, with off = (a + pad -
 * r0*dil) / str and e = dil / gcd(str, dil).  Renumbering the taps backwards (m' = J-1-m)
 * gives o = i' - pad' + m'*e with pad' = (J-1)*e - off: a unit-stride forward convolution of
 * dy with dilation e and padding pad', whose output is the sub-grid of dx at phase a.  At
 * stride 1 there is one phase, J = R, e = dil and pad' = dil*(R-1) - pad: the textbook
 * "backward data is the forward convolution of dy with the flipped, transposed filter".
 *
 * Every (phase, dimension) pair is independent, so a problem has str[0]*str[1]*str[2]
 * phases, each a derived forward problem: x := dy (K channels), y := the dx sub-grid (dx
 * strides times str, offset by the phase), w := the taps of that phase, transposed (k <-> c)
 * and renumbered backwards, packed here in the layout the forward solver reads unchanged
 * (KCRS, or KRSC when dy's channels are contiguous).  A negative pad' (dy positions before
 * the first one any dx of the phase meets) moves the start of dy instead.  A phase with no
 * taps, or whose taps all fall outside dy, gets dx = beta*dx.  Each dx element belongs to
 * exactly one phase, so alpha and beta are applied once, by the forward solver's epilogue.
 *
 * Workspace: the packed sub-filters of all phases (as many floats as the filter), then the
 * largest forward workspace of a phase (phases run one after the other, each on all threads).
 * The forward solver is deterministic, packing is a copy: results do not depend on threads.
 */
#include "conv/solvers/conv_bwdd.h"
#include "conv/solvers/conv_solvers.h"

#include "core/parallel.h"
#include "conv/solvers/conv_fast.h"
#include "conv/conv_internal.h"

/* One dimension of one phase. */
typedef struct {
    int64_t n;                    /* dx positions of the phase (0: a >= in) */
    int64_t J, r0, rs, e;         /* taps r0 + m*rs (m < J), dilation e in dy */
    int64_t pad, skip, in;        /* padding of the derived problem, dy positions skipped, dy positions used */
} phase_dim;

typedef struct {
    phase_dim d[3];
    int64_t a[3];
    int conv;                     /* 0: no tap reaches this phase: dx = beta * dx */
} phase;

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void phase_dim_init(const hd_conv_problem *p, int j, int64_t a, phase_dim *d)
{
    int64_t str = p->str[j], dil = p->dil[j], pad = p->pad[j], flt = p->flt[j];
    int64_t g = gcd64(str, dil);
    d->n = a < p->in[j] ? (p->in[j] - a + str - 1) / str : 0;
    d->rs = str / g;
    d->e = dil / g;
    d->J = 0;
    d->r0 = 0;
    d->pad = d->skip = 0;
    d->in = 0;
    for (int64_t r = 0; r < d->rs && r < flt; r++) {
        int64_t v = a + pad - r * dil;
        if (((v % str) + str) % str == 0) {
            d->r0 = r;
            d->J = (flt - 1 - r) / d->rs + 1;
            int64_t off = v / str;                  /* exact */
            int64_t pd = (d->J - 1) * d->e - off;
            d->skip = pd < 0 ? -pd : 0;
            d->pad = pd + d->skip;
            d->in = p->out[j] - d->skip;
            break;
        }
    }
}

static int64_t phase_count(const hd_conv_problem *p) { return p->str[0] * p->str[1] * p->str[2]; }

static void phase_init(const hd_conv_problem *p, int64_t ph, phase *f)
{
    f->a[2] = ph % p->str[2];
    f->a[1] = (ph / p->str[2]) % p->str[1];
    f->a[0] = ph / (p->str[2] * p->str[1]);
    f->conv = 1;
    for (int j = 0; j < 3; j++) {
        phase_dim_init(p, j, f->a[j], &f->d[j]);
        if (f->d[j].J == 0 || f->d[j].in <= 0)
            f->conv = 0;
    }
}

static int phase_has_dx(const phase *f) { return f->d[0].n > 0 && f->d[1].n > 0 && f->d[2].n > 0; }

/* dy's channels are contiguous: the forward solver reduces over (tap, channel). */
static int dy_pix(const hd_conv_problem *p) { return p->ys[1] == 1 && p->ys[4] != 1 && p->Kg > 1; }

/* The derived forward problem of phase F (a convolution phase with dx positions). */
static void derive(const hd_conv_problem *p, const phase *f, hd_conv_problem *q)
{
    *q = *p;
    q->C = p->K, q->K = p->C, q->Cg = p->Kg, q->Kg = p->Cg;
    for (int j = 0; j < 3; j++) {
        const phase_dim *d = &f->d[j];
        q->in[j] = d->in;
        q->out[j] = d->n;
        q->flt[j] = d->J;
        q->pad[j] = d->pad;
        q->str[j] = 1;
        q->dil[j] = d->e;
    }
    for (int i = 0; i < 5; i++) {
        q->xs[i] = p->ys[i];
        q->ys[i] = i < 2 ? p->xs[i] : p->xs[i] * p->str[i - 2];
    }
    q->TRS = q->flt[0] * q->flt[1] * q->flt[2];
    q->CRS = q->Cg * q->TRS;
    q->P = q->out[0] * q->out[1] * q->out[2];
    q->Q = q->in[0] * q->in[1] * q->in[2];
    int64_t S = q->flt[2], RS = q->flt[1] * S;
    if (dy_pix(p)) {                               /* KRSC */
        q->wfmt = CUDNN_TENSOR_NHWC;
        q->wst[1] = 1, q->wst[4] = q->Cg, q->wst[3] = S * q->Cg, q->wst[2] = RS * q->Cg;
    } else {                                       /* KCRS */
        q->wfmt = CUDNN_TENSOR_NCHW;
        q->wst[4] = 1, q->wst[3] = S, q->wst[2] = RS, q->wst[1] = q->TRS;
    }
    q->wst[0] = q->CRS;
    q->flip = 0;
}

/* ---- packing: one task per block of PACK_CH dx channels, all phases ---- */

#define PACK_CH 16   /* dx channels per packing task: the filter values of one (k, tap) for
                        these channels share a cache line or a few (one task per channel
                        would read a whole line per value, a filter row apart) */

typedef struct {
    const hd_conv_problem *p;
    const float *w;
    float *packed;
} pack_ctx;

static void pack_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const pack_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    int64_t ch0 = (int64_t)task * PACK_CH, ch1 = ch0 + PACK_CH < p->C ? ch0 + PACK_CH : p->C;
    float *base = c->packed;
    for (int64_t ph = 0; ph < phase_count(p); ph++) {
        phase f;
        phase_init(p, ph, &f);
        const phase_dim *d = f.d;
        int64_t taps = d[0].J * d[1].J * d[2].J, block = p->C * p->Kg * taps;
        if (!f.conv || !phase_has_dx(&f)) {
            base += block;
            continue;
        }
        hd_conv_problem q;
        derive(p, &f, &q);
        for (int64_t kl = 0; kl < p->Kg; kl++)
            for (int64_t mt = 0; mt < d[0].J; mt++)
                for (int64_t mr = 0; mr < d[1].J; mr++)
                    for (int64_t ms = 0; ms < d[2].J; ms++) {
                        int64_t t = d[0].r0 + (d[0].J - 1 - mt) * d[0].rs;
                        int64_t r = d[1].r0 + (d[1].J - 1 - mr) * d[1].rs;
                        int64_t s = d[2].r0 + (d[2].J - 1 - ms) * d[2].rs;
                        int64_t o = kl * q.wst[1] + mt * q.wst[2] + mr * q.wst[3] + ms * q.wst[4];
                        for (int64_t ch = ch0; ch < ch1;) {   /* runs of channels of one group */
                            int64_t g = ch / p->Cg, end = (g + 1) * p->Cg < ch1 ? (g + 1) * p->Cg : ch1;
                            const float *src = c->w + hd_conv_w_off(p, g * p->Kg + kl, ch % p->Cg, t, r, s);
                            float *dst = base + ch * q.wst[0] + o;
                            for (; ch < end; ch++, src += p->wst[1], dst += q.wst[0])
                                *dst = *src;
                        }
                    }
        base += block;
    }
}

/* dx = beta * dx on the sub-grid of phase F (no tap reaches it). */
static void scale_phase(const hd_conv_problem *p, const phase *f, const hd_conv_args *a)
{
    float beta = (float)a->epi.beta, *dx = a->out;
    const int64_t *xs = p->xs;
    for (int64_t n = 0; n < p->N; n++)
        for (int64_t c = 0; c < p->C; c++)
            for (int64_t i0 = 0; i0 < f->d[0].n; i0++)
                for (int64_t i1 = 0; i1 < f->d[1].n; i1++) {
                    float *row = dx + n * xs[0] + c * xs[1] + (f->a[0] + i0 * p->str[0]) * xs[2] +
                                 (f->a[1] + i1 * p->str[1]) * xs[3] + f->a[2] * xs[4];
                    int64_t step = p->str[2] * xs[4];
                    for (int64_t i2 = 0; i2 < f->d[2].n; i2++)
                        row[i2 * step] = beta == 0 ? 0.0f : beta * row[i2 * step];
                }
}

/* ---- the solver ---- */

int hd_conv_bwdd_phase_app(const hd_conv_problem *p, const char **reason)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8 || p->xv != 1 || p->yv != 1 || p->wv != 1) {
        *reason = "the phased backward-data solver takes FLOAT x, w and y only";
        return 0;
    }
    if (phase_count(p) > 4096) {
        *reason = "more than 4096 stride phases";
        return 0;
    }
    return 1;
}

/* The plan: every phase's forward convolution is planned (any may refuse), and the
 * workspace is the packed sub-filters of all phases (K * CRS floats), then the largest
 * forward workspace of a phase.  The phases' own plans are made again when they run. */
int hd_conv_bwdd_phase_plan(const hd_conv_problem *p, hd_conv_plan *pl, const char **reason)
{
    size_t fw = 0;
    for (int64_t ph = 0; ph < phase_count(p); ph++) {
        phase f;
        phase_init(p, ph, &f);
        if (!f.conv || !phase_has_dx(&f))
            continue;
        hd_conv_problem q;
        hd_conv_plan sub;
        derive(p, &f, &q);
        if (!hd_conv_fw_plan(&q, &sub, reason))
            return 0;
        if (sub.ws > fw)
            fw = sub.ws;
    }
    hd_conv_layout *W = (hd_conv_layout *)(void *)pl->priv;
    *W = (hd_conv_layout){{0}, 0};
    hd_conv_book(W, 0, p->K, p->CRS, sizeof(float));
    hd_conv_book(W, 1, 1, (int64_t)fw, 1);
    size_t cap = (size_t)64 << 20, dx = 0;
    if (hd_mul_size((size_t)(p->N * p->C), (size_t)p->Q * sizeof(float), &dx) == 0 && dx > cap)
        cap = dx;
    if (W->total == SIZE_MAX || W->total > cap) {
        *reason = "its workspace would exceed max(dx, 64 MiB)";
        return 0;
    }
    pl->ws = W->total;
    return 1;
}

double hd_conv_bwdd_phase_cost(const hd_conv_problem *p)
{
    (void)p;
    return 0.3;
}

void hd_conv_bwdd_phase_exec(const hd_conv_plan *pl, const hd_conv_args *a)
{
    const hd_conv_problem *p = pl->p;
    hd_conv_layout W = *(const hd_conv_layout *)(const void *)pl->priv;
    float *packed = (float *)((char *)a->ws + W.off[0]);
    pack_ctx pc = {p, a->w, packed};
    hd_parallel_for((size_t)((p->C + PACK_CH - 1) / PACK_CH), a->nthreads, pack_task, &pc);
    const float *dy = a->y;
    float *dx = a->out;
    float *base = packed;
    for (int64_t ph = 0; ph < phase_count(p); ph++) {
        phase f;
        phase_init(p, ph, &f);
        const phase_dim *d = f.d;
        float *wph = base;
        base += p->C * p->Kg * d[0].J * d[1].J * d[2].J;
        if (!phase_has_dx(&f))
            continue;
        if (!f.conv) {
            scale_phase(p, &f, a);
            continue;
        }
        hd_conv_problem q;
        derive(p, &f, &q);
        hd_conv_args fa = *a;
        fa.x = dy + d[0].skip * p->ys[2] + d[1].skip * p->ys[3] + d[2].skip * p->ys[4];
        fa.w = wph;
        fa.y = NULL;
        fa.out = dx + f.a[0] * p->xs[2] + f.a[1] * p->xs[3] + f.a[2] * p->xs[4];
        fa.ws = (char *)a->ws + W.off[1];
        fa.ws_size = a->ws_size - W.off[1];
        hd_conv_plan sub;
        const char *why;
        if (hd_conv_fw_plan(&q, &sub, &why))      /* it took the phase when the call was planned */
            hd_conv_fw_execute(&sub, &fa);
    }
}

const hd_conv_solver hd_solver_bwdd_phase = {
    .id = 251, .name = "bwd_data.phased_fwd_blocked_gemm_f32", .dir = HD_CONV_BWD_DATA,
    .algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, .deterministic = 1, .applicable = hd_conv_bwdd_phase_app,
    .plan = hd_conv_bwdd_phase_plan, .execute = hd_conv_bwdd_phase_exec, .cost_factor = 0.3,
    .cost = hd_conv_bwdd_phase_cost};
