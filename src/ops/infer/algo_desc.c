/*
 * Algorithm descriptors and algorithm performance objects (deprecated in cuDNN 8, still part
 * of the 8.1 API), and their save/restore to a caller-provided byte buffer.
 *
 * An algorithm descriptor holds one cudnnAlgorithm_t.  That type is a union of algorithm
 * enums whose member the descriptor cannot know, so the value is stored as given: any int is
 * accepted (the enum that gives it meaning belongs to the caller).  A descriptor that was
 * never set refuses Get/Copy/Save with BAD_PARAM, so garbage never travels.
 *
 * Saved form (little-endian, 24 bytes, see docs/algorithm-descriptors.md):
 *   "HDAL" magic | u32 format version (1) | u32 payload bytes (8) | i32 algorithm |
 *   u32 reserved (0) | u32 FNV-1a checksum of the 20 bytes before it.
 * Restore refuses a short buffer, a wrong magic, an unknown version, a wrong payload size,
 * non-zero reserved bytes or a checksum mismatch, each with BAD_PARAM, and then leaves the
 * descriptor untouched.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"

#include <stdlib.h>
#include <string.h>

struct cudnnAlgorithmStruct {
    hd_object obj;
    int is_set;
    cudnnAlgorithm_t algo;
};

struct cudnnAlgorithmPerformanceStruct {
    hd_object obj;
    cudnnAlgorithmDescriptor_t algo_desc;   /* as given; not owned */
    cudnnStatus_t status;
    float time;
    size_t memory;
};

enum { SAVE_VERSION = 1, SAVE_PAYLOAD = 8, SAVE_BYTES = 24 };
static const unsigned char save_magic[4] = {'H', 'D', 'A', 'L'};

