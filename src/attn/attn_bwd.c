/*
 * The attention backward passes (attn_engine.h).  Both recompute the forward quantities
 * (projections, softmax, dropout masks) from the inputs, the weights and the reserve space,
 * which carries the attention windows (cudnnMultiHeadAttnBackwardWeights does not receive
 * them) and the record of the forward call's dropout draws.
 */
#include "attn/attn_engine.h"

static cudnnStatus_t run(const hd_attn_bwd_args *args, int data, int weights)
{
    return args->a->dtype == CUDNN_DATA_DOUBLE ? hd_attn_backward_f64(args, data, weights)
                                               : hd_attn_backward_f32(args, data, weights);
}

cudnnStatus_t hd_attn_backward_data(const char *fn, const hd_attn_bwd_args *args)
{
    (void)fn;
    hd_attn_save_windows(args->a, args->qd->dims[CUDNN_SEQDATA_TIME_DIM], args->lo, args->hi, args->reserve);
    return run(args, 1, 0);
}

cudnnStatus_t hd_attn_backward_weights(const char *fn, const hd_attn_bwd_args *args)
{
    (void)fn;
    hd_attn_bwd_args c = *args;
    const int *win = args->reserve;
    c.lo = win;
    c.hi = win + args->a->qo_max_seq;
    return run(&c, 0, 1);
}
