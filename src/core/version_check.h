/*
 * core/version_check.h -- the body of the cudnn*VersionCheck functions of the sub-libraries
 * above ops_infer: is this library of the same release as the libcudnn_ops_infer it runs on?
 */
#ifndef HD_CORE_VERSION_CHECK_H
#define HD_CORE_VERSION_CHECK_H

/* SUCCESS when libcudnn_ops_infer (as loaded) is release BUILT_AS; VERSION_MISMATCH, logged
 * under FN, otherwise.  Defined in ops_infer (the process-wide runtime). */
cudnnStatus_t hd_runtime_version_check(int built_as, const char *fn);

/* The caller's release is the CUDNN_VERSION it was compiled with. */
static inline cudnnStatus_t hd_version_check_against_ops_infer(const char *fn)
{
    return hd_runtime_version_check(CUDNN_VERSION, fn);
}

#endif
