/*
 * test_cudart_stream.c -- host CUDA runtime: streams, events and their timing, handle
 * validation, per-thread last error.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime.h>
#include <cudnn.h>
#include <pthread.h>
#include <time.h>

#include "harness.h"

#define CHECK_CU(expr, want) do { cudaError_t got_ = (expr); \
    if (got_ == (want)) hd_t_passed++; else { hd_t_failed++; \
    fprintf(stderr, "FAIL %s:%d [%s] %s -> %s, want %s\n", __FILE__, __LINE__, hd_t_section, #expr, \
            cudaGetErrorName(got_), cudaGetErrorName(want)); } } while (0)
#define CHECK_CU_OK(expr) CHECK_CU(expr, cudaSuccess)

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void test_streams(void)
{
    SECTION("streams");
    cudaStream_t s = NULL, s2 = NULL;
    unsigned int fl = 9;
    int prio = 9;
    CHECK_CU_OK(cudaStreamCreate(&s));
    CHECK(s != NULL);
    CHECK_CU_OK(cudaStreamGetFlags(s, &fl));
    CHECK_EQ_INT(fl, cudaStreamDefault);
    CHECK_CU_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK_CU_OK(cudaStreamGetFlags(s2, &fl));
    CHECK_EQ_INT(fl, cudaStreamNonBlocking);
    CHECK_CU_OK(cudaStreamQuery(s));
    CHECK_CU_OK(cudaStreamSynchronize(s));
    CHECK_CU_OK(cudaStreamSynchronize(0));
    CHECK_CU_OK(cudaStreamSynchronize(cudaStreamLegacy));
    CHECK_CU_OK(cudaStreamSynchronize(cudaStreamPerThread));
    CHECK_CU_OK(cudaStreamQuery(cudaStreamPerThread));
    CHECK_CU_OK(cudaStreamDestroy(s2));
    CHECK_CU(cudaStreamDestroy(s2), cudaErrorInvalidResourceHandle);   /* twice */
    CHECK_CU(cudaStreamSynchronize(s2), cudaErrorInvalidResourceHandle);
    CHECK_CU(cudaStreamQuery((cudaStream_t)0x4242), cudaErrorInvalidResourceHandle);
    CHECK_CU(cudaStreamDestroy(0), cudaErrorInvalidResourceHandle);
    CHECK_CU(cudaStreamCreate(NULL), cudaErrorInvalidValue);
    cudaStream_t keep = (cudaStream_t)0x99;
    CHECK_CU(cudaStreamCreateWithFlags(&keep, 5), cudaErrorInvalidValue);
    CHECK(keep == (cudaStream_t)0x99);
    CHECK_CU(cudaStreamGetFlags(s, NULL), cudaErrorInvalidValue);

    cudaStream_t sp;
    CHECK_CU_OK(cudaStreamCreateWithPriority(&sp, cudaStreamDefault, -100));
    CHECK_CU_OK(cudaStreamGetPriority(sp, &prio));
    CHECK_EQ_INT(prio, -5);                          /* clamped to the greatest priority */
    CHECK_CU_OK(cudaStreamDestroy(sp));

    SECTION("stream wait event");
    cudaEvent_t e;
    CHECK_CU_OK(cudaEventCreate(&e));
    CHECK_CU_OK(cudaStreamWaitEvent(s, e, 0));
    CHECK_CU_OK(cudaEventRecord(e, s));
    CHECK_CU_OK(cudaStreamWaitEvent(0, e, 0));
    CHECK_CU(cudaStreamWaitEvent(s, e, 4), cudaErrorInvalidValue);
    CHECK_CU(cudaStreamWaitEvent(s, NULL, 0), cudaErrorInvalidResourceHandle);
    CHECK_CU(cudaStreamWaitEvent((cudaStream_t)0x55, e, 0), cudaErrorInvalidResourceHandle);
    CHECK_CU_OK(cudaEventDestroy(e));
    CHECK_CU_OK(cudaStreamDestroy(s));
    cudaGetLastError();
}

