/* core/check.c -- see check.h. */
#include "core/api.h"
#include "core/check.h"

cudnnStatus_t hd_check_obj(const void *obj, uint32_t tag, const char *argname, const char *fn)
{
    if (!obj)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s is NULL", argname);
    if (!hd_object_is(obj, tag))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s is a %s, not a %s", argname, hd_object_kind(obj),
                       hd_tag_name(tag));
    return CUDNN_STATUS_SUCCESS;
}
