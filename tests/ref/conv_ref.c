/* Float64 reference convolution (tests/ref/conv_ref.h): one loop nest, the three
 * directions derived from the same "visit every (output, tap) pair" walk. */
#include "ref/conv_ref.h"

#include <string.h>

void conv_ref_out_dims(conv_ref_shape *s)
{
    for (int i = 0; i < 3; i++)
        s->out[i] = (s->in[i] + 2 * s->pad[i] - ((s->flt[i] - 1) * s->dil[i] + 1)) / s->str[i] + 1;
}

long conv_ref_x_elems(const conv_ref_shape *s) { return (long)s->N * s->C * s->in[0] * s->in[1] * s->in[2]; }
long conv_ref_w_elems(const conv_ref_shape *s) { return (long)s->K * (s->C / s->G) * s->flt[0] * s->flt[1] * s->flt[2]; }
long conv_ref_y_elems(const conv_ref_shape *s) { return (long)s->N * s->K * s->out[0] * s->out[1] * s->out[2]; }

enum { FWD, BWD_DATA, BWD_FILTER };

/* For every output element and filter tap that lands inside the input, combine. */
static void walk(const conv_ref_shape *s, int dir, const double *a, const double *b, double *o)
{
    int cg = s->C / s->G, kg = s->K / s->G;
    for (int n = 0; n < s->N; n++)
        for (int k = 0; k < s->K; k++) {
            int g = k / kg;
            for (int od = 0; od < s->out[0]; od++)
                for (int oh = 0; oh < s->out[1]; oh++)
                    for (int ow = 0; ow < s->out[2]; ow++) {
                        long yi = ((((long)n * s->K + k) * s->out[0] + od) * s->out[1] + oh) * s->out[2] + ow;
                        double acc = 0;
                        for (int c = 0; c < cg; c++)
                            for (int t = 0; t < s->flt[0]; t++)
                                for (int r = 0; r < s->flt[1]; r++)
                                    for (int q = 0; q < s->flt[2]; q++) {
                                        int id = od * s->str[0] - s->pad[0] + t * s->dil[0];
                                        int ih = oh * s->str[1] - s->pad[1] + r * s->dil[1];
                                        int iw = ow * s->str[2] - s->pad[2] + q * s->dil[2];
                                        if (id < 0 || id >= s->in[0] || ih < 0 || ih >= s->in[1] || iw < 0 ||
                                            iw >= s->in[2])
                                            continue;
                                        int ft = s->flip ? s->flt[0] - 1 - t : t;
                                        int fr = s->flip ? s->flt[1] - 1 - r : r;
                                        int fq = s->flip ? s->flt[2] - 1 - q : q;
                                        long wi = ((((long)k * cg + c) * s->flt[0] + ft) * s->flt[1] + fr) * s->flt[2] + fq;
                                        long xi = ((((long)n * s->C + g * cg + c) * s->in[0] + id) * s->in[1] + ih) *
                                                      s->in[2] + iw;
                                        if (dir == FWD)
                                            acc += a[xi] * b[wi];
                                        else if (dir == BWD_DATA)
                                            o[xi] += a[yi] * b[wi];
                                        else
                                            o[wi] += a[xi] * b[yi];
                                    }
                        if (dir == FWD)
                            o[yi] = acc;
                    }
        }
}

void conv_ref_fwd(const conv_ref_shape *s, const double *x, const double *w, double *y) { walk(s, FWD, x, w, y); }

void conv_ref_bwd_data(const conv_ref_shape *s, const double *dy, const double *w, double *dx)
{
    memset(dx, 0, (size_t)conv_ref_x_elems(s) * sizeof(double));
    walk(s, BWD_DATA, dy, w, dx);
}

void conv_ref_bwd_filter(const conv_ref_shape *s, const double *x, const double *dy, double *dw)
{
    memset(dw, 0, (size_t)conv_ref_w_elems(s) * sizeof(double));
    walk(s, BWD_FILTER, x, dy, dw);
}
