/*
 * compat.h -- the compatibility table (compat.tsv, shipped in share/hostdnn/): which
 * CUDA/cuDNN each TensorFlow and PyTorch release was built with, and the minimum driver
 * for each CUDA release.  Every row keeps its source.
 */
#ifndef HD_DOCTOR_COMPAT_H
#define HD_DOCTOR_COMPAT_H

#include <stddef.h>

typedef struct {
    char *kind, *subject, *os, *cuda, *cudnn, *driver, *source;
} dr_compat_row;

typedef struct {
    dr_compat_row *rows;
    size_t n;
    char path[4096];
    int loaded;
} dr_compat;

/* Load and validate (header, 7 columns, known kinds, non-empty source).  Returns 1 on
 * success; on failure err says which line is wrong. */
int dr_compat_load(dr_compat *c, const char *file, char *err, size_t errcap);
void dr_compat_free(dr_compat *c);

/* Minimum driver release for CUDA "X.Y" on os ("linux"/"windows"): full feature set
 * (the GA row) and minor-version compatibility floor.  Each is "" when unknown. */
void dr_compat_driver_min(const dr_compat *c, const char *cuda, const char *os,
                          char *full, size_t fullcap, char *minor, size_t minorcap);
/* TensorFlow release -> CUDA and cuDNN of its tested build configuration. */
int dr_compat_tf(const dr_compat *c, const char *tf, const char *os, char *cuda, size_t cudacap,
                 char *cudnn, size_t cudnncap, const char **source);
/* PyTorch release (+ its CUDA, may be "") -> the cuDNN of the official binaries. */
int dr_compat_torch(const dr_compat *c, const char *torch, const char *cuda, char *cudnn,
                    size_t cudnncap, const char **source);

#endif
