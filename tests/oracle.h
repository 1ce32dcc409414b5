/*
 * tests/oracle.h -- NVIDIA's cuDNN 9 as a differential oracle for descriptor calls.
 *
 * cuDNN 9 (when installed, e.g. /usr/local/cuda/lib64/libcudnn.so.9) runs descriptor calls
 * without a GPU.  We load it privately (RTLD_LOCAL) beside our own library and feed both the
 * same arguments.  cuDNN 9 renumbered cudnnStatus_t, so results are compared by *name*
 * (each library's own cudnnGetErrorString).  Skipped under the sanitizers (the vendor
 * library is not instrumented) and when the library is absent.
 *
 * HD_ORACLE_LIB=path selects another oracle, e.g. the libcudnn.so.8 of NVIDIA's cuDNN 8 wheel
 * (tests/scripts/oracle_cudnn8.sh).  A cuDNN 8 has our libraries' sonames, so it is loaded in
 * a link-map namespace of its own (dlmopen): its libcudnn.so.8 then finds its own
 * sub-libraries, and ours keep finding ours.
 *
 * Usage:  ORACLE_FN(cudnnSetTensor4dDescriptor) gives `v9_cudnnSetTensor4dDescriptor`, a
 *         pointer of our prototype's type into the vendor library.
 */
#ifndef HD_TEST_ORACLE_H
#define HD_TEST_ORACLE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* dlmopen */
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *oracle_lib;
static const char *(*oracle_errstr)(int);
/* Why oracle_open() failed, for the test's SKIP line. */
static const char *oracle_skip_reason __attribute__((unused)) = "";

static inline int oracle_open(void)
{
    const char *mode = getenv("HD_MODE");
    if (mode && strstr(mode, "sanitized")) {
        oracle_skip_reason = "not loaded under the sanitizers (the vendor library is not instrumented)";
        return 0;
    }
    const char *paths[] = {getenv("HD_ORACLE_LIB"), "/usr/local/cuda/lib64/libcudnn.so.9", "libcudnn.so.9"};
#ifdef LM_ID_NEWLM   /* glibc; elsewhere (the Windows test build) there is no cuDNN 8 oracle */
    if (paths[0]) {
        oracle_lib = dlmopen(LM_ID_NEWLM, paths[0], RTLD_NOW | RTLD_LOCAL);
        /* Its sub-libraries, by full path into the same namespace, before it asks for them
         * by soname: LD_LIBRARY_PATH must not name their folder, or our own libcudnn.so.8
         * would load NVIDIA's sub-libraries as ours. */
        Lmid_t ns;
        const char *slash = strrchr(paths[0], '/');
        if (oracle_lib && slash && dlinfo(oracle_lib, RTLD_DI_LMID, &ns) == 0) {
            static const char *const subs[] = {"libcudnn_ops_infer.so.8", "libcudnn_ops_train.so.8",
                                               "libcudnn_cnn_infer.so.8", "libcudnn_cnn_train.so.8",
                                               "libcudnn_adv_infer.so.8", "libcudnn_adv_train.so.8"};
            for (unsigned i = 0; i < sizeof subs / sizeof *subs; i++) {
                char full[4096];
                int n = snprintf(full, sizeof full, "%.*s/%s", (int)(slash - paths[0]), paths[0], subs[i]);
                if (n > 0 && (size_t)n < sizeof full)
                    (void)dlmopen(ns, full, RTLD_NOW | RTLD_LOCAL);
            }
        }
    }
#endif
    for (unsigned i = 1; i < sizeof paths / sizeof *paths && !oracle_lib; i++)
        oracle_lib = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
    if (!oracle_lib) {
        oracle_skip_reason = "neither HD_ORACLE_LIB nor NVIDIA libcudnn.so.9 could be loaded";
        return 0;
    }
    *(void **)&oracle_errstr = dlsym(oracle_lib, "cudnnGetErrorString");
    if (!oracle_errstr)
        oracle_skip_reason = "the oracle library has no cudnnGetErrorString";
    return oracle_errstr != NULL;
}

#define ORACLE_FN(name) __typeof__(&name) v9_##name = (__typeof__(&name))dlsym(oracle_lib, #name)

static inline const char *oracle_status(int s) { return oracle_errstr(s); }

/* Major version of the oracle (8 or 9): a few answers differ between the two releases. */
static inline int oracle_major(void)
{
    size_t (*ver)(void);
    *(void **)&ver = dlsym(oracle_lib, "cudnnGetVersion");
    size_t v = ver ? ver() : 0;
    return v >= 90000 ? (int)(v / 10000) : (int)(v / 1000);
}

#endif
