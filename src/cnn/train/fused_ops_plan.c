/*
 * Fused-ops plans.  cudnnMakeFusedOpsPlan copies the constant pack into the plan, checks it
 * for the plan's op, works out the workspace and builds what Execute needs; a failed Make
 * leaves the plan as it was.  cudnnFusedOpsExecute reads pointers and scalars from the
 * variant pack.  Ops 0-3 are implemented (fused_ops_conv.c, fused_ops_bn_finalize.c);
 * ops 4-6 answer NOT_SUPPORTED (docs/fused-ops.md).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "cnn/train/fused_ops.h"

#include <string.h>

cudnnStatus_t HD_IMPL(cudnnCreateFusedOpsPlan)(cudnnFusedOpsPlan_t *plan, cudnnFusedOps_t ops)
{
    HD_CHECK_PTR(plan);
    if (!hd_fused_op_valid((int)ops))
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "ops %d is not a cudnnFusedOps_t", (int)ops);
    struct cudnnFusedOpsPlanStruct *p = hd_object_new(sizeof *p, HD_TAG_FUSED_PLAN);
    if (!p)
        return HD_FAIL(CUDNN_STATUS_ALLOC_FAILED, "out of host memory");
    p->op = ops;
    *plan = p;
    return CUDNN_STATUS_SUCCESS;
}

void hd_fused_made_release(hd_fused_made *m)
{
    memset(m, 0, sizeof *m);
}

cudnnStatus_t HD_IMPL(cudnnDestroyFusedOpsPlan)(cudnnFusedOpsPlan_t plan)
{
    if (!plan)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(plan, HD_TAG_FUSED_PLAN);
    hd_fused_made_release(&plan->m);
    hd_object_free(plan);
    return CUDNN_STATUS_SUCCESS;
}

static int implemented(cudnnFusedOps_t op)
{
    return op == CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS || op == CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD ||
           op == CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING || op == CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE;
}

static int conv_op(cudnnFusedOps_t op)
{
    return op == CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS || op == CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD;
}

cudnnStatus_t HD_IMPL(cudnnMakeFusedOpsPlan)(cudnnHandle_t handle, cudnnFusedOpsPlan_t plan,
                                             const cudnnFusedOpsConstParamPack_t constPack, size_t *workspaceSizeInBytes)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(plan, HD_TAG_FUSED_PLAN);
    HD_CHECK_DESC(constPack, HD_TAG_FUSED_CONST);
    HD_CHECK_PTR(workspaceSizeInBytes);
    if (constPack->op != plan->op)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "constPack is for %s but plan is for %s",
                       hd_enum_name_cudnnFusedOps_t((int)constPack->op), hd_enum_name_cudnnFusedOps_t((int)plan->op));
    if (!implemented(plan->op))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__,
                       "%s is not implemented in hostdnn (cuDNN 8.1 documents it as reserved for future use)",
                       hd_enum_name_cudnnFusedOps_t((int)plan->op));
    /* Work on a scratch plan, so that a failure leaves PLAN as it was. */
    hd_fused_plan next;
    memset(&next, 0, sizeof next);
    next.op = plan->op;
    memcpy(next.slot, constPack->slot, sizeof next.slot);
    cudnnStatus_t st = conv_op(plan->op) ? hd_fused_make_conv(&next, &next.m)
                                         : hd_fused_make_bn_finalize(&next, &next.m);
    if (st != CUDNN_STATUS_SUCCESS) {
        hd_fused_made_release(&next.m);
        return st;
    }
    hd_fused_made_release(&plan->m);
    memcpy(plan->slot, next.slot, sizeof plan->slot);
    plan->m = next.m;
    plan->made = 1;
    *workspaceSizeInBytes = plan->m.workspace;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t HD_IMPL(cudnnFusedOpsExecute)(cudnnHandle_t handle, const cudnnFusedOpsPlan_t plan,
                                            cudnnFusedOpsVariantParamPack_t varPack)
{
    HD_CHECK_HANDLE(handle);
    HD_CHECK_DESC(plan, HD_TAG_FUSED_PLAN);
    HD_CHECK_DESC(varPack, HD_TAG_FUSED_VARIANT);
    if (varPack->op != plan->op)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "varPack is for %s but plan is for %s",
                       hd_enum_name_cudnnFusedOps_t((int)varPack->op), hd_enum_name_cudnnFusedOps_t((int)plan->op));
    if (!implemented(plan->op))
        return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, __func__,
                       "%s is not implemented in hostdnn (no plan can be made; see docs/fused-ops.md)",
                       hd_enum_name_cudnnFusedOps_t((int)plan->op));
    if (!plan->made)
        return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "the plan was never made (call cudnnMakeFusedOpsPlan first)");
    return conv_op(plan->op) ? hd_fused_exec_conv(handle, plan, varPack) : hd_fused_exec_bn_finalize(plan, varPack);
}
