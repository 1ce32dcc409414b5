/*
 * Multi-head attention: buffer sizes, weight lookup and the forward pass.
 *
 *   out = sum_i W_O,i h_i + b_O  (or the concatenated h_i without an output projection)
 *   h_i = sum_j softmax_j(smScaler * <W_Q,i q + b_Q,i, W_K,i k_j + b_K,i>) (W_V,i v_j + b_V,i)
 *
 * over the keys j of the window [loWinIdx[t], hiWinIdx[t]) cut to the key sequence's length.
 * Computed in double whatever the data type (attention is small next to the projections, and
 * this keeps one code path); results are converted once on the way out.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/api.h"
#include "core/check.h"
#include "core/desc.h"
#include "core/handle.h"
#include "adv/attn_check.h"

#define TRY(expr) do { cudnnStatus_t st_ = (expr); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

/* Work space in doubles: projected K and V of one sequence for all heads, the scores of one
 * query, its projected form, the concatenated heads and the output vector. */
static size_t work_elems(const struct cudnnAttnStruct *a, const hd_attn_layout *L, int kv_len)
{
    return (size_t)a->n_heads * (size_t)kv_len * (size_t)(L->dk + L->dv) + (size_t)kv_len + (size_t)L->dq +
           (size_t)a->n_heads * (size_t)L->dv + (size_t)L->dout;
}

