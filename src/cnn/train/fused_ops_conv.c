/*
 * The two fused ops built around a convolution:
 *   CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS  y = conv(act(x * eqScale + eqBias), w),
 *       then ySum[k] = sum of y over every position of channel k, ySqSum[k] = sum of y^2;
 *   CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD          dw = wgrad(act(x * eqScale + eqBias), dy).
 * The transformed x goes to the front of the workspace (in x's type and strides), then the
 * convolution engine runs on it with the algorithm Make picked (as cudnnConvolutionForward /
 * BackwardFilter would, without calling those exported functions); the statistics
 * are summed in double after the convolution (one partial per image, combined in image
 * order: identical for every thread count).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/desc_set.h"
#include "core/handle.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "cnn/train/fused_ops.h"
#include "conv/conv_api_util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COPY_BODY(dst, src) memcpy((char *)(dst) + sizeof(hd_object), (const char *)(src) + sizeof(hd_object), \
                                   sizeof *(dst) - sizeof(hd_object))
#define WS_ALIGN 64

static const char *lname(int label) { return hd_fused_const_label_name(label); }

static cudnnStatus_t need(const hd_fused_plan *plan, int label)
{
    if (!plan->slot[label].present)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, "cudnnMakeFusedOpsPlan", "%s needs %s in the constant pack",
                       hd_enum_name_cudnnFusedOps_t((int)plan->op), lname(label));
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t need_ptr(const hd_fused_plan *plan, int ph_label)
{
    if (hd_fused_placeholder(plan, ph_label) == CUDNN_PTR_NULL)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, "cudnnMakeFusedOpsPlan", "%s needs %s set to an aligned-pointer value, "
                       "not CUDNN_PTR_NULL", hd_enum_name_cudnnFusedOps_t((int)plan->op), lname(ph_label));
    return CUDNN_STATUS_SUCCESS;
}

#define TRY(e) do { cudnnStatus_t st_ = (e); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

/* The plan's own descriptors for the convolution, copied from the constant pack. */
static void build_descs(hd_fused_plan *plan, hd_fused_made *m, int xl, int wl, int yl)
{
    hd_object_init(&m->x, HD_TAG_TENSOR);
    hd_object_init(&m->y, HD_TAG_TENSOR);
    hd_object_init(&m->w, HD_TAG_FILTER);
    hd_object_init(&m->conv, HD_TAG_CONV);
    COPY_BODY(&m->x, &plan->slot[xl].u.tensor);
    COPY_BODY(&m->y, &plan->slot[yl].u.tensor);
    COPY_BODY(&m->w, &plan->slot[wl].u.filter);
    COPY_BODY(&m->conv, &plan->slot[CUDNN_PARAM_CONV_DESC].u.conv);
}

/* The convolution's algorithm (the first the heuristic ranks as available and, for the
 * filter gradient, deterministic) and its workspace. */
