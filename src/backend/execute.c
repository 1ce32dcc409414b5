/*
 * Execution plans of hostdnn's one engine, and cudnnBackendExecute.
 *
 * At finalize, a plan whose graph is one convolution operation is translated into legacy
 * descriptors, owned by the plan and checked by the legacy setters' own rules
 * (core/desc_set.h), and its workspace is the legacy workspace size of algorithm 0.  Execute
 * looks the tensors up in the variant pack by unique id and runs the convolution engine
 * (conv/conv_api_util.h) exactly as cudnnConvolutionForward / BackwardData / BackwardFilter
 * do, without calling those exported functions: a user's log shows only the backend calls
 * they made.  What the legacy API cannot express (asymmetric padding, a filter that is
 * neither KCRS- nor KRSC-packed, vectorized tensors, sizes beyond int) is NOT_SUPPORTED at
 * finalize.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/desc_set.h"
#include "core/handle.h"
#include "core/status.h"
#include "backend/backend.h"
#include "conv/conv_api_util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define A(x) CUDNN_ATTR_##x
#define FN "cudnnBackendFinalize"

void hd_bplan_free(hd_bplan *p)
{
    free(p);
}

static cudnnStatus_t legacy_fail(const char *what, cudnnStatus_t st)
{
    if (st == CUDNN_STATUS_NOT_SUPPORTED)
        return hd_fail(st, FN, "the convolution engine refused %s (not available or not supported)", what);
    return hd_fail(st, FN, "the convolution engine refused %s", what);
}

static int read_tensor(const hd_bdesc *t, int *nb, int *dims, int *strides, cudnnDataType_t *dt)
{
    const hd_battr *d = hd_bdesc_find(t, A(TENSOR_DIMENSIONS)), *s = hd_bdesc_find(t, A(TENSOR_STRIDES));
    int64_t vc = 1;
    int type = CUDNN_DATA_FLOAT;
    hd_bget_i64(t, A(TENSOR_VECTOR_COUNT), &vc);
    hd_bget_int(t, A(TENSOR_DATA_TYPE), &type);
    if (vc != 1)
        return 0;
    *nb = (int)d->count;
    *dt = (cudnnDataType_t)type;
    for (int i = 0; i < *nb; i++) {
        int64_t a = ((int64_t *)d->data)[i], b = ((int64_t *)s->data)[i];
        if (a > INT_MAX || b > INT_MAX)
            return 0;
        dims[i] = (int)a;
        strides[i] = (int)b;
    }
    return 1;
}

static cudnnStatus_t make_tensor(const hd_bdesc *t, struct cudnnTensorStruct *out, cudnnDataType_t *dt)
{
    int nb, dims[CUDNN_DIM_MAX], strides[CUDNN_DIM_MAX];
    if (!read_tensor(t, &nb, dims, strides, dt))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, FN, "vectorized tensors or sizes beyond int do not run");
    hd_object_init(out, HD_TAG_TENSOR);
    cudnnStatus_t st = hd_tensor_set_strided(out, *dt, nb, dims, strides, FN);
    return st == CUDNN_STATUS_SUCCESS ? st : legacy_fail("a tensor (as cudnnSetTensorNdDescriptor)", st);
}

/* Are STRIDES the packed strides of DIMS taken in ORDER (outermost first)?  Size-1
 * dimensions may have any stride. */
static int packed_in_order(int nb, const int *dims, const int *strides, const int *order)
{
    int64_t expect = 1;
    for (int k = nb - 1; k >= 0; k--) {
        int i = order[k];
        if (dims[i] != 1 && strides[i] != expect)
            return 0;
        expect *= dims[i];
    }
    return 1;
}

