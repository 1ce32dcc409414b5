/*
 * Fused-ops plans.  Create/Destroy are complete; cudnnMakeFusedOpsPlan and
 * cudnnFusedOpsExecute validate their arguments and then answer NOT_SUPPORTED: the fused
 * kernels (scale/bias/activation + convolution + BN statistics, ...) need the convolution
 * engine, which is owned by the convolution developer (docs/fused-ops.md lists what is
 * missing).
 */
#include "core/api.h"
#include "core/check.h"
#include "core/handle.h"
#include "cnn/train/fused_ops.h"

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

cudnnStatus_t HD_IMPL(cudnnDestroyFusedOpsPlan)(cudnnFusedOpsPlan_t plan)
{
    if (!plan)
        return CUDNN_STATUS_SUCCESS;
    HD_CHECK_DESC(plan, HD_TAG_FUSED_PLAN);
    hd_object_free(plan);
    return CUDNN_STATUS_SUCCESS;
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
    return hd_warn(CUDNN_STATUS_NOT_SUPPORTED, __func__,
                   "%s is not implemented in hostdnn yet (fused kernels need the convolution engine)",
                   hd_enum_name_cudnnFusedOps_t((int)plan->op));
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
    return hd_warn(CUDNN_STATUS_NOT_SUPPORTED, __func__,
                   "%s is not implemented in hostdnn yet (no plan can be made; see docs/fused-ops.md)",
                   hd_enum_name_cudnnFusedOps_t((int)plan->op));
}
