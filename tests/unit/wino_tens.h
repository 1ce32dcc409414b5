/*
 * tests/unit/wino_tens.h -- the case tables of the Winograd solver tests
 * (test_conv_winograd4.c, test_conv_wino4_bwdf.c): a 2-d 3x3 problem given by its sizes and
 * padding, made into conv_case.h's problem (tensors NCHW, NHWC or padded, descriptors), so
 * that both tests share that header's tensors, loads and handles.  Define CONV_CASE_SEED
 * before including it to seed the random data.
 */
#ifndef HD_TEST_WINO_TENS_H
#define HD_TEST_WINO_TENS_H

#include "conv_case.h"

/* A 2-d 3x3 problem of the tests' case tables. */
typedef struct {
    const char *name;
    int N, C, K, G, H, W, ph, pw;
} wcase;

/* Problem C with stride STR (both axes) in LAYOUT; FLIP selects CONVOLUTION mode. */
static void wprob_make(prob *P, const wcase *c, int layout, int flip, int str)
{
    conv_case cc = {c->name, 2, c->N, c->C, c->K, c->G, {1, c->H, c->W}, {1, 3, 3}, {0, c->ph, c->pw},
                    {1, str, str}, {1, 1, 1}};
    prob_make(P, &cc, layout, flip);
}

#endif
