/*
 * fusion/fusion.h -- the engine layer of the backend's fused graphs: a chain of pointwise
 * operations applied in one pass over an output, and the batched matrix multiply that heads
 * matmul graphs.  The backend (src/backend) recognises a graph, builds these descriptions
 * from it and the variant pack, and calls them; nothing here knows about descriptors.
 *
 * Values are computed in float whatever the storage type (FLOAT, HALF, BFLOAT16, DOUBLE
 * read and written through float), each element independently, so results do not depend on
 * the thread count.
 */
#ifndef HD_FUSION_H
#define HD_FUSION_H

#include "core/api.h"

#include <stddef.h>
#include <stdint.h>

#define HD_PW_MAX_DIMS 8
#define HD_PW_MAX_STEPS 16

/* A tensor as the chain reads or writes it: strides in elements, 0 where it broadcasts. */
typedef struct hd_pw_view {
    void *ptr;
    cudnnDataType_t dt;
    int64_t strides[HD_PW_MAX_DIMS];
} hd_pw_view;

/* One pointwise operation of the chain.  The running value v comes from the previous step
 * (x of forward modes, dy of backward modes); `other` is b (binary modes) or x (backward
 * modes).  With a1 = alpha1, a2 = alpha2:
 *   ADD a1 v + a2 b    MUL (a1 v)(a2 b)    MIN / MAX of a1 v, a2 b    SQRT sqrt(a1 v)
 *   *_FWD act(a1 v)    *_BWD act'(a2 x) * a1 dy
 * with the activation parameters below (see docs/backend.md for the formulas). */
typedef struct hd_pw_step {
    int mode;                        /* cudnnPointwiseMode_t */
    float alpha1, alpha2;
    float lower_clip, upper_clip, slope, elu_alpha, softplus_beta, swish_beta;
    int propagate_nan;               /* RELU_FWD: a NaN input stays NaN (else it gives the lower clip) */
    int has_other;
    hd_pw_view other;
    int store;                       /* write the step's result to `out` (a tensor the user sees) */
    hd_pw_view out;
} hd_pw_step;

typedef struct hd_pw_chain {
    int isa;                         /* the handle's hd_isa_t: picks the eltwise kernels */
    int nd;
    int64_t dims[HD_PW_MAX_DIMS];    /* the shape every step runs over (the output's) */
    hd_pw_view in;                   /* the value entering the chain */
    int nsteps;
    hd_pw_step step[HD_PW_MAX_STEPS];
} hd_pw_chain;

/* Is MODE a pointwise mode the chain computes?  (All modes of cuDNN 8.1.) */
int hd_pw_mode_known(int mode);
/* Does MODE take a second tensor (b for binary, x for backward modes)? */
int hd_pw_mode_has_other(int mode);

/* Run the chain over its shape on up to NTHREADS threads.  The input may be the final
 * output (the pass reads each element before it writes it). */
void hd_pw_chain_run(const hd_pw_chain *c, int nthreads);
/* The same on the box of C's shape that starts at LO and spans COUNT elements per dimension:
 * what hd_pw_chain_run does to those elements, nothing to the others. */
void hd_pw_chain_run_box(const hd_pw_chain *c, const int64_t *lo, const int64_t *count, int nthreads);

/* C = A x B over batch dimensions: A is batch x M x K, B batch x K x N, C batch x M x N,
 * where each of A's and B's batch dimensions is C's or 1 (broadcast).  Strides in
 * elements, any layout.  Computed in float: operands that are not packed float rows are
 * converted into WS first.  C is written in its own type, or left in float at C_F32 when
 * that is not NULL (the chain then reads it). */
typedef struct hd_matmul_desc {
    int nbatch;                      /* number of batch dimensions (rank - 2) */
    int64_t batch[HD_PW_MAX_DIMS];   /* C's batch dimensions */
    int64_t M, N, K;
    hd_pw_view a, b, c;              /* strides: batch dims then the two matrix dims */
} hd_matmul_desc;

/* Workspace bytes hd_matmul_run needs for D (the converted operands of one batch). */
size_t hd_matmul_workspace(const hd_matmul_desc *d);
/* Run D; with CHAIN (not NULL; its shape is C's), run the chain on each block of C's rows as
 * soon as the block is computed -- the same result as hd_pw_chain_run(CHAIN) afterwards. */
void hd_matmul_run(const hd_matmul_desc *d, const hd_pw_chain *chain, void *ws, int nthreads);

#endif
