/*
 * core/tensor.h -- facts about a validated tensor or filter descriptor, for the operations.
 */
#ifndef HD_CORE_TENSOR_H
#define HD_CORE_TENSOR_H

#include "core/desc.h"

/* Number of elements (product of dims; vectors for VECT_C/vector types). */
int64_t hd_tensor_elems(const struct cudnnTensorStruct *t);

/* Bytes spanned: (max linear offset + 1) * element size.  0 for an unset descriptor. */
size_t hd_tensor_span_bytes(const struct cudnnTensorStruct *t);

/* Fill strides with the packed strides of FORMAT for DIMS (dims[1] = channels).  Strides
 * count elements of the descriptor's type, i.e. vectors for VECT_C.  Returns 0, or -1
 * if a stride would not fit in int. */
int hd_packed_strides(cudnnTensorFormat_t format, int nbDims, const int *dims, int vect_c, int *strides);

/* Filter elements (K*C*spatial, C rounded up to whole vectors for VECT_C) and bytes. */
size_t hd_filter_bytes(const struct cudnnFilterStruct *f);

/* CUDNN_STATUS_SUCCESS when D is a live, set tensor descriptor; BAD_PARAM (logged) else. */
cudnnStatus_t hd_check_tensor(const void *d, const char *argname, const char *fn);
cudnnStatus_t hd_check_filter(const void *d, const char *argname, const char *fn);
#define HD_CHECK_TENSOR(d) do { cudnnStatus_t st_ = hd_check_tensor((d), #d, __func__); \
    if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)
#define HD_CHECK_FILTER(d) do { cudnnStatus_t st_ = hd_check_filter((d), #d, __func__); \
    if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

#endif
