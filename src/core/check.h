/*
 * core/check.h -- argument checks at the API edge, each logging its reason.
 *
 *   HD_CHECK_DESC(xDesc, HD_TAG_TENSOR);   -> BAD_PARAM "xDesc is NULL" / "xDesc is a filter
 *                                            descriptor, not a tensor descriptor"
 *   HD_CHECK_PTR(y);                        -> BAD_PARAM "y is NULL"
 */
#ifndef HD_CORE_CHECK_H
#define HD_CORE_CHECK_H

#include "core/object.h"

cudnnStatus_t hd_check_obj(const void *obj, uint32_t tag, const char *argname, const char *fn);

#define HD_CHECK_DESC(d, tag) do { cudnnStatus_t st_ = hd_check_obj((d), (tag), #d, __func__); \
    if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

#define HD_CHECK_PTR(p) do { if ((p) == NULL) return hd_fail(CUDNN_STATUS_BAD_PARAM, __func__, "%s is NULL", #p); } while (0)

#endif
