/*
 * core/softmax_groups.h -- the groups softmax normalises over, for any strides.
 *
 * A tensor is seen as N x C x S (S = product of the dims after the second).  INSTANCE mode
 * has N groups of C*S elements; CHANNEL mode has N*S groups of C elements.  Element j of
 * group g lives at hd_sm_group_off(g) + hd_sm_elem_off(j) (in elements).
 */
#ifndef HD_CORE_SOFTMAX_GROUPS_H
#define HD_CORE_SOFTMAX_GROUPS_H

#include "core/api.h"
#include "core/desc.h"

typedef struct {
    int channel;              /* 1 = CHANNEL mode */
    int64_t n, c, s;
    int64_t sn, sc;           /* strides of N and C */
    int64_t *sp;              /* offset of each spatial position (S entries), owned */
} hd_sm_view;

/* Fill V for tensor T; returns 0, or -1 when out of memory. */
int hd_sm_view_init(hd_sm_view *v, const struct cudnnTensorStruct *t, int channel);
void hd_sm_view_free(hd_sm_view *v);

static inline int64_t hd_sm_groups(const hd_sm_view *v) { return v->channel ? v->n * v->s : v->n; }
static inline int64_t hd_sm_len(const hd_sm_view *v) { return v->channel ? v->c : v->c * v->s; }

static inline int64_t hd_sm_group_off(const hd_sm_view *v, int64_t g)
{
    return v->channel ? (g / v->s) * v->sn + v->sp[g % v->s] : g * v->sn;
}

static inline int64_t hd_sm_elem_off(const hd_sm_view *v, int64_t j)
{
    return v->channel ? j * v->sc : (j / v->s) * v->sc + v->sp[j % v->s];
}

#endif
