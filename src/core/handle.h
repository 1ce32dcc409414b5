/*
 * core/handle.h -- the cudnnHandle_t object: hostdnn's per-user CPU context.
 *
 * A handle records the stream the user set (execution is synchronous on the calling thread,
 * so the stream only orders nothing), the thread count used by its computations, and a
 * scratch buffer that operations may borrow between calls.  The struct is shared by all
 * sub-libraries, so only append fields.
 */
#ifndef HD_CORE_HANDLE_H
#define HD_CORE_HANDLE_H

#include "core/object.h"

struct cudnnContext {
    hd_object obj;
    cudaStream_t stream;
    int num_threads;          /* threads used by ops of this handle (>= 1) */
    int isa;                  /* hd_isa_t in effect for this handle */
    void *scratch;            /* reusable internal buffer, 64-byte aligned */
    size_t scratch_size;
    cudnnStatus_t runtime_error;  /* what cudnnQueryRuntimeError reports */
    void *find_cache;         /* owned by the convolution library (cnn_infer) */
    void (*find_cache_free)(void *);
};

/* Check that H is a live handle; logs and returns BAD_PARAM otherwise. */
cudnnStatus_t hd_handle_check(cudnnHandle_t h, const char *fn);
#define HD_CHECK_HANDLE(h) do { cudnnStatus_t st_ = hd_handle_check((h), __func__); \
    if (st_ != CUDNN_STATUS_SUCCESS) return st_; } while (0)

/* The stream of H without validation (for log records); NULL when H is not a live handle. */
cudaStream_t hd_handle_stream_unchecked(cudnnHandle_t h);

/* Borrow at least BYTES of scratch memory owned by H (grown on demand, kept until destroy).
 * Returns NULL when out of memory.  Valid until the next call on this handle. */
void *hd_handle_scratch(cudnnHandle_t h, size_t bytes);

#endif /* HD_CORE_HANDLE_H */
