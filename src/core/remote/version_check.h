#ifndef HD_CORE_VERSION_CHECK_H
#define HD_CORE_VERSION_CHECK_H
/* SUCCESS when libcudnn_ops_infer (as loaded) reports the release this library was built as;
 * VERSION_MISMATCH, logged, otherwise. */
cudnnStatus_t hd_version_check_against_ops_infer(const char *fn);
#endif
