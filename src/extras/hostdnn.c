/* libhostdnn: hostdnn's extras (include/hostdnn.h). */
#include "core/api.h"
#include "core/cpu.h"
#include "core/parallel.h"
#include "hostdnn.h"

#define HD_STR2(x) #x
#define HD_STR(x) HD_STR2(x)

HD_EXPORT int hostdnnGetVersion(void)
{
    return HOSTDNN_VERSION_MAJOR * 10000 + HOSTDNN_VERSION_MINOR * 100 + HOSTDNN_VERSION_PATCH;
}

HD_EXPORT const char *hostdnnGetVersionString(void)
{
    return "hostdnn " HD_STR(HOSTDNN_VERSION_MAJOR) "." HD_STR(HOSTDNN_VERSION_MINOR) "." HD_STR(
        HOSTDNN_VERSION_PATCH) " (cuDNN " HD_STR(CUDNN_MAJOR) "." HD_STR(CUDNN_MINOR) "." HD_STR(CUDNN_PATCHLEVEL) " API)";
}

HD_EXPORT const char *hostdnnGetIsa(void) { return hd_isa_name(hd_cpu()->isa); }
HD_EXPORT const char *hostdnnGetHardwareIsa(void) { return hd_isa_name(hd_cpu()->hw_isa); }
HD_EXPORT const char *hostdnnGetCpuName(void) { return hd_cpu()->brand; }
HD_EXPORT int hostdnnGetNumThreads(void) { return hd_default_threads(); }

HD_EXPORT int hostdnnDebugGetConvSolver(const void *dbg, int *solverId, int *direction, int *algo)
{
    const cudnnDebug_t *d = dbg;
    if (!d || d->reserved[0] != HD_DEBUG_TAG_CONV_DISPATCH)
        return 0;
    if (solverId)
        *solverId = d->reserved[1];
    if (direction)
        *direction = d->reserved[2];
    if (algo)
        *algo = d->reserved[3];
    return 1;
}
