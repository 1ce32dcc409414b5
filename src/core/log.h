/*
 * core/log.h -- cuDNN-style API logging.
 *
 * Controlled like cuDNN 8: CUDNN_LOGINFO_DBG, CUDNN_LOGWARN_DBG, CUDNN_LOGERR_DBG (0/1) enable
 * the levels, CUDNN_LOGDEST_DBG names the destination (stdout, stderr or a file path), and
 * cudnnSetCallback changes the severity mask and/or routes messages to a user function.
 */
#ifndef HD_CORE_LOG_H
#define HD_CORE_LOG_H

#include <stdarg.h>

/* Cheap test done by every generated entry point before it formats anything. */
int hd_log_info_enabled(void);
int hd_log_enabled(cudnnSeverity_t sev);

/* Building an info record for one API call: begin, one line per argument, end. */
void hd_log_call_begin(const char *fn);
void hd_log_arg_ptr(const char *name, const char *type, const void *p);
void hd_log_arg_enum(const char *name, const char *type, int v, const char *vname);
void hd_log_arg_int(const char *name, const char *type, long long v);
void hd_log_arg_uint(const char *name, const char *type, unsigned long long v);
void hd_log_arg_double(const char *name, const char *type, double v);
void hd_log_call_end(const void *handle);

/* One message of the given severity about function FN (may be NULL). */
void hd_logf(cudnnSeverity_t sev, const char *fn, cudnnStatus_t status, const char *fmt, ...) HD_PRINTF(4, 5);

/* The same, with NTAGS integers for the record's cudnnDebug_t reserved fields (structured
 * facts a callback can read without parsing the text; include/hostdnn.h lists them). */
#define HD_DEBUG_TAG_CONV_DISPATCH 0x68640c01   /* reserved[0] of a convolution dispatch record:
                                                 * reserved[1..3] = solver id, direction, algo */
void hd_logf_tagged(cudnnSeverity_t sev, const char *fn, cudnnStatus_t status, const int *tags, int ntags,
                    const char *fmt, ...) HD_PRINTF(6, 7);

/* Report a refused call: logs "FN: reason" at error level and returns STATUS.  Used as
 *     return HD_FAIL(CUDNN_STATUS_BAD_PARAM, "n must be positive (got %d)", n);  */
cudnnStatus_t hd_fail(cudnnStatus_t status, const char *fn, const char *fmt, ...) HD_PRINTF(3, 4);
#define HD_FAIL(status, ...) hd_fail((status), __func__, __VA_ARGS__)

/* Same at warning level.  Never for an error return: a refusal must be visible with
 * CUDNN_LOGERR_DBG=1 alone, so every non-SUCCESS answer logs through hd_fail (docs/logging.md;
 * tests/scripts/log_levels.sh fails on `return hd_warn(CUDNN_STATUS_...`). */
cudnnStatus_t hd_warn(cudnnStatus_t status, const char *fn, const char *fmt, ...) HD_PRINTF(3, 4);

/* The answer of a generated stub: an error naming the function, then NOT_SUPPORTED. */
cudnnStatus_t hd_not_implemented(const char *fn);

/* The callback settings: libcudnn_ops_infer owns them (src/ops/infer/callback.c) and logs
 * for every sub-library; the libraries outside cuDNN (libcublas, libhostdnn) follow the
 * environment only (src/core/standalone/callback_env.c). */
void hd_log_callback_state(unsigned *mask, void **udata, cudnnCallback_t *fptr);

/* Re-read the CUDNN_LOG* environment variables (tests use this after setenv). */
void hd_log_reload_env(void);
unsigned hd_log_env_mask(void);

/* The default callback: writes the message to the CUDNN_LOGDEST_DBG destination. */
void hd_log_default_callback(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg);

#endif /* HD_CORE_LOG_H */
