/*
 * adv/rnn_run.h -- the last checks before an RNN computation (buffer sizes, dropout) and the
 * dispatch to the compute type, shared by the v8 and legacy entry points of both libraries.
 */
#ifndef HD_ADV_RNN_RUN_H
#define HD_ADV_RNN_RUN_H

#include "core/handle.h"
#include "adv/rnn_check.h"
#include "adv/rnn_exec.h"
#include "adv/half.h"

/* ---- HALF data: computed in float on converted copies ---- */

static inline size_t hd_rnn_data_rows(const struct cudnnRNNDataStruct *d)
{
    if (d->layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED)
        return (size_t)d->max_seq * (size_t)d->batch;
    size_t n = 0;
    for (int b = 0; b < d->batch; b++)
        n += (size_t)d->seq_len[b];
    return n;
}

/* Float copy of N halves (NULL source gives NULL); *FAIL is set when out of memory. */
static inline float *hd_rnn_h2f_copy(const void *src, size_t n, int *fail)
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
        f[i] = hd_adv_h2f(h[i]);
    return f;
}

static inline void hd_rnn_f2h_store(const float *src, void *dst, size_t n)
{
    if (!src || !dst)
        return;
    uint16_t *h = dst;
    for (size_t i = 0; i < n; i++)
        h[i] = hd_adv_f2h(src[i]);
}

/* The float twin of a HALF RNN descriptor, for the f32 kernels. */
static inline struct cudnnRNNStruct hd_rnn_float_view(const struct cudnnRNNStruct *r)
{
    struct cudnnRNNStruct f = *r;
    f.dtype = CUDNN_DATA_FLOAT;
    f.math_prec = CUDNN_DATA_FLOAT;
    return f;
}

/* Inter-layer dropout is applied only in training with numLayers > 1; a dropout descriptor
 * with probability 0 (what frameworks pass when dropout is off) is accepted. */
static inline cudnnStatus_t hd_rnn_check_dropout(const char *fn, cudnnHandle_t handle, const struct cudnnRNNStruct *r,
                                                 int training)
{
    if (!training || r->num_layers < 2 || !r->dropout)
        return CUDNN_STATUS_SUCCESS;
    float p = -1.0f;
    void *states = NULL;
    unsigned long long seed = 0;
    if (cudnnGetDropoutDescriptor(r->dropout, handle, &p, &states, &seed) != CUDNN_STATUS_SUCCESS || p != 0.0f)
        return hd_warn(CUDNN_STATUS_NOT_SUPPORTED, fn, "inter-layer dropout (probability %g) is not implemented", p);
    return CUDNN_STATUS_SUCCESS;
}

static inline cudnnStatus_t hd_rnn_check_space(const char *fn, const char *name, const void *p, size_t have, size_t need)
{
    if (have < need)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s is %zu bytes, this call needs %zu", name, have, need);
    if (need > 0 && !p)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "%s buffer is NULL", name);
    return CUDNN_STATUS_SUCCESS;
}

