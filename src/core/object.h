/*
 * core/object.h -- type-tagged opaque objects.
 *
 * Every handle and descriptor begins with a 32-bit tag naming its kind.  Each entry point
 * checks the tag, so passing a tensor descriptor where a filter descriptor belongs, or a
 * destroyed descriptor, gives CUDNN_STATUS_BAD_PARAM instead of corrupting memory.
 *
 * Destroyed objects are not returned to malloc: their tag is overwritten with HD_TAG_DEAD and
 * the block waits in a per-size free list for the next object of that size.  A stale pointer
 * therefore still points at readable memory with a dead tag (detectable), until the block is
 * reused (then it looks like the new object: not detectable, as in any C library).
 */
#ifndef HD_CORE_OBJECT_H
#define HD_CORE_OBJECT_H

#include <stddef.h>
#include <stdint.h>

enum {
    HD_TAG_DEAD = 0x44454144u,       /* "DEAD" */
    HD_TAG_HANDLE = 0x68640001u,
    HD_TAG_TENSOR,
    HD_TAG_FILTER,
    HD_TAG_CONV,
    HD_TAG_POOLING,
    HD_TAG_ACTIVATION,
    HD_TAG_LRN,
    HD_TAG_OPTENSOR,
    HD_TAG_REDUCE,
    HD_TAG_TRANSFORM,
    HD_TAG_DROPOUT,
    HD_TAG_SPATIAL_TF,
    HD_TAG_CTC_LOSS,
    HD_TAG_RNN,
    HD_TAG_RNN_DATA,
    HD_TAG_SEQ_DATA,
    HD_TAG_ATTN,
    HD_TAG_FUSED_CONST,
    HD_TAG_FUSED_VARIANT,
    HD_TAG_FUSED_PLAN,
    HD_TAG_ALGO_DESC,
    HD_TAG_ALGO_PERF,
    HD_TAG_PERSISTENT_RNN_PLAN,
    HD_TAG_BACKEND,
};

/* Header shared by all objects; every object struct starts with it. */
typedef struct hd_object {
    uint32_t tag;
    uint32_t size_class;   /* allocation size in 64-byte units, for the free list */
} hd_object;

/* Allocate a zeroed object of SIZE bytes with TAG set; NULL when out of memory. */
void *hd_object_new(size_t size, uint32_t tag);

/* Kill OBJ (tag becomes HD_TAG_DEAD) and keep its memory for reuse.  NULL is ignored. */
void hd_object_free(void *obj);

/* True when OBJ is a live object of kind TAG. */
static inline int hd_object_is(const void *obj, uint32_t tag)
{
    return obj != NULL && ((const hd_object *)obj)->tag == tag;
}

/* Name of a tag for log messages ("tensor descriptor", "destroyed object", ...). */
const char *hd_tag_name(uint32_t tag);

/* Describe what OBJ is, for "expected X, got Y" messages; never dereferences NULL. */
const char *hd_object_kind(const void *obj);

#endif /* HD_CORE_OBJECT_H */
