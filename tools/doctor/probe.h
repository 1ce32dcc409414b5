/*
 * probe.h -- load a library in a throw-away child process and ask it for its version.
 * A library that crashes, hangs or aborts in its constructor or in the call only takes
 * the child down; the parent reports what happened, with what the library printed.
 */
#ifndef HD_DOCTOR_PROBE_H
#define HD_DOCTOR_PROBE_H

#include "loaderr.h"
#include "util.h"

typedef enum {
    DR_PROBE_NOT_RUN = 0,
    DR_PROBE_OK,          /* loaded and every asked function answered */
    DR_PROBE_LOAD_FAILED, /* dlopen failed: err holds dlerror() */
    DR_PROBE_NO_SYMBOL,   /* loaded, but the version function is not exported */
    DR_PROBE_CRASHED,     /* the child died from a signal (sig) */
    DR_PROBE_TIMEOUT,     /* the child did not answer in time and was killed */
    DR_PROBE_ERROR,       /* fork/pipe failed, or the child exited without answering */
    DR_PROBE_LOADER_FAILED /* no answer, and the library printed NVIDIA's "Could not load library" (lf) */
} dr_probe_status;

typedef enum {
    DR_PROBE_CUDNN,   /* size_t cudnnGetVersion(void), size_t cudnnGetCudartVersion(void) */
    DR_PROBE_DRIVER,  /* int cuDriverGetVersion(int *) */
    DR_PROBE_CUDART,  /* int cudaRuntimeGetVersion(int *) */
    DR_PROBE_LOADONLY /* only dlopen */
} dr_probe_kind;

typedef struct {
    dr_probe_status status;
    long long value;        /* cudnnGetVersion / cuDriverGetVersion / cudaRuntimeGetVersion */
    long long value2;       /* cudnnGetCudartVersion, -1 when not exported */
    int call_status;        /* the int the driver/runtime call returned */
    int sig;
    char loaded_from[HD_PATH_MAX]; /* the file the child's loader actually mapped */
    char err[512];
    char output[1024];      /* what the child printed (stdout and stderr, the first KiB) */
    int has_lf;             /* output holds NVIDIA's loader failure, parsed into lf */
    dr_loadfail lf;
} dr_probe;

/* target: a path (contains '/') or a bare name resolved by the child's own loader.
 * timeout_ms bounds the whole child. */
void dr_probe_run(const char *target, dr_probe_kind kind, int timeout_ms, dr_probe *out);
/* The same, after loading npreload libraries (RTLD_GLOBAL, in order) in the child: how
 * cuDNN's shim brings its sub-libraries in, so their DT_NEEDED siblings are found by
 * SONAME among the loaded objects.  A preload that fails is ignored. */
void dr_probe_run_after(const char *const *preload, int npreload, const char *target, dr_probe_kind kind,
                        int timeout_ms, dr_probe *out);
const char *dr_probe_status_name(dr_probe_status s);

#ifdef _WIN32
/* Windows: the child is the doctor itself, started as "cudnn-doctor --probe-dll KIND DLL"
 * (KIND: cudnn, driver, cudart, load); main() hands that over to this function, which
 * loads the DLL, asks it, prints the answer between marker lines and returns the exit
 * status.  Preloads are not needed there: a DLL's own imports are resolved by the loader. */
int dr_probe_child_main(const char *kind, const char *dll);
/* A readable name for a process exit code that is an exception (0xC0000005 ...), or NULL. */
const char *dr_win_exception_name(unsigned long code);
#endif

#endif