/* R must be a complete view (input size and data type known); XD/YD already checked. */
static inline cudnnStatus_t hd_rnn_run_forward(const char *fn, cudnnHandle_t handle, const struct cudnnRNNStruct *r,
    int training, const struct cudnnRNNDataStruct *xd, const void *x, const struct cudnnRNNDataStruct *yd, void *y,
    const void *hx, void *hy, const void *cx, void *cy, size_t wsize, const void *w, size_t work_size, void *work,
    size_t res_size, void *res)
{
    cudnnStatus_t st;
    if ((st = hd_rnn_check_compute(fn, r)) != CUDNN_STATUS_SUCCESS)
        return st;
    if (!x || !y)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "x and y must not be NULL");
    if (hd_rnn_size_estimate(r, r->input_size, xd->max_seq, xd->batch) > HD_RNN_MAX_BYTES)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the sizes of this RNN overflow any buffer");
    size_t es = hd_rnn_compute_size(r);
    if ((st = hd_rnn_check_space(fn, "weightSpace", w, wsize, hd_rnn_weight_elems(r, r->input_size) * hd_dtype_size(r->dtype))))
        return st;
    size_t wneed = hd_rnn_work_layout(r, r->input_size, xd->max_seq, xd->batch, !training).total * es;
    if ((st = hd_rnn_check_space(fn, "workSpace", work, work_size, wneed)))
        return st;
    if (training && (st = hd_rnn_check_space(fn, "reserveSpace", res, res_size,
                                             hd_rnn_reserve_layout(r, xd->max_seq, xd->batch).total * es)))
        return st;
    if ((st = hd_rnn_check_dropout(fn, handle, r, training)))
        return st;
    if (r->dtype != CUDNN_DATA_HALF) {
        hd_rnn_fwd_args a = { handle->num_threads, r, xd, yd, x, y, hx, cx, hy, cy, w, work, training ? res : NULL };
        return r->dtype == CUDNN_DATA_DOUBLE ? hd_rnn_forward_f64(&a) : hd_rnn_forward_f32(&a);
    }
    struct cudnnRNNStruct rf = hd_rnn_float_view(r);
    size_t nx = hd_rnn_data_rows(xd) * (size_t)xd->vec, ny = hd_rnn_data_rows(yd) * (size_t)yd->vec;
    size_t nh = (size_t)r->num_layers * hd_rnn_dirs(r) * xd->batch * r->proj_size;
    size_t nc = (size_t)r->num_layers * hd_rnn_dirs(r) * xd->batch * r->hidden_size;
    size_t nw = hd_rnn_weight_elems(r, r->input_size);
    int fail = 0;
    float *fx = hd_rnn_h2f_copy(x, nx, &fail), *fy = hd_rnn_h2f_copy(y, ny, &fail), *fw = hd_rnn_h2f_copy(w, nw, &fail);
    float *fhx = hd_rnn_h2f_copy(hx, nh, &fail), *fcx = hd_rnn_h2f_copy(cx, nc, &fail);
    float *fhy = hy ? malloc(nh * sizeof *fhy) : NULL, *fcy = cy ? malloc(nc * sizeof *fcy) : NULL;
    if (fail || (hy && !fhy) || (cy && !fcy)) {
        st = hd_fail(CUDNN_STATUS_ALLOC_FAILED, fn, "out of host memory for the float copies of HALF data");
    } else {
        hd_rnn_fwd_args a = { handle->num_threads, &rf, xd, yd, fx, fy, fhx, fcx, fhy, fcy, fw, work,
                              training ? res : NULL };
        st = hd_rnn_forward_f32(&a);
        if (st == CUDNN_STATUS_SUCCESS) {
            hd_rnn_f2h_store(fy, y, ny);
            hd_rnn_f2h_store(fhy, hy, nh);
            hd_rnn_f2h_store(fcy, cy, nc);
        }
    }
    free(fx); free(fy); free(fw); free(fhx); free(fcx); free(fhy); free(fcy);
    return st;
}

/* Backward data: R complete; XD/YD checked.  Buffers as the forward training call left them. */
static inline cudnnStatus_t hd_rnn_run_backward_data(const char *fn, cudnnHandle_t handle, const struct cudnnRNNStruct *r,
    const struct cudnnRNNDataStruct *xd, void *dx, const struct cudnnRNNDataStruct *yd, const void *dy,
    const void *hx, const void *dhy, void *dhx, const void *cx, const void *dcy, void *dcx, size_t wsize, const void *w,
    size_t work_size, void *work, size_t res_size, void *res)
{
    cudnnStatus_t st;
    if ((st = hd_rnn_check_compute(fn, r)) != CUDNN_STATUS_SUCCESS)
        return st;
    if (!dy || !dx)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dy and dx must not be NULL");
    if (hd_rnn_size_estimate(r, r->input_size, xd->max_seq, xd->batch) > HD_RNN_MAX_BYTES)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the sizes of this RNN overflow any buffer");
    size_t es = hd_rnn_compute_size(r);
    if ((st = hd_rnn_check_space(fn, "weightSpace", w, wsize, hd_rnn_weight_elems(r, r->input_size) * hd_dtype_size(r->dtype))))
        return st;
    if ((st = hd_rnn_check_space(fn, "workSpace", work, work_size,
                                 hd_rnn_work_layout(r, r->input_size, xd->max_seq, xd->batch, 0).total * es)))
        return st;
    if ((st = hd_rnn_check_space(fn, "reserveSpace", res, res_size,
                                 hd_rnn_reserve_layout(r, xd->max_seq, xd->batch).total * es)))
        return st;
    if ((st = hd_rnn_check_dropout(fn, handle, r, 1)))
        return st;
    int lstm = r->cell == CUDNN_LSTM;
    if (!lstm)
        cx = dcy = dcx = NULL;
    if (r->dtype != CUDNN_DATA_HALF) {
        hd_rnn_bwd_data_args a = { handle->num_threads, r, xd, yd, dy, dx, hx, cx, dhy, dcy, dhx, dcx, w, work, res };
        return r->dtype == CUDNN_DATA_DOUBLE ? hd_rnn_backward_data_f64(&a) : hd_rnn_backward_data_f32(&a);
    }
    struct cudnnRNNStruct rf = hd_rnn_float_view(r);
    size_t nx = hd_rnn_data_rows(xd) * (size_t)xd->vec, ny = hd_rnn_data_rows(yd) * (size_t)yd->vec;
    size_t nh = (size_t)r->num_layers * hd_rnn_dirs(r) * xd->batch * r->proj_size;
    size_t nc = (size_t)r->num_layers * hd_rnn_dirs(r) * xd->batch * r->hidden_size;
    size_t nw = hd_rnn_weight_elems(r, r->input_size);
    int fail = 0;
    float *fdy = hd_rnn_h2f_copy(dy, ny, &fail), *fdx = hd_rnn_h2f_copy(dx, nx, &fail), *fw = hd_rnn_h2f_copy(w, nw, &fail);
    float *fhx = hd_rnn_h2f_copy(hx, nh, &fail), *fcx = hd_rnn_h2f_copy(cx, nc, &fail);
    float *fdhy = hd_rnn_h2f_copy(dhy, nh, &fail), *fdcy = hd_rnn_h2f_copy(dcy, nc, &fail);
    float *fdhx = dhx ? malloc(nh * sizeof *fdhx) : NULL, *fdcx = dcx ? malloc(nc * sizeof *fdcx) : NULL;
    if (fail || (dhx && !fdhx) || (dcx && !fdcx)) {
        st = hd_fail(CUDNN_STATUS_ALLOC_FAILED, fn, "out of host memory for the float copies of HALF data");
    } else {
        hd_rnn_bwd_data_args a = { handle->num_threads, &rf, xd, yd, fdy, fdx, fhx, fcx, fdhy, fdcy, fdhx, fdcx, fw,
                                   work, res };
        st = hd_rnn_backward_data_f32(&a);
        if (st == CUDNN_STATUS_SUCCESS) {
            hd_rnn_f2h_store(fdx, dx, nx);
            hd_rnn_f2h_store(fdhx, dhx, nh);
            hd_rnn_f2h_store(fdcx, dcx, nc);
        }
    }
    free(fdy); free(fdx); free(fw); free(fhx); free(fcx); free(fdhy); free(fdcy); free(fdhx); free(fdcx);
    return st;
}

