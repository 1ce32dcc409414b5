/*
 * core/api.h -- what every hostdnn source file includes first.
 *
 * Brings in the public cuDNN headers with default visibility (everything else in the
 * libraries is compiled -fvisibility=hidden, and the version scripts export only the
 * cuDNN functions), plus the internal helpers used at the API edge: logging, failure
 * reporting and the HD_IMPL naming rule that tools/gen/gen_api.py scans for.
 */
#ifndef HD_CORE_API_H
#define HD_CORE_API_H

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif
#include "cudnn.h"
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define HD_EXPORT __attribute__((visibility("default")))
#define HD_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define HD_EXPORT
#define HD_PRINTF(a, b)
#endif

/* The implementation of public function NAME.  The generated exported wrapper logs the call
 * and forwards here; a function with no HD_IMPL definition gets a NOT_SUPPORTED stub. */
#define HD_IMPL(name) hd_impl_##name

#include "core/log.h"
#include "enum_names.h"

#endif /* HD_CORE_API_H */