cudnnStatus_t HD_IMPL(cudnnGetMultiHeadAttnBuffers)(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
    size_t *weightSizeInBytes, size_t *workSpaceSizeInBytes, size_t *reserveSpaceSizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    TRY(hd_attn_check(__func__, attnDesc));
    HD_CHECK_PTR(weightSizeInBytes);
    HD_CHECK_PTR(workSpaceSizeInBytes);
    hd_attn_layout L = hd_attn_layout_of(attnDesc);
    *weightSizeInBytes = L.total * hd_dtype_size(attnDesc->dtype);
    *workSpaceSizeInBytes = work_elems(attnDesc, &L, attnDesc->kv_max_seq) * sizeof(double);
    /* Training keeps only the attention windows for the weight-gradient call, which
     * recomputes the rest. */
    if (reserveSpaceSizeInBytes)
        *reserveSpaceSizeInBytes = hd_attn_reserve_bytes(attnDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetMultiHeadAttnWeights)(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
    cudnnMultiHeadAttnWeightKind_t wKind, size_t weightSizeInBytes, const void *weights, cudnnTensorDescriptor_t wDesc,
    void **wAddr)
{
    HD_CHECK_HANDLE(handle);
    TRY(hd_attn_check(__func__, attnDesc));
    if ((unsigned)wKind >= CUDNN_ATTN_WKIND_COUNT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "wKind %d is not a cudnnMultiHeadAttnWeightKind_t", (int)wKind);
    HD_CHECK_PTR(weights);
    HD_CHECK_PTR(wAddr);
    HD_CHECK_DESC(wDesc, HD_TAG_TENSOR);
    hd_attn_layout L = hd_attn_layout_of(attnDesc);
    size_t es = hd_dtype_size(attnDesc->dtype);
    if (weightSizeInBytes < L.total * es)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "weightSizeInBytes %zu is below the %zu bytes needed", weightSizeInBytes,
                       L.total * es);
    int k = (int)wKind, rows = L.rows[k], cols = L.cols[k], heads = L.heads[k];
    if ((long long)heads * rows * cols > 2147483647LL)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "the %d x %d x %d weights do not fit a descriptor's int strides",
                       heads, rows, cols);
    struct cudnnTensorStruct *t = wDesc;
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        t->dims[i] = t->strides[i] = 0;
    t->dtype = attnDesc->dtype;
    t->format = CUDNN_TENSOR_NCHW;
    t->vect_c = 1;
    t->packed = 1;
    if (heads == 0) {   /* disabled projection or bias: no such weights */
        t->nbDims = 0;
        *wAddr = NULL;
        return CUDNN_STATUS_SUCCESS;
    }
    t->nbDims = 3;
    t->dims[0] = heads; t->dims[1] = rows; t->dims[2] = cols;
    t->strides[0] = rows * cols; t->strides[1] = cols; t->strides[2] = 1;
    *wAddr = (char *)(uintptr_t)weights + L.off[k] * es;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnMultiHeadAttnForward)(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
    int currIdx, const int loWinIdx[], const int hiWinIdx[], const int devSeqLengthsQO[], const int devSeqLengthsKV[],
    const cudnnSeqDataDescriptor_t qDesc, const void *queries, const void *residuals,
    const cudnnSeqDataDescriptor_t kDesc, const void *keys, const cudnnSeqDataDescriptor_t vDesc, const void *values,
    const cudnnSeqDataDescriptor_t oDesc, void *out, size_t weightSizeInBytes, const void *weights,
    size_t workSpaceSizeInBytes, void *workSpace, size_t reserveSpaceSizeInBytes, void *reserveSpace)
{
    HD_CHECK_HANDLE(handle);
    TRY(hd_attn_check(__func__, attnDesc));
    const struct cudnnAttnStruct *a = attnDesc;
    hd_attn_layout L = hd_attn_layout_of(a);
    TRY(hd_attn_check_seq(__func__, qDesc, "qDesc", a, a->q_size));
    TRY(hd_attn_check_seq(__func__, kDesc, "kDesc", a, a->k_size));
    TRY(hd_attn_check_seq(__func__, vDesc, "vDesc", a, a->v_size));
    TRY(hd_attn_check_seq(__func__, oDesc, "oDesc", a, L.dout));
    const int *qd = qDesc->dims, *kd = kDesc->dims, *vd = vDesc->dims, *od = oDesc->dims;
    const int one_to_one = (a->mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) != 0;
    if (qd[CUDNN_SEQDATA_TIME_DIM] > a->qo_max_seq || qd[CUDNN_SEQDATA_BATCH_DIM] > a->max_batch ||
        qd[CUDNN_SEQDATA_BEAM_DIM] > a->max_beam || kd[CUDNN_SEQDATA_TIME_DIM] > a->kv_max_seq)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "qDesc/kDesc exceed the attention descriptor's maximum sizes");
    if (kd[CUDNN_SEQDATA_BATCH_DIM] != qd[CUDNN_SEQDATA_BATCH_DIM] ||
        kd[CUDNN_SEQDATA_BEAM_DIM] != (one_to_one ? qd[CUDNN_SEQDATA_BEAM_DIM] : 1))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "kDesc must have qDesc's batch and %s", one_to_one ?
                       "beam (CUDNN_ATTN_QUERYMAP_ONE_TO_ONE)" : "a beam of 1 (CUDNN_ATTN_QUERYMAP_ALL_TO_ONE)");
    for (int i = 0; i < CUDNN_SEQDATA_VECT_DIM; i++) {
        if (vd[i] != kd[i])
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "vDesc must have kDesc's time, batch and beam sizes");
        if (od[i] != qd[i])
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "oDesc must have qDesc's time, batch and beam sizes");
    }
    if (memcmp(vDesc->seq_len, kDesc->seq_len, kDesc->nlens * sizeof(int)) != 0 ||
        memcmp(oDesc->seq_len, qDesc->seq_len, qDesc->nlens * sizeof(int)) != 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "vDesc/oDesc sequence lengths must match kDesc/qDesc");
    TRY(hd_attn_same_lens(__func__, devSeqLengthsQO, qDesc, "devSeqLengthsQO"));
    TRY(hd_attn_same_lens(__func__, devSeqLengthsKV, kDesc, "devSeqLengthsKV"));
    HD_CHECK_PTR(loWinIdx);
    HD_CHECK_PTR(hiWinIdx);
    const int QT = qd[CUDNN_SEQDATA_TIME_DIM];
    if (currIdx >= QT)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "currIdx %d is beyond the %d query time steps", currIdx, QT);
    if (!queries || !keys || !values || !out)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "queries, keys, values and out must not be NULL");
    if (residuals && L.dout != a->q_size)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "residuals need the output size (%d) to equal qSize (%d)", L.dout, a->q_size);
    const cudnnDataType_t dt = a->dtype;
    if (weightSizeInBytes < L.total * hd_dtype_size(dt) || (L.total && !weights))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "weights: %zu bytes given, %zu needed", weightSizeInBytes,
                       L.total * hd_dtype_size(dt));
    const int KT = kd[CUDNN_SEQDATA_TIME_DIM];
    size_t wneed = work_elems(a, &L, KT) * sizeof(double);
    if (workSpaceSizeInBytes < wneed || !workSpace)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "workSpace: %zu bytes given, %zu needed", workSpaceSizeInBytes, wneed);

    if (reserveSpace && reserveSpaceSizeInBytes < hd_attn_reserve_bytes(a))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "reserveSpace: %zu bytes given, %zu needed", reserveSpaceSizeInBytes,
                       hd_attn_reserve_bytes(a));
    if (reserveSpace) {   /* training: remember the windows for cudnnMultiHeadAttnBackwardWeights */
        int *win = reserveSpace;
        for (int t = 0; t < a->qo_max_seq; t++) {
            win[t] = t < QT ? loWinIdx[t] : 0;
            win[a->qo_max_seq + t] = t < QT ? hiWinIdx[t] : 0;
        }
    }

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
