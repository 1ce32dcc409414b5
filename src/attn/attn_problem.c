/* Layouts of the attention weights, work space and reserve space (attn_problem.h). */
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

/* In doubles: projected K and V of one sequence for all heads, the scores of one query, its
 * projected form, the concatenated heads and the output vector (attn_fwd.c). */
size_t hd_attn_work_bytes(const struct cudnnAttnStruct *a, const hd_attn_layout *L, int kv_len)
{
    size_t n = (size_t)a->n_heads * (size_t)kv_len * (size_t)(L->dk + L->dv) + (size_t)kv_len + (size_t)L->dq +
               (size_t)a->n_heads * (size_t)L->dv + (size_t)L->dout;
    return n * sizeof(double);
}

size_t hd_attn_reserve_bytes(const struct cudnnAttnStruct *a)
{
    return 2 * (size_t)a->qo_max_seq * sizeof(int);
}
