/*
 * shim/shim.h -- libcudnn.so.8: the library most programs link, which owns no code of its own.
 *
 * Each exported function forwards to the sub-library that implements it.  Sub-libraries are
 * loaded on first use (like cuDNN 8), first from the directory libcudnn.so.8 itself was
 * loaded from, then through the normal search path.  A program that also links a
 * sub-library directly gets the same loaded copy, hence one set of library state.
 */
#ifndef HD_SHIM_H
#define HD_SHIM_H

#include "core/api.h"

enum {
    HD_LIB_OPS_INFER,
    HD_LIB_OPS_TRAIN,
    HD_LIB_CNN_INFER,
    HD_LIB_CNN_TRAIN,
    HD_LIB_ADV_INFER,
    HD_LIB_ADV_TRAIN,
    HD_LIB_COUNT
};

/* Address of NAME in sub-library LIB, cached in *SLOT; NULL (logged) when it cannot load. */
void *hd_shim_resolve(int lib, const char *name, void *volatile *slot);

#endif
