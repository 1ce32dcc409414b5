/* Layouts of the attention weights, work space and reserve space (attn_problem.h). */
#include "attn/attn_problem.h"
#include "core/parallel.h"

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

hd_attn_work hd_attn_work_layout(const struct cudnnAttnStruct *a, const hd_attn_layout *L, int B, int QB, int KB,
                                 int QT, int KT)
{
    hd_attn_work w;
    const size_t H = (size_t)a->n_heads, NQ = (size_t)B * (size_t)QB * (size_t)QT, NK = (size_t)B * (size_t)KB * (size_t)KT;
    const size_t HQ = H * (size_t)L->dq, HK = H * (size_t)L->dk, HV = H * (size_t)L->dv, dout = (size_t)L->dout;
    const size_t wo = a->o_proj ? dout * HV : 0;
    const int half = a->dtype == CUDNN_DATA_HALF;
    size_t n = 0;
#define AT(field, count) (w.field = n, n += (count))
    AT(wc, half ? L->total : 0);
    AT(wo, wo);
    AT(qin, NQ * (size_t)a->q_size);
    AT(kin, NK * (size_t)a->k_size);
    AT(vin, NK * (size_t)a->v_size);
    AT(qp, NQ * HQ);
    AT(kp, NK * HK);
    AT(vp, NK * HV);
    AT(hc, NQ * HV);
    AT(o, NQ * dout);
    AT(g, NQ * dout);
    AT(dh, NQ * HV);
    AT(dqin, NQ * (size_t)a->q_size);
    AT(dkin, NK * (size_t)a->k_size);
    AT(dvin, NK * (size_t)a->v_size);
    AT(dwo, wo);
    AT(dw, half ? L->total : 0);
    w.slot_stride = 3 * (size_t)QT * (size_t)KT;
    AT(slot, HD_SCRATCH_SLOTS * w.slot_stride);
#undef AT
    w.total = n;
    w.real_size = a->dtype == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float);
    return w;
}

size_t hd_attn_work_bytes(const struct cudnnAttnStruct *a, const hd_attn_layout *L, int B, int QB, int KB, int QT,
                          int KT)
{
    hd_attn_work w = hd_attn_work_layout(a, L, B, QB, KB, QT, KT);
    /* at least one element, so a work-space pointer is always required */
    return (w.total ? w.total : 1) * w.real_size;
}

size_t hd_attn_work_bytes_max(const struct cudnnAttnStruct *a, const hd_attn_layout *L)
{
    const int kb = (a->mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) ? a->max_beam : 1;
    return hd_attn_work_bytes(a, L, a->max_batch, a->max_beam, kb, a->qo_max_seq, a->kv_max_seq);
}

hd_attn_reserve hd_attn_reserve_layout(const struct cudnnAttnStruct *a, const hd_attn_layout *L)
{
    hd_attn_reserve r;
    const size_t H = (size_t)a->n_heads, kb = (a->mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) ? (size_t)a->max_beam : 1;
    const size_t NQ = (size_t)a->max_batch * (size_t)a->max_beam * (size_t)a->qo_max_seq;
    const size_t NK = (size_t)a->max_batch * kb * (size_t)a->kv_max_seq;
    const size_t es = a->dtype == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float);
    size_t n = 0;
#define AT(field, bytes) (r.field = n, n += ((bytes) + 63) & ~(size_t)63)
    AT(win, 2 * (size_t)a->qo_max_seq * sizeof(int));
    AT(rec, sizeof(hd_attn_rec));
    AT(qp, a->q_proj ? NQ * H * (size_t)L->dq * es : 0);
    AT(kp, a->k_proj ? NK * H * (size_t)L->dk * es : 0);
    AT(vp, a->v_proj ? NK * H * (size_t)L->dv * es : 0);
    AT(hc, a->o_proj ? NQ * H * (size_t)L->dv * es : 0);
    AT(dqp, NQ * H * (size_t)L->dq * es);
    AT(dkp, NK * H * (size_t)L->dk * es);
    AT(dvp, NK * H * (size_t)L->dv * es);
#undef AT
    r.total = n;
    return r;
}

size_t hd_attn_reserve_bytes(const struct cudnnAttnStruct *a)
{
    hd_attn_layout L = hd_attn_layout_of(a);
    return hd_attn_reserve_layout(a, &L).total;
}
