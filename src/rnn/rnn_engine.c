/*
 * The RNN engine's entry points (rnn_engine.h): the kernel of the data type, and HALF data
 * computed in float on converted copies (the copies are made per call and freed after it).
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/api.h"
#include "core/convert.h"
#include "rnn/rnn_engine.h"

/* Float copy of N halves (NULL source gives NULL); *FAIL is set when out of memory. */
static float *h2f_copy(const void *src, size_t n, int *fail)
{
    if (!src)
        return NULL;
    float *f = malloc((n ? n : 1) * sizeof *f);
    if (!f) {
        *fail = 1;
        return NULL;
    }
    const uint16_t *h = src;
    for (size_t i = 0; i < n; i++)
        f[i] = hd_f16_to_f32(h[i]);
    return f;
}

static void f2h_store(const float *src, void *dst, size_t n)
{
    if (!src || !dst)
        return;
    uint16_t *h = dst;
    for (size_t i = 0; i < n; i++)
        h[i] = hd_f32_to_f16(src[i]);
}

/* The float twin of a HALF RNN descriptor, for the f32 kernels. */
static struct cudnnRNNStruct float_view(const struct cudnnRNNStruct *r)
{
    struct cudnnRNNStruct f = *r;
    f.dtype = CUDNN_DATA_FLOAT;
    f.math_prec = CUDNN_DATA_FLOAT;
    return f;
}

/* Elements of the hidden and cell state tensors. */
static size_t state_elems(const struct cudnnRNNStruct *r, const struct cudnnRNNDataStruct *xd, int width)
{
    return (size_t)r->num_layers * hd_rnn_dirs(r) * xd->batch * width;
}

static cudnnStatus_t no_memory(const char *fn)
{
    return hd_fail(CUDNN_STATUS_ALLOC_FAILED, fn, "out of host memory for the float copies of HALF data");
}

cudnnStatus_t hd_rnn_forward(const char *fn, const hd_rnn_fwd_args *a)
{
    const struct cudnnRNNStruct *r = a->r;
    if (r->dtype != CUDNN_DATA_HALF)
        return r->dtype == CUDNN_DATA_DOUBLE ? hd_rnn_forward_f64(a) : hd_rnn_forward_f32(a);
    struct cudnnRNNStruct rf = float_view(r);
    size_t nx = hd_rnn_data_rows(a->xd) * (size_t)a->xd->vec, ny = hd_rnn_data_rows(a->yd) * (size_t)a->yd->vec;
    size_t nh = state_elems(r, a->xd, r->proj_size), nc = state_elems(r, a->xd, r->hidden_size);
    size_t nw = hd_rnn_weight_elems(r, r->input_size);
    int fail = 0;
    cudnnStatus_t st;
    float *fx = h2f_copy(a->x, nx, &fail), *fy = h2f_copy(a->y, ny, &fail), *fw = h2f_copy(a->w, nw, &fail);
    float *fhx = h2f_copy(a->hx, nh, &fail), *fcx = h2f_copy(a->cx, nc, &fail);
    float *fhy = a->hy ? malloc(nh * sizeof *fhy) : NULL, *fcy = a->cy ? malloc(nc * sizeof *fcy) : NULL;
    if (fail || (a->hy && !fhy) || (a->cy && !fcy)) {
        st = no_memory(fn);
    } else {
        hd_rnn_fwd_args f = { a->nthreads, &rf, a->xd, a->yd, fx, fy, fhx, fcx, fhy, fcy, fw, a->work, a->reserve,
                              a->dropout, a->dropout_states };
        st = hd_rnn_forward_f32(&f);
        if (st == CUDNN_STATUS_SUCCESS) {
            f2h_store(fy, a->y, ny);
            f2h_store(fhy, a->hy, nh);
            f2h_store(fcy, a->cy, nc);
        }
    }
    free(fx); free(fy); free(fw); free(fhx); free(fcx); free(fhy); free(fcy);
    return st;
}

cudnnStatus_t hd_rnn_backward_data(const char *fn, const hd_rnn_bwd_data_args *a)
{
    const struct cudnnRNNStruct *r = a->r;
    if (r->dtype != CUDNN_DATA_HALF)
        return r->dtype == CUDNN_DATA_DOUBLE ? hd_rnn_backward_data_f64(a) : hd_rnn_backward_data_f32(a);
    struct cudnnRNNStruct rf = float_view(r);
    size_t nx = hd_rnn_data_rows(a->xd) * (size_t)a->xd->vec, ny = hd_rnn_data_rows(a->yd) * (size_t)a->yd->vec;
    size_t nh = state_elems(r, a->xd, r->proj_size), nc = state_elems(r, a->xd, r->hidden_size);
    size_t nw = hd_rnn_weight_elems(r, r->input_size);
    int fail = 0;
    cudnnStatus_t st;
    float *fdy = h2f_copy(a->dy, ny, &fail), *fdx = h2f_copy(a->dx, nx, &fail), *fw = h2f_copy(a->w, nw, &fail);
    float *fhx = h2f_copy(a->hx, nh, &fail), *fcx = h2f_copy(a->cx, nc, &fail);
    float *fdhy = h2f_copy(a->dhy, nh, &fail), *fdcy = h2f_copy(a->dcy, nc, &fail);
    float *fdhx = a->dhx ? malloc(nh * sizeof *fdhx) : NULL, *fdcx = a->dcx ? malloc(nc * sizeof *fdcx) : NULL;
    if (fail || (a->dhx && !fdhx) || (a->dcx && !fdcx)) {
        st = no_memory(fn);
    } else {
        hd_rnn_bwd_data_args f = { a->nthreads, &rf, a->xd, a->yd, fdy, fdx, fhx, fcx, fdhy, fdcy, fdhx, fdcx, fw,
                                   a->work, a->reserve };
        st = hd_rnn_backward_data_f32(&f);
        if (st == CUDNN_STATUS_SUCCESS) {
            f2h_store(fdx, a->dx, nx);
            f2h_store(fdhx, a->dhx, nh);
            f2h_store(fdcx, a->dcx, nc);
        }
    }
    free(fdy); free(fdx); free(fw); free(fhx); free(fcx); free(fdhy); free(fdcy); free(fdhx); free(fdcx);
    return st;
}

cudnnStatus_t hd_rnn_backward_weights(const char *fn, const hd_rnn_bwd_w_args *a)
{
    const struct cudnnRNNStruct *r = a->r;
    if (r->dtype != CUDNN_DATA_HALF)
        return r->dtype == CUDNN_DATA_DOUBLE ? hd_rnn_backward_weights_f64(a) : hd_rnn_backward_weights_f32(a);
    struct cudnnRNNStruct rf = float_view(r);
    size_t nx = hd_rnn_data_rows(a->xd) * (size_t)a->xd->vec;
    size_t nh = state_elems(r, a->xd, r->proj_size);
    size_t nw = hd_rnn_weight_elems(r, r->input_size);
    int fail = 0;
    cudnnStatus_t st;
    float *fx = h2f_copy(a->x, nx, &fail), *fhx = h2f_copy(a->hx, nh, &fail), *fdw = h2f_copy(a->dw, nw, &fail);
    if (fail) {
        st = no_memory(fn);
    } else {
        hd_rnn_bwd_w_args f = { a->nthreads, &rf, a->xd, fx, fhx, fdw, a->work, a->reserve };
        st = hd_rnn_backward_weights_f32(&f);
        if (st == CUDNN_STATUS_SUCCESS)
            f2h_store(fdw, a->dw, nw);
    }
    free(fx); free(fhx); free(fdw);
    return st;
}