static cudnnStatus_t make_filter(const hd_bdesc *t, struct cudnnFilterStruct *out)
{
    int nb, dims[CUDNN_DIM_MAX], strides[CUDNN_DIM_MAX];
    cudnnDataType_t dt;
    if (!read_tensor(t, &nb, dims, strides, &dt))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, FN, "vectorized filters or sizes beyond int do not run");
    int kcrs[CUDNN_DIM_MAX], krsc[CUDNN_DIM_MAX];
    for (int i = 0; i < nb; i++)
        kcrs[i] = i;
    krsc[0] = 0;
    for (int i = 1; i < nb - 1; i++)
        krsc[i] = i + 1;
    krsc[nb - 1] = 1;
    cudnnTensorFormat_t fmt;
    if (packed_in_order(nb, dims, strides, kcrs))
        fmt = CUDNN_TENSOR_NCHW;
    else if (packed_in_order(nb, dims, strides, krsc))
        fmt = CUDNN_TENSOR_NHWC;
    else
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, FN, "the filter tensor must be packed KCRS or KRSC to run");
    hd_object_init(out, HD_TAG_FILTER);
    cudnnStatus_t st = hd_filter_set(out, dt, fmt, nb, dims, FN);
    return st == CUDNN_STATUS_SUCCESS ? st : legacy_fail("the filter (as cudnnSetFilterNdDescriptor)", st);
}

static cudnnStatus_t make_conv(const hd_bdesc *c, int groups, struct cudnnConvolutionStruct *out)
{
    int64_t sd = 0;
    int mode = 0, comp = 0;
    hd_bget_i64(c, A(CONVOLUTION_SPATIAL_DIMS), &sd);
    hd_bget_int(c, A(CONVOLUTION_CONV_MODE), &mode);
    hd_bget_int(c, A(CONVOLUTION_COMP_TYPE), &comp);
    const int64_t *pre = hd_bdesc_find(c, A(CONVOLUTION_PRE_PADDINGS))->data,
                  *post = hd_bdesc_find(c, A(CONVOLUTION_POST_PADDINGS))->data,
                  *str = hd_bdesc_find(c, A(CONVOLUTION_FILTER_STRIDES))->data,
                  *dil = hd_bdesc_find(c, A(CONVOLUTION_DILATIONS))->data;
    int pad[CUDNN_DIM_MAX], stride[CUDNN_DIM_MAX], dilation[CUDNN_DIM_MAX];
    for (int i = 0; i < sd; i++) {
        if (pre[i] != post[i])
            return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, FN, "asymmetric padding (%lld before, %lld after) does not run",
                           (long long)pre[i], (long long)post[i]);
        pad[i] = (int)pre[i];
        stride[i] = (int)str[i];
        dilation[i] = (int)dil[i];
    }
    hd_object_init(out, HD_TAG_CONV);
    hd_conv_desc_defaults(out);
    cudnnStatus_t st = hd_conv_desc_set(out, (int)sd, pad, stride, dilation, (cudnnConvolutionMode_t)mode,
                                        (cudnnDataType_t)comp, FN);
    if (st == CUDNN_STATUS_SUCCESS && groups > 1)
        out->group_count = groups;
    return st == CUDNN_STATUS_SUCCESS ? st : legacy_fail("the convolution (as cudnnSetConvolutionNdDescriptor)", st);
}

static hd_conv_dir direction(int kind)
{
    if (kind == CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR)
        return HD_CONV_FWD;
    if (kind == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR)
        return HD_CONV_BWD_DATA;
    return HD_CONV_BWD_FILTER;
}

static int64_t uid_of(const hd_bdesc *t)
{
    int64_t u = -1;
    hd_bget_i64(t, A(TENSOR_UNIQUE_ID), &u);
    return u;
}

cudnnStatus_t hd_bplan_build(hd_bdesc *d, const hd_bdesc *op)
{
    hd_bplan_free(d->plan);
    d->plan = NULL;
    hd_bplan *p = calloc(1, sizeof *p);
    if (!p)
        return hd_fail(CUDNN_STATUS_ALLOC_FAILED, FN, "out of host memory");
    const hd_bdesc *conv, *x, *w, *y;
    p->alpha = 1;
    hd_bconv_parts(op, &conv, &x, &w, &y, &p->alpha, &p->beta);
    p->kind = (int)op->type;
    p->uid_x = uid_of(x);
    p->uid_w = uid_of(w);
    p->uid_y = uid_of(y);
    cudnnDataType_t dt;
    int64_t xc = ((int64_t *)hd_bdesc_find(x, A(TENSOR_DIMENSIONS))->data)[1];
    int64_t wc = ((int64_t *)hd_bdesc_find(w, A(TENSOR_DIMENSIONS))->data)[1];
    cudnnStatus_t st = make_tensor(x, &p->x, &dt);
    if (st == CUDNN_STATUS_SUCCESS)
        st = make_tensor(y, &p->y, &dt);
    if (st == CUDNN_STATUS_SUCCESS)
        st = make_filter(w, &p->w);
    if (st == CUDNN_STATUS_SUCCESS)
        st = make_conv(conv, (int)(xc / wc), &p->conv);
    p->double_scalars = dt == CUDNN_DATA_DOUBLE;
    if (st == CUDNN_STATUS_SUCCESS) {
        p->algo = 0;
        hd_conv_descs cd = {&p->x, &p->w, &p->conv, &p->y};
        st = hd_conv_api_workspace(direction(p->kind), &cd, p->algo, &p->workspace, FN);
        if (st != CUDNN_STATUS_SUCCESS)
            st = legacy_fail("the workspace query", st);
    }
    if (st != CUDNN_STATUS_SUCCESS) {
        hd_bplan_free(p);
        return st;
    }
    d->plan = p;
    return CUDNN_STATUS_SUCCESS;
}

