/*
 * Dropout descriptor and cudnnDropoutForward: y = x * mask / (1 - p), mask[i] = 0 with
 * probability p.
 *
 * The generator is Philox-4x32-10 keyed by the seed kept in the states buffer (see
 * core/dropout_desc.h).  Element i (row-major logical index, so the mask does not depend
 * on the layout or the thread count) of a forward call uses word i % 4 of block
 * counter + i / 4; afterwards the counter advances past the blocks used, so the next call
 * draws fresh numbers.  An element is dropped when its uniform number is below p.
 * The reserve space holds one byte per element (1 kept, 0 dropped) for the backward pass.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/dropout_desc.h"
#include "core/handle.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "core/dropout_draw.h"
#include "ops/common.h"

#include <string.h>

typedef struct cudnnDropoutStruct dropout_t;

cudnnStatus_t HD_IMPL(cudnnCreateDropoutDescriptor)(cudnnDropoutDescriptor_t *dropoutDesc)
{
    HD_CHECK_PTR(dropoutDesc);
    dropout_t *d = hd_object_new(sizeof *d, HD_TAG_DROPOUT);
    if (!d)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    *dropoutDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDestroyDropoutDescriptor)(cudnnDropoutDescriptor_t dropoutDesc)
{
    if (!dropoutDesc)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(dropoutDesc, HD_TAG_DROPOUT);
    hd_object_free(dropoutDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDropoutGetStatesSize)(cudnnHandle_t handle, size_t *sizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(sizeInBytes);
    *sizeInBytes = HD_DROPOUT_STATES_BYTES;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnDropoutGetReserveSpaceSize)(cudnnTensorDescriptor_t xdesc, size_t *sizeInBytes)
{
    HD_CHECK_TENSOR(xdesc);
    HD_CHECK_PTR(sizeInBytes);
    *sizeInBytes = (size_t)hd_tensor_elems(xdesc) * (size_t)xdesc->vect_c;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t check_p(const char *fn, float dropout)
{
    if (!(dropout >= 0.0f && dropout < 1.0f))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "dropout %g must be in [0, 1)", (double)dropout);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnSetDropoutDescriptor)(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle,
                                                 float dropout, void *states, size_t stateSizeInBytes,
                                                 unsigned long long seed)
{
    HD_CHECK_DESC(dropoutDesc, HD_TAG_DROPOUT);
    HD_CHECK_HANDLE(handle);
    HD_TRY(check_p(__func__, dropout));
    if (states && stateSizeInBytes < HD_DROPOUT_STATES_BYTES)
        return HD_FAIL(CUDNN_STATUS_INVALID_VALUE, "stateSizeInBytes %zu is below cudnnDropoutGetStatesSize (%u)",
                       stateSizeInBytes, HD_DROPOUT_STATES_BYTES);
    dropoutDesc->dropout = dropout;
    dropoutDesc->handle = handle;
    if (states) {
        /* a NULL states buffer only updates the probability, as cuDNN documents */
        struct hd_dropout_state s = { HD_DROPOUT_STATE_MAGIC, 0, seed, 0 };
        memcpy(states, &s, sizeof s);
        dropoutDesc->states = states;
        dropoutDesc->states_size = stateSizeInBytes;
        dropoutDesc->seed = seed;
    }
    dropoutDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnRestoreDropoutDescriptor)(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle,
                                                     float dropout, void *states, size_t stateSizeInBytes,
                                                     unsigned long long seed)
{
    HD_CHECK_DESC(dropoutDesc, HD_TAG_DROPOUT);
    HD_CHECK_HANDLE(handle);
    HD_TRY(check_p(__func__, dropout));
    HD_CHECK_PTR(states);
    if (stateSizeInBytes < HD_DROPOUT_STATES_BYTES)
        return HD_FAIL(CUDNN_STATUS_INVALID_VALUE, "stateSizeInBytes %zu is below cudnnDropoutGetStatesSize (%u)",
                       stateSizeInBytes, HD_DROPOUT_STATES_BYTES);
    struct hd_dropout_state s;
    memcpy(&s, states, sizeof s);
    if (s.magic != HD_DROPOUT_STATE_MAGIC)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "states was never initialised by cudnnSetDropoutDescriptor");
    /* the buffer's own seed drives the generator; SEED is recorded as given */
    dropoutDesc->dropout = dropout;
    dropoutDesc->handle = handle;
    dropoutDesc->states = states;
    dropoutDesc->states_size = stateSizeInBytes;
    dropoutDesc->seed = seed;
    dropoutDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnGetDropoutDescriptor)(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle,
                                                 float *dropout, void **states, unsigned long long *seed)
{
    HD_CHECK_DESC(dropoutDesc, HD_TAG_DROPOUT);
    HD_CHECK_HANDLE(handle);
    HD_CHECK_PTR(dropout);
    HD_CHECK_PTR(states);
    HD_CHECK_PTR(seed);
    if (!dropoutDesc->is_set)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dropoutDesc was never set");
    *dropout = dropoutDesc->dropout;
    *states = dropoutDesc->states;
    *seed = dropoutDesc->seed;
    return CUDNN_STATUS_SUCCESS;
}