static void test_events(void)
{
    SECTION("events");
    cudaEvent_t a, b, c, nt;
    float ms = -1;
    CHECK_CU_OK(cudaEventCreate(&a));
    CHECK_CU_OK(cudaEventCreateWithFlags(&b, cudaEventBlockingSync));
    CHECK_CU_OK(cudaEventCreateWithFlags(&c, cudaEventDefault));
    CHECK_CU_OK(cudaEventCreateWithFlags(&nt, cudaEventDisableTiming));
    CHECK_CU_OK(cudaEventQuery(a));                  /* never recorded: complete */
    CHECK_CU(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);  /* not recorded */
    CHECK_CU_OK(cudaEventRecord(a, 0));
    sleep_ms(30);
    CHECK_CU_OK(cudaEventRecord(b, cudaStreamPerThread));
    CHECK_CU_OK(cudaEventSynchronize(b));
    CHECK_CU_OK(cudaEventQuery(b));
    CHECK_CU_OK(cudaEventElapsedTime(&ms, a, b));
    CHECK_MSG(ms >= 25.0f && ms < 5000.0f, "elapsed %.3f ms after a 30 ms sleep", ms);
    float back = 0;
    CHECK_CU_OK(cudaEventElapsedTime(&back, b, a));
    CHECK(back <= 0 && back == -ms);
    sleep_ms(5);
    CHECK_CU_OK(cudaEventRecord(c, 0));
    float ms2 = 0;
    CHECK_CU_OK(cudaEventElapsedTime(&ms2, a, c));
    CHECK(ms2 >= ms);                                /* monotonic */
    float same = -1;
    CHECK_CU_OK(cudaEventElapsedTime(&same, a, a));
    CHECK(same == 0.0f);
    /* re-recording moves the event */
    CHECK_CU_OK(cudaEventRecord(a, 0));
    CHECK_CU_OK(cudaEventElapsedTime(&ms2, c, a));
    CHECK(ms2 >= 0);

    SECTION("event bad input");
    CHECK_CU_OK(cudaEventRecord(nt, 0));
    CHECK_CU(cudaEventElapsedTime(&ms, a, nt), cudaErrorInvalidResourceHandle);
    CHECK_CU(cudaEventElapsedTime(NULL, a, b), cudaErrorInvalidValue);
    CHECK_CU(cudaEventRecord(a, (cudaStream_t)0x31), cudaErrorInvalidResourceHandle);
    CHECK_CU(cudaEventRecord(NULL, 0), cudaErrorInvalidResourceHandle);
    CHECK_CU(cudaEventCreateWithFlags(&c, 0x40), cudaErrorInvalidValue);
    CHECK_CU(cudaEventCreateWithFlags(&c, cudaEventInterprocess), cudaErrorInvalidValue);
    CHECK_CU(cudaEventCreate(NULL), cudaErrorInvalidValue);
    CHECK_CU_OK(cudaEventDestroy(nt));
    CHECK_CU(cudaEventDestroy(nt), cudaErrorInvalidResourceHandle);
    CHECK_CU(cudaEventQuery(nt), cudaErrorInvalidResourceHandle);
    CHECK_CU(cudaEventSynchronize(nt), cudaErrorInvalidResourceHandle);
    CHECK_CU_OK(cudaEventDestroy(a));
    CHECK_CU_OK(cudaEventDestroy(b));
    CHECK_CU_OK(cudaEventDestroy(c));
    cudaGetLastError();
}

static int cb_calls;
static void host_fn(void *data) { cb_calls += *(int *)data; }
static void stream_cb(cudaStream_t s, cudaError_t status, void *data)
{
    (void)s;
    if (status == cudaSuccess)
        cb_calls += *(int *)data;
}

static void test_host_work(void)
{
    SECTION("host functions on streams");
    cudaStream_t s;
    int one = 1, ten = 10;
    CHECK_CU_OK(cudaStreamCreate(&s));
    cb_calls = 0;
    CHECK_CU_OK(cudaLaunchHostFunc(s, host_fn, &one));
    CHECK_CU_OK(cudaLaunchHostFunc(0, host_fn, &one));
    CHECK_CU_OK(cudaStreamAddCallback(s, stream_cb, &ten, 0));
    CHECK_CU_OK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(cb_calls, 12);
    CHECK_CU(cudaLaunchHostFunc(s, NULL, &one), cudaErrorInvalidValue);
    CHECK_CU(cudaStreamAddCallback(s, stream_cb, &ten, 1), cudaErrorInvalidValue);
    CHECK_CU(cudaLaunchHostFunc((cudaStream_t)0x66, host_fn, &one), cudaErrorInvalidResourceHandle);
    CHECK_EQ_INT(cb_calls, 12);
    cudaEvent_t e;
    CHECK_CU_OK(cudaEventCreate(&e));
    CHECK_CU_OK(cudaEventRecordWithFlags(e, s, 0));
    CHECK_CU(cudaEventRecordWithFlags(e, s, 8), cudaErrorInvalidValue);
    CHECK_CU_OK(cudaEventDestroy(e));
    CHECK_CU_OK(cudaStreamDestroy(s));
    CHECK_CU(cudaLaunchHostFunc(s, host_fn, &one), cudaErrorInvalidResourceHandle);
    cudaGetLastError();
}

static void test_with_cudnn(void)
{
    SECTION("a runtime stream given to cuDNN");
    cudnnHandle_t dnn;
    cudaStream_t s, got = NULL;
    CHECK(cudnnCreate(&dnn) == CUDNN_STATUS_SUCCESS);
    CHECK_CU_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudnnSetStream(dnn, s) == CUDNN_STATUS_SUCCESS);
    CHECK(cudnnGetStream(dnn, &got) == CUDNN_STATUS_SUCCESS);
    CHECK(got == s);
    CHECK_CU_OK(cudaStreamSynchronize(got));
    CHECK(cudnnDestroy(dnn) == CUDNN_STATUS_SUCCESS);
    CHECK_CU_OK(cudaStreamDestroy(s));
    CHECK_EQ_INT(cudnnGetCudartVersion(), CUDART_VERSION);
}

static void *other_thread(void *arg)
{
    cudaError_t *out = arg;
    out[0] = cudaPeekAtLastError();                  /* the main thread's error is not seen */
    out[1] = cudaSetDevice(5);
    out[2] = cudaGetLastError();
    return NULL;
}

static void test_thread_local_error(void)
{
    SECTION("per-thread last error");
    cudaGetLastError();
    CHECK_CU(cudaStreamDestroy((cudaStream_t)0x77), cudaErrorInvalidResourceHandle);
    cudaError_t seen[3];
    pthread_t t;
    CHECK(pthread_create(&t, NULL, other_thread, seen) == 0);
    pthread_join(t, NULL);
    CHECK_CU(seen[0], cudaSuccess);
    CHECK_CU(seen[1], cudaErrorInvalidDevice);
    CHECK_CU(seen[2], cudaErrorInvalidDevice);
    CHECK_CU(cudaGetLastError(), cudaErrorInvalidResourceHandle);
}

int main(void)
{
    test_streams();
    test_events();
    test_host_work();
    test_with_cudnn();
    test_thread_local_error();
    return hd_test_finish();
}
