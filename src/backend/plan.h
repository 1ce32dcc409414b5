/*
 * backend/plan.h -- what a finalized execution plan keeps (built by engines.c, run by
 * execute.c).  Pointers into the graph point into the plan descriptor's own deep copies.
 */
#ifndef HD_BACKEND_PLAN_H
#define HD_BACKEND_PLAN_H

#include "backend/backend.h"
#include "conv/conv_api_util.h"
#include "fusion/fusion.h"

struct hd_bplan {
    hd_bgraph g;
    int64_t engine;
    /* Convolution head: the problem as legacy descriptors, owned by the plan (never passed
     * to hd_object_free); x, w, y in the forward sense. */
    hd_conv_dir dir;
    struct cudnnTensorStruct x, y;
    struct cudnnFilterStruct w;
    struct cudnnConvolutionStruct conv;
    const hd_conv_solver *solver;
    double alpha, beta;
    int double_scalars;              /* alpha/beta of the operation are applied as double (DOUBLE data) */
    int64_t uid_x, uid_w, uid_y;     /* the head's three tensors (matmul: a, b, c) */
    /* The chain inside the convolution's store: act(epi_alpha conv + epi_alpha2 z + bias). */
    int epilogue, epi_relu;
    double epi_alpha, epi_alpha2;
    int64_t uid_bias, uid_z;         /* -1: none (zero bias in the workspace / no z) */
    int64_t bias_stride;
    int bias_dt;
    /* Matmul head (pointers filled at execution). */
    hd_matmul_desc mm;
    /* Workspace: the head's own bytes at 0, then (64-byte aligned) the head's virtual output
     * or the epilogue's zero bias. */
    size_t ws_head, virt_off, virt_bytes, workspace;
    char why[320];                   /* why the plan could not be built */
};

#endif
