/*
 * tests/ref/attn_ref.h -- float64 reference for multi-head attention forward (cuDNN's
 * equations), plain loops, independent of src/.
 */
#ifndef HD_TEST_ATTN_REF_H
#define HD_TEST_ATTN_REF_H

typedef struct {
    int heads;
    double scaler;
    int qsize, ksize, vsize;
    int qproj, kproj, vproj, oproj;   /* 0 = no projection */
    /* per-head matrices [head][rows][cols] (NULL when the projection is off) and biases
     * [head][rows] (NULL = zero); the output bias is one vector [oproj]. */
    const double *wq, *wk, *wv, *wo;
    const double *bq, *bk, *bv, *bo;
} attn_ref_cfg;

/* One query vector q against keys k[j] / values v[j], j in [lo, hi); writes out (size
 * oproj, or heads * dv without an output projection). */
void attn_ref_query(const attn_ref_cfg *c, const double *q, const double *k, const double *v, int lo, int hi,
                    double *out);

#endif
