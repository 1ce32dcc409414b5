/* The attention forward pass (attn_engine.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "attn/attn_elem.h"
#include "attn/attn_engine.h"

void hd_attn_save_windows(const struct cudnnAttnStruct *a, int qt, const int *lo, const int *hi, void *reserve)
{
    int *win = reserve;
    for (int t = 0; t < a->qo_max_seq; t++) {
        win[t] = t < qt ? lo[t] : 0;
        win[a->qo_max_seq + t] = t < qt ? hi[t] : 0;
    }
}

cudnnStatus_t hd_attn_forward(const hd_attn_fwd_args *args)
{
    const struct cudnnAttnStruct *a = args->a;
    const hd_attn_layout L = hd_attn_layout_of(a);
    const struct cudnnSeqDataStruct *qDesc = args->qd, *kDesc = args->kd, *vDesc = args->vd, *oDesc = args->od;
    const int *qd = qDesc->dims, *kd = kDesc->dims;
    const int one_to_one = (a->mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) != 0;
    const int QT = qd[CUDNN_SEQDATA_TIME_DIM], KT = kd[CUDNN_SEQDATA_TIME_DIM];
    const int currIdx = args->curr_idx, *loWinIdx = args->lo, *hiWinIdx = args->hi;
    const void *queries = args->q, *keys = args->k, *values = args->v, *residuals = args->residuals;
    const void *weights = args->w;
    void *out = args->out, *workSpace = args->work;
    const cudnnDataType_t dt = a->dtype;
    if (args->reserve)   /* training: remember the windows for cudnnMultiHeadAttnBackwardWeights */
        hd_attn_save_windows(a, QT, loWinIdx, hiWinIdx, args->reserve);

    const int NH = a->n_heads, dq = L.dq, dk = L.dk, dv = L.dv, dout = L.dout;
    const int B = qd[CUDNN_SEQDATA_BATCH_DIM], QB = qd[CUDNN_SEQDATA_BEAM_DIM], KB = kd[CUDNN_SEQDATA_BEAM_DIM];
    size_t qs[4], ks[4], vs[4], os[4];
    hd_attn_seq_strides(qDesc, qs); hd_attn_seq_strides(kDesc, ks); hd_attn_seq_strides(vDesc, vs); hd_attn_seq_strides(oDesc, os);
    double *kp = workSpace, *vp = kp + (size_t)NH * KT * dk, *sc = vp + (size_t)NH * KT * dv;
    double *qp = sc + KT, *hc = qp + dq, *ov = hc + (size_t)NH * dv;
    const int bias = (a->mode & CUDNN_ATTN_ENABLE_PROJ_BIASES) != 0;
