/* Is this sub-library of the same release as libcudnn_ops_infer? */
#include "core/api.h"
#include "core/version_check.h"

cudnnStatus_t HD_IMPL(cudnnOpsTrainVersionCheck)(void) { return hd_version_check_against_ops_infer(__func__); }
