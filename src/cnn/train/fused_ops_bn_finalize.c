/*
 * CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING / _INFERENCE: per-channel batch-norm
 * statistics turned into the "equivalent" scale and bias that the next fused convolution
 * applies (x * eqScale + eqBias == scale * (x - mean) * invStd + bias).
 *
 * Training, with n = CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT and f the exponential
 * average factor:  mean = ySum / n,  var = ySqSum / n - mean^2 (clamped at 0),
 * invStd = 1 / sqrt(var + eps); savedMean = mean, savedInvStd = invStd;
 * runningMean = (1 - f) runningMean + f mean, runningVar = (1 - f) runningVar + f var n/(n-1)
 * (the unbiased variance, as cudnnBatchNormalizationForwardTraining keeps it).
 * Inference: mean = runningMean, invStd = 1 / sqrt(runningVar + eps).
 * Then eqScale = scale * invStd, eqBias = bias - mean * eqScale.  Computed in double.
 */
#include "core/api.h"
#include "core/check.h"
#include "cnn/train/fused_ops.h"

#include <math.h>

#define TRY(e) do { cudnnStatus_t st_ = (e); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

static const char *MAKE = "cudnnMakeFusedOpsPlan";

static int ph(const hd_fused_plan *p, int label) { return hd_fused_placeholder(p, label) != CUDNN_PTR_NULL; }

static cudnnStatus_t need(const hd_fused_plan *plan, int label)
{
    if (!plan->slot[label].present)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, MAKE, "%s needs %s in the constant pack",
                       hd_enum_name_cudnnFusedOps_t((int)plan->op), hd_fused_const_label_name(label));
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t need_ptr(const hd_fused_plan *plan, int label, const char *why)
{
    if (!ph(plan, label))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, MAKE, "%s needs %s (not CUDNN_PTR_NULL)%s",
                       hd_enum_name_cudnnFusedOps_t((int)plan->op), hd_fused_const_label_name(label), why);
    return CUDNN_STATUS_SUCCESS;
}

