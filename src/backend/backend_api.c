/*
 * cudnnBackendCreateDescriptor / Destroy / Initialize / SetAttribute / GetAttribute and
 * the generic attribute store behind them.
 *
 * Rules (cuDNN 8.1, and what cuDNN 9 answers where 8.1 is silent):
 *   - Set: the attribute must belong to the descriptor's type, have an accepted type and
 *     an element count in range; enum values must be valid; referenced descriptors must be
 *     finalized backend descriptors of the right type (they are deep-copied).  A finalized
 *     descriptor refuses Set.  All BAD_PARAM.
 *   - Get: only after Finalize (NOT_INITIALIZED before, as cuDNN 9); requestedElementCount
 *     >= 0; arrayOfElements NULL asks for the count only; otherwise min(requested, actual)
 *     elements are written and reported.  Descriptor-valued attributes are copied into the
 *     caller's descriptors, which must be created with the right type.
 */
#include "core/api.h"
#include "core/check.h"
#include "backend/backend.h"

#include <stdlib.h>
#include <string.h>

int hd_bdesc_is(const void *p) { return hd_object_is(p, HD_TAG_BACKEND); }

hd_bdesc *hd_bdesc_new(cudnnBackendDescriptorType_t type)
{
    hd_bdesc *d = hd_object_new(sizeof *d, HD_TAG_BACKEND);
    if (d)
        d->type = type;
    return d;
}

hd_battr *hd_bdesc_find(const hd_bdesc *d, cudnnBackendAttributeName_t name)
{
    for (int i = 0; i < d->nattr; i++)
        if (d->attr[i].name == name)
            return (hd_battr *)&d->attr[i];
    return NULL;
}

static void free_attr(hd_battr *a)
{
    if (a->type == CUDNN_TYPE_BACKEND_DESCRIPTOR)
        for (int64_t i = 0; i < a->count; i++) {
            hd_bdesc *sub = ((hd_bdesc **)a->data)[i];
            if (sub) {
                hd_bdesc_clear(sub);
                hd_object_free(sub);
            }
        }
    free(a->data);
    memset(a, 0, sizeof *a);
}

void hd_bdesc_clear(hd_bdesc *d)
{
    for (int i = 0; i < d->nattr; i++)
        free_attr(&d->attr[i]);
    d->nattr = 0;
    d->finalized = 0;
    if (d->plan) {
        hd_bplan_free(d->plan);
        d->plan = NULL;
    }
}

/* Out of host memory while storing: logged here at error level, because Finalize's steps and
 * copies return this status as it is (a refusal must be visible with CUDNN_LOGERR_DBG alone). */
static cudnnStatus_t store_oom(cudnnBackendAttributeName_t name, int64_t count)
{
    return hd_fail(CUDNN_STATUS_ALLOC_FAILED, "hd_bdesc_store", "out of host memory storing %lld elements of %s",
                   (long long)count, hd_battr_name(name));
}

cudnnStatus_t hd_bdesc_store(hd_bdesc *d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                             int64_t count, const void *elems)
{
    hd_battr fresh = {name, type, count, NULL};
    size_t es = hd_btype_size(type);
    if (count > 0) {
        fresh.data = malloc((size_t)count * es);
        if (!fresh.data)
            return store_oom(name, count);
        if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
            for (int64_t i = 0; i < count; i++) {
                hd_bdesc *c = hd_bdesc_clone(((hd_bdesc *const *)elems)[i]);
                ((hd_bdesc **)fresh.data)[i] = c;
                if (!c) {
                    fresh.count = i;
                    free_attr(&fresh);
                    return store_oom(name, count);
                }
            }
        } else {
            memcpy(fresh.data, elems, (size_t)count * es);
        }
    }
    hd_battr *old = hd_bdesc_find(d, name);
    if (old) {
        free_attr(old);
        *old = fresh;
    } else if (d->nattr < HD_BACKEND_MAX_ATTRS) {
        d->attr[d->nattr++] = fresh;
    } else {
        free_attr(&fresh);
        return hd_fail(CUDNN_STATUS_ALLOC_FAILED, "hd_bdesc_store", "a descriptor holds at most %d attributes",
                       HD_BACKEND_MAX_ATTRS);
    }
    return CUDNN_STATUS_SUCCESS;
}

