/*
 * attn/attn_dropout.h -- dropout in multi-head attention training: on the attention
 * probabilities (the attention descriptor's attnDropoutDesc) and on the output before the
 * residual connection (postDropoutDesc).  Private to src/attn.
 *
 * The forward training call takes one range of Philox-4x32-10 blocks from each dropout
 * descriptor's states buffer (the generator and numbering of core/dropout_draw.h)
 * and records key, first block and probability in the reserve space (hd_attn_rec,
 * attn_problem.h).  The backward calls
 * regenerate the same mask from that record instead of storing one byte per probability.
 * Element e of a mask uses word e % 4 of block first + e / 4, where e is the element's
 * index in the descriptor's largest problem (maxBatch x maxBeam x heads x qoMax x kvMax for
 * the probabilities, maxBatch x maxBeam x qoMax x output size for the output), so a mask
 * does not depend on the call's sizes, the layout or the thread count.
 */
#ifndef HD_ATTN_DROPOUT_H
#define HD_ATTN_DROPOUT_H

#include <stddef.h>
#include <stdint.h>

#include "core/dropout_draw.h"


/* One dropout site's draw; p == 0 means "no dropout here". */
typedef struct {
    float p;
    float pad_;
    uint64_t key, first;
} hd_attn_drop;

/* Fill KEEP[0..n) with 1 for kept elements and 0 for dropped ones, elements E0 .. E0 + n of
 * the mask D (the caller scales kept ones by 1 / (1 - p) in its compute type). */
static inline void hd_attn_drop_row(const hd_attn_drop *d, uint64_t e0, size_t n, float *keep)
{
    uint32_t w[4];
    uint64_t cur = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        uint64_t e = e0 + i, blk = d->first + (e >> 2);
        if (blk != cur) {
            hd_dropout_block(d->key, blk, w);
            cur = blk;
        }
        keep[i] = hd_dropout_kept(w[e & 3], d->p) ? 1.0f : 0.0f;
    }
}

#endif /* HD_ATTN_DROPOUT_H */
