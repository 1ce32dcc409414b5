/* core/status.h -- cuDNN status codes as text. */
#ifndef HD_CORE_STATUS_H
#define HD_CORE_STATUS_H

/* cuDNN's exact name for STATUS ("CUDNN_STATUS_BAD_PARAM"), or "CUDNN_UNKNOWN_STATUS". */
const char *hd_status_name(cudnnStatus_t status);

#endif