static cudnnStatus_t pick_algo(int wgrad, hd_fused_made *m)
{
    const char *fn = "cudnnMakeFusedOpsPlan";
    hd_conv_descs d = {&m->x, &m->w, &m->conv, &m->y};
    cudnnStatus_t st;
    if (!wgrad) {
        cudnnConvolutionFwdAlgoPerf_t r[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        int n = 0;
        st = hd_conv_api_rank(HD_CONV_FWD, &d, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, r, fn);
        if (st != CUDNN_STATUS_SUCCESS)
            return hd_fail(st, fn, "the convolution refused x/w/conv/y (see the line above)");
        for (int i = 0; i < n; i++) {
            if (r[i].status != CUDNN_STATUS_SUCCESS)
                continue;
            st = hd_conv_api_workspace(HD_CONV_FWD, &d, (int)r[i].algo, &m->conv_bytes, fn);
            if (st == CUDNN_STATUS_SUCCESS) {
                m->algo = (int)r[i].algo;
                return st;
            }
        }
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t r[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        int n = 0;
        st = hd_conv_api_rank(HD_CONV_BWD_FILTER, &d, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, r, fn);
        if (st != CUDNN_STATUS_SUCCESS)
            return hd_fail(st, fn, "the convolution refused x/dy/conv/dw (see the line above)");
        for (int i = 0; i < n; i++) {
            if (r[i].status != CUDNN_STATUS_SUCCESS || r[i].determinism != CUDNN_DETERMINISTIC)
                continue;
            st = hd_conv_api_workspace(HD_CONV_BWD_FILTER, &d, (int)r[i].algo, &m->conv_bytes, fn);
            if (st == CUDNN_STATUS_SUCCESS) {
                m->algo = (int)r[i].algo;
                return st;
            }
        }
    }
    return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "no convolution algorithm handles this problem");
}

cudnnStatus_t hd_fused_make_conv(hd_fused_plan *plan, hd_fused_made *m)
{
    const char *fn = "cudnnMakeFusedOpsPlan";
    int wgrad = plan->op == CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD;
    int wl = wgrad ? CUDNN_PARAM_DWDESC : CUDNN_PARAM_WDESC;
    int wph = wgrad ? CUDNN_PARAM_DWDATA_PLACEHOLDER : CUDNN_PARAM_WDATA_PLACEHOLDER;
    int yl = wgrad ? CUDNN_PARAM_DYDESC : CUDNN_PARAM_YDESC;
    int yph = wgrad ? CUDNN_PARAM_DYDATA_PLACEHOLDER : CUDNN_PARAM_YDATA_PLACEHOLDER;
    const hd_fused_const_slot *s = plan->slot;

    TRY(need(plan, CUDNN_PARAM_XDESC));
    TRY(need(plan, CUDNN_PARAM_CONV_DESC));
    TRY(need(plan, wl));
    TRY(need(plan, yl));
    TRY(need_ptr(plan, CUDNN_PARAM_XDATA_PLACEHOLDER));
    TRY(need_ptr(plan, wph));
    TRY(need_ptr(plan, yph));

    const struct cudnnTensorStruct *x = &s[CUDNN_PARAM_XDESC].u.tensor, *y = &s[yl].u.tensor;
    const struct cudnnFilterStruct *w = &s[wl].u.filter;
    if (!hd_fused_float_type(x->dtype) || x->vect_c != 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "x data type %s: the fused ops take FLOAT, DOUBLE, HALF or BFLOAT16",
                       hd_enum_name_cudnnDataType_t((int)x->dtype));
    if (y->dtype != x->dtype || w->dtype != x->dtype)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "x, %s and %s must have one data type (got %s, %s, %s)", lname(wl),
                       lname(yl), hd_enum_name_cudnnDataType_t((int)x->dtype), hd_enum_name_cudnnDataType_t((int)w->dtype),
                       hd_enum_name_cudnnDataType_t((int)y->dtype));

    m->scale = hd_fused_placeholder(plan, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER) != CUDNN_PTR_NULL;
    m->bias = hd_fused_placeholder(plan, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER) != CUDNN_PTR_NULL;
    if (m->scale || m->bias) {
        TRY(need(plan, CUDNN_PARAM_BN_EQSCALEBIAS_DESC));
        TRY(need(plan, CUDNN_PARAM_BN_MODE));
        const struct cudnnTensorStruct *e = &s[CUDNN_PARAM_BN_EQSCALEBIAS_DESC].u.tensor;
        if (hd_fused_channels(e) != x->dims[1] || e->nbDims != x->nbDims)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "CUDNN_PARAM_BN_EQSCALEBIAS_DESC must be 1 x %d x 1 ... (x's channels, "
                           "%d dimensions)", x->dims[1], x->nbDims);
        if (e->dtype != x->dtype && e->dtype != CUDNN_DATA_FLOAT)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "CUDNN_PARAM_BN_EQSCALEBIAS_DESC must be x's type or FLOAT (got %s)",
                           hd_enum_name_cudnnDataType_t((int)e->dtype));
        int mode = s[CUDNN_PARAM_BN_MODE].u.value;
        if (mode != CUDNN_BATCHNORM_SPATIAL && mode != CUDNN_BATCHNORM_SPATIAL_PERSISTENT)
            return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "CUDNN_PARAM_BN_MODE %s: the scale and bias are per channel "
                           "(SPATIAL or SPATIAL_PERSISTENT)", hd_enum_name_cudnnBatchNormMode_t(mode));
    }
    m->relu = 0;
    if (s[CUDNN_PARAM_ACTIVATION_DESC].present) {
        cudnnActivationMode_t am = s[CUDNN_PARAM_ACTIVATION_DESC].u.act.mode;
        if (am == CUDNN_ACTIVATION_RELU)
            m->relu = 1;
        else if (am != CUDNN_ACTIVATION_IDENTITY)
            return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "activation %s: the fused ops apply RELU (or IDENTITY) only",
                           hd_enum_name_cudnnActivationMode_t((int)am));
    }
    m->stats = 0;
    if (!wgrad) {
        m->stats = (hd_fused_placeholder(plan, CUDNN_PARAM_YSUM_PLACEHOLDER) != CUDNN_PTR_NULL) |
                   (hd_fused_placeholder(plan, CUDNN_PARAM_YSQSUM_PLACEHOLDER) != CUDNN_PTR_NULL) << 1;
        if (m->stats) {
            TRY(need(plan, CUDNN_PARAM_YSTATS_DESC));
            const struct cudnnTensorStruct *t = &s[CUDNN_PARAM_YSTATS_DESC].u.tensor;
            if (hd_fused_channels(t) != y->dims[1] || t->nbDims != y->nbDims)
                return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "CUDNN_PARAM_YSTATS_DESC must be 1 x %d x 1 ... (y's channels, "
                               "%d dimensions)", y->dims[1], y->nbDims);
            if (t->dtype != CUDNN_DATA_FLOAT)
                return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "CUDNN_PARAM_YSTATS_DESC must be FLOAT (got %s)",
                               hd_enum_name_cudnnDataType_t((int)t->dtype));
        }
    }

    build_descs(plan, m, CUDNN_PARAM_XDESC, wl, yl);
    TRY(pick_algo(wgrad, m));
    m->xt_offset = 0;
    m->xt_bytes = (m->scale || m->bias || m->relu) ? hd_tensor_span_bytes(x) : 0;
    m->conv_offset = m->xt_bytes == 0 ? 0 : (m->xt_bytes + WS_ALIGN - 1) / WS_ALIGN * WS_ALIGN;
    if (m->conv_bytes > SIZE_MAX - m->conv_offset)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the workspace size overflows size_t");
    m->workspace = m->conv_bytes ? m->conv_offset + m->conv_bytes : m->xt_bytes;
    return CUDNN_STATUS_SUCCESS;
}

