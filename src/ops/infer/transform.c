/*
 * cudnnTransformTensor, the tensor-transform descriptor, cudnnInitTransformDest,
 * cudnnTransformTensorEx and cudnnTransformFilter: y = alpha * x + beta * y between two
 * layouts of the same logical tensor, optionally with zero padding.
 *
 * - Types must match, except that a vector type (INT8x4, UINT8x4, INT8x32 in NCHW_VECT_C)
 *   pairs with its scalar type (INT8 / UINT8), which is how data moves in and out of
 *   NCHW_VECT_C.
 * - Padding (Ex): dest dims = src dims + padBefore + padAfter; the padding reads as zero,
 *   so it becomes beta * y (0 when beta == 0).  With padding, dest is first scaled by beta
 *   and the source box is then added (two roundings for 16-bit types).
 * - Folding (foldA other than 1) and negative padding are NOT_SUPPORTED where used: cuDNN
 *   does not document the element mapping (the descriptor stores them, as cuDNN's does).
 * - float NCHW <-> NHWC packed transposes run a blocked kernel (src/kernels/transpose).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/desc_set.h"
#include "core/handle.h"
#include "core/tensor.h"
#include "kernels/eltwise/eltwise-ukernels.h"
#include "kernels/transpose/transpose-ukernels.h"
#include "ops/common.h"

#include <string.h>

struct cudnnTensorTransformStruct {
    hd_object obj;
    uint32_t nbDims;                     /* 0 = never set */
    cudnnTensorFormat_t format;
    int32_t pad_before[CUDNN_DIM_MAX];
    int32_t pad_after[CUDNN_DIM_MAX];
    uint32_t fold[CUDNN_DIM_MAX];        /* one per spatial dim (nbDims - 2 of them), as cuDNN reads foldA */
    cudnnFoldingDirection_t direction;
};

typedef struct cudnnTensorStruct tensor_t;

/* ---- descriptor ---- */

