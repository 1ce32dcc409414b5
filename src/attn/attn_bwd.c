/*
 * The attention backward passes (attn_engine.h).  Both recompute the forward quantities
 * (projections, softmax) from the inputs and the weights; the reserve space carries only the
 * attention windows, which cudnnMultiHeadAttnBackwardWeights does not receive.  Everything
 * is computed in double.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attn/attn_elem.h"
#include "attn/attn_engine.h"

typedef struct {
    const struct cudnnAttnStruct *a;
    hd_attn_layout L;
    const int *lo, *hi;
    const struct cudnnSeqDataStruct *qd, *kd, *vd, *od;
    const void *q, *k, *v, *dout, *w;
    void *dq, *dk, *dv;      /* NULL in the weight-gradient call */
    double *dw;              /* NULL in the data-gradient call */
} attn_bwd;

static cudnnStatus_t run(const char *fn, const attn_bwd *c)
{
    const struct cudnnAttnStruct *a = c->a;
    const hd_attn_layout *L = &c->L;
    const cudnnDataType_t dt = a->dtype;
    const int NH = a->n_heads, dq = L->dq, dk = L->dk, dv = L->dv, dout = L->dout;
    const int *qdim = c->qd->dims, *kdim = c->kd->dims;
    const int B = qdim[CUDNN_SEQDATA_BATCH_DIM], QB = qdim[CUDNN_SEQDATA_BEAM_DIM], KB = kdim[CUDNN_SEQDATA_BEAM_DIM];
    const int KT = kdim[CUDNN_SEQDATA_TIME_DIM];
    const int one = (a->mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) != 0, bias = (a->mode & CUDNN_ATTN_ENABLE_PROJ_BIASES) != 0;
    size_t qs[4], ks[4], vs[4], os[4];
    hd_attn_seq_strides(c->qd, qs); hd_attn_seq_strides(c->kd, ks);
    hd_attn_seq_strides(c->vd, vs); hd_attn_seq_strides(c->od, os);
    const size_t kvn = (size_t)NH * KT;
    size_t n = 2 * kvn * (size_t)(dk + dv) + 2 * (size_t)KT + (size_t)NH * dv * 2 + (size_t)dq * 2 + (size_t)dout +
               (size_t)a->q_size * 2 + (size_t)a->k_size + (size_t)a->v_size;
    double *buf = calloc(n, sizeof *buf);
    if (!buf)
        return hd_fail(CUDNN_STATUS_ALLOC_FAILED, fn, "out of host memory for attention gradients");
    double *kh = buf, *vh = kh + kvn * dk, *dkh = vh + kvn * dv, *dvh = dkh + kvn * dk, *sc = dvh + kvn * dv;
    double *da = sc + KT, *hc = da + KT, *dh = hc + (size_t)NH * dv, *qh = dh + (size_t)NH * dv, *dqh = qh + dq;
    double *g = dqh + dq, *qv = g + dout, *dqv = qv + a->q_size, *kv = dqv + a->q_size, *vv = kv + a->k_size;
    const void *w = c->w;
    double *dw = c->dw;
#define W(kind, head, r, col) hd_attn_ld(w, dt, L->off[kind] + ((size_t)(head) * L->rows[kind] + (size_t)(r)) * L->cols[kind] + (size_t)(col))
#define WI(kind, head, r, col) (L->off[kind] + ((size_t)(head) * L->rows[kind] + (size_t)(r)) * L->cols[kind] + (size_t)(col))
#define BI(kind, head, r) (L->off[4 + (kind)] + (size_t)(head) * L->rows[4 + (kind)] + (size_t)(r))
#define BIAS(kind, head, r) (bias ? hd_attn_ld(w, dt, BI(kind, head, r)) : 0.0)

    for (int b = 0; b < B; b++)
        for (int kb = 0; kb < KB; kb++) {
            const int klen = c->kd->seq_len[(size_t)b * KB + kb];
            /* project this key/value sequence; clear its gradient accumulators */
            for (int hh = 0; hh < NH; hh++)
                for (int j = 0; j < klen; j++) {
                    size_t kbase = (size_t)j * ks[0] + (size_t)b * ks[1] + (size_t)kb * ks[2];
                    size_t vbase = (size_t)j * vs[0] + (size_t)b * vs[1] + (size_t)kb * vs[2];
                    double *kk = kh + ((size_t)hh * KT + j) * dk, *vvv = vh + ((size_t)hh * KT + j) * dv;
                    for (int r = 0; r < dk; r++) {
                        double s = 0;
                        if (a->k_proj) {
                            for (int x = 0; x < a->k_size; x++)
                                s += W(CUDNN_MH_ATTN_K_WEIGHTS, hh, r, x) * hd_attn_ld(c->k, dt, kbase + (size_t)x * ks[3]);
                            s += BIAS(1, hh, r);
                        } else {
                            s = hd_attn_ld(c->k, dt, kbase + (size_t)r * ks[3]);
                        }
                        kk[r] = s;
                    }
                    for (int r = 0; r < dv; r++) {
                        double s = 0;
                        if (a->v_proj) {
                            for (int x = 0; x < a->v_size; x++)
                                s += W(CUDNN_MH_ATTN_V_WEIGHTS, hh, r, x) * hd_attn_ld(c->v, dt, vbase + (size_t)x * vs[3]);
                            s += BIAS(2, hh, r);
                        } else {
                            s = hd_attn_ld(c->v, dt, vbase + (size_t)r * vs[3]);
                        }
                        vvv[r] = s;
                    }
                }
            memset(dkh, 0, kvn * (size_t)(dk + dv) * sizeof *dkh);
            for (int beam = 0; beam < QB; beam++) {
                if (one && beam != kb)
                    continue;
                const int qlen = c->qd->seq_len[(size_t)b * QB + beam];
                for (int t = 0; t < qlen; t++) {
                    size_t qbase = (size_t)t * qs[0] + (size_t)b * qs[1] + (size_t)beam * qs[2];
                    size_t obase = (size_t)t * os[0] + (size_t)b * os[1] + (size_t)beam * os[2];
                    int lo = c->lo[t] > 0 ? c->lo[t] : 0, hi = c->hi[t] < klen ? c->hi[t] : klen;
                    for (int x = 0; x < a->q_size; x++) {
                        qv[x] = hd_attn_ld(c->q, dt, qbase + (size_t)x * qs[3]);
                        dqv[x] = 0;
                    }
                    for (int r = 0; r < dout; r++)
                        g[r] = hd_attn_ld(c->dout, dt, obase + (size_t)r * os[3]);
                    /* recompute every head's output, then the gradient reaching it */
                    for (int hh = 0; hh < NH; hh++) {
                        double *h = hc + (size_t)hh * dv;
                        for (int r = 0; r < dv; r++) h[r] = 0;
                    }
                    for (int hh = 0; hh < NH; hh++) {
                        for (int r = 0; r < dq; r++) {
                            double s = 0;
                            if (a->q_proj) {
                                for (int x = 0; x < a->q_size; x++) s += W(CUDNN_MH_ATTN_Q_WEIGHTS, hh, r, x) * qv[x];
                                s += BIAS(0, hh, r);
                            } else {
                                s = qv[r];
                            }
                            qh[r] = s;
                        }
                        double mx = -INFINITY, den = 0;
                        for (int j = lo; j < hi; j++) {
                            const double *kk = kh + ((size_t)hh * KT + j) * dk;
                            double s = 0;
                            for (int r = 0; r < dk; r++) s += qh[r] * kk[r];
                            sc[j] = a->sm_scaler * s;
                            if (sc[j] > mx) mx = sc[j];
                        }
                        for (int j = lo; j < hi; j++) { sc[j] = exp(sc[j] - mx); den += sc[j]; }
                        for (int j = lo; j < hi; j++) sc[j] /= den;
                        double *h = hc + (size_t)hh * dv;
                        for (int j = lo; j < hi; j++) {
                            const double *vvv = vh + ((size_t)hh * KT + j) * dv;
                            for (int r = 0; r < dv; r++) h[r] += sc[j] * vvv[r];
                        }
                        /* dh = W_O^T g (or g's slice) */
                        double *dhh = dh + (size_t)hh * dv;
                        for (int r = 0; r < dv; r++) {
                            double s = 0;
                            if (a->o_proj)
                                for (int o = 0; o < dout; o++) s += W(CUDNN_MH_ATTN_O_WEIGHTS, hh, o, r) * g[o];
                            else
                                s = g[(size_t)hh * dv + r];
                            dhh[r] = s;
                        }
                        if (dw && a->o_proj)
                            for (int o = 0; o < dout; o++)
                                for (int r = 0; r < dv; r++) dw[WI(CUDNN_MH_ATTN_O_WEIGHTS, hh, o, r)] += g[o] * h[r];
                        /* softmax backward */
                        double dot = 0;
                        for (int j = lo; j < hi; j++) {
                            const double *vvv = vh + ((size_t)hh * KT + j) * dv;
                            double *dvv = dvh + ((size_t)hh * KT + j) * dv;
                            double s = 0;
                            for (int r = 0; r < dv; r++) { s += dhh[r] * vvv[r]; dvv[r] += sc[j] * dhh[r]; }
                            da[j] = s;
                            dot += sc[j] * s;
                        }
                        for (int r = 0; r < dq; r++) dqh[r] = 0;
                        for (int j = lo; j < hi; j++) {
                            double ds = sc[j] * (da[j] - dot) * a->sm_scaler;
                            const double *kk = kh + ((size_t)hh * KT + j) * dk;
                            double *dkk = dkh + ((size_t)hh * KT + j) * dk;
                            for (int r = 0; r < dk; r++) { dqh[r] += ds * kk[r]; dkk[r] += ds * qh[r]; }
                        }
                        /* back through the Q projection */
                        if (a->q_proj) {
                            for (int r = 0; r < dq; r++) {
                                for (int x = 0; x < a->q_size; x++) {
                                    dqv[x] += W(CUDNN_MH_ATTN_Q_WEIGHTS, hh, r, x) * dqh[r];
                                    if (dw) dw[WI(CUDNN_MH_ATTN_Q_WEIGHTS, hh, r, x)] += dqh[r] * qv[x];
                                }
                                if (dw && bias) dw[BI(0, hh, r)] += dqh[r];
                            }
                        } else {
                            for (int r = 0; r < dq; r++) dqv[r] += dqh[r];
                        }
                    }
                    if (dw && a->o_proj && bias)
                        for (int o = 0; o < dout; o++) dw[BI(3, 0, o)] += g[o];
                    if (c->dq)
                        for (int x = 0; x < a->q_size; x++) hd_attn_st(c->dq, dt, qbase + (size_t)x * qs[3], dqv[x]);
                }
            }
            /* key/value gradients of this sequence: back through the K and V projections */
            for (int j = 0; j < klen; j++) {
                size_t kbase = (size_t)j * ks[0] + (size_t)b * ks[1] + (size_t)kb * ks[2];
                size_t vbase = (size_t)j * vs[0] + (size_t)b * vs[1] + (size_t)kb * vs[2];
                for (int x = 0; x < a->k_size; x++) kv[x] = c->dw ? hd_attn_ld(c->k, dt, kbase + (size_t)x * ks[3]) : 0;
                for (int x = 0; x < a->v_size; x++) vv[x] = c->dw ? hd_attn_ld(c->v, dt, vbase + (size_t)x * vs[3]) : 0;
                for (int x = 0; x < a->k_size; x++) {
                    double s = 0;
                    for (int hh = 0; hh < NH; hh++) {
                        const double *dkk = dkh + ((size_t)hh * KT + j) * dk;
                        if (a->k_proj)
                            for (int r = 0; r < dk; r++) s += W(CUDNN_MH_ATTN_K_WEIGHTS, hh, r, x) * dkk[r];
                        else
                            s += dkk[x];
                    }
                    if (c->dk) hd_attn_st(c->dk, dt, kbase + (size_t)x * ks[3], s);
                }
                for (int x = 0; x < a->v_size; x++) {
                    double s = 0;
                    for (int hh = 0; hh < NH; hh++) {
                        const double *dvv = dvh + ((size_t)hh * KT + j) * dv;
                        if (a->v_proj)
                            for (int r = 0; r < dv; r++) s += W(CUDNN_MH_ATTN_V_WEIGHTS, hh, r, x) * dvv[r];
                        else
                            s += dvv[x];
                    }
                    if (c->dv) hd_attn_st(c->dv, dt, vbase + (size_t)x * vs[3], s);
                }
                if (dw)
                    for (int hh = 0; hh < NH; hh++) {
                        const double *dkk = dkh + ((size_t)hh * KT + j) * dk, *dvv = dvh + ((size_t)hh * KT + j) * dv;
                        if (a->k_proj)
                            for (int r = 0; r < dk; r++) {
                                for (int x = 0; x < a->k_size; x++) dw[WI(CUDNN_MH_ATTN_K_WEIGHTS, hh, r, x)] += dkk[r] * kv[x];
                                if (bias) dw[BI(1, hh, r)] += dkk[r];
                            }
                        if (a->v_proj)
                            for (int r = 0; r < dv; r++) {
                                for (int x = 0; x < a->v_size; x++) dw[WI(CUDNN_MH_ATTN_V_WEIGHTS, hh, r, x)] += dvv[r] * vv[x];
                                if (bias) dw[BI(2, hh, r)] += dvv[r];
                            }
                    }
            }
        }
#undef W
#undef WI
#undef BI
#undef BIAS
    free(buf);
    return CUDNN_STATUS_SUCCESS;
}

