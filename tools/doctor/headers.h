/* headers.h -- find the cuDNN header that goes with a library and read its version macros. */
#ifndef HD_DOCTOR_HEADERS_H
#define HD_DOCTOR_HEADERS_H

#include <stddef.h>

/* Read CUDNN_MAJOR/MINOR/PATCHLEVEL from a header file; returns 1 when MAJOR was found. */
int dr_header_version(const char *file, int v[3]);

/* Look for cudnn_version.h (or its _v8/_v9 alternatives, or cudnn.h for v7) in dir;
 * on success fills file and v and returns 1. */
int dr_header_in_dir(const char *dir, char *file, size_t cap, int v[3]);

#endif
