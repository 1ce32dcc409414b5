/*
 * cudart/stream.c -- streams and events.
 *
 * Work never waits in a queue here: every call finishes before it returns, so a stream is
 * only a handle with flags and a priority, and an event records the CLOCK_MONOTONIC time at
 * which cudaEventRecord ran (timing what ran before it on the calling thread).  Handles are
 * kept in a set of live objects, so a destroyed or invented handle is recognised and
 * answered with cudaErrorInvalidResourceHandle instead of being dereferenced.
 */
#define _POSIX_C_SOURCE 200809L
#include "cudart/rt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct CUstream_st {
    unsigned int flags;
    int priority;
};

struct CUevent_st {
    unsigned int flags;
    int recorded;
    struct timespec when;
};

/* The live handles of one kind: a small unordered array. */
typedef struct {
    void **items;
    size_t count, cap;
} rt_set;

static pthread_mutex_t rt_obj_lock = PTHREAD_MUTEX_INITIALIZER;
static rt_set rt_streams, rt_events;

static long rt_set_index(const rt_set *s, const void *p)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->items[i] == p)
            return (long)i;
    return -1;
}

static int rt_set_add(rt_set *s, void *p)
{
    if (s->count == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 16;
        void **n = realloc(s->items, ncap * sizeof *n);
        if (!n)
            return 0;
        s->items = n;
        s->cap = ncap;
    }
    s->items[s->count++] = p;
    return 1;
}

/* Remove P from S; returns 0 when it was not there. */
static int rt_set_remove(rt_set *s, const void *p)
{
    long i = rt_set_index(s, p);
    if (i < 0)
        return 0;
    s->items[i] = s->items[--s->count];
    return 1;
}

static void rt_set_clear(rt_set *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->items[i]);
    free(s->items);
    memset(s, 0, sizeof *s);
}

void rt_streams_reset(void)
{
    pthread_mutex_lock(&rt_obj_lock);
    rt_set_clear(&rt_streams);
    rt_set_clear(&rt_events);
    pthread_mutex_unlock(&rt_obj_lock);
}

static int rt_is_special_stream(cudaStream_t s)
{
    return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

cudaError_t rt_check_stream(cudaStream_t s)
{
    if (rt_is_special_stream(s))
        return cudaSuccess;
    pthread_mutex_lock(&rt_obj_lock);
    long i = rt_set_index(&rt_streams, s);
    pthread_mutex_unlock(&rt_obj_lock);
    return i >= 0 ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

/* Copy of a live event's state; 0 when E is not a live event. */
static int rt_event_get(cudaEvent_t e, struct CUevent_st *out)
{
    pthread_mutex_lock(&rt_obj_lock);
    long i = e ? rt_set_index(&rt_events, e) : -1;
    if (i >= 0 && out)
        *out = *e;
    pthread_mutex_unlock(&rt_obj_lock);
    return i >= 0;
}

/* ---------------------------------------------------------------- streams */

RT_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    RT_STICKY();
    if (!pStream)
        return RT_FAIL(cudaErrorInvalidValue, "pStream is NULL");
    if (flags != cudaStreamDefault && flags != cudaStreamNonBlocking)
        return RT_FAIL(cudaErrorInvalidValue, "flags 0x%x are not cudaStreamDefault or cudaStreamNonBlocking", flags);
    struct CUstream_st *s = malloc(sizeof *s);
    if (!s)
        return RT_FAIL(cudaErrorMemoryAllocation, "no memory for a stream");
    s->flags = flags;
    /* Out-of-range priorities are clamped to [greatest, least] = [-5, 0], as CUDA does. */
    s->priority = priority > 0 ? 0 : priority < -5 ? -5 : priority;
    pthread_mutex_lock(&rt_obj_lock);
    int ok = rt_set_add(&rt_streams, s);
    pthread_mutex_unlock(&rt_obj_lock);
    if (!ok) {
        free(s);
        return RT_FAIL(cudaErrorMemoryAllocation, "no memory for a stream");
    }
    *pStream = s;
    return cudaSuccess;
}

RT_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(pStream, flags, 0);
}

RT_API cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    return cudaStreamCreateWithPriority(pStream, cudaStreamDefault, 0);
}

RT_API cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    RT_STICKY();
    pthread_mutex_lock(&rt_obj_lock);
    int ok = stream && rt_set_remove(&rt_streams, stream);
    pthread_mutex_unlock(&rt_obj_lock);
    if (!ok)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a stream created by cudaStreamCreate",
                       (void *)stream);
    free(stream);
    return cudaSuccess;
}

RT_API cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    RT_STICKY();
    if (!flags)
        return RT_FAIL(cudaErrorInvalidValue, "flags is NULL");
    if (rt_check_stream(hStream) != cudaSuccess)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a live stream", (void *)hStream);
    pthread_mutex_lock(&rt_obj_lock);
    *flags = rt_is_special_stream(hStream) ? 0u : hStream->flags;
    pthread_mutex_unlock(&rt_obj_lock);
    return cudaSuccess;
}

