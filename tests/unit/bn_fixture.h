/*
 * The batch-normalization test fixtures shared by test_batchnorm.c and
 * test_batchnorm_edge.c: parameter tensors of the derived shape and a small float NCHW
 * problem with every buffer the BN calls take.  Include after harness.h.
 */
#ifndef HD_TEST_BN_FIXTURE_H
#define HD_TEST_BN_FIXTURE_H

#include "unit/np_util.h"

/* A parameter tensor of the derived shape for MODE, in FLOAT/DOUBLE; padded strides when ODD. */
static inline void make_param(tens *P, const tens *X, int per_act, int odd)
{
    int dims[5];
    for (int i = 0; i < X->nb; i++)
        dims[i] = i == 0 ? 1 : i == 1 ? X->dims[1] : per_act ? X->dims[i] : 1;
    tens_make(P, X->t == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT, X->nb, dims, odd ? L_PADDED : L_NCHW);
}

/* Fixture for the Ex / Normalization* / bad-input checks: float NCHW 2x3x4x5, spatial. */
typedef struct {
    tens X, Y, Y2, DY, DX, DX2, P, B, RM, RV, SM, SI, DS, DB, DS2, DB2;
} fixture;

static inline void fix_make(fixture *f, cudnnDataType_t t, int per_act)
{
    int d[4] = {2, 3, 4, 5};
    tens_make(&f->X, t, 4, d, L_NCHW);
    tens_make(&f->Y, t, 4, d, L_NCHW);
    tens_make(&f->Y2, t, 4, d, L_NCHW);
    tens_make(&f->DY, t, 4, d, L_NCHW);
    tens_make(&f->DX, t, 4, d, L_NCHW);
    tens_make(&f->DX2, t, 4, d, L_NCHW);
    tens *ps[] = {&f->P, &f->B, &f->RM, &f->RV, &f->SM, &f->SI, &f->DS, &f->DB, &f->DS2, &f->DB2};
    for (int i = 0; i < 10; i++)
        make_param(ps[i], &f->X, per_act, 0);
    double v[120];
    np_fill(v, 120, t);
    tens_put(&f->X, v);
    np_fill(v, 120, t);
    tens_put(&f->DY, v);
    for (int i = 0; i < 60; i++)
        v[i] = 1 + fabs(np_rand());
    tens_put(&f->P, v);
    tens_put(&f->B, v);
    tens_put(&f->RM, v);
    tens_put(&f->RV, v);
}

static inline void fix_free(fixture *f)
{
    tens *all[] = {&f->X, &f->Y, &f->Y2, &f->DY, &f->DX, &f->DX2, &f->P, &f->B, &f->RM, &f->RV,
                   &f->SM, &f->SI, &f->DS, &f->DB, &f->DS2, &f->DB2};
    for (int i = 0; i < 16; i++)
        tens_free(all[i]);
}

#endif