cudnnStatus_t HD_IMPL(cudnnCreateTensorTransformDescriptor)(cudnnTensorTransformDescriptor_t *transformDesc)
{
    HD_CHECK_PTR(transformDesc);
    struct cudnnTensorTransformStruct *d = hd_object_new(sizeof *d, HD_TAG_TRANSFORM);
    if (!d)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    *transformDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyTensorTransformDescriptor)(cudnnTensorTransformDescriptor_t transformDesc)
{
    if (!transformDesc)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(transformDesc, HD_TAG_TRANSFORM);
    hd_object_free(transformDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetTensorTransformDescriptor)(cudnnTensorTransformDescriptor_t transformDesc,
                                                         const uint32_t nbDims, const cudnnTensorFormat_t destFormat,
                                                         const int32_t padBeforeA[], const int32_t padAfterA[],
                                                         const uint32_t foldA[],
                                                         const cudnnFoldingDirection_t direction)
{
    HD_CHECK_DESC(transformDesc, HD_TAG_TRANSFORM);
    /* statuses as cuDNN answers them; pads and folds are stored as given and checked where
     * they are used (cudnnInitTransformDest, cudnnTransformTensorEx, cudnnTransformFilter) */
    if (nbDims > CUDNN_DIM_MAX)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "nbDims %u exceeds CUDNN_DIM_MAX (%d)", nbDims, CUDNN_DIM_MAX);
    /* cuDNN 8 refuses 2 dimensions (a transform needs a spatial one); cuDNN 9 takes them */
    if (nbDims < 3)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "nbDims %u must be at least 3", nbDims);
    if (destFormat != CUDNN_TENSOR_NCHW && destFormat != CUDNN_TENSOR_NHWC && destFormat != CUDNN_TENSOR_NCHW_VECT_C)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "destFormat %d is not a supported cudnnTensorFormat_t",
                       (int)destFormat);
    if (direction != CUDNN_TRANSFORM_FOLD && direction != CUDNN_TRANSFORM_UNFOLD)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "direction %d is not a cudnnFoldingDirection_t", (int)direction);
    memset(transformDesc->pad_before, 0, sizeof transformDesc->pad_before);
    memset(transformDesc->pad_after, 0, sizeof transformDesc->pad_after);
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        transformDesc->fold[i] = 1;
    for (uint32_t i = 0; i < nbDims; i++) {
        transformDesc->pad_before[i] = padBeforeA ? padBeforeA[i] : 0;
        transformDesc->pad_after[i] = padAfterA ? padAfterA[i] : 0;
    }
    for (uint32_t i = 0; i + 2 < nbDims; i++)
        transformDesc->fold[i] = foldA ? foldA[i] : 1;
    transformDesc->nbDims = nbDims;
    transformDesc->format = destFormat;
    transformDesc->direction = direction;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetTensorTransformDescriptor)(cudnnTensorTransformDescriptor_t transformDesc,
                                                         uint32_t nbDimsRequested, cudnnTensorFormat_t *destFormat,
                                                         int32_t padBeforeA[], int32_t padAfterA[], uint32_t foldA[],
                                                         cudnnFoldingDirection_t *direction)
{
    HD_CHECK_DESC(transformDesc, HD_TAG_TRANSFORM);
    if (transformDesc->nbDims == 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "transformDesc was never set");
    HD_CHECK_PTR(destFormat);
    HD_CHECK_PTR(direction);
    /* cuDNN 8.5 takes 3 to CUDNN_DIM_MAX, whatever the descriptor's own count (the fewest
     * dimensions a transform has). */
    if (nbDimsRequested < 3 || nbDimsRequested > CUDNN_DIM_MAX)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "nbDimsRequested %u is outside 3..CUDNN_DIM_MAX", nbDimsRequested);
    if (!padBeforeA || !padAfterA || !foldA)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "padBeforeA, padAfterA and foldA must not be NULL");
    uint32_t n = nbDimsRequested < transformDesc->nbDims ? nbDimsRequested : transformDesc->nbDims;
    for (uint32_t i = 0; i < n; i++) {
        padBeforeA[i] = transformDesc->pad_before[i];
        padAfterA[i] = transformDesc->pad_after[i];
        /* foldA has one entry per spatial dim; like cuDNN, nothing is written past them */
        if (i + 2 < transformDesc->nbDims)
            foldA[i] = transformDesc->fold[i];
    }
    *destFormat = transformDesc->format;
    *direction = transformDesc->direction;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnDataType_t scalar_type(cudnnDataType_t t)
{
    return t == CUDNN_DATA_INT8x4 || t == CUDNN_DATA_INT8x32 ? CUDNN_DATA_INT8
         : t == CUDNN_DATA_UINT8x4 ? CUDNN_DATA_UINT8 : t;
}

static int has_fold(const struct cudnnTensorTransformStruct *d)
{
    for (uint32_t i = 0; i + 2 < d->nbDims; i++)
        if (d->fold[i] != 1)
            return 1;
    return 0;
}

/* Fold factors, stored as given by the setter (as cuDNN does), are checked where used: each
 * positive, and their product a size an int holds (so nothing divides by 0 or wraps). */
