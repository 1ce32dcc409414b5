/* The attention forward pass (attn_engine.h): the windows and dropout draws of a training
 * call, then the kernel of the compute type (attn_gemm.inc). */
#include <string.h>

#include "attn/attn_dropout.h"
#include "attn/attn_engine.h"

void hd_attn_save_windows(const struct cudnnAttnStruct *a, int qt, const int *lo, const int *hi, void *reserve)
{
    int *win = reserve;
    for (int t = 0; t < a->qo_max_seq; t++) {
        win[t] = t < qt ? lo[t] : 0;
        win[a->qo_max_seq + t] = t < qt ? hi[t] : 0;
    }
}

/* Take the Philox blocks for N mask elements from dropout descriptor D's states buffer (the
 * API layer checked it holds an initialised generator). */
static hd_attn_drop draw(cudnnDropoutDescriptor_t d, uint64_t n)
{
    hd_attn_drop r;
    memset(&r, 0, sizeof r);
    if (!d || !(d->dropout > 0.0f))
        return r;
    r.p = d->dropout;
    hd_dropout_take(d->states, n, &r.key, &r.first);
    return r;
}

cudnnStatus_t hd_attn_forward(const hd_attn_fwd_args *args)
{
    const struct cudnnAttnStruct *a = args->a;
    if (args->reserve) {   /* training: remember the windows and draw the dropout masks */
        hd_attn_save_windows(a, args->qd->dims[CUDNN_SEQDATA_TIME_DIM], args->lo, args->hi, args->reserve);
        hd_attn_layout L = hd_attn_layout_of(a);
        hd_attn_rec rec;
        memset(&rec, 0, sizeof rec);
        rec.magic = HD_ATTN_REC_MAGIC;
        uint64_t rows = (uint64_t)a->max_batch * (uint64_t)a->max_beam * (uint64_t)a->qo_max_seq;
        rec.attn = draw(a->attn_dropout, rows * (uint64_t)a->n_heads * (uint64_t)a->kv_max_seq);
        rec.post = draw(a->post_dropout, rows * (uint64_t)L.dout);
        memcpy((char *)args->reserve + hd_attn_reserve_layout(a, &L).rec, &rec, sizeof rec);
    }
    return a->dtype == CUDNN_DATA_DOUBLE ? hd_attn_forward_f64(args) : hd_attn_forward_f32(args);
}
