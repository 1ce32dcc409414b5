/* core/softmax_groups.c -- see softmax_groups.h. */
#include "core/softmax_groups.h"

#include <stdlib.h>

int hd_sm_view_init(hd_sm_view *v, const struct cudnnTensorStruct *t, int channel)
{
    v->channel = channel;
    v->n = t->dims[0];
    v->c = t->nbDims > 1 ? t->dims[1] : 1;
    v->sn = t->strides[0];
    v->sc = t->nbDims > 1 ? t->strides[1] : 0;
    v->s = 1;
    for (int i = 2; i < t->nbDims; i++)
        v->s *= t->dims[i];
    v->sp = malloc((size_t)v->s * sizeof *v->sp);
    if (!v->sp)
        return -1;
    /* odometer over the spatial dims, last fastest */
    int idx[CUDNN_DIM_MAX] = { 0 };
    int64_t off = 0;
    for (int64_t p = 0; p < v->s; p++) {
        v->sp[p] = off;
        for (int d = t->nbDims - 1; d >= 2; d--) {
            if (++idx[d] < t->dims[d]) {
                off += t->strides[d];
                break;
            }
            off -= (int64_t)(t->dims[d] - 1) * t->strides[d];
            idx[d] = 0;
        }
    }
    return 0;
}

void hd_sm_view_free(hd_sm_view *v)
{
    free(v->sp);
    v->sp = NULL;
}