static cudnnStatus_t check_fold_factors(const char *fn, const struct cudnnTensorTransformStruct *d)
{
    int64_t f = 1;
    for (uint32_t i = 0; i + 2 < d->nbDims; i++) {
        if (d->fold[i] == 0 || d->fold[i] > 0x7fffffffu)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "foldA[%u] = %u: a fold factor must be in [1, INT_MAX]", i,
                           d->fold[i]);
        f *= d->fold[i];
        if (f > 0x7fffffff)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the fold factors' product overflows an int");
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Negative padding would crop; cuDNN does not document it, so it is refused where used. */
static int has_negative_pad(const struct cudnnTensorTransformStruct *d)
{
    for (uint32_t i = 0; i < d->nbDims; i++)
        if (d->pad_before[i] < 0 || d->pad_after[i] < 0)
            return 1;
    return 0;
}

cudnnStatus_t HD_IMPL(cudnnInitTransformDest)(const cudnnTensorTransformDescriptor_t transformDesc,
                                              const cudnnTensorDescriptor_t srcDesc, cudnnTensorDescriptor_t destDesc,
                                              size_t *destSizeInBytes)
{
    HD_CHECK_DESC(transformDesc, HD_TAG_TRANSFORM);
    if (transformDesc->nbDims == 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "transformDesc was never set");
    HD_CHECK_TENSOR(srcDesc);
    HD_CHECK_DESC(destDesc, HD_TAG_TENSOR);
    HD_CHECK_PTR(destSizeInBytes);
    if ((int)transformDesc->nbDims != srcDesc->nbDims)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "transformDesc has %u dims but srcDesc has %d", transformDesc->nbDims,
                       srcDesc->nbDims);
    if (has_negative_pad(transformDesc))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "negative padding (cropping) is not supported");
    int dims[CUDNN_DIM_MAX];
    for (int i = 0; i < srcDesc->nbDims; i++) {
        int64_t d = (int64_t)srcDesc->dims[i] + transformDesc->pad_before[i] + transformDesc->pad_after[i];
        if (d > 0x7fffffff)
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "padded dim %d overflows", i);
        dims[i] = (int)d;
    }
    if (has_fold(transformDesc)) {
        /* the folded (FOLD) or unfolded (UNFOLD) shape of the padded source; see run_fold */
        if (srcDesc->nbDims != 4)
            return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__, "folding is implemented for 4-d tensors only");
        cudnnStatus_t fst = check_fold_factors(__func__, transformDesc);
        if (fst != CUDNN_STATUS_SUCCESS)
            return fst;
        int64_t fh = transformDesc->fold[0], fw = transformDesc->fold[1];
        if (transformDesc->direction == CUDNN_TRANSFORM_FOLD) {
            if ((int64_t)srcDesc->dims[1] * fh * fw > 0x7fffffff)
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the folded C (%d x %lld x %lld) overflows an int",
                               srcDesc->dims[1], (long long)fh, (long long)fw);
            dims[1] = (int)((int64_t)srcDesc->dims[1] * fh * fw);
            dims[2] = (int)((dims[2] + fh - 1) / fh);
            dims[3] = (int)((dims[3] + fw - 1) / fw);
        } else {
            if (srcDesc->dims[1] % (fh * fw) != 0)
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "C (%d) is not a multiple of the fold factors %lld x %lld",
                               srcDesc->dims[1], (long long)fh, (long long)fw);
            dims[1] = (int)(srcDesc->dims[1] / (fh * fw));
            int64_t uh = (int64_t)srcDesc->dims[2] * fh - transformDesc->pad_before[2] - transformDesc->pad_after[2];
            int64_t uw = (int64_t)srcDesc->dims[3] * fw - transformDesc->pad_before[3] - transformDesc->pad_after[3];
            if (uh > 0x7fffffff || uw > 0x7fffffff)
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the unfolded H or W overflows an int");
            dims[2] = (int)uh;
            dims[3] = (int)uw;
            if (dims[2] <= 0 || dims[3] <= 0)
                return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the unfolded tensor would be empty");
        }
    }
    cudnnDataType_t dt = scalar_type(srcDesc->dtype);
    if (transformDesc->format == CUDNN_TENSOR_NCHW_VECT_C) {
        if (srcDesc->dtype == CUDNN_DATA_INT8x32)
            dt = CUDNN_DATA_INT8x32;
        else if (dt == CUDNN_DATA_INT8)
            dt = CUDNN_DATA_INT8x4;
        else if (dt == CUDNN_DATA_UINT8)
            dt = CUDNN_DATA_UINT8x4;
        else
            return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "NCHW_VECT_C needs INT8 or UINT8 data, not %s",
                           hd_dtype_name(srcDesc->dtype));
    }
    /* validate on a scratch descriptor so destDesc stays untouched on failure */
    struct cudnnTensorStruct tmp;
    hd_object_init(&tmp, HD_TAG_TENSOR);
    cudnnStatus_t st = hd_tensor_set_format(&tmp, transformDesc->format, dt, srcDesc->nbDims, dims, __func__);
    if (st == CUDNN_STATUS_SUCCESS) {
        hd_object keep = destDesc->obj;
        *destDesc = tmp;
        destDesc->obj = keep;
        *destSizeInBytes = hd_tensor_span_bytes(destDesc);
    }
    return st;
}

/* ---- compute ---- */