/* Walk the elements of image N of T (all dims after the first) in logical order, calling
 * visit(ctx, element offset, channel). */
#define FOR_IMAGE(t, n, off, ch, body) do { \
    int64_t per_ = hd_tensor_elems(t) / (t)->dims[0], off = (int64_t)(n) * (t)->strides[0]; \
    int idx_[CUDNN_DIM_MAX] = {0}; \
    for (int64_t i_ = 0; i_ < per_; i_++) { \
        int ch = idx_[1]; \
        body; \
        for (int d_ = (t)->nbDims - 1; d_ >= 1; d_--) { \
            off += (t)->strides[d_]; \
            if (++idx_[d_] < (t)->dims[d_]) \
                break; \
            off -= (int64_t)(t)->strides[d_] * (t)->dims[d_]; \
            idx_[d_] = 0; \
        } \
    } \
} while (0)

typedef struct {
    const struct cudnnTensorStruct *x, *e, *y;
    const void *xd, *scale, *bias, *yd;
    void *xt;
    int relu;
    double *acc;                 /* statistics: 2 * K partials per image */
} elem_job;

/* One image of xt = act(x * scale[c] + bias[c]) (same offsets as x). */
static void transform_image(void *ctx, size_t n, int thread)
{
    (void)thread;
    const elem_job *j = ctx;
    const struct cudnnTensorStruct *x = j->x, *e = j->e;
    int64_t estr = e ? e->strides[1] : 0;
    FOR_IMAGE(x, n, off, c, {
        double v = hd_fused_load(j->xd, x->dtype, off);
        if (j->scale)
            v *= hd_fused_load(j->scale, e->dtype, (int64_t)c * estr);
        if (j->bias)
            v += hd_fused_load(j->bias, e->dtype, (int64_t)c * estr);
        if (j->relu && v < 0)
            v = 0;                               /* NaN stays NaN */
        hd_fused_store(j->xt, x->dtype, off, v);
    });
}

/* One image's per-channel sum and sum of squares of y, in double, in element order. */
static void stats_image(void *ctx, size_t n, int thread)
{
    (void)thread;
    const elem_job *j = ctx;
    const struct cudnnTensorStruct *y = j->y;
    int K = y->dims[1];
    double *acc = j->acc + n * 2 * (size_t)K;
    FOR_IMAGE(y, n, off, k, {
        double v = hd_fused_load(j->yd, y->dtype, off);
        acc[k] += v;
        acc[K + k] += v * v;
    });
}