RT_API cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    RT_STICKY();
    if (!priority)
        return RT_FAIL(cudaErrorInvalidValue, "priority is NULL");
    if (rt_check_stream(hStream) != cudaSuccess)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a live stream", (void *)hStream);
    pthread_mutex_lock(&rt_obj_lock);
    *priority = rt_is_special_stream(hStream) ? 0 : hStream->priority;
    pthread_mutex_unlock(&rt_obj_lock);
    return cudaSuccess;
}

RT_API cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    RT_STICKY();
    if (rt_check_stream(stream) != cudaSuccess)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a live stream", (void *)stream);
    return rt_ret(rt_check_guards());
}

RT_API cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    RT_STICKY();
    if (rt_check_stream(stream) != cudaSuccess)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a live stream", (void *)stream);
    return cudaSuccess;           /* all work already finished */
}

RT_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    RT_STICKY();
    if (rt_check_stream(stream) != cudaSuccess)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a live stream", (void *)stream);
    if (!rt_event_get(event, NULL))
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a live event", (void *)event);
    if (flags != cudaEventWaitDefault)
        return RT_FAIL(cudaErrorInvalidValue, "flags 0x%x must be 0", flags);
    return cudaSuccess;
}

/* ---------------------------------------------------------------- events */

RT_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    RT_STICKY();
    if (!event)
        return RT_FAIL(cudaErrorInvalidValue, "event is NULL");
    unsigned int known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if ((flags & ~known) || ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)))
        return RT_FAIL(cudaErrorInvalidValue, "flags 0x%x are not a valid combination", flags);
    struct CUevent_st *e = calloc(1, sizeof *e);
    if (!e)
        return RT_FAIL(cudaErrorMemoryAllocation, "no memory for an event");
    e->flags = flags;
    pthread_mutex_lock(&rt_obj_lock);
    int ok = rt_set_add(&rt_events, e);
    pthread_mutex_unlock(&rt_obj_lock);
    if (!ok) {
        free(e);
        return RT_FAIL(cudaErrorMemoryAllocation, "no memory for an event");
    }
    *event = e;
    return cudaSuccess;
}

RT_API cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

RT_API cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    RT_STICKY();
    pthread_mutex_lock(&rt_obj_lock);
    int ok = event && rt_set_remove(&rt_events, event);
    pthread_mutex_unlock(&rt_obj_lock);
    if (!ok)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a live event", (void *)event);
    free(event);
    return cudaSuccess;
}

RT_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    RT_STICKY();
    if (rt_check_stream(stream) != cudaSuccess)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a live stream", (void *)stream);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&rt_obj_lock);
    int ok = event && rt_set_index(&rt_events, event) >= 0;
    if (ok) {
        event->recorded = 1;
        event->when = now;
    }
    pthread_mutex_unlock(&rt_obj_lock);
    if (!ok)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a live event", (void *)event);
    return cudaSuccess;
}

RT_API cudaError_t cudaEventQuery(cudaEvent_t event)
{
    RT_STICKY();
    if (!rt_event_get(event, NULL))
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a live event", (void *)event);
    return cudaSuccess;
}

RT_API cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    RT_STICKY();
    if (!rt_event_get(event, NULL))
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a live event", (void *)event);
    return rt_ret(rt_check_guards());
}

RT_API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    RT_STICKY();
    struct CUevent_st a, b;
    if (!ms)
        return RT_FAIL(cudaErrorInvalidValue, "ms is NULL");
    if (!rt_event_get(start, &a) || !rt_event_get(end, &b))
        return RT_FAIL(cudaErrorInvalidResourceHandle, "start or end is not a live event");
    if ((a.flags | b.flags) & cudaEventDisableTiming)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "an event was created with cudaEventDisableTiming");
    if (!a.recorded || !b.recorded)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "an event has not been recorded");
    double d = (double)(b.when.tv_sec - a.when.tv_sec) * 1e3 + (double)(b.when.tv_nsec - a.when.tv_nsec) * 1e-6;
    *ms = (float)d;
    return cudaSuccess;
}

/* ---------------------------------------------------------------- host work on a stream */

/* The stream's earlier work has already finished, so the callback runs now, on the caller's
 * thread, before the call returns. */
RT_API cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
                                         unsigned int flags)
{
    RT_STICKY();
    if (!callback || flags != 0)
        return RT_FAIL(cudaErrorInvalidValue, "callback is NULL or flags 0x%x is not 0", flags);
    if (rt_check_stream(stream) != cudaSuccess)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a live stream", (void *)stream);
    callback(stream, cudaSuccess, userData);
    return cudaSuccess;
}

RT_API cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    RT_STICKY();
    if (!fn)
        return RT_FAIL(cudaErrorInvalidValue, "fn is NULL");
    if (rt_check_stream(stream) != cudaSuccess)
        return RT_FAIL(cudaErrorInvalidResourceHandle, "%p is not a live stream", (void *)stream);
    fn(userData);
    return cudaSuccess;
}

/* cudaEventRecordExternal (0x1) only matters during graph capture, which does not exist here. */
RT_API cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    if (flags & ~0x1u)
        return RT_FAIL(cudaErrorInvalidValue, "flags 0x%x are not cudaEventRecordDefault/External", flags);
    return cudaEventRecord(event, stream);
}