typedef struct {
    cudnnDataType_t xt, yt;
    const void *x;
    void *y;
    double alpha, beta;
    const hd_eltwise_table *k;
} tr_ctx;

static void tr_piece(void *vctx, const hd_rows *r, const int64_t *off, int64_t n)
{
    const tr_ctx *c = vctx;
    int64_t sy = r->strides[0][r->nd - 1], sx = r->strides[1][r->nd - 1];
    double v[HD_ROWS_PIECE];
    if (!c->x) {                 /* zero fill: y is not read (it may hold NaN) */
        memset(v, 0, (size_t)n * sizeof v[0]);
        hd_store_f64(c->yt, c->y, off[0], sy, n, v);
        return;
    }
    if (c->xt == CUDNN_DATA_FLOAT && c->yt == CUDNN_DATA_FLOAT && sy == 1 && sx == 1) {
        c->k->axpby((size_t)n, (const float *)c->x + off[1], (float *)c->y + off[0], (float)c->alpha, (float)c->beta);
        return;
    }
    hd_load_f64(c->xt, c->x, off[1], sx, n, v);
    hd_blend_f64(c->yt, c->y, off[0], sy, n, v, c->alpha, c->beta);
}

/* Offset in scalars of logical index IDX (dims in scalars) of T. */
static int64_t elem_off(const tensor_t *t, const int64_t *idx)
{
    int64_t o = 0;
    for (int i = 0; i < t->nbDims; i++)
        o += (i == 1 ? idx[1] / t->vect_c : idx[i]) * t->strides[i];
    return t->vect_c > 1 ? o * t->vect_c + idx[1] % t->vect_c : o;
}

/* Element-by-element path for vector layouts: y[box + i] = alpha * x[i] + beta * y[...]. */
static void slow_copy(const tensor_t *xd, const void *x, const tensor_t *yd, void *y, const int32_t *before,
                      double alpha, double beta)
{
    int64_t idx[CUDNN_DIM_MAX] = { 0 }, yidx[CUDNN_DIM_MAX];
    int64_t n = 1;
    for (int i = 0; i < xd->nbDims; i++)
        n *= xd->dims[i];
    cudnnDataType_t xt = scalar_type(xd->dtype), yt = scalar_type(yd->dtype);
    for (int64_t e = 0; e < n; e++) {
        for (int i = 0; i < xd->nbDims; i++)
            yidx[i] = idx[i] + (before ? before[i] : 0);
        int64_t oy = elem_off(yd, yidx);
        double v = alpha * hd_ld1(xt, x, elem_off(xd, idx));
        if (beta != 0)
            v += beta * hd_ld1(yt, y, oy);
        hd_st1(yt, y, oy, v);
        for (int i = xd->nbDims - 1; i >= 0; i--) {
            if (++idx[i] < xd->dims[i])
                break;
            idx[i] = 0;
        }
    }
}

