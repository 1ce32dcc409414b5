/*
 * CTC forward-backward in log space (float64 whatever the data type), one task per sample.
 *
 * For a label sequence l of length L the extended sequence l' has S = 2L+1 states: blanks
 * (label 0) at even positions, l at odd ones.  alpha[t][s] is the log-probability of all
 * prefixes that are in state s after emitting step t (emission of t included); beta[t][s]
 * is the log-probability of completing the sequence from state s after step t (emissions
 * t+1.. included, t excluded), so alpha + beta - logP is the log posterior of being in s at t.
 * The gradient with respect to the pre-softmax activation u[t][k] is
 *     y[t][k] - sum over s with l'[s] == k of exp(alpha[t][s] + beta[t][s] - logP)
 * where y are the probabilities (given, or softmax(u) in SOFTMAX mode).
 * Every sum runs in a fixed order, so results do not depend on the thread count.
 */
#include "core/api.h"
#include "core/parallel.h"
#include "core/memory.h"
#include "adv/train/ctc.h"

#include <math.h>
#include <string.h>

static size_t per_sample_doubles(int T, int A, int max_label, int *ok)
{
    size_t S = 2 * (size_t)max_label + 1, a, b, c;
    *ok = hd_mul_size((size_t)T, (size_t)A, &a) == 0 && hd_mul_size((size_t)T, S, &b) == 0 &&
          hd_mul_size(b, 2, &c) == 0 && a + c >= a && a + c + (size_t)A >= a + c;
    return *ok ? a + c + (size_t)A : 0;
}

size_t hd_ctc_workspace_bytes(int T, int N, int A, int max_label)
{
    int ok;
    size_t per = per_sample_doubles(T, A, max_label, &ok), all, bytes;
    if (!ok || hd_mul_size(per, (size_t)N, &all) != 0 || all + (size_t)N < all ||
        hd_mul_size(all + (size_t)N, sizeof(double), &bytes) != 0 || bytes + 8 < bytes)
        return 0;
    /* N label offsets (int64), the per-sample blocks, and 8 bytes of slack so that a
     * workspace at any address can be aligned for doubles. */
    return bytes + 8;
}

static double lse2(double a, double b)
{
    if (a == -INFINITY)
        return b;
    if (b == -INFINITY)
        return a;
    double m = a > b ? a : b;
    return m + log1p(exp(-fabs(a - b)));
}

static double load(const void *base, cudnnDataType_t dt, int64_t off)
{
    return dt == CUDNN_DATA_DOUBLE ? ((const double *)base)[off] : (double)((const float *)base)[off];
}

static void store(void *base, cudnnDataType_t dt, int64_t off, double v)
{
    if (dt == CUDNN_DATA_DOUBLE)
        ((double *)base)[off] = v;
    else
        ((float *)base)[off] = (float)v;
}

typedef struct {
    const hd_ctc_problem *p;
    int64_t *label_offset;
    double *blocks;
    size_t per_sample;
} run_ctx;

/* The extended label of state s. */
static int ext(const int *lab, int s) { return (s & 1) ? lab[s >> 1] : 0; }

