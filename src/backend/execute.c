/*
 * cudnnBackendExecute: run a finalized plan (engines.c) on the variant pack's pointers.
 *
 * Every pointer the plan needs is looked up and checked before anything is written, so a
 * bad variant pack leaves the outputs untouched.  The head runs on the engine layer (the
 * convolution solver the plan chose, through the same registry as the legacy convolution
 * functions; or the matmul of fusion/), then the pointwise chain (fusion/pw_chain.c) in one
 * pass over the output, unless the convolution's store already applied it.  Virtual
 * tensors live in the workspace the plan reported.  No exported cudnn* function is called:
 * a user's log shows only the backend calls they made.
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "core/status.h"
#include "backend/plan.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define A(x) CUDNN_ATTR_##x
#define B(x) CUDNN_BACKEND_##x##_DESCRIPTOR

/* The pointer the variant pack gives for UID; 0 when it has none. */
static int lookup(const hd_bdesc *vp, int64_t uid, void **out)
{
    const hd_battr *u = hd_bdesc_find(vp, A(VARIANT_PACK_UNIQUE_IDS)), *ptr = hd_bdesc_find(vp, A(VARIANT_PACK_DATA_POINTERS));
    for (int64_t i = 0; u && i < u->count; i++)
        if (((int64_t *)u->data)[i] == uid) {
            *out = ((void **)ptr->data)[i];
            return 1;
        }
    return 0;
}

/* The user's pointer for tensor T (checked), or the workspace region of a virtual one. */
static cudnnStatus_t pointer(const hd_bdesc *vp, const hd_bdesc *t, void *virt, void **out)
{
    if (hd_btensor_virtual(t)) {
        *out = virt;
        return CUDNN_STATUS_SUCCESS;
    }
    int64_t uid = hd_btensor_uid(t);
    if (!lookup(vp, uid, out))
        return hd_fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendExecute", "the variant pack has no pointer for unique id %lld",
                       (long long)uid);
    if (!*out)
        return hd_fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendExecute", "the variant pack's pointer for unique id %lld is NULL",
                       (long long)uid);
    return CUDNN_STATUS_SUCCESS;
}

#define TRY(x) do { cudnnStatus_t st_ = (x); if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

static float clip_float(double v)
{
    return v >= FLT_MAX ? INFINITY : v <= -FLT_MAX ? -INFINITY : (float)v;
}

/* The chain's view of tensor T at PTR over the chain's dims: broadcast dimensions step 0. */
static void view_of(const hd_bdesc *t, void *ptr, const hd_pw_chain *c, hd_pw_view *v)
{
    int64_t d[CUDNN_DIM_MAX], s[CUDNN_DIM_MAX];
    hd_btensor_dims(t, d, s);
    v->ptr = ptr;
    v->dt = (cudnnDataType_t)hd_btensor_dtype(t);
    for (int i = 0; i < c->nd; i++)
        v->strides[i] = d[i] == 1 && c->dims[i] != 1 ? 0 : s[i];
}