/* y (with padding BEFORE around the box of x's dims) = alpha * x + beta * y; validated. */
static void run_transform(cudnnHandle_t handle, const tensor_t *xd, const void *x, const tensor_t *yd, void *y,
                          const int32_t *before, int padded, double alpha, double beta)
{
    if (padded) {
        /* the padding reads as zero: scale all of y by beta first, then add the box */
        int64_t dims[CUDNN_DIM_MAX], sy[CUDNN_DIM_MAX];
        hd_tensor_dims64(yd, dims, sy);
        if (yd->vect_c > 1) {
            size_t bytes = hd_tensor_span_bytes(yd);
            if (beta == 0) {
                memset(y, 0, bytes);
            } else {
                int64_t n = (int64_t)(bytes / hd_dtype_size(yd->dtype)) * yd->vect_c;
                cudnnDataType_t st = scalar_type(yd->dtype);
                for (int64_t i = 0; i < n; i++)
                    hd_st1(st, y, i, beta * hd_ld1(st, y, i));
            }
        } else {
            tr_ctx c = { yd->dtype, yd->dtype, beta != 0 ? y : NULL, y, beta, 0.0, hd_eltwise_kernels(handle->isa) };
            const int64_t *strides[2] = { sy, sy };
            hd_rows r;
            hd_rows_init(&r, yd->nbDims, dims, 2, strides);
            hd_rows_run(&r, handle->num_threads, tr_piece, &c);
        }
        beta = 1.0;
    }
    if (xd->vect_c > 1 || yd->vect_c > 1) {
        slow_copy(xd, x, yd, y, before, alpha, beta);
        return;
    }
    int64_t base = 0;
    for (int i = 0; i < yd->nbDims; i++)
        base += (int64_t)(before ? before[i] : 0) * yd->strides[i];
    size_t esize = hd_dtype_size(yd->dtype);
    void *ybox = (char *)y + (size_t)base * esize;

    /* packed float NCHW <-> NHWC without padding: a batch of 2-d transposes */
    if (!padded && xd->dtype == CUDNN_DATA_FLOAT && yd->dtype == CUDNN_DATA_FLOAT && xd->packed && yd->packed &&
        xd->nbDims >= 3 &&
        xd->format != yd->format) {
        int64_t n = xd->dims[0], c = xd->dims[1], s = 1;
        for (int i = 2; i < xd->nbDims; i++)
            s *= xd->dims[i];
        int to_nhwc = yd->format == CUDNN_TENSOR_NHWC;
        /* NCHW is [n][c][s]; NHWC is [n][s][c] */
        hd_f32_transpose(handle->isa, handle->num_threads, n, to_nhwc ? c : s, to_nhwc ? s : c, x, ybox,
                         (float)alpha, (float)beta);
        return;
    }
    tr_ctx c = { xd->dtype, yd->dtype, x, ybox, alpha, beta, hd_eltwise_kernels(handle->isa) };
    int64_t dims[CUDNN_DIM_MAX], sy[CUDNN_DIM_MAX], sx[CUDNN_DIM_MAX];
    hd_tensor_dims64(yd, dims, sy);
    hd_tensor_dims64(xd, dims, sx);
    const int64_t *strides[2] = { sy, sx };
    hd_rows r;
    hd_rows_init(&r, xd->nbDims, dims, 2, strides);
    hd_rows_run(&r, handle->num_threads, tr_piece, &c);
}

/* The element types may differ: a transform also converts (NVIDIA's mnistCUDNN sample turns
 * FLOAT data into HALF this way).  Values are converted through double; integer destinations
 * round and saturate as hd_st1 does. */
static cudnnStatus_t check_types(const char *fn, cudnnDataType_t xt, cudnnDataType_t yt)
{
    if (scalar_type(xt) == CUDNN_DATA_INT32 || scalar_type(yt) == CUDNN_DATA_INT32)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "INT32 tensors are not supported");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnTransformTensor)(cudnnHandle_t handle, const void *alpha,
                                            const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                            const cudnnTensorDescriptor_t yDesc, void *y)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_TENSOR(xDesc);
    HD_CHECK_TENSOR(yDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(y);
    if (!hd_same_dims(xDesc, yDesc))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xDesc and yDesc have different dimensions");
    HD_TRY(check_types(__func__, xDesc->dtype, yDesc->dtype));
    if (hd_tensors_overlap(xDesc, x, yDesc, y))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "x and y overlap");
    cudnnDataType_t st = xDesc->dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    run_transform(handle, xDesc, x, yDesc, y, NULL, 0, hd_scale_value(alpha, st), hd_scale_value(beta, st));
    return CUDNN_STATUS_SUCCESS;
}

/*
 * Folding (space-to-depth), 4-d tensors and filters, fold factors (fh, fw) from foldA and the
 * padding offsets (ph, pw) from padBeforeA of the spatial dimensions.  cuDNN 8.1 does not
 * document the element mapping, so hostdnn defines it (docs/ops.md) and uses the same one in
 * cudnnGetFoldedConvBackwardDataDescriptors:
 *   FOLD:    dst[n][(c*fh + a)*fw + b][i][j] = src[n][c][fh*i + a - ph][fw*j + b - pw]  (0 outside src)
 *   UNFOLD:  dst[n][c][h][w] = src[n][(c*fh + a)*fw + b][i][j]  where h + ph = fh*i + a and
 *            w + pw = fw*j + b  (0 where (i, j) falls outside src)
 * then dst = alpha * value + beta * dst as for any transform.
 */
