/* core/object.c -- allocation, tagging and recycling of opaque objects (see object.h). */
#include "core/object.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define HD_OBJ_UNIT 64u
#define HD_OBJ_CLASSES 64u   /* objects up to 4 KiB are recycled by exact class */

typedef struct free_block {
    hd_object head;
    struct free_block *next;
} free_block;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static free_block *pool[HD_OBJ_CLASSES + 1];

void *hd_object_new(size_t size, uint32_t tag)
{
    if (size < sizeof(free_block))
        size = sizeof(free_block);
    size_t units = (size + HD_OBJ_UNIT - 1) / HD_OBJ_UNIT;
    hd_object *o = NULL;
    if (units <= HD_OBJ_CLASSES) {
        pthread_mutex_lock(&pool_lock);
        free_block *b = pool[units];
        if (b)
            pool[units] = b->next;
        pthread_mutex_unlock(&pool_lock);
        o = (hd_object *)b;
    } else {
        /* Larger objects are rare; they share the overflow list and are reused by size. */
        pthread_mutex_lock(&pool_lock);
        free_block **pp = &pool[0];
        while (*pp && (*pp)->head.size_class != units)
            pp = &(*pp)->next;
        if (*pp) {
            o = (hd_object *)*pp;
            *pp = (*pp)->next;
        }
        pthread_mutex_unlock(&pool_lock);
    }
    if (!o) {
        o = aligned_alloc(HD_OBJ_UNIT, units * HD_OBJ_UNIT);
        if (!o)
            return NULL;
    }
    memset(o, 0, units * HD_OBJ_UNIT);
    o->tag = tag;
    o->size_class = (uint32_t)units;
    return o;
}

void hd_object_free(void *obj)
{
    if (!obj)
        return;
    free_block *b = obj;
    uint32_t units = b->head.size_class;
    b->head.tag = HD_TAG_DEAD;
    pthread_mutex_lock(&pool_lock);
    unsigned slot = units <= HD_OBJ_CLASSES ? units : 0;
    b->next = pool[slot];
    pool[slot] = b;
    pthread_mutex_unlock(&pool_lock);
}

const char *hd_tag_name(uint32_t tag)
{
    switch (tag) {
    case HD_TAG_DEAD: return "destroyed object";
    case HD_TAG_HANDLE: return "cudnnHandle_t";
    case HD_TAG_TENSOR: return "tensor descriptor";
    case HD_TAG_FILTER: return "filter descriptor";
    case HD_TAG_CONV: return "convolution descriptor";
    case HD_TAG_POOLING: return "pooling descriptor";
    case HD_TAG_ACTIVATION: return "activation descriptor";
    case HD_TAG_LRN: return "LRN descriptor";
    case HD_TAG_OPTENSOR: return "op-tensor descriptor";
    case HD_TAG_REDUCE: return "reduce-tensor descriptor";
    case HD_TAG_TRANSFORM: return "tensor-transform descriptor";
    case HD_TAG_DROPOUT: return "dropout descriptor";
    case HD_TAG_SPATIAL_TF: return "spatial-transformer descriptor";
    case HD_TAG_CTC_LOSS: return "CTC-loss descriptor";
    case HD_TAG_RNN: return "RNN descriptor";
    case HD_TAG_RNN_DATA: return "RNN data descriptor";
    case HD_TAG_SEQ_DATA: return "sequence data descriptor";
    case HD_TAG_ATTN: return "attention descriptor";
    case HD_TAG_FUSED_CONST: return "fused-ops constant parameter pack";
    case HD_TAG_FUSED_VARIANT: return "fused-ops variant parameter pack";
    case HD_TAG_FUSED_PLAN: return "fused-ops plan";
    case HD_TAG_ALGO_DESC: return "algorithm descriptor";
    case HD_TAG_ALGO_PERF: return "algorithm performance object";
    case HD_TAG_PERSISTENT_RNN_PLAN: return "persistent RNN plan";
    case HD_TAG_BACKEND: return "backend descriptor";
    }
    return "unknown object";
}

const char *hd_object_kind(const void *obj)
{
    if (!obj)
        return "NULL";
    return hd_tag_name(((const hd_object *)obj)->tag);
}
