/* shim/shim.c -- loading sub-libraries and resolving their functions (see shim.h). */
#define _GNU_SOURCE
#include "shim/shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifdef _WIN32   /* dlopen here is core/win32/include/dlfcn.h's, over LoadLibraryEx */
static const char *const sonames[HD_LIB_COUNT] = {
    "cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll", "cudnn_cnn_infer64_8.dll",
    "cudnn_cnn_train64_8.dll", "cudnn_adv_infer64_8.dll", "cudnn_adv_train64_8.dll",
};
#else
static const char *const sonames[HD_LIB_COUNT] = {
    "libcudnn_ops_infer.so.8", "libcudnn_ops_train.so.8", "libcudnn_cnn_infer.so.8",
    "libcudnn_cnn_train.so.8", "libcudnn_adv_infer.so.8", "libcudnn_adv_train.so.8",
};
#endif

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static void *handles[HD_LIB_COUNT];
static int failed[HD_LIB_COUNT];

static void *open_lib(int lib)
{
    char path[4096];
    Dl_info self;
    void *h = NULL;
    /* Prefer the copy next to this libcudnn.so.8, so a hostdnn install is self-consistent
     * even when another cuDNN is on the search path. */
    if (dladdr((void *)&hd_shim_resolve, &self) && self.dli_fname) {
        const char *slash = strrchr(self.dli_fname, '/');
        if (slash && (size_t)(slash - self.dli_fname) + strlen(sonames[lib]) + 2 < sizeof path) {
            int n = (int)(slash - self.dli_fname);
            snprintf(path, sizeof path, "%.*s/%s", n, self.dli_fname, sonames[lib]);
            h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
    }
    if (!h)
        h = dlopen(sonames[lib], RTLD_NOW | RTLD_LOCAL);
    return h;
}

void *hd_shim_resolve(int lib, const char *name, void *volatile *slot)
{
    void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (fn)
        return fn;
    pthread_mutex_lock(&load_lock);
    if (!handles[lib] && !failed[lib]) {
        handles[lib] = open_lib(lib);
        if (!handles[lib]) {
            failed[lib] = 1;
            /* The message cuDNN users know, so that searches for it find the fix. */
#ifdef _WIN32
            unsigned long code = (unsigned long)GetLastError();
            fprintf(stderr, "Could not load library %s. Error code %lu\nPlease make sure %s is in your library path!\n",
                    sonames[lib], code, sonames[lib]);
#else
            fprintf(stderr, "Could not load library %s. Error: %s\n", sonames[lib], dlerror());
#endif
        }
    }
    void *h = handles[lib];
    pthread_mutex_unlock(&load_lock);
    if (!h)
        return NULL;
    fn = dlsym(h, name);
    if (fn)
        __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    return fn;
}
