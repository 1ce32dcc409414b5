/* tests/unit/ops_common.h -- helpers shared by the test_ops_* programs (header only). */
#ifndef HD_TEST_OPS_COMMON_H
#define HD_TEST_OPS_COMMON_H

#define _POSIX_C_SOURCE 200809L

#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "ref/ops_tt.h"
#include "ref/ops_ref.h"

static const cudnnDataType_t OPS_FP[4] = { CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16 };
/* Set in ISA child runs: loops over types stop after FLOAT (OPS_FP[0]). */
static int ops_float_only __attribute__((unused));
#define OPS_NTYPES (ops_float_only ? 1 : 4)

static const double OPS_AB[3][2] = { { 1.0, 0.0 }, { 0.5, 0.25 }, { -2.0, 1.0 } };

/* A host scaling factor of the kind cuDNN reads for data type DT. */
typedef union { float f; double d; } ops_scale;
static inline const void *ops_sc(ops_scale *s, cudnnDataType_t dt, double v)
{
    if (dt == CUDNN_DATA_DOUBLE)
        s->d = v;
    else
        s->f = (float)v;
    return s;
}

static inline cudnnHandle_t ops_handle(int threads)
{
    char b[16];
    snprintf(b, sizeof b, "%d", threads);
    setenv("HOSTDNN_NUM_THREADS", b, 1);
    cudnnHandle_t h = NULL;
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS) {
        fprintf(stderr, "cudnnCreate failed\n");
        exit(1);
    }
    return h;
}

/* Run this program again with HOSTDNN_MAX_ISA=ISA and OPS_CHILD=1; DUMP names a file the
 * child writes its bitwise-compared outputs to.  Returns the child's exit status. */
static inline int ops_run_child(const char *isa, const char *dump)
{
#ifdef _WIN32
    /* No shell to set the variables for one command: set them, run, and take them back. */
    char self[4096];
    DWORD n = GetModuleFileNameA(NULL, self, sizeof self);
    if (n == 0 || n >= sizeof self)
        return -1;
    _putenv_s("HOSTDNN_MAX_ISA", isa);
    _putenv_s("OPS_CHILD", "1");
    _putenv_s("OPS_DUMP", dump);
    fflush(NULL);
    intptr_t rc = _spawnl(_P_WAIT, self, self, "child", (const char *)NULL);
    _putenv_s("HOSTDNN_MAX_ISA", "");
    _putenv_s("OPS_CHILD", "");
    _putenv_s("OPS_DUMP", "");
    return (int)rc;
#else
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = 0;
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "HOSTDNN_MAX_ISA=%s OPS_CHILD=1 OPS_DUMP='%s' '%s' > /dev/null", isa, dump, self);
    return system(cmd);
#endif
}

/* Whole-file comparison of two dumps. */
static inline int ops_same_files(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb)
            same = 0;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

#endif