static cudnnStatus_t check_fold(const char *fn, const struct cudnnTensorTransformStruct *d, const tensor_t *xd,
                                const tensor_t *yd)
{
    if (d->nbDims != 4 || xd->nbDims != 4 || yd->nbDims != 4)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "folding is implemented for 4-d tensors only");
    if (xd->vect_c > 1 || yd->vect_c > 1)
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "folding of vectorised (NCHW_VECT_C) data is not supported");
    if (has_negative_pad(d))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "negative padding (cropping) is not supported");
    cudnnStatus_t st = check_fold_factors(fn, d);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    int64_t f = (int64_t)d->fold[0] * d->fold[1];
    const tensor_t *few = d->direction == CUDNN_TRANSFORM_FOLD ? xd : yd;   /* the unfolded side */
    const tensor_t *many = d->direction == CUDNN_TRANSFORM_FOLD ? yd : xd;  /* the folded side */
    if (xd->dims[0] != yd->dims[0] || (int64_t)few->dims[1] * f != many->dims[1])
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn,
                       "folded tensor must have N equal and C = %lld x the unfolded C (%d vs %d)", (long long)f,
                       many->dims[1], few->dims[1]);
    return check_types(fn, xd->dtype, yd->dtype);
}

static void run_fold(const struct cudnnTensorTransformStruct *d, const tensor_t *xd, const void *x, const tensor_t *yd,
                     void *y, double alpha, double beta)
{
    const int64_t fh = d->fold[0], fw = d->fold[1], ph = d->pad_before[2], pw = d->pad_before[3];
    const cudnnDataType_t xt = scalar_type(xd->dtype), yt = scalar_type(yd->dtype);
    const int fold = d->direction == CUDNN_TRANSFORM_FOLD;
    for (int64_t n = 0; n < yd->dims[0]; n++)
        for (int64_t c = 0; c < yd->dims[1]; c++)
            for (int64_t h = 0; h < yd->dims[2]; h++)
                for (int64_t w = 0; w < yd->dims[3]; w++) {
                    int64_t sc, sh, sw;          /* source element */
                    if (fold) {
                        int64_t a = (c / fw) % fh, b = c % fw;
                        sc = c / (fh * fw), sh = fh * h + a - ph, sw = fw * w + b - pw;
                    } else {
                        int64_t a = (h + ph) % fh, b = (w + pw) % fw;
                        sc = (c * fh + a) * fw + b, sh = (h + ph) / fh, sw = (w + pw) / fw;
                    }
                    double v = 0;
                    if (sh >= 0 && sh < xd->dims[2] && sw >= 0 && sw < xd->dims[3])
                        v = hd_ld1(xt, x, n * xd->strides[0] + sc * xd->strides[1] + sh * xd->strides[2] +
                                              sw * xd->strides[3]);
                    int64_t o = n * yd->strides[0] + c * yd->strides[1] + h * yd->strides[2] + w * yd->strides[3];
                    double r = alpha * v;
                    if (beta != 0)
                        r += beta * hd_ld1(yt, y, o);
                    hd_st1(yt, y, o, r);
                }
}

static cudnnStatus_t check_ex(const char *fn, const struct cudnnTensorTransformStruct *d, const tensor_t *xd,
                              const tensor_t *yd, int *padded)
{
    if ((int)d->nbDims != xd->nbDims || xd->nbDims != yd->nbDims)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "transDesc, srcDesc and destDesc must have the same nbDims");
    /* (folding never reaches here: callers take check_fold when the descriptor folds) */
    if (has_negative_pad(d))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn, "negative padding (cropping) is not supported");
    *padded = 0;
    for (int i = 0; i < xd->nbDims; i++) {
        int64_t want = (int64_t)xd->dims[i] + d->pad_before[i] + d->pad_after[i];
        if (yd->dims[i] != want)
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dest dim %d is %d; src %d plus padding %d + %d gives %lld", i,
                           yd->dims[i], xd->dims[i], d->pad_before[i], d->pad_after[i], (long long)want);
        *padded |= d->pad_before[i] != 0 || d->pad_after[i] != 0;
    }
    return check_types(fn, xd->dtype, yd->dtype);
}