static attn_bwd problem_of(const hd_attn_bwd_args *args)
{
    attn_bwd c;
    memset(&c, 0, sizeof c);
    c.a = args->a;
    c.L = hd_attn_layout_of(args->a);
    c.qd = args->qd; c.kd = args->kd; c.vd = args->vd; c.od = args->od;
    c.q = args->q; c.k = args->k; c.v = args->v; c.dout = args->dout; c.w = args->w;
    return c;
}

cudnnStatus_t hd_attn_backward_data(const char *fn, const hd_attn_bwd_args *args)
{
    attn_bwd c = problem_of(args);
    hd_attn_save_windows(args->a, args->qd->dims[CUDNN_SEQDATA_TIME_DIM], args->lo, args->hi, args->reserve);
    c.lo = args->lo; c.hi = args->hi;
    c.dq = args->dq; c.dk = args->dk; c.dv = args->dv;
    return run(fn, &c);
}

cudnnStatus_t hd_attn_backward_weights(const char *fn, const hd_attn_bwd_args *args)
{
    attn_bwd c = problem_of(args);
    const cudnnDataType_t dt = args->a->dtype;
    double *acc = calloc(c.L.total ? c.L.total : 1, sizeof *acc);
    if (!acc)
        return hd_fail(CUDNN_STATUS_ALLOC_FAILED, fn, "out of host memory for the weight gradients");
    const int *win = args->reserve;
    c.lo = win; c.hi = win + args->a->qo_max_seq;
    c.dw = acc;
    cudnnStatus_t st = run(fn, &c);
    if (st == CUDNN_STATUS_SUCCESS)
        for (size_t i = 0; i < c.L.total; i++)
            hd_attn_st(args->dw, dt, i, hd_attn_ld(args->dw, dt, i) + acc[i]);
    free(acc);
    return st;
}