/* A per-channel descriptor with C channels and an allowed type. */
static cudnnStatus_t per_channel(const hd_fused_plan *plan, int label, int C, int any_float)
{
    const struct cudnnTensorStruct *t = &plan->slot[label].u.tensor;
    if (hd_fused_channels(t) < 1 || (C > 0 && hd_fused_channels(t) != C))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, MAKE, "%s must be 1 x C x 1 ... 1 with the same C as the other "
                       "per-channel descriptors", hd_fused_const_label_name(label));
    if (any_float ? !hd_fused_float_type(t->dtype) || t->dtype == CUDNN_DATA_DOUBLE : t->dtype != CUDNN_DATA_FLOAT)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, MAKE, "%s: data type %s (want %s)", hd_fused_const_label_name(label),
                       hd_enum_name_cudnnDataType_t((int)t->dtype), any_float ? "HALF, BFLOAT16 or FLOAT" : "FLOAT");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_fused_make_bn_finalize(hd_fused_plan *plan, hd_fused_made *m)
{
    int train = plan->op == CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING;
    TRY(need(plan, CUDNN_PARAM_BN_MODE));
    int mode = plan->slot[CUDNN_PARAM_BN_MODE].u.value;
    if (mode != CUDNN_BATCHNORM_SPATIAL && mode != CUDNN_BATCHNORM_SPATIAL_PERSISTENT)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, MAKE, "CUDNN_PARAM_BN_MODE %s: BN finalize is per channel "
                       "(SPATIAL or SPATIAL_PERSISTENT)", hd_enum_name_cudnnBatchNormMode_t(mode));
    TRY(need(plan, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC));
    TRY(per_channel(plan, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, 0, 0));
    int C = plan->slot[CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC].u.tensor.dims[1];
    int eqs = ph(plan, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER), eqb = ph(plan, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER);
    if (eqs || eqb) {
        TRY(need(plan, CUDNN_PARAM_BN_EQSCALEBIAS_DESC));
        TRY(per_channel(plan, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, C, 1));
        TRY(need_ptr(plan, CUDNN_PARAM_BN_SCALE_PLACEHOLDER, " to compute the equivalent scale/bias"));
    }
    if (eqb)
        TRY(need_ptr(plan, CUDNN_PARAM_BN_BIAS_PLACEHOLDER, " to compute the equivalent bias"));
    int rm = ph(plan, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER), rv = ph(plan, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER);
    if (train) {
        TRY(need(plan, CUDNN_PARAM_YSTATS_DESC));
        TRY(per_channel(plan, CUDNN_PARAM_YSTATS_DESC, C, 0));
        TRY(need_ptr(plan, CUDNN_PARAM_YSUM_PLACEHOLDER, ""));
        TRY(need_ptr(plan, CUDNN_PARAM_YSQSUM_PLACEHOLDER, ""));
        if (rm != rv)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, MAKE, "the running mean and variance placeholders must both be "
                           "CUDNN_PTR_NULL or both be set");
    } else {
        TRY(need_ptr(plan, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, ""));
        TRY(need_ptr(plan, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER, ""));
        TRY(need_ptr(plan, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, ""));
        TRY(need_ptr(plan, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, ""));
    }
    m->workspace = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t hd_fused_exec_bn_finalize(const hd_fused_plan *plan, const hd_fused_var_pack *v)
{
    const char *fn = "cudnnFusedOpsExecute";
    int train = plan->op == CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING;
    const hd_fused_const_slot *s = plan->slot;
    const struct cudnnTensorStruct *mv = &s[CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC].u.tensor;
    const struct cudnnTensorStruct *eq = &s[CUDNN_PARAM_BN_EQSCALEBIAS_DESC].u.tensor;   /* if used */
    const struct cudnnTensorStruct *ys = &s[CUDNN_PARAM_YSTATS_DESC].u.tensor;           /* training */
    int C = mv->dims[1];
    size_t es = s[CUDNN_PARAM_BN_EQSCALEBIAS_DESC].present ? hd_dtype_size(eq->dtype) : 1;
    void *ysum = NULL, *ysq = NULL, *scale, *bias, *smean = NULL, *sinv = NULL, *rmean, *rvar, *eqs, *eqb;
    if (train) {
        TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PTR_YSUM, 4, &ysum));
        TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PTR_YSQSUM, 4, &ysq));
        TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PTR_BN_SAVED_MEAN, 4, &smean));
        TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, CUDNN_PTR_BN_SAVED_INVSTD, 4, &sinv));
    }
    TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, 4, &scale));
    TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PTR_BN_BIAS, 4, &bias));
    TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_MEAN, 4, &rmean));
    TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_VAR, 4, &rvar));
    TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, es, &eqs));
    TRY(hd_fused_var_ptr(plan, v, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, es, &eqb));
    double eps = v->bn_epsilon, f = v->bn_exp_avg_factor;
    int64_t n = v->bn_accumulation_count;
    if (!(eps >= CUDNN_BN_MIN_EPSILON) || isinf(eps))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "CUDNN_SCALAR_DOUBLE_BN_EPSILON %g must be finite and >= %g", eps,
                       CUDNN_BN_MIN_EPSILON);
    if (train && n < 1)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT must be >= 1 (got %lld)",
                       (long long)n);
    if (train && rmean && !(f >= 0.0 && f <= 1.0))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR %g must be in [0, 1]", f);

    int64_t ms = mv->strides[1], yss = train ? ys->strides[1] : 0, eqst = eq->strides[1];
    for (int c = 0; c < C; c++) {
        double mean, var = 0, inv;
        if (train) {
            mean = ((const float *)ysum)[c * yss] / (double)n;
            var = ((const float *)ysq)[c * yss] / (double)n - mean * mean;
            if (var < 0)
                var = 0;                             /* rounding in the sums */
        } else {
            mean = ((const float *)rmean)[c * ms];
            var = ((const float *)rvar)[c * ms];
        }
        inv = 1.0 / sqrt(var + eps);
        if (smean)
            ((float *)smean)[c * ms] = (float)mean;
        if (sinv)
            ((float *)sinv)[c * ms] = (float)inv;
        if (train && rmean) {
            double unbiased = n > 1 ? var * (double)n / (double)(n - 1) : var;
            float *pm = (float *)rmean + c * ms, *pv = (float *)rvar + c * ms;
            *pm = (float)((1.0 - f) * *pm + f * mean);
            *pv = (float)((1.0 - f) * *pv + f * unbiased);
        }
        double sc = scale ? ((const float *)scale)[c * ms] * inv : 0;
        if (eqs)
            hd_fused_store(eqs, eq->dtype, c * eqst, sc);
        if (eqb)
            hd_fused_store(eqb, eq->dtype, c * eqst, ((const float *)bias)[c * ms] - mean * sc);
    }
    return CUDNN_STATUS_SUCCESS;
}
