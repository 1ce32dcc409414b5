/* Multi-head attention reference: see attn_ref.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref/attn_ref.h"

/* y = M x + b for head h (or x itself when M is NULL) */
static void project(const double *M, const double *bias, int h, int rows, int cols, const double *x, double *y)
{
    if (!M) {
        memcpy(y, x, (size_t)cols * sizeof(double));
        return;
    }
    for (int r = 0; r < rows; r++) {
        double s = bias ? bias[(size_t)h * rows + r] : 0.0;
        for (int i = 0; i < cols; i++)
            s += M[((size_t)h * rows + r) * cols + i] * x[i];
        y[r] = s;
    }
}

void attn_ref_query(const attn_ref_cfg *c, const double *q, const double *k, const double *v, int lo, int hi,
                    double *out)
{
    int dq = c->qproj ? c->qproj : c->qsize, dk = c->kproj ? c->kproj : c->ksize, dv = c->vproj ? c->vproj : c->vsize;
    double *qh = malloc((size_t)dq * sizeof(double)), *kh = malloc((size_t)dk * sizeof(double));
    double *vh = malloc((size_t)dv * sizeof(double)), *heads = calloc((size_t)c->heads * dv, sizeof(double));
    int n = hi > lo ? hi - lo : 0;
    double *score = malloc((size_t)(n ? n : 1) * sizeof(double));
    for (int h = 0; h < c->heads; h++) {
        project(c->wq, c->bq, h, c->qproj, c->qsize, q, qh);
        double best = -1e300;
        for (int j = 0; j < n; j++) {
            project(c->wk, c->bk, h, c->kproj, c->ksize, k + (size_t)(lo + j) * c->ksize, kh);
            double d = 0;
            for (int i = 0; i < dk; i++) d += qh[i] * kh[i];
            score[j] = c->scaler * d;
            if (score[j] > best) best = score[j];
        }
        double total = 0;
        for (int j = 0; j < n; j++) { score[j] = exp(score[j] - best); total += score[j]; }
        for (int j = 0; j < n; j++) {
            project(c->wv, c->bv, h, c->vproj, c->vsize, v + (size_t)(lo + j) * c->vsize, vh);
            for (int i = 0; i < dv; i++) heads[(size_t)h * dv + i] += score[j] / total * vh[i];
        }
    }
    if (c->oproj) {
        for (int r = 0; r < c->oproj; r++) {
            double s = c->bo ? c->bo[r] : 0.0;
            for (int h = 0; h < c->heads; h++)
                for (int i = 0; i < dv; i++)
                    s += c->wo[((size_t)h * c->oproj + r) * dv + i] * heads[(size_t)h * dv + i];
            out[r] = s;
        }
    } else {
        memcpy(out, heads, (size_t)c->heads * dv * sizeof(double));
    }
    free(qh); free(kh); free(vh); free(heads); free(score);
}