/* Fill the chain's steps from the plan's graph, with the user's pointers (checked). */
static cudnnStatus_t build_chain(const hd_bplan *p, const hd_bdesc *vp, hd_pw_chain *c)
{
    const hd_bgraph *g = &p->g;
    for (int k = 0; k < g->nchain; k++) {
        const hd_bdesc *op = g->chain[k], *in, *other, *out;
        const hd_bdesc *pw = hd_bget_desc(op, A(OPERATION_POINTWISE_PW_DESCRIPTOR), 0);
        hd_bpw_tensors(op, g->swapped[k], &in, &other, &out);
        hd_pw_step *s = &c->step[k];
        memset(s, 0, sizeof *s);
        double a1 = 1, a2 = 1, lo = 0, hi = DBL_MAX, slope = 0, ea = 1, sb = 1, wb = 1;
        int nan = CUDNN_NOT_PROPAGATE_NAN;
        hd_bget_int(pw, A(POINTWISE_MODE), &s->mode);
        hd_bget_int(pw, A(POINTWISE_NAN_PROPAGATION), &nan);
        s->propagate_nan = nan == CUDNN_PROPAGATE_NAN;
        hd_bget_double(op, A(OPERATION_POINTWISE_ALPHA1), &a1);
        hd_bget_double(op, A(OPERATION_POINTWISE_ALPHA2), &a2);
        hd_bget_double(pw, A(POINTWISE_RELU_LOWER_CLIP), &lo);
        hd_bget_double(pw, A(POINTWISE_RELU_UPPER_CLIP), &hi);
        hd_bget_double(pw, A(POINTWISE_RELU_LOWER_CLIP_SLOPE), &slope);
        hd_bget_double(pw, A(POINTWISE_ELU_ALPHA), &ea);
        hd_bget_double(pw, A(POINTWISE_SOFTPLUS_BETA), &sb);
        hd_bget_double(pw, A(POINTWISE_SWISH_BETA), &wb);
        /* ALPHA1 scales x and ALPHA2 b: when the chain enters through b they trade places. */
        s->alpha1 = (float)(g->swapped[k] ? a2 : a1);
        s->alpha2 = (float)(g->swapped[k] ? a1 : a2);
        s->lower_clip = clip_float(lo), s->upper_clip = clip_float(hi), s->slope = (float)slope;
        s->elu_alpha = (float)ea, s->softplus_beta = (float)sb, s->swish_beta = (float)wb;
        if (other) {
            void *ptr;
            TRY(pointer(vp, other, NULL, &ptr));
            s->has_other = 1;
            view_of(other, ptr, c, &s->other);
        }
        if (!hd_btensor_virtual(out)) {
            void *ptr;
            TRY(pointer(vp, out, NULL, &ptr));
            s->store = 1;
            view_of(out, ptr, c, &s->out);
        }
    }
    c->nsteps = g->nchain;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t run_conv(cudnnHandle_t handle, const hd_bplan *p, const hd_bdesc *vp, char *ws, const char *fn)
{
    const hd_bgraph *g = &p->g;
    const hd_bdesc *conv, *x, *w, *y;
    double alpha, beta;
    hd_bconv_parts(g->head, &conv, &x, &w, &y, &alpha, &beta);
    void *px, *pw, *py, *bias = NULL, *z = NULL;
    /* The convolution writes its own output (perhaps virtual), or the chain's last tensor
     * when its store applies the chain. */
    void *virt = p->virt_bytes ? ws + p->virt_off : NULL;
    TRY(pointer(vp, x, virt, &px));
    TRY(pointer(vp, w, virt, &pw));
    TRY(pointer(vp, y, virt, &py));
    if (p->epilogue) {
        void *final;
        TRY(pointer(vp, g->out, NULL, &final));
        if (p->uid_bias >= 0 && !lookup(vp, p->uid_bias, &bias))
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the variant pack has no pointer for unique id %lld",
                           (long long)p->uid_bias);
        if (p->uid_z >= 0 && !lookup(vp, p->uid_z, &z))
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "the variant pack has no pointer for unique id %lld",
                           (long long)p->uid_z);
        if ((p->uid_bias >= 0 && !bias) || (p->uid_z >= 0 && !z))
            return hd_fail(CUDNN_STATUS_BAD_PARAM, fn, "a data pointer of the variant pack is NULL");
        if (p->uid_bias < 0) {
            memset(virt, 0, p->virt_bytes);
            bias = virt;
        }
        py = final;
    }
    hd_conv_problem prob;
    hd_conv_plan pl;
    const char *why = "";
    cudnnStatus_t st = hd_conv_setup(&prob, &p->x, &p->w, &p->conv, &p->y, fn);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (!hd_conv_plan_for(p->solver, &prob, &pl, &why))
        return hd_fail(CUDNN_STATUS_INTERNAL_ERROR, fn, "the plan's solver no longer takes the problem: %s", why);
    hd_conv_args a;
    memset(&a, 0, sizeof a);
    a.ws = p->ws_head ? ws : NULL;
    a.ws_size = p->ws_head;
    a.nthreads = handle->num_threads;
    /* Scalars as the legacy functions see them: float unless the data is DOUBLE. */
    a.epi.alpha = p->double_scalars ? p->alpha : (double)(float)p->alpha;
    a.epi.beta = p->double_scalars ? p->beta : (double)(float)p->beta;
    if (p->dir == HD_CONV_FWD)
        a.x = px, a.w = pw, a.out = py;
    else if (p->dir == HD_CONV_BWD_DATA)
        a.w = pw, a.y = py, a.out = px;
    else
        a.x = px, a.y = py, a.out = pw;
    if (p->epilogue) {
        a.epi.alpha = p->double_scalars ? p->epi_alpha : (double)(float)p->epi_alpha;
        a.epi.beta = 0;
        a.epi.fused = 1;
        a.epi.alpha2 = p->double_scalars ? p->epi_alpha2 : (double)(float)p->epi_alpha2;
        a.epi.z = z;
        a.epi.bias = bias;
        a.epi.bias_dt = (cudnnDataType_t)p->bias_dt;
        a.epi.bias_stride = p->bias_stride;
        a.epi.relu = p->epi_relu;
    }
    return hd_conv_run(&pl, &a, fn);
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
    const hd_bgraph *g = &p->g;
    char *ws = NULL;
    memcpy(&ws, hd_bdesc_find(vp, A(VARIANT_PACK_WORKSPACE))->data, sizeof ws);
    if (p->workspace > 0 && !ws)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the plan needs %zu bytes of workspace; the variant pack has none",
                       p->workspace);
    void *virt = p->virt_bytes ? ws + p->virt_off : NULL;

    /* Everything the chain touches is checked before the head writes anything. */
    hd_pw_chain c;
    memset(&c, 0, sizeof c);
    int run_chain = g->nchain > 0 && !p->epilogue;
    if (run_chain) {
        int64_t d[CUDNN_DIM_MAX];
        c.isa = (int)handle->isa;
        c.nd = hd_btensor_dims(g->head_out, d, NULL);
        memcpy(c.dims, d, (size_t)c.nd * sizeof *d);
        TRY(build_chain(p, vp, &c));
        void *in;
        TRY(pointer(vp, g->head_out, virt, &in));
        view_of(g->head_out, in, &c, &c.in);
        if (g->head_type == B(OPERATION_MATMUL) && hd_btensor_virtual(g->head_out)) {
            c.in.dt = CUDNN_DATA_FLOAT;      /* the matmul leaves a virtual C in packed float */
            memcpy(c.in.strides, p->mm.c.strides, sizeof c.in.strides);
        }
    }
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    if (g->head_type == B(OPERATION_MATMUL)) {
        hd_matmul_desc m = p->mm;
        const hd_bdesc *op = g->head;
        TRY(pointer(vp, hd_bget_desc(op, A(OPERATION_MATMUL_ADESC), 0), virt, &m.a.ptr));
        TRY(pointer(vp, hd_bget_desc(op, A(OPERATION_MATMUL_BDESC), 0), virt, &m.b.ptr));
        TRY(pointer(vp, hd_bget_desc(op, A(OPERATION_MATMUL_CDESC), 0), virt, &m.c.ptr));
        /* the chain runs on each block of C while the block is in cache */
        hd_matmul_run(&m, run_chain ? &c : NULL, ws, handle->num_threads);
        run_chain = 0;
    } else if (g->head) {
        st = run_conv(handle, p, vp, ws, __func__);
    }
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    if (run_chain)
        hd_pw_chain_run(&c, handle->num_threads);
    return CUDNN_STATUS_SUCCESS;
}