/* Backward weights: adds into DW. */
static inline cudnnStatus_t hd_rnn_run_backward_weights(const char *fn, cudnnHandle_t handle,
    const struct cudnnRNNStruct *r, const struct cudnnRNNDataStruct *xd, const void *x, const void *hx, size_t wsize,
    void *dw, size_t work_size, void *work, size_t res_size, const void *res)
{
    cudnnStatus_t st;
    if ((st = hd_rnn_check_compute(fn, r)) != CUDNN_STATUS_SUCCESS)
        return st;
    if (!x)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "x must not be NULL");
    if (hd_rnn_size_estimate(r, r->input_size, xd->max_seq, xd->batch) > HD_RNN_MAX_BYTES)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the sizes of this RNN overflow any buffer");
    size_t es = hd_rnn_compute_size(r);
    if ((st = hd_rnn_check_space(fn, "dweightSpace", dw, wsize, hd_rnn_weight_elems(r, r->input_size) * hd_dtype_size(r->dtype))))
        return st;
    if ((st = hd_rnn_check_space(fn, "workSpace", work, work_size,
                                 hd_rnn_work_layout(r, r->input_size, xd->max_seq, xd->batch, 0).total * es)))
        return st;
    if ((st = hd_rnn_check_space(fn, "reserveSpace", res, res_size,
                                 hd_rnn_reserve_layout(r, xd->max_seq, xd->batch).total * es)))
        return st;
    if ((st = hd_rnn_check_dropout(fn, handle, r, 1)))
        return st;
    if (r->dtype != CUDNN_DATA_HALF) {
        hd_rnn_bwd_w_args a = { handle->num_threads, r, xd, x, hx, dw, work, res };
        return r->dtype == CUDNN_DATA_DOUBLE ? hd_rnn_backward_weights_f64(&a) : hd_rnn_backward_weights_f32(&a);
    }
    struct cudnnRNNStruct rf = hd_rnn_float_view(r);
    size_t nx = hd_rnn_data_rows(xd) * (size_t)xd->vec;
    size_t nh = (size_t)r->num_layers * hd_rnn_dirs(r) * xd->batch * r->proj_size;
    size_t nw = hd_rnn_weight_elems(r, r->input_size);
    int fail = 0;
    float *fx = hd_rnn_h2f_copy(x, nx, &fail), *fhx = hd_rnn_h2f_copy(hx, nh, &fail), *fdw = hd_rnn_h2f_copy(dw, nw, &fail);
    if (fail) {
        st = hd_fail(CUDNN_STATUS_ALLOC_FAILED, fn, "out of host memory for the float copies of HALF data");
    } else {
        hd_rnn_bwd_w_args a = { handle->num_threads, &rf, xd, fx, fhx, fdw, work, res };
        st = hd_rnn_backward_weights_f32(&a);
        if (st == CUDNN_STATUS_SUCCESS)
            hd_rnn_f2h_store(fdw, dw, nw);
    }
    free(fx); free(fhx); free(fdw);
    return st;
}

#endif