hd_bdesc *hd_bdesc_clone(const hd_bdesc *src)
{
    hd_bdesc *c = hd_bdesc_new(src->type);
    if (!c)
        return NULL;
    if (hd_bdesc_copy_into(c, src) != CUDNN_STATUS_SUCCESS) {
        hd_bdesc_clear(c);
        hd_object_free(c);
        return NULL;
    }
    return c;
}

cudnnStatus_t hd_bdesc_copy_into(hd_bdesc *dst, const hd_bdesc *src)
{
    hd_bdesc_clear(dst);
    dst->type = src->type;
    for (int i = 0; i < src->nattr; i++) {
        const hd_battr *a = &src->attr[i];
        cudnnStatus_t st = hd_bdesc_store(dst, a->name, a->type, a->count, a->data);
        if (st != CUDNN_STATUS_SUCCESS)
            return st;
    }
    dst->finalized = src->finalized;
    /* A copied execution plan is re-derived from its attributes. */
    if (src->plan && dst->finalized) {
        dst->finalized = 0;
        cudnnStatus_t st = hd_bdesc_finalize(dst);
        if (st != CUDNN_STATUS_SUCCESS)
            return st;
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- readers ---- */

int64_t hd_bcount(const hd_bdesc *d, cudnnBackendAttributeName_t name)
{
    const hd_battr *a = hd_bdesc_find(d, name);
    return a ? a->count : 0;
}

int hd_bget_i64(const hd_bdesc *d, cudnnBackendAttributeName_t name, int64_t *out)
{
    const hd_battr *a = hd_bdesc_find(d, name);
    if (!a || a->count < 1 || a->type != CUDNN_TYPE_INT64)
        return 0;
    memcpy(out, a->data, sizeof *out);
    return 1;
}

int hd_bget_int(const hd_bdesc *d, cudnnBackendAttributeName_t name, int *out)
{
    const hd_battr *a = hd_bdesc_find(d, name);
    if (!a || a->count < 1 || hd_btype_size(a->type) != sizeof(int))
        return 0;
    memcpy(out, a->data, sizeof *out);
    return 1;
}

int hd_bget_double(const hd_bdesc *d, cudnnBackendAttributeName_t name, double *out)
{
    const hd_battr *a = hd_bdesc_find(d, name);
    if (!a || a->count < 1)
        return 0;
    if (a->type == CUDNN_TYPE_DOUBLE) {
        memcpy(out, a->data, sizeof *out);
        return 1;
    }
    if (a->type == CUDNN_TYPE_FLOAT) {
        float f;
        memcpy(&f, a->data, sizeof f);
        *out = f;
        return 1;
    }
    return 0;
}

const hd_bdesc *hd_bget_desc(const hd_bdesc *d, cudnnBackendAttributeName_t name, int index)
{
    const hd_battr *a = hd_bdesc_find(d, name);
    if (!a || a->type != CUDNN_TYPE_BACKEND_DESCRIPTOR || index >= a->count)
        return NULL;
    return ((hd_bdesc *const *)a->data)[index];
}

/* ---- the API ---- */

static cudnnStatus_t check_bdesc(const void *d, const char *fn)
{
    if (!d)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "descriptor is NULL");
    if (!hd_bdesc_is(d))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "descriptor is a %s, not a backend descriptor", hd_object_kind(d));
    return CUDNN_STATUS_SUCCESS;
}
#define CHECK_BDESC(d) do { cudnnStatus_t st_ = check_bdesc((d), __func__); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

