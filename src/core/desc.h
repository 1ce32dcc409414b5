/*
 * core/desc.h -- internal layout of the descriptors that several sub-libraries read:
 * tensors, filters and convolutions.  (Descriptors used by one area only are declared
 * next to that area's code.)
 *
 * Setters validate and normalise at once, so every reader may trust these fields:
 *   - nbDims == 0 means "created but never set"; operations refuse such a descriptor
 *     with CUDNN_STATUS_BAD_PARAM;
 *   - dims and strides are in elements; for CUDNN_TENSOR_NCHW_VECT_C, dims[1] counts
 *     scalar channels (a multiple of vect_c) and strides count vectors of vect_c elements,
 *     exactly as the user's descriptor said;
 *   - the struct is shared by all sub-libraries (each reads it directly), so only append
 *     fields, never reorder them.
 */
#ifndef HD_CORE_DESC_H
#define HD_CORE_DESC_H

#include "core/object.h"

struct cudnnTensorStruct {
    hd_object obj;
    cudnnDataType_t dtype;
    int nbDims;                           /* 0 = never set; else 3..CUDNN_DIM_MAX (4d setters: 4) */
    int dims[CUDNN_DIM_MAX];
    int strides[CUDNN_DIM_MAX];
    cudnnTensorFormat_t format;           /* as given to an Ex/format setter; NCHW for plain-stride setters */
    int vect_c;                           /* 1, or 4/32 for NCHW_VECT_C (INT8x4 / INT8x32 ...) */
    int packed;                           /* strides are the fully packed ones of `format` */
};

struct cudnnFilterStruct {
    hd_object obj;
    cudnnDataType_t dtype;
    cudnnTensorFormat_t format;           /* NCHW (KCRS), NHWC (KRSC) or NCHW_VECT_C */
    int nbDims;                           /* 0 = never set; else 3..CUDNN_DIM_MAX */
    int dims[CUDNN_DIM_MAX];              /* K, C, then spatial, always in this logical order */
    int vect_c;                           /* 1, or 4/32 for NCHW_VECT_C */
};

#define HD_CONV_MAX_SPATIAL (CUDNN_DIM_MAX - 2)

struct cudnnConvolutionStruct {
    hd_object obj;
    int nbSpatial;                        /* 0 = never set; 2 for the 2d setter, else arrayLength */
    int pad[HD_CONV_MAX_SPATIAL];
    int stride[HD_CONV_MAX_SPATIAL];
    int dilation[HD_CONV_MAX_SPATIAL];
    cudnnConvolutionMode_t mode;
    cudnnDataType_t compute_type;
    int group_count;                      /* >= 1 */
    cudnnMathType_t math_type;
    cudnnReorderType_t reorder_type;
};

/* Size in bytes of one element of TYPE (vector types count the whole vector); 0 if unknown. */
size_t hd_dtype_size(cudnnDataType_t type);

/* Number of scalars packed in one element of TYPE (4 for INT8x4, 32 for INT8x32, else 1). */
int hd_dtype_vect(cudnnDataType_t type);

/* Name of TYPE for messages ("CUDNN_DATA_FLOAT"). */
const char *hd_dtype_name(cudnnDataType_t type);

#endif /* HD_CORE_DESC_H */