/* The algorithm value as an int, whichever union member the caller used (all are int-sized enums). */
static int algo_value(const cudnnAlgorithm_t *a)
{
    int v;
    memcpy(&v, &a->algo, sizeof v);
    return v;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* FNV-1a: small, and any single flipped bit changes it. */
static uint32_t checksum(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

cudnnStatus_t HD_IMPL(cudnnCreateAlgorithmDescriptor)(cudnnAlgorithmDescriptor_t *algoDesc)
{
    HD_CHECK_PTR(algoDesc);
    struct cudnnAlgorithmStruct *d = hd_object_new(sizeof *d, HD_TAG_ALGO_DESC);
    if (!d)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    *algoDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetAlgorithmDescriptor)(cudnnAlgorithmDescriptor_t algoDesc, cudnnAlgorithm_t algorithm)
{
    HD_CHECK_DESC(algoDesc, HD_TAG_ALGO_DESC);
    algoDesc->algo = algorithm;
    algoDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetAlgorithmDescriptor)(const cudnnAlgorithmDescriptor_t algoDesc, cudnnAlgorithm_t *algorithm)
{
    HD_CHECK_DESC(algoDesc, HD_TAG_ALGO_DESC);
    HD_CHECK_PTR(algorithm);
    if (!algoDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algoDesc was never set");
    *algorithm = algoDesc->algo;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnCopyAlgorithmDescriptor)(const cudnnAlgorithmDescriptor_t src, cudnnAlgorithmDescriptor_t dest)
{
    HD_CHECK_DESC(src, HD_TAG_ALGO_DESC);
    HD_CHECK_DESC(dest, HD_TAG_ALGO_DESC);
    if (!src->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "src was never set");
    dest->algo = src->algo;
    dest->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyAlgorithmDescriptor)(cudnnAlgorithmDescriptor_t algoDesc)
{
    if (!algoDesc)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(algoDesc, HD_TAG_ALGO_DESC);
    hd_object_free(algoDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnCreateAlgorithmPerformance)(cudnnAlgorithmPerformance_t *algoPerf, int numberToCreate)
{
    HD_CHECK_PTR(algoPerf);
    if (numberToCreate <= 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "numberToCreate must be positive (got %d)", numberToCreate);
    /* Build them all aside, so the caller's array is only written when every one exists. */
    cudnnAlgorithmPerformance_t *made = calloc((size_t)numberToCreate, sizeof *made);
    if (!made)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    for (int i = 0; i < numberToCreate; i++) {
        made[i] = hd_object_new(sizeof *made[i], HD_TAG_ALGO_PERF);
        if (!made[i]) {
            for (int j = 0; j < i; j++)
                hd_object_free(made[j]);
            free(made);
            return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory after %d of %d objects", i, numberToCreate);
        }
        made[i]->status = CUDNN_STATUS_SUCCESS;
        made[i]->time = -1.0f;   /* "not measured" until set */
    }
    memcpy(algoPerf, made, (size_t)numberToCreate * sizeof *made);
    free(made);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetAlgorithmPerformance)(cudnnAlgorithmPerformance_t algoPerf,
                                                    cudnnAlgorithmDescriptor_t algoDesc, cudnnStatus_t status,
                                                    float time, size_t memory)
{
    HD_CHECK_DESC(algoPerf, HD_TAG_ALGO_PERF);
    HD_CHECK_DESC(algoDesc, HD_TAG_ALGO_DESC);
    if ((int)status < 0 || (int)status > CUDNN_STATUS_VERSION_MISMATCH)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "status %d is not a cudnnStatus_t", (int)status);
    algoPerf->algo_desc = algoDesc;
    algoPerf->status = status;
    algoPerf->time = time;
    algoPerf->memory = memory;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetAlgorithmPerformance)(const cudnnAlgorithmPerformance_t algoPerf,
                                                    cudnnAlgorithmDescriptor_t *algoDesc, cudnnStatus_t *status,
                                                    float *time, size_t *memory)
{
    HD_CHECK_DESC(algoPerf, HD_TAG_ALGO_PERF);
    if (!algoDesc || !status || !time || !memory)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    *algoDesc = algoPerf->algo_desc;
    *status = algoPerf->status;
    *time = algoPerf->time;
    *memory = algoPerf->memory;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyAlgorithmPerformance)(cudnnAlgorithmPerformance_t *algoPerf, int numberToDestroy)
{
    if (numberToDestroy < 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "numberToDestroy is negative (%d)", numberToDestroy);
    if (numberToDestroy == 0)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_PTR(algoPerf);
    /* Check them all first, so a bad entry destroys nothing. */
    for (int i = 0; i < numberToDestroy; i++)
        if (algoPerf[i] && !hd_object_is(algoPerf[i], HD_TAG_ALGO_PERF))
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algoPerf[%d] is a %s, not an algorithm performance object", i,
                           hd_object_kind(algoPerf[i]));
    for (int i = 0; i < numberToDestroy; i++)
        hd_object_free(algoPerf[i]);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetAlgorithmSpaceSize)(cudnnHandle_t handle, cudnnAlgorithmDescriptor_t algoDesc,
                                                  size_t *algoSpaceSizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(algoDesc, HD_TAG_ALGO_DESC);
    HD_CHECK_PTR(algoSpaceSizeInBytes);
    *algoSpaceSizeInBytes = SAVE_BYTES;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSaveAlgorithm)(cudnnHandle_t handle, cudnnAlgorithmDescriptor_t algoDesc, void *algoSpace,
                                          size_t algoSpaceSizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(algoDesc, HD_TAG_ALGO_DESC);
    HD_CHECK_PTR(algoSpace);
    if (!algoDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algoDesc was never set");
    if (algoSpaceSizeInBytes < SAVE_BYTES)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algoSpace holds %zu bytes; %d are needed (cudnnGetAlgorithmSpaceSize)",
                       algoSpaceSizeInBytes, (int)SAVE_BYTES);
    unsigned char buf[SAVE_BYTES];
    memcpy(buf, save_magic, 4);
    put_u32(buf + 4, SAVE_VERSION);
    put_u32(buf + 8, SAVE_PAYLOAD);
    put_u32(buf + 12, (uint32_t)algo_value(&algoDesc->algo));
    put_u32(buf + 16, 0);
    put_u32(buf + 20, checksum(buf, 20));
    memcpy(algoSpace, buf, SAVE_BYTES);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnRestoreAlgorithm)(cudnnHandle_t handle, void *algoSpace, size_t algoSpaceSizeInBytes,
                                             cudnnAlgorithmDescriptor_t algoDesc)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(algoSpace);
    HD_CHECK_DESC(algoDesc, HD_TAG_ALGO_DESC);
    if (algoSpaceSizeInBytes < SAVE_BYTES)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algoSpace holds %zu bytes; a saved algorithm has %d",
                       algoSpaceSizeInBytes, (int)SAVE_BYTES);
    const unsigned char *p = algoSpace;
    if (memcmp(p, save_magic, 4) != 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "algoSpace does not hold a saved algorithm (bad magic)");
    if (get_u32(p + 4) != SAVE_VERSION)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "saved algorithm has format version %u; this library reads version %d",
                       (unsigned)get_u32(p + 4), (int)SAVE_VERSION);
    if (get_u32(p + 8) != SAVE_PAYLOAD || get_u32(p + 16) != 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "saved algorithm has an unexpected payload layout");
    if (get_u32(p + 20) != checksum(p, 20))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "saved algorithm is corrupt (checksum mismatch)");
    int v = (int)get_u32(p + 12);
    memset(&algoDesc->algo, 0, sizeof algoDesc->algo);
    memcpy(&algoDesc->algo.algo, &v, sizeof v);
    algoDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}
