/*
 * core/desc_set.h -- the validating setters of the shared descriptors (core/desc.h,
 * core/activation_desc.h).
 *
 * The public setters (cudnnSetTensorNdDescriptor, cudnnSetFilterNdDescriptor,
 * cudnnSetConvolutionNdDescriptor, cudnnSetActivationDescriptor, ...) are thin wrappers
 * around these, and internal code that needs a descriptor of its own (the backend API's
 * execution plans, fused-ops plans, the folded convolution) calls them directly: an internal
 * descriptor never goes through an exported, logging cudnn* entry point.  Each checks
 * everything before writing, so a refused call leaves the descriptor as it was; FN is the
 * public name failures are logged under.
 */
#ifndef HD_CORE_DESC_SET_H
#define HD_CORE_DESC_SET_H

#include "core/activation_desc.h"
#include "core/desc.h"

/* Make OBJ, a struct that is not heap-allocated (a member or a local), a live object of
 * kind TAG.  Such an object is never passed to hd_object_free. */
static inline void hd_object_init(void *obj, uint32_t tag)
{
    ((hd_object *)obj)->tag = tag;
    ((hd_object *)obj)->size_class = 0;
}

/* Packed strides of FORMAT (cudnnSetTensor4dDescriptor, cudnnSetTensorNdDescriptorEx). */
cudnnStatus_t hd_tensor_set_format(struct cudnnTensorStruct *t, cudnnTensorFormat_t format, cudnnDataType_t dt,
                                   int nbDims, const int *dims, const char *fn);
/* Explicit strides (cudnnSetTensor4dDescriptorEx, cudnnSetTensorNdDescriptor). */
cudnnStatus_t hd_tensor_set_strided(struct cudnnTensorStruct *t, cudnnDataType_t dt, int nbDims, const int *dims,
                                    const int *strides, const char *fn);

/* cudnnSetFilter4dDescriptor / cudnnSetFilterNdDescriptor. */
cudnnStatus_t hd_filter_set(struct cudnnFilterStruct *f, cudnnDataType_t dt, cudnnTensorFormat_t format, int nbDims,
                            const int *dims, const char *fn);

/* A fresh convolution descriptor's values (0 spatial dimensions, group count 1, ...). */
void hd_conv_desc_defaults(struct cudnnConvolutionStruct *c);
/* cudnnSetConvolution2dDescriptor / cudnnSetConvolutionNdDescriptor: N spatial dimensions. */
cudnnStatus_t hd_conv_desc_set(struct cudnnConvolutionStruct *c, int n, const int *pad, const int *stride,
                               const int *dilation, cudnnConvolutionMode_t mode, cudnnDataType_t compute_type,
                               const char *fn);

/* cudnnSetActivationDescriptor. */
cudnnStatus_t hd_activation_set(struct cudnnActivationStruct *a, cudnnActivationMode_t mode,
                                cudnnNanPropagation_t nan_opt, double coef, const char *fn);
/* Read activation descriptor D (ARGNAME in messages) for an operation that runs it: BAD_PARAM
 * when D is not a live activation descriptor or was never set (cudnnGetActivationDescriptor,
 * by contrast, reads a never-set one as zeros, as cuDNN does). */
cudnnStatus_t hd_activation_get(const void *d, cudnnActivationMode_t *mode, cudnnNanPropagation_t *nan_opt,
                                double *coef, const char *argname, const char *fn);

#endif
