/*
 * norm/bn_layout.c -- the batch-normalization engine's view of memory (bn_internal.h):
 * the problem's shape, which layouts run the row and column kernels, row access in double,
 * the chunking of the reductions and the scratch each call needs.
 */
#include "norm/bn_internal.h"
#include "kernels/eltwise/eltwise-ukernels.h"

#include <math.h>
#include <string.h>

void hd_bn_problem_init(hd_bn_problem *pb, const struct cudnnTensorStruct *xDesc, int per_act, int nthreads, int isa)
{
    memset(pb, 0, sizeof *pb);
    pb->per_act = per_act;
    pb->N = xDesc->dims[0];
    pb->C = xDesc->dims[1];
    pb->S = 1;
    for (int i = 2; i < xDesc->nbDims; i++)
        pb->S *= xDesc->dims[i];
    pb->F = per_act ? pb->C * pb->S : pb->C;
    pb->nthreads = nthreads < 1 ? 1 : nthreads;
    pb->isa = isa;
}

int hd_bn_row_packed(const hd_view *v)
{
    if (v->vect != 1)
        return 0;
    int64_t want = 1;
    for (int d = 4; d >= 2; d--) {
        if (v->dims[d] > 1 && v->strides[d] != want)
            return 0;
        want *= v->dims[d];
    }
    return 1;
}

int hd_bn_row_contig(const hd_view *v) { return v->dtype == CUDNN_DATA_FLOAT && hd_bn_row_packed(v); }
/* HALF and BFLOAT16 rows: converted to float rows, then the FLOAT kernels. */
int hd_bn_row_half(const hd_view *v)
{
    return (v->dtype == CUDNN_DATA_HALF || v->dtype == CUDNN_DATA_BFLOAT16) && hd_bn_row_packed(v);
}

/* Channels contiguous and the spatial dims packed around them (NHWC-like): each sample is a
 * matrix of S pixels x C channels.  FLOAT runs the column kernels directly; HALF and
 * BFLOAT16 convert blocks of HD_BN_BLK pixels to float first. */
int hd_bn_nhwc_packed(const hd_view *v)
{
    if (v->vect != 1 || v->dims[1] < 2 || v->strides[1] != 1)
        return 0;
    int64_t want = v->dims[1];
    for (int d = 4; d >= 2; d--) {
        if (v->dims[d] > 1 && v->strides[d] != want)
            return 0;
        want *= v->dims[d];
    }
    return 1;
}

int hd_bn_nhwc_contig(const hd_view *v)
{
    return (v->dtype == CUDNN_DATA_FLOAT || v->dtype == CUDNN_DATA_HALF || v->dtype == CUDNN_DATA_BFLOAT16) &&
           hd_bn_nhwc_packed(v);
}

/* Rows in and out of double buffers, with the type switch hoisted out of the loops. */
#define ROW_LOOP(BODY) \
    for (int i2 = 0; i2 < v->dims[2]; i2++) \
        for (int i3 = 0; i3 < v->dims[3]; i3++) { \
            int64_t o = base + i2 * v->strides[2] + i3 * v->strides[3]; \
            for (int i4 = 0; i4 < v->dims[4]; i4++, o += v->strides[4], k++) { BODY; } \
        }

void hd_bn_load_row(const hd_view *v, const void *p, int n, int c, double *buf)
{
    int64_t base = hd_view_nc(v, n, c);
    int k = 0;
    switch (v->dtype) {
    case CUDNN_DATA_FLOAT: { const float *q = p; ROW_LOOP(buf[k] = q[o]) break; }
    case CUDNN_DATA_DOUBLE: { const double *q = p; ROW_LOOP(buf[k] = q[o]) break; }
    case CUDNN_DATA_HALF: { const uint16_t *q = p; ROW_LOOP(buf[k] = hd_f16_to_f32(q[o])) break; }
    case CUDNN_DATA_BFLOAT16: { const uint16_t *q = p; ROW_LOOP(buf[k] = hd_bf16_to_f32(q[o])) break; }
    default: ROW_LOOP(buf[k] = hd_ld(v->dtype, p, o)) break;
    }
}

