/*
 * cudart/rt.h -- internals shared by the files of hostdnn's host CUDA runtime.
 *
 * Every exported function returns through rt_ret(), which records a failure as the calling
 * thread's last error (cudaGetLastError).  A sticky error (a detected write past the end of
 * an allocation, the host analogue of an illegal address) is returned by every call that
 * touches the device until cudaDeviceReset; RT_STICKY() is the guard for those calls.
 */
#ifndef HD_CUDART_RT_H
#define HD_CUDART_RT_H

#include <stddef.h>
#include <stdint.h>
#include "cuda_runtime_api.h"

#define RT_API __attribute__((visibility("default")))

/* Record ERR as this thread's last error when it is a failure; return it. */
cudaError_t rt_ret(cudaError_t err);

/* Log why a call failed when HOSTDNN_CUDART_DEBUG=1, then record and return ERR. */
cudaError_t rt_fail(cudaError_t err, const char *fn, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define RT_FAIL(err, ...) rt_fail((err), __func__, __VA_ARGS__)

/* The sticky error (cudaSuccess when none), and setting / clearing it. */
cudaError_t rt_sticky(void);
void rt_set_sticky(cudaError_t err);
void rt_reset_errors(void);
#define RT_STICKY() do { cudaError_t s_ = rt_sticky(); if (s_ != cudaSuccess) return rt_ret(s_); } while (0)

/* ---- the allocation registry (memory.c) ---- */
enum rt_kind { RT_DEVICE = 1, RT_PINNED = 2, RT_MANAGED = 3, RT_REGISTERED = 4 };

typedef struct {
    uintptr_t base;
    size_t size;          /* bytes the user asked for */
    enum rt_kind kind;
    unsigned int flags;
} rt_region;

/* Find the region holding address P (base <= P < base + size); 0 when none. */
int rt_find(const void *p, rt_region *out);
/* Check every allocation's guard bytes; sets the sticky error on damage.  Returns it. */
cudaError_t rt_check_guards(void);
/* Free every allocation and forget registrations (cudaDeviceReset). */
void rt_memory_reset(void);

/* ---- streams and events (stream.c) ---- */
/* cudaSuccess if S is 0, a special stream or a live stream; cudaErrorInvalidResourceHandle otherwise. */
cudaError_t rt_check_stream(cudaStream_t s);
void rt_streams_reset(void);

/* ---- device facts (device.c) ---- */
/* Bytes of physical memory (the "device" memory size). */
size_t rt_total_memory(void);

#endif
