/*
 * library_types.h -- hostdnn's host-only stand-in for the CUDA header of the same name.
 *
 * Used when no CUDA toolkit is on the include path.  Values match CUDA 11.2 so binaries built
 * either way agree.  The guard macro is CUDA's, so the two never both get included.
 */
#ifndef __LIBRARY_TYPES_H__
#define __LIBRARY_TYPES_H__

/* Element types named by the CUDA math libraries (cuBLAS GemmEx and friends). */
typedef enum cudaDataType_t {
    CUDA_R_16F = 2,
    CUDA_C_16F = 6,
    CUDA_R_16BF = 14,
    CUDA_C_16BF = 15,
    CUDA_R_32F = 0,
    CUDA_C_32F = 4,
    CUDA_R_64F = 1,
    CUDA_C_64F = 5,
    CUDA_R_8I = 3,
    CUDA_C_8I = 7,
    CUDA_R_8U = 8,
    CUDA_C_8U = 9,
    CUDA_R_32I = 10,
    CUDA_C_32I = 11,
    CUDA_R_32U = 12,
    CUDA_C_32U = 13,
    CUDA_R_16I = 20,
    CUDA_C_16I = 21,
    CUDA_R_16U = 22,
    CUDA_C_16U = 23,
    CUDA_R_64I = 24,
    CUDA_C_64I = 25,
    CUDA_R_64U = 26,
    CUDA_C_64U = 27,
    CUDA_R_4I = 16,
    CUDA_C_4I = 17,
    CUDA_R_4U = 18,
    CUDA_C_4U = 19
} cudaDataType;

/* Which part of a library version a *GetProperty call reports. */
typedef enum libraryPropertyType_t {
    MAJOR_VERSION = 0,
    MINOR_VERSION = 1,
    PATCH_LEVEL = 2
} libraryPropertyType;

#endif /* __LIBRARY_TYPES_H__ */
