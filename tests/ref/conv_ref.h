/*
 * tests/ref/conv_ref.h -- float64 reference convolution for the tests, written from the
 * definition and independent of src/.
 *
 * Arrays are packed in logical order: x[N][C][D][H][W], w[K][C/G][T][R][S] (as stored:
 * the reference applies the flip of CONVOLUTION mode itself), y[N][K][OD][OH][OW].  2-d
 * problems use D = T = OD = 1.
 */
#ifndef HD_TEST_CONV_REF_H
#define HD_TEST_CONV_REF_H

typedef struct {
    int N, C, K, G;
    int in[3], flt[3], out[3];
    int pad[3], str[3], dil[3];
    int flip;                     /* 1: CUDNN_CONVOLUTION, 0: CROSS_CORRELATION */
} conv_ref_shape;

/* Output spatial sizes from the rest. */
void conv_ref_out_dims(conv_ref_shape *s);

long conv_ref_x_elems(const conv_ref_shape *s);
long conv_ref_w_elems(const conv_ref_shape *s);
long conv_ref_y_elems(const conv_ref_shape *s);

void conv_ref_fwd(const conv_ref_shape *s, const double *x, const double *w, double *y);
void conv_ref_bwd_data(const conv_ref_shape *s, const double *dy, const double *w, double *dx);
void conv_ref_bwd_filter(const conv_ref_shape *s, const double *x, const double *dy, double *dw);

#endif