cudnnStatus_t HD_IMPL(cudnnTransformTensorEx)(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                                              const void *alpha, const cudnnTensorDescriptor_t srcDesc,
                                              const void *srcData, const void *beta,
                                              const cudnnTensorDescriptor_t destDesc, void *destData)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(transDesc, HD_TAG_TRANSFORM);
    if (transDesc->nbDims == 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "transDesc was never set");
    HD_CHECK_TENSOR(srcDesc);
    HD_CHECK_TENSOR(destDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(srcData);
    HD_CHECK_PTR(destData);
    int padded = 0, folded = has_fold(transDesc);
    HD_TRY(folded ? check_fold(__func__, transDesc, srcDesc, destDesc)
                  : check_ex(__func__, transDesc, srcDesc, destDesc, &padded));
    if (hd_tensors_overlap(srcDesc, srcData, destDesc, destData))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "srcData and destData overlap");
    cudnnDataType_t st = srcDesc->dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    if (folded)
        run_fold(transDesc, srcDesc, srcData, destDesc, destData, hd_scale_value(alpha, st), hd_scale_value(beta, st));
    else
        run_transform(handle, srcDesc, srcData, destDesc, destData, transDesc->pad_before, padded,
                      hd_scale_value(alpha, st), hd_scale_value(beta, st));
    return CUDNN_STATUS_SUCCESS;
}

/* A filter seen as a packed tensor of its format (K, C, spatial in logical order). */
static int filter_view(const struct cudnnFilterStruct *f, tensor_t *t)
{
    memset(t, 0, sizeof *t);
    t->obj.tag = HD_TAG_TENSOR;
    t->dtype = f->dtype;
    t->nbDims = f->nbDims;
    t->format = f->format;
    t->vect_c = f->vect_c;
    for (int i = 0; i < f->nbDims; i++)
        t->dims[i] = f->dims[i];
    if (f->vect_c > 1 && f->dims[1] % f->vect_c != 0)
        return -1;
    if (hd_packed_strides(f->format, f->nbDims, f->dims, f->vect_c, t->strides) != 0)
        return -1;
    t->packed = 1;
    return 0;
}

cudnnStatus_t HD_IMPL(cudnnTransformFilter)(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                                            const void *alpha, const cudnnFilterDescriptor_t srcDesc,
                                            const void *srcData, const void *beta,
                                            const cudnnFilterDescriptor_t destDesc, void *destData)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(transDesc, HD_TAG_TRANSFORM);
    if (transDesc->nbDims == 0)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "transDesc was never set");
    HD_CHECK_FILTER(srcDesc);
    HD_CHECK_FILTER(destDesc);
    HD_CHECK_PTR(alpha);
    HD_CHECK_PTR(beta);
    HD_CHECK_PTR(srcData);
    HD_CHECK_PTR(destData);
    tensor_t xs, ys;
    if (filter_view(srcDesc, &xs) != 0 || filter_view(destDesc, &ys) != 0)
        return HD_FAIL(CUDNN_STATUS_NOT_SUPPORTED, "NCHW_VECT_C filters need C a multiple of the vector width");
    if (destDesc->format != transDesc->format)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "destDesc format %s differs from transDesc's %s",
                       hd_enum_name_cudnnTensorFormat_t(destDesc->format),
                       hd_enum_name_cudnnTensorFormat_t(transDesc->format));
    int padded = 0, folded = has_fold(transDesc);
    HD_TRY(folded ? check_fold(__func__, transDesc, &xs, &ys) : check_ex(__func__, transDesc, &xs, &ys, &padded));
    if (hd_tensors_overlap(&xs, srcData, &ys, destData))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "srcData and destData overlap");
    cudnnDataType_t st = xs.dtype == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    if (folded)
        run_fold(transDesc, &xs, srcData, &ys, destData, hd_scale_value(alpha, st), hd_scale_value(beta, st));
    else
        run_transform(handle, &xs, srcData, &ys, destData, transDesc->pad_before, padded, hd_scale_value(alpha, st),
                      hd_scale_value(beta, st));
    return CUDNN_STATUS_SUCCESS;
}