cudnnStatus_t HD_IMPL(cudnnBackendCreateDescriptor)(cudnnBackendDescriptorType_t descriptorType,
                                                    cudnnBackendDescriptor_t *descriptor)
{
    HD_CHECK_PTR(descriptor);
    if ((int)descriptorType < 0 || (int)descriptorType >= HD_BACKEND_NUM_TYPES)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "descriptorType %d is not a cudnnBackendDescriptorType_t",
                       (int)descriptorType);
    if (descriptorType == CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__,
                       "%s is not supported: hostdnn engines have no intermediate results",
                       hd_bdesc_type_name((int)descriptorType));
    hd_bdesc *d = hd_bdesc_new(descriptorType);
    if (!d)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    *descriptor = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnBackendDestroyDescriptor)(cudnnBackendDescriptor_t descriptor)
{
    if (!descriptor)
        return CUDNN_STATUS_SUCCESS;
    CHECK_BDESC(descriptor);
    hd_bdesc_clear(descriptor);
    hd_object_free(descriptor);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnBackendInitialize)(cudnnBackendDescriptor_t descriptor)
{
    /* The 8.1 signature carries no type or size, so only a descriptor made by
     * cudnnBackendCreateDescriptor can be (re)initialised: back to its created state. */
    CHECK_BDESC(descriptor);
    hd_bdesc_clear(descriptor);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnBackendFinalize)(cudnnBackendDescriptor_t descriptor)
{
    CHECK_BDESC(descriptor);
    hd_bdesc *d = descriptor;
    /* cuDNN 8 answers INVALID_VALUE for a second finalize (cuDNN 9: BAD_PARAM) */
    if (d->finalized)
        return HD_FAIL(CUDNN_STATUS_INVALID_VALUE, "the %s is already finalized", hd_bdesc_type_name((int)d->type));
    return hd_bdesc_finalize(d);
}