/* The pointer the variant pack gives for UID, or NULL. */
static void *lookup(const hd_bdesc *vp, int64_t uid, int *found)
{
    const hd_battr *u = hd_bdesc_find(vp, A(VARIANT_PACK_UNIQUE_IDS)), *ptr = hd_bdesc_find(vp, A(VARIANT_PACK_DATA_POINTERS));
    *found = 0;
    for (int64_t i = 0; u && i < u->count; i++)
        if (((int64_t *)u->data)[i] == uid) {
            *found = 1;
            return ((void **)ptr->data)[i];
        }
    return NULL;
}

cudnnStatus_t HD_IMPL(cudnnBackendExecute)(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                           cudnnBackendDescriptor_t variantPack)
{
    HD_CHECK_HANDLE(handle);
    const hd_bdesc *pd = executionPlan, *vp = variantPack;
    if (!hd_bdesc_is(pd) || pd->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "executionPlan is not an execution plan descriptor (%s)",
                       hd_bdesc_is(pd) ? hd_bdesc_type_name((int)pd->type) : hd_object_kind(pd));
    if (!hd_bdesc_is(vp) || vp->type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "variantPack is not a variant pack descriptor (%s)",
                       hd_bdesc_is(vp) ? hd_bdesc_type_name((int)vp->type) : hd_object_kind(vp));
    if (!pd->finalized || !pd->plan)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "executionPlan is not finalized");
    if (!vp->finalized)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "variantPack is not finalized");
    const hd_bplan *p = pd->plan;
    int fx, fw, fy;
    void *x = lookup(vp, p->uid_x, &fx), *w = lookup(vp, p->uid_w, &fw), *y = lookup(vp, p->uid_y, &fy);
    if (!fx || !fw || !fy)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the variant pack has no pointer for unique id %lld",
                       (long long)(!fx ? p->uid_x : !fw ? p->uid_w : p->uid_y));
    if (!x || !w || !y)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "a data pointer of the variant pack is NULL");
    void *ws = NULL;
    memcpy(&ws, hd_bdesc_find(vp, A(VARIANT_PACK_WORKSPACE))->data, sizeof ws);
    if (p->workspace > 0 && !ws)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the plan needs %zu bytes of workspace; the variant pack has none",
                       p->workspace);
    float af = (float)p->alpha, bf = (float)p->beta;
    const void *alpha = p->double_scalars ? (const void *)&p->alpha : (const void *)&af;
    const void *beta = p->double_scalars ? (const void *)&p->beta : (const void *)&bf;
    /* x, w, y in the forward sense; the output is y, x (backward data) or w (backward filter). */
    hd_conv_dir dir = direction(p->kind);
    hd_conv_descs cd = {&p->x, &p->w, &p->conv, &p->y};
    hd_conv_args a = {0};
    a.ws = ws, a.ws_size = p->workspace;
    if (dir == HD_CONV_FWD)
        a.x = x, a.w = w, a.out = y;
    else if (dir == HD_CONV_BWD_DATA)
        a.w = w, a.y = y, a.out = x;
    else
        a.x = x, a.y = y, a.out = w;
    cudnnStatus_t st = hd_conv_api_run(handle, dir, &cd, p->algo, alpha, beta, a, __func__);
    if (st != CUDNN_STATUS_SUCCESS)
        return hd_fail(st, __func__, "the convolution failed (%s)", hd_status_name(st));
    return CUDNN_STATUS_SUCCESS;
}