#define DO_CHUNK 8192   /* elements per task: a multiple of 4 so blocks never straddle tasks */

typedef struct {
    cudnnDataType_t dt;
    int nd;
    int64_t dims[CUDNN_DIM_MAX], sx[CUDNN_DIM_MAX], sy[CUDNN_DIM_MAX];
    const void *x;
    void *y;
    unsigned char *mask;
    float p;
    double scale;
    uint64_t key, counter;
    int64_t n;
} do_ctx;

static void do_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    const do_ctx *c = vctx;
    int64_t lo = (int64_t)task * DO_CHUNK, hi = lo + DO_CHUNK < c->n ? lo + DO_CHUNK : c->n;
    int64_t idx[CUDNN_DIM_MAX], rem = lo, ox = 0, oy = 0;
    for (int i = c->nd - 1; i >= 0; i--) {
        idx[i] = rem % c->dims[i];
        rem /= c->dims[i];
        ox += idx[i] * c->sx[i];
        oy += idx[i] * c->sy[i];
    }
    uint32_t words[4];
    for (int64_t e = lo; e < hi; e++) {
        if ((e & 3) == 0 || e == lo)
            hd_dropout_block(c->key, c->counter + (uint64_t)(e >> 2), words);
        int keep = hd_dropout_kept(words[e & 3], c->p);
        c->mask[e] = (unsigned char)keep;
        double v = keep ? hd_ld1(c->dt, c->x, ox) * c->scale : 0.0;
        hd_st1(c->dt, c->y, oy, v);
        for (int i = c->nd - 1; i >= 0; i--) {
            ox += c->sx[i];
            oy += c->sy[i];
            if (++idx[i] < c->dims[i])
                break;
            ox -= c->dims[i] * c->sx[i];
            oy -= c->dims[i] * c->sy[i];
            idx[i] = 0;
        }
    }
}

cudnnStatus_t HD_IMPL(cudnnDropoutForward)(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                                           const cudnnTensorDescriptor_t xdesc, const void *x,
                                           const cudnnTensorDescriptor_t ydesc, void *y, void *reserveSpace,
                                           size_t reserveSpaceSizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(dropoutDesc, HD_TAG_DROPOUT);
    if (!dropoutDesc->is_set || !dropoutDesc->states)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "dropoutDesc has no initialised states buffer");
    HD_CHECK_TENSOR(xdesc);
    HD_CHECK_TENSOR(ydesc);
    HD_CHECK_PTR(x);
    HD_CHECK_PTR(y);
    HD_CHECK_PTR(reserveSpace);
    if (!hd_same_dims(xdesc, ydesc))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "xdesc and ydesc have different dimensions");
    if (xdesc->dtype != ydesc->dtype)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "x is %s but y is %s", hd_dtype_name(xdesc->dtype),
                       hd_dtype_name(ydesc->dtype));
    HD_TRY(hd_check_fp_type(__func__, "xdesc", xdesc->dtype));
    int64_t n = hd_tensor_elems(xdesc);
    if (reserveSpaceSizeInBytes < (size_t)n)
        return HD_FAIL(CUDNN_STATUS_INVALID_VALUE, "reserveSpaceSizeInBytes %zu is below the %lld needed",
                       reserveSpaceSizeInBytes, (long long)n);
    HD_TRY(hd_check_alias(__func__, "x", xdesc, x, "y", ydesc, y));
    if (!hd_dropout_states_ok(dropoutDesc->states))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the states buffer does not hold an initialised generator");

    do_ctx c;
    c.dt = xdesc->dtype;
    c.nd = xdesc->nbDims;
    hd_tensor_dims64(xdesc, c.dims, c.sx);
    hd_tensor_dims64(ydesc, c.dims, c.sy);
    c.x = x;
    c.y = y;
    c.mask = reserveSpace;
    c.p = dropoutDesc->dropout;
    c.scale = 1.0 / (1.0 - (double)dropoutDesc->dropout);
    hd_dropout_take(dropoutDesc->states, (uint64_t)n, &c.key, &c.counter);
    c.n = n;
    hd_parallel_for((size_t)((n + DO_CHUNK - 1) / DO_CHUNK), handle->num_threads, do_task, &c);
    return CUDNN_STATUS_SUCCESS;
}