/* Common checks of a name/type pair for Set and Get. */
static cudnnStatus_t check_attr(const char *fn, const hd_bdesc *d, cudnnBackendAttributeName_t name,
                                cudnnBackendAttributeType_t type, const hd_battr_info **info)
{
    *info = hd_battr_lookup(name);
    if (!*info)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "attributeName %d is not a cudnnBackendAttributeName_t", (int)name);
    if ((int)(*info)->owner != (int)d->type)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s belongs to %s, not to %s", hd_battr_name(name),
                       hd_bdesc_type_name((int)(*info)->owner), hd_bdesc_type_name((int)d->type));
    if ((int)type < 0 || (int)type > CUDNN_TYPE_REDUCTION_OPERATOR_TYPE || !((*info)->types & (1u << type)))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s does not take attributeType %s (%d)", hd_battr_name(name),
                       hd_enum_name_cudnnBackendAttributeType_t((int)type), (int)type);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnBackendSetAttribute)(cudnnBackendDescriptor_t descriptor,
                                                cudnnBackendAttributeName_t attributeName,
                                                cudnnBackendAttributeType_t attributeType, int64_t elementCount,
                                                const void *arrayOfElements)
{
    const char *fn = "cudnnBackendSetAttribute";
    CHECK_BDESC(descriptor);
    hd_bdesc *d = descriptor;
    const hd_battr_info *info;
    cudnnStatus_t st = check_attr(fn, d, attributeName, attributeType, &info);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    const char *an = hd_battr_name(attributeName);
    /* cuDNN 8 answers INVALID_VALUE for a set after finalize (cuDNN 9: BAD_PARAM) */
    if (d->finalized)
        return HD_FAIL(CUDNN_STATUS_INVALID_VALUE, "the descriptor is finalized; %s can no longer be set", an);
    if (!info->settable)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "%s is computed by cuDNN and cannot be set", an);
    if (elementCount < info->min_count || elementCount > info->max_count)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "%s takes %lld..%lld elements, not %lld", an, (long long)info->min_count,
                       (long long)info->max_count, (long long)elementCount);
    if (elementCount > 0 && !arrayOfElements)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "arrayOfElements is NULL");
    for (int64_t i = 0; i < elementCount; i++) {
        if (attributeType == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
            const hd_bdesc *ref = ((const cudnnBackendDescriptor_t *)arrayOfElements)[i];
            if (!hd_bdesc_is(ref))
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "element %lld of %s is a %s, not a backend descriptor",
                               (long long)i, an, hd_object_kind(ref));
            int ok = info->ref_type < 0 ? hd_bdesc_type_is_operation((int)ref->type) : (int)ref->type == info->ref_type;
            if (!ok)
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "element %lld of %s is a %s; it must be %s", (long long)i, an,
                               hd_bdesc_type_name((int)ref->type),
                               info->ref_type < 0 ? "an operation descriptor" : hd_bdesc_type_name(info->ref_type));
            if (!ref->finalized)
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "element %lld of %s (a %s) is not finalized", (long long)i, an,
                               hd_bdesc_type_name((int)ref->type));
        } else if (hd_btype_size(attributeType) == sizeof(int) && attributeType != CUDNN_TYPE_INT64) {
            int v;
            memcpy(&v, (const char *)arrayOfElements + (size_t)i * sizeof v, sizeof v);
            if (!hd_btype_enum_valid(attributeType, v))
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "element %lld of %s: %d is not a valid %s", (long long)i, an, v,
                               hd_enum_name_cudnnBackendAttributeType_t((int)attributeType));
        } else if (attributeType == CUDNN_TYPE_HANDLE) {
            const void *h = ((const void *const *)arrayOfElements)[i];
            if (!hd_object_is(h, HD_TAG_HANDLE))
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "%s: element %lld is a %s, not a live cudnnHandle_t", an,
                               (long long)i, hd_object_kind(h));
        }
    }
    st = hd_bdesc_store(d, attributeName, attributeType, elementCount, arrayOfElements);
    if (st != CUDNN_STATUS_SUCCESS)
        return HD_FAIL(st, "out of host memory storing %s", an);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnBackendGetAttribute)(cudnnBackendDescriptor_t const descriptor,
                                                cudnnBackendAttributeName_t attributeName,
                                                cudnnBackendAttributeType_t attributeType,
                                                int64_t requestedElementCount, int64_t *elementCount,
                                                void *arrayOfElements)
{
    const char *fn = "cudnnBackendGetAttribute";
    CHECK_BDESC(descriptor);
    const hd_bdesc *d = descriptor;
    const hd_battr_info *info;
    cudnnStatus_t st = check_attr(fn, d, attributeName, attributeType, &info);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    const char *an = hd_battr_name(attributeName);
    if (requestedElementCount < 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "requestedElementCount is negative (%lld)", (long long)requestedElementCount);
    if (!d->finalized)
        return HD_FAIL(CUDNN_STATUS_NOT_INITIALIZED, "the %s is not finalized (cudnnBackendFinalize)",
                       hd_bdesc_type_name((int)d->type));
    if (!elementCount && !arrayOfElements)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "elementCount and arrayOfElements are both NULL");
    const hd_battr *a = hd_bdesc_find(d, attributeName);
    int64_t have = a ? a->count : 0;
    if (!arrayOfElements) {
        *elementCount = have;
        return CUDNN_STATUS_SUCCESS;
    }
    int64_t n = have < requestedElementCount ? have : requestedElementCount;
    if (n > 0 && a->type != attributeType) {
        /* FLOAT/DOUBLE attributes read in either type. */
        for (int64_t i = 0; i < n; i++) {
            double v;
            if (a->type == CUDNN_TYPE_DOUBLE)
                memcpy(&v, (const double *)a->data + i, sizeof v);
            else
                v = ((const float *)a->data)[i];
            if (attributeType == CUDNN_TYPE_DOUBLE)
                memcpy((double *)arrayOfElements + i, &v, sizeof v);
            else
                ((float *)arrayOfElements)[i] = (float)v;
        }
    } else if (n > 0 && attributeType == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
        /* Check every destination before writing any. */
        for (int64_t i = 0; i < n; i++) {
            const hd_bdesc *dst = ((cudnnBackendDescriptor_t *)arrayOfElements)[i];
            const hd_bdesc *src = ((hd_bdesc *const *)a->data)[i];
            if (!hd_bdesc_is(dst) || dst->type != src->type)
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "element %lld for %s must be a %s created by the caller",
                               (long long)i, an, hd_bdesc_type_name((int)src->type));
        }
        for (int64_t i = 0; i < n; i++) {
            st = hd_bdesc_copy_into(((cudnnBackendDescriptor_t *)arrayOfElements)[i], ((hd_bdesc *const *)a->data)[i]);
            if (st != CUDNN_STATUS_SUCCESS)
                return HD_FAIL(st, "could not copy element %lld of %s", (long long)i, an);
        }
    } else if (n > 0) {
        memcpy(arrayOfElements, a->data, (size_t)n * hd_btype_size(attributeType));
    }
    if (elementCount)
        *elementCount = n;
    return CUDNN_STATUS_SUCCESS;
}