#define W(kind, head, r, c) hd_attn_ld(weights, dt, L.off[kind] + ((size_t)(head) * L.rows[kind] + (size_t)(r)) * L.cols[kind] + (size_t)(c))
#define BIAS(kind, head, r) (bias ? hd_attn_ld(weights, dt, L.off[4 + (kind)] + (size_t)(head) * L.rows[4 + (kind)] + (size_t)(r)) : 0.0)

    for (int b = 0; b < B; b++)
        for (int beam = 0; beam < QB; beam++) {
            const int kb = one_to_one ? beam : 0;
            const int klen = kDesc->seq_len[(size_t)b * KB + kb];
            const int qlen = qDesc->seq_len[(size_t)b * QB + beam];
            /* project this sequence's keys and values for every head */
            for (int hh = 0; hh < NH; hh++)
                for (int j = 0; j < klen; j++) {
                    size_t kbase = (size_t)j * ks[0] + (size_t)b * ks[1] + (size_t)kb * ks[2];
                    size_t vbase = (size_t)j * vs[0] + (size_t)b * vs[1] + (size_t)kb * vs[2];
                    double *kk = kp + ((size_t)hh * KT + j) * dk, *vv = vp + ((size_t)hh * KT + j) * dv;
                    for (int r = 0; r < dk; r++) {
                        double s = 0;
                        if (a->k_proj) {
                            for (int c = 0; c < a->k_size; c++)
                                s += W(CUDNN_MH_ATTN_K_WEIGHTS, hh, r, c) * hd_attn_ld(keys, dt, kbase + (size_t)c * ks[3]);
                            s += BIAS(1, hh, r);
                        } else {
                            s = hd_attn_ld(keys, dt, kbase + (size_t)r * ks[3]);
                        }
                        kk[r] = s;
                    }
                    for (int r = 0; r < dv; r++) {
                        double s = 0;
                        if (a->v_proj) {
                            for (int c = 0; c < a->v_size; c++)
                                s += W(CUDNN_MH_ATTN_V_WEIGHTS, hh, r, c) * hd_attn_ld(values, dt, vbase + (size_t)c * vs[3]);
                            s += BIAS(2, hh, r);
                        } else {
                            s = hd_attn_ld(values, dt, vbase + (size_t)r * vs[3]);
                        }
                        vv[r] = s;
                    }
                }
            int t0 = currIdx < 0 ? 0 : currIdx, t1 = currIdx < 0 ? qlen : (currIdx < qlen ? currIdx + 1 : currIdx);
            for (int t = t0; t < t1; t++) {
                size_t qbase = (size_t)t * qs[0] + (size_t)b * qs[1] + (size_t)beam * qs[2];
                int lo = loWinIdx[t] > 0 ? loWinIdx[t] : 0, hi = hiWinIdx[t] < klen ? hiWinIdx[t] : klen;
                for (int hh = 0; hh < NH; hh++) {
                    for (int r = 0; r < dq; r++) {
                        double s = 0;
                        if (a->q_proj) {
                            for (int c = 0; c < a->q_size; c++)
                                s += W(CUDNN_MH_ATTN_Q_WEIGHTS, hh, r, c) * hd_attn_ld(queries, dt, qbase + (size_t)c * qs[3]);
                            s += BIAS(0, hh, r);
                        } else {
                            s = hd_attn_ld(queries, dt, qbase + (size_t)r * qs[3]);
                        }
                        qp[r] = s;
                    }
                    double mx = -INFINITY;
                    for (int j = lo; j < hi; j++) {
                        const double *kk = kp + ((size_t)hh * KT + j) * dk;
                        double s = 0;
                        for (int r = 0; r < dk; r++)
                            s += qp[r] * kk[r];
                        sc[j] = a->sm_scaler * s;
                        if (sc[j] > mx) mx = sc[j];
                    }
                    double den = 0;
                    for (int j = lo; j < hi; j++) {
                        sc[j] = exp(sc[j] - mx);
                        den += sc[j];
                    }
                    double *h = hc + (size_t)hh * dv;
                    for (int r = 0; r < dv; r++)
                        h[r] = 0;
                    for (int j = lo; j < hi; j++) {
                        const double *vv = vp + ((size_t)hh * KT + j) * dv;
                        double p = sc[j] / den;
                        for (int r = 0; r < dv; r++)
                            h[r] += p * vv[r];
                    }
                }
                if (a->o_proj) {
                    for (int r = 0; r < dout; r++) {
                        double s = BIAS(3, 0, r);
                        for (int hh = 0; hh < NH; hh++)
                            for (int c = 0; c < dv; c++)
                                s += W(CUDNN_MH_ATTN_O_WEIGHTS, hh, r, c) * hc[(size_t)hh * dv + c];
                        ov[r] = s;
                    }
                } else {
                    memcpy(ov, hc, (size_t)dout * sizeof *ov);
                }
                size_t obase = (size_t)t * os[0] + (size_t)b * os[1] + (size_t)beam * os[2];
                for (int r = 0; r < dout; r++) {
                    double v = ov[r];
                    if (residuals)
                        v += hd_attn_ld(residuals, dt, qbase + (size_t)r * qs[3]);
                    hd_attn_st(out, dt, obase + (size_t)r * os[3], v);
                }
            }
        }
#undef W
#undef BIAS
    return CUDNN_STATUS_SUCCESS;
}
