/*
 * core/dropout_desc.h -- the dropout descriptor, read by ops_infer (forward), ops_train
 * (backward) and the RNN/attention code of adv_infer/adv_train.  Append-only.
 *
 * The generator is Philox-4x32-10 keyed by the seed.  The user's states buffer (at least
 * HD_DROPOUT_STATES_BYTES) holds struct hd_dropout_state: the seed it was initialised with
 * and the counter of the next unused block, so two descriptors restored on the same states
 * continue the same sequence, and each forward call draws fresh numbers.  The reserve space
 * of a forward call holds one byte per element: 1 = kept, 0 = dropped.
 */
#ifndef HD_CORE_DROPOUT_DESC_H
#define HD_CORE_DROPOUT_DESC_H

#include "core/object.h"

#define HD_DROPOUT_STATE_MAGIC 0x68644452u      /* "hdDR" */
#define HD_DROPOUT_STATES_BYTES 64u

struct hd_dropout_state {
    uint32_t magic;
    uint32_t reserved;
    unsigned long long seed;
    unsigned long long counter;                  /* next Philox block to use */
};

struct cudnnDropoutStruct {
    hd_object obj;
    float dropout;                    /* probability of dropping an element, in [0, 1) */
    unsigned long long seed;
    void *states;                     /* the user's states buffer, NULL until set */
    size_t states_size;
    cudnnHandle_t handle;             /* the handle given to Set/Restore */
    int is_set;
};

#endif
