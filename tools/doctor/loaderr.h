/*
 * loaderr.h -- NVIDIA's own loader failure, read from what a probed library printed.
 * cuDNN 8's shim loads its sub-libraries on first use; when that fails it prints
 *   Linux:   "Could not load library libcudnn_ops_infer.so.8. Error: libcuda.so.1: cannot
 *             open shared object file: No such file or directory"
 *   Windows: "Could not load library cudnn_cnn_infer64_8.dll. Error code 126"
 * and aborts.  The child probe then dies like a crashing library, but the copy is fine:
 * something it needs is missing, and the text says what.
 */
#ifndef HD_DOCTOR_LOADERR_H
#define HD_DOCTOR_LOADERR_H

#include <stddef.h>

typedef enum {
    DR_LF_OTHER = 0, /* the text names no missing file (undefined symbol, bad ELF, ...) */
    DR_LF_DRIVER,    /* the NVIDIA driver: libcuda.so.1 / libcuda.so / nvcuda.dll */
    DR_LF_SUBLIB,    /* the sub-library itself is not found */
    DR_LF_DEP,       /* the sub-library is there, one of its dependencies is not */
    DR_LF_ZLIB       /* the dependency is zlib (zlibwapi.dll for cuDNN >= 8.3 on Windows) */
} dr_lf_cause;

typedef struct {
    char line[320];    /* NVIDIA's message, as printed (first line) */
    char library[128]; /* the library cuDNN tried to load */
    char error[256];   /* Linux: dlerror() text after "Error: " */
    int code;          /* Windows: the error code (126 not found, 127 no procedure, 193 bad image); 0 */
    char missing[128]; /* the file the loader could not open ("" when not named) */
    dr_lf_cause cause;
} dr_loadfail;

/* 1 when output holds NVIDIA's loader failure; fills lf (cause from the text alone:
 * on Windows, error 126 leaves "missing" empty and the caller finds it). */
int dr_loadfail_parse(const char *output, dr_loadfail *lf);
/* Classify a missing file name against the library that needed it. */
dr_lf_cause dr_loadfail_cause(const char *library, const char *missing);
const char *dr_loadfail_cause_name(dr_lf_cause c);

#endif
