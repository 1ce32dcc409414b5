/*
 * core/dropout_draw.h -- the dropout generator's numbering, shared by cudnnDropoutForward and
 * the RNN's inter-layer dropout so both read the states buffer the same way.
 *
 * Shared by cudnnDropoutForward, the RNN's inter-layer dropout and multi-head attention.
 * A call that draws N numbers starting at the buffer's counter C gives element e (0 <= e < N)
 * word e % 4 of the Philox block C + e / 4 (counter words {block lo, block hi, "hdDP", 0},
 * key = the seed), and then advances the counter by ceil(N / 4).  An element is kept when its
 * uniform number is at least the drop probability p.
 */
#ifndef HD_CORE_DROPOUT_DRAW_H
#define HD_CORE_DROPOUT_DRAW_H

#include <stdint.h>
#include <string.h>

#include "core/api.h"
#include "core/dropout_desc.h"
#include "core/philox.h"

#define HD_DROPOUT_CTR_TAG 0x68644450u   /* third counter word: separates dropout from other users */

/* The four words of block BLK (absolute block number, counter included). */
static inline void hd_dropout_block(uint64_t key, uint64_t blk, uint32_t words[4])
{
    uint32_t ctr[4] = { (uint32_t)blk, (uint32_t)(blk >> 32), HD_DROPOUT_CTR_TAG, 0 };
    hd_philox4x32_10(ctr, key, words);
}

static inline int hd_dropout_kept(uint32_t word, float p)
{
    return hd_u32_to_unit(word) >= p;
}

/* Blocks consumed by N draws: the counter's advance. */
static inline uint64_t hd_dropout_blocks(uint64_t n)
{
    return (n + 3) / 4;
}

/* STATES holds a generator initialised by cudnnSetDropoutDescriptor. */
static inline int hd_dropout_states_ok(const void *states)
{
    struct hd_dropout_state s;
    if (!states)
        return 0;
    memcpy(&s, states, sizeof s);
    return s.magic == HD_DROPOUT_STATE_MAGIC;
}

/* Take the blocks for N draws from the states buffer: the key and the first block of the
 * range, the buffer's counter advanced past it. */
static inline void hd_dropout_take(void *states, uint64_t n, uint64_t *key, uint64_t *first)
{
    struct hd_dropout_state s;
    memcpy(&s, states, sizeof s);
    *key = s.seed;
    *first = s.counter;
    s.counter += hd_dropout_blocks(n);
    memcpy(states, &s, sizeof s);
}

#endif
