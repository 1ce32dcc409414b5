/* Layouts of the attention weights, work space and reserve space (attn_problem.h). */
#include "attn/attn_dropout.h"
#include "attn/attn_problem.h"

hd_attn_layout hd_attn_layout_of(const struct cudnnAttnStruct *a)
{
    hd_attn_layout L;
    int H = a->n_heads, bias = (a->mode & CUDNN_ATTN_ENABLE_PROJ_BIASES) != 0;
    L.dq = a->q_proj ? a->q_proj : a->q_size;
    L.dk = a->k_proj ? a->k_proj : a->k_size;
    L.dv = a->v_proj ? a->v_proj : a->v_size;
    L.dout = a->o_proj ? a->o_proj : H * L.dv;
    int proj[4] = { a->q_proj, a->k_proj, a->v_proj, a->o_proj };
    int in[4] = { a->q_size, a->k_size, a->v_size, L.dv };
    size_t n = 0;
    for (int k = 0; k < 4; k++) {
        L.rows[k] = proj[k]; L.cols[k] = proj[k] ? in[k] : 0; L.heads[k] = proj[k] ? H : 0;
        L.off[k] = n;
        n += (size_t)L.heads[k] * (size_t)L.rows[k] * (size_t)L.cols[k];
    }
    for (int k = 0; k < 4; k++) {
        int has = bias && proj[k];
        L.rows[4 + k] = has ? proj[k] : 0; L.cols[4 + k] = has ? 1 : 0;
        L.heads[4 + k] = has ? (k == 3 ? 1 : H) : 0;
        L.off[4 + k] = n;
        n += (size_t)L.heads[4 + k] * (size_t)L.rows[4 + k];
    }
    L.total = n;
    return L;
}

void hd_attn_seq_strides(const struct cudnnSeqDataStruct *d, size_t s[CUDNN_SEQDATA_DIM_COUNT])
{
    size_t acc = 1;
    for (int i = CUDNN_SEQDATA_DIM_COUNT - 1; i >= 0; i--) {
        s[d->axes[i]] = acc;
        acc *= (size_t)d->dims[d->axes[i]];
    }
}

hd_attn_work hd_attn_work_layout(const struct cudnnAttnStruct *a, const hd_attn_layout *L, int qo_len, int kv_len)
{
    hd_attn_work w;
    const size_t H = (size_t)a->n_heads, QT = (size_t)qo_len, KT = (size_t)kv_len;
    const int half = a->dtype == CUDNN_DATA_HALF;
    size_t n = 0;
#define AT(field, count) (w.field = n, n += (count))
    AT(wc, half ? L->total : 0);
    AT(kin, KT * (size_t)a->k_size);
    AT(vin, KT * (size_t)a->v_size);
    AT(kp, KT * H * (size_t)L->dk);
    AT(vp, KT * H * (size_t)L->dv);
    AT(qin, QT * (size_t)a->q_size);
    AT(qp, QT * H * (size_t)L->dq);
    AT(s, QT * KT);
    AT(pd, QT * KT);
    AT(h, QT * H * (size_t)L->dv);
    AT(o, QT * (size_t)L->dout);
    AT(g, QT * (size_t)L->dout);
    AT(dh, QT * H * (size_t)L->dv);
    AT(dp, QT * KT);
    AT(dqp, QT * H * (size_t)L->dq);
    AT(dqin, QT * (size_t)a->q_size);
    AT(dkp, KT * H * (size_t)L->dk);
    AT(dvp, KT * H * (size_t)L->dv);
    AT(dkin, KT * (size_t)a->k_size);
    AT(dvin, KT * (size_t)a->v_size);
    AT(dw, half ? L->total : 0);
#undef AT
    w.total = n;
    w.real_size = a->dtype == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float);
    return w;
}

size_t hd_attn_work_bytes(const struct cudnnAttnStruct *a, const hd_attn_layout *L, int qo_len, int kv_len)
{
    hd_attn_work w = hd_attn_work_layout(a, L, qo_len, kv_len);
    /* at least one element, so a work-space pointer is always required */
    return (w.total ? w.total : 1) * w.real_size;
}

size_t hd_attn_reserve_drop_offset(const struct cudnnAttnStruct *a)
{
    return (2 * (size_t)a->qo_max_seq * sizeof(int) + 7) & ~(size_t)7;
}

size_t hd_attn_reserve_bytes(const struct cudnnAttnStruct *a)
{
    return hd_attn_reserve_drop_offset(a) + sizeof(hd_attn_drop_rec);
}