static void one_sample(void *vctx, size_t task, int thread)
{
    (void)thread;
    const run_ctx *c = vctx;
    const hd_ctc_problem *p = c->p;
    const int n = (int)task, A = p->A, Tn = p->input_lengths[n], L = p->label_lengths[n], S = 2 * L + 1;
    const int *lab = p->labels + c->label_offset[n];
    const int Smax = 2 * p->max_label + 1;
    double *logp = c->blocks + c->per_sample * (size_t)n;
    double *alpha = logp + (size_t)p->T * A;
    double *beta = alpha + (size_t)p->T * Smax;
    double *acc = beta + (size_t)p->T * Smax;
    const int64_t *ps = p->probs_stride;

    /* Log-probabilities of the steps this sample uses. */
    for (int t = 0; t < Tn; t++) {
        double *row = logp + (size_t)t * A;
        int64_t base = t * ps[0] + n * ps[1];
        for (int k = 0; k < A; k++)
            row[k] = load(p->probs, p->dtype, base + k * ps[2]);
        if (p->softmax) {
            double m = row[0];
            for (int k = 1; k < A; k++)
                m = row[k] > m ? row[k] : m;
            double sum = 0;
            for (int k = 0; k < A; k++)
                sum += exp(row[k] - m);
            double lz = m + log(sum);
            for (int k = 0; k < A; k++)
                row[k] -= lz;
        } else {
            for (int k = 0; k < A; k++)
                row[k] = isnan(row[k]) ? row[k] : row[k] > 0 ? log(row[k]) : -INFINITY;
        }
    }

    /* Forward. */
    for (int s = 0; s < S; s++)
        alpha[s] = s < 2 ? logp[ext(lab, s)] : -INFINITY;
    for (int t = 1; t < Tn; t++) {
        const double *prev = alpha + (size_t)(t - 1) * Smax;
        double *cur = alpha + (size_t)t * Smax;
        const double *row = logp + (size_t)t * A;
        for (int s = 0; s < S; s++) {
            double v = prev[s];
            if (s >= 1)
                v = lse2(v, prev[s - 1]);
            if (s >= 2 && (s & 1) && lab[s >> 1] != lab[(s >> 1) - 1])
                v = lse2(v, prev[s - 2]);
            cur[s] = v + row[ext(lab, s)];
        }
    }
    const double *last = alpha + (size_t)(Tn - 1) * Smax;
    double logP = S >= 2 ? lse2(last[S - 1], last[S - 2]) : last[S - 1];
    store(p->costs, p->dtype, n, -logP);
    if (!p->grads)
        return;

    const int64_t *gs = p->grads_stride;
    int feasible = logP > -INFINITY && !isnan(logP) && logP < INFINITY;
    if (!feasible) {
        double fill = p->nan_grads ? NAN : 0.0;
        for (int t = 0; t < p->T; t++)
            for (int k = 0; k < A; k++)
                store(p->grads, p->dtype, t * gs[0] + n * gs[1] + k * gs[2], t < Tn ? fill : 0.0);
        return;
    }

    /* Backward (emission of the current step excluded). */
    double *bl = beta + (size_t)(Tn - 1) * Smax;
    for (int s = 0; s < S; s++)
        bl[s] = s >= S - 2 ? 0.0 : -INFINITY;
    for (int t = Tn - 2; t >= 0; t--) {
        const double *next = beta + (size_t)(t + 1) * Smax;
        double *cur = beta + (size_t)t * Smax;
        const double *row = logp + (size_t)(t + 1) * A;
        for (int s = 0; s < S; s++) {
            double v = next[s] + row[ext(lab, s)];
            if (s + 1 < S)
                v = lse2(v, next[s + 1] + row[ext(lab, s + 1)]);
            if (s + 2 < S && (s & 1) && lab[(s >> 1) + 1] != lab[s >> 1])
                v = lse2(v, next[s + 2] + row[ext(lab, s + 2)]);
            cur[s] = v;
        }
    }

    for (int t = 0; t < p->T; t++) {
        int64_t base = t * gs[0] + n * gs[1];
        if (t >= Tn) {
            for (int k = 0; k < A; k++)
                store(p->grads, p->dtype, base + k * gs[2], 0.0);
            continue;
        }
        memset(acc, 0, (size_t)A * sizeof *acc);
        const double *a = alpha + (size_t)t * Smax, *b = beta + (size_t)t * Smax;
        for (int s = 0; s < S; s++)
            acc[ext(lab, s)] += exp(a[s] + b[s] - logP);
        const double *row = logp + (size_t)t * A;
        for (int k = 0; k < A; k++)
            store(p->grads, p->dtype, base + k * gs[2], exp(row[k]) - acc[k]);
    }
}

void hd_ctc_run(const hd_ctc_problem *p, void *workspace, int nthreads)
{
    int ok;
    run_ctx c;
    (void)ok;
    c.p = p;
    c.per_sample = per_sample_doubles(p->T, p->A, p->max_label, &ok);
    uintptr_t at = ((uintptr_t)workspace + 7) & ~(uintptr_t)7;
    c.label_offset = (int64_t *)at;
    c.blocks = (double *)(void *)(c.label_offset + p->N);
    int64_t off = 0;
    for (int n = 0; n < p->N; n++) {
        c.label_offset[n] = off;
        off += p->label_lengths[n];
    }
    hd_parallel_for((size_t)p->N, nthreads, one_sample, &c);
}