cudnnStatus_t hd_fused_exec_conv(cudnnHandle_t handle, const hd_fused_plan *plan, const hd_fused_var_pack *v)
{
    const char *fn = "cudnnFusedOpsExecute";
    const hd_fused_made *m = &plan->m;
    int wgrad = plan->op == CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD;
    const hd_fused_const_slot *s = plan->slot;
    const struct cudnnTensorStruct *x = &s[CUDNN_PARAM_XDESC].u.tensor;
    const struct cudnnTensorStruct *y = &s[wgrad ? CUDNN_PARAM_DYDESC : CUDNN_PARAM_YDESC].u.tensor;
    const struct cudnnTensorStruct *e = (m->scale || m->bias) ? &s[CUDNN_PARAM_BN_EQSCALEBIAS_DESC].u.tensor : NULL;
    size_t xs = hd_dtype_size(x->dtype), es = e ? hd_dtype_size(e->dtype) : 1;
    void *xd, *wd, *yd, *scale, *bias, *ysum = NULL, *ysq = NULL;
    TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, xs, &xd));
    TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, es, &scale));
    TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, es, &bias));
    if (wgrad) {
        TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_DWDATA_PLACEHOLDER, CUDNN_PTR_DWDATA, xs, &wd));
        TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_DYDATA_PLACEHOLDER, CUDNN_PTR_DYDATA, xs, &yd));
    } else {
        TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_WDATA_PLACEHOLDER, CUDNN_PTR_WDATA, xs, &wd));
        TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_YDATA, xs, &yd));
        TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PTR_YSUM, sizeof(float), &ysum));
        TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PTR_YSQSUM, sizeof(float), &ysq));
    }
    char *ws = v->ptr[CUDNN_PTR_WORKSPACE];
    if (m->workspace > 0 && !ws)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the plan needs %zu bytes of workspace but CUDNN_PTR_WORKSPACE is NULL",
                       m->workspace);
    if (v->workspace_bytes < m->workspace)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the plan needs %zu bytes of workspace; "
                       "CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES says %zu", m->workspace, v->workspace_bytes);
    double *acc = NULL;
    if (m->stats) {
        acc = calloc(2 * (size_t)y->dims[1] * (size_t)y->dims[0], sizeof *acc);
        if (!acc)
            return hd_fail(CUDNN_STATUS_ALLOC_FAILED, fn, "out of host memory for the statistics");
    }

    /* One task per image; the statistics keep one partial per image, summed in image order,
     * so the result does not depend on the thread count. */
    elem_job job = {x, e, y, xd, scale, bias, yd, NULL, m->relu, acc};
    const void *xin = xd;
    if (m->xt_bytes) {
        job.xt = ws + m->xt_offset;
        hd_parallel_for((size_t)x->dims[0], handle->num_threads, transform_image, &job);
        xin = job.xt;
    }
    float one_f = 1.0f, zero_f = 0.0f;
    double one_d = 1.0, zero_d = 0.0;
    int dbl = x->dtype == CUDNN_DATA_DOUBLE;
    const void *one = dbl ? (const void *)&one_d : (const void *)&one_f;
    const void *zero = dbl ? (const void *)&zero_d : (const void *)&zero_f;
    void *cws = m->conv_bytes ? ws + m->conv_offset : NULL;
    hd_conv_descs d = {&m->x, &m->w, &m->conv, &m->y};
    hd_conv_args a = {0};
    a.x = xin, a.ws = cws, a.ws_size = m->conv_bytes;
    if (wgrad)
        a.y = yd, a.out = wd;
    else
        a.w = wd, a.out = yd;
    cudnnStatus_t st = hd_conv_api_run(handle, wgrad ? HD_CONV_BWD_FILTER : HD_CONV_FWD, &d, m->algo, one, zero, a, fn);
    if (st != CUDNN_STATUS_SUCCESS) {
        free(acc);
        return hd_fail(st, fn, "the convolution failed (see the line above)");
    }
    if (m->stats) {
        const struct cudnnTensorStruct *t = &s[CUDNN_PARAM_YSTATS_DESC].u.tensor;
        int K = y->dims[1];
        hd_parallel_for((size_t)y->dims[0], handle->num_threads, stats_image, &job);
        for (int n = 1; n < y->dims[0]; n++)
            for (int k = 0; k < 2 * K; k++)
                acc[k] += acc[(size_t)n * 2 * K + k];
        for (int k = 0; k < K; k++) {
            if (ysum)
                ((float *)ysum)[(int64_t)k * t->strides[1]] = (float)acc[k];
            if (ysq)
                ((float *)ysq)[(int64_t)k * t->strides[1]] = (float)acc[K + k];
        }
    }
    free(acc);
    return CUDNN_STATUS_SUCCESS;
}
