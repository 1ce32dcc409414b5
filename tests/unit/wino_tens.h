/*
 * tests/unit/wino_tens.h -- the strided FLOAT tensors of the Winograd solver tests
 * (test_conv_winograd4.c, test_conv_wino4_bwdf.c): NCHW, NHWC or NCHW with a gap after every
 * row, channel and image, loaded from a packed logical double array.
 */
#ifndef HD_TEST_WINO_TENS_H
#define HD_TEST_WINO_TENS_H

#include <stdlib.h>
#include <string.h>

enum { L_NCHW, L_NHWC, L_PADDED, L_COUNT };

typedef struct {
    int dims[4], strides[4];
    long span;
    float *mem;
} tens;

static void tens_init(tens *t, const int *dims, int layout)
{
    memcpy(t->dims, dims, sizeof t->dims);
    int *s = t->strides;
    if (layout == L_NHWC) {
        s[1] = 1, s[3] = dims[1], s[2] = dims[1] * dims[3], s[0] = dims[1] * dims[3] * dims[2];
    } else {
        int pad = layout == L_PADDED;
        s[3] = 1, s[2] = dims[3] + pad, s[1] = s[2] * dims[2] + pad, s[0] = s[1] * dims[1] + pad;
    }
    t->span = 1;
    for (int i = 0; i < 4; i++)
        t->span += (long)(dims[i] - 1) * s[i];
    t->mem = malloc((size_t)t->span * sizeof(float));
}

static long tens_off(const tens *t, long li)
{
    long off = 0;
    for (int i = 3; i >= 0; i--) {
        off += (li % t->dims[i]) * t->strides[i];
        li /= t->dims[i];
    }
    return off;
}

static long tens_elems(const tens *t) { return (long)t->dims[0] * t->dims[1] * t->dims[2] * t->dims[3]; }

static void tens_load(tens *t, const double *l, float fill)
{
    for (long i = 0; i < t->span; i++)
        t->mem[i] = fill;
    for (long i = 0; i < tens_elems(t); i++)
        t->mem[tens_off(t, i)] = (float)l[i];
}

#endif
