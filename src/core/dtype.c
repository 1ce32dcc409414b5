/* core/dtype.c -- facts about cudnnDataType_t values. */
#include "core/api.h"
#include "core/desc.h"

size_t hd_dtype_size(cudnnDataType_t type)
{
    switch (type) {
    case CUDNN_DATA_FLOAT: return 4;
    case CUDNN_DATA_DOUBLE: return 8;
    case CUDNN_DATA_HALF: return 2;
    case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8: return 1;
    case CUDNN_DATA_UINT8: return 1;
    case CUDNN_DATA_INT32: return 4;
    case CUDNN_DATA_INT64: return 8;
    case CUDNN_DATA_INT8x4: return 4;
    case CUDNN_DATA_UINT8x4: return 4;
    case CUDNN_DATA_INT8x32: return 32;
    }
    return 0;
}

int hd_dtype_vect(cudnnDataType_t type)
{
    switch (type) {
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_UINT8x4: return 4;
    case CUDNN_DATA_INT8x32: return 32;
    default: return 1;
    }
}

const char *hd_dtype_name(cudnnDataType_t type) { return hd_enum_name_cudnnDataType_t((int)type); }
