/* version.c -- the version integers cuDNN and CUDA hand out, turned into dotted strings. */
#include "doctor.h"

#include <stdio.h>

void dr_cudnn_decode(long long v, int out[3])
{
    /* cuDNN 9 switched from major*1000 to major*10000; 9.0.0 is 90000 and no 7/8 value
     * comes near it, so the size of the number says which scheme it uses. */
    if (v < 0)
        v = 0;
    if (v >= 90000) {
        out[0] = (int)(v / 10000);
        out[1] = (int)(v / 100 % 100);
        out[2] = (int)(v % 100);
    } else {
        out[0] = (int)(v / 1000);
        out[1] = (int)(v / 100 % 10);
        out[2] = (int)(v % 100);
    }
}

void dr_cuda_decode(long long v, char *out, size_t cap)
{
    if (v <= 0) {
        snprintf(out, cap, "?");
        return;
    }
    snprintf(out, cap, "%lld.%lld", v / 1000, v % 1000 / 10);
}