void hd_bn_store_row(const hd_view *v, void *p, int n, int c, const double *buf, double alpha, double beta)
{
    int64_t base = hd_view_nc(v, n, c);
    int k = 0;
    if (beta != 0.0) {
        ROW_LOOP(hd_st_blend(v->dtype, p, o, buf[k], alpha, beta))
        return;
    }
    switch (v->dtype) {
    case CUDNN_DATA_FLOAT: { float *q = p; ROW_LOOP(q[o] = (float)(alpha * buf[k])) break; }
    case CUDNN_DATA_DOUBLE: { double *q = p; ROW_LOOP(q[o] = alpha * buf[k]) break; }
    case CUDNN_DATA_HALF: { uint16_t *q = p; ROW_LOOP(q[o] = hd_f32_to_f16((float)(alpha * buf[k]))) break; }
    case CUDNN_DATA_BFLOAT16: { uint16_t *q = p; ROW_LOOP(q[o] = hd_f32_to_bf16((float)(alpha * buf[k]))) break; }
    default: ROW_LOOP(hd_st(v->dtype, p, o, alpha * buf[k])) break;
    }
}

int hd_bn_chunk_rows(const hd_bn_problem *pb)
{
    int r = HD_BN_CHUNK / (pb->S > 0 ? pb->S : 1);
    return r < 1 ? 1 : r;
}

int hd_bn_n_chunks(const hd_bn_problem *pb)
{
    int r = hd_bn_chunk_rows(pb);
    return (pb->N + r - 1) / r;
}

/* Channel-contiguous layouts are cut into chunks of about HD_BN_CHUNK values too, counted
 * in pixels (C values each) over the N*S pixels; at least 256 pixels, so that the partial
 * results (3 doubles per channel and chunk) stay small next to the tensor for wide C. */
int64_t hd_bn_pix_per_chunk(const hd_bn_problem *pb)
{
    int64_t r = HD_BN_CHUNK / (pb->C > 0 ? pb->C : 1);
    return r < 256 ? 256 : r;
}

int hd_bn_pix_chunks(const hd_bn_problem *pb)
{
    int64_t p = hd_bn_pix_per_chunk(pb);
    return (int)(((int64_t)pb->N * pb->S + p - 1) / p);
}


size_t hd_bn_scratch_bytes(const hd_bn_problem *pb)
{
    size_t rows = (size_t)pb->nthreads * hd_bn_per_thread(pb);
    int nch = hd_bn_n_chunks(pb) > hd_bn_pix_chunks(pb) ? hd_bn_n_chunks(pb) : hd_bn_pix_chunks(pb);
    size_t parts = (size_t)pb->C * (size_t)nch * 5;   /* 3 per chunk; 5 for hd_bn_stats_bwd_sums */
    return (rows + parts) * sizeof(double) + 64;
}


void hd_bn_eng_init(hd_bn_eng *e, const hd_bn_problem *pb, void *scratch)
{
    memset(e, 0, sizeof *e);
    e->pb = pb;
    e->k = hd_bn_f32_select(pb->isa);
    e->rows = scratch;
    e->parts = e->rows + (size_t)pb->nthreads * hd_bn_per_thread(pb);
    e->nch = hd_bn_n_chunks(pb);
    e->rows_per = hd_bn_chunk_rows(pb);
}


/* Calls FN on the runs of chunk CH (pixel range) that are contiguous in memory: a run stays
 * inside one sample.  ARG is passed through. */
void hd_bn_for_runs(hd_bn_eng *e, int ch, hd_bn_run_fn fn, void *arg)
{
    const hd_bn_problem *pb = e->pb;
    int64_t P = hd_bn_pix_per_chunk(pb), p0 = (int64_t)ch * P, p1 = p0 + P, tot = (int64_t)pb->N * pb->S;
    if (p1 > tot)
        p1 = tot;
    while (p0 < p1) {
        int64_t n = p0 / pb->S, s = p0 % pb->S, len = pb->S - s < p1 - p0 ? pb->S - s : p1 - p0;
        fn(e, n, s, len, arg);
        p0 += len;
    }
}

double hd_bn_chan_shift(const hd_bn_problem *pb, int c)
{
    double k = hd_ld(pb->x.dtype, pb->xp, hd_view_nc(&pb->x, 0, c));
    return isfinite(k) ? k : 0.0;
}

float hd_bn_shift_f32(const hd_bn_eng *e, size_t f, double coef, double add, float *addf)
{
    double m = e->shift ? e->shift[f] : 0.0;
    float mf = (float)m;
    if (!isfinite(mf))
        mf = 0.0f;
    *addf = (float)(e->alpha * (add + coef * ((double)mf - m)));
    return mf;
}

double hd_bn_touched_bytes(const hd_bn_problem *pb, int tensors)
{
    return (double)tensors * pb->N * (double)pb->C * pb->S * sizeof(float);
}
