/* Core API: versions, properties, status strings, handle and stream, error query. */
#include <cudnn.h>
#include "harness.h"

static void test_versions(void)
{
    SECTION("versions");
    CHECK_EQ_INT(cudnnGetVersion(), 8100);
    CHECK_EQ_INT(cudnnGetVersion(), CUDNN_VERSION);
    CHECK_EQ_INT(cudnnGetCudartVersion(), 11020);
    int v = -1;
    CHECK_OK(cudnnGetProperty(MAJOR_VERSION, &v));
    CHECK_EQ_INT(v, 8);
    CHECK_OK(cudnnGetProperty(MINOR_VERSION, &v));
    CHECK_EQ_INT(v, 1);
    CHECK_OK(cudnnGetProperty(PATCH_LEVEL, &v));
    CHECK_EQ_INT(v, 0);
    v = 77;
    CHECK_STATUS(cudnnGetProperty((libraryPropertyType)99, &v), CUDNN_STATUS_BAD_PARAM);
    CHECK_EQ_INT(v, 77);
    CHECK_STATUS(cudnnGetProperty(MAJOR_VERSION, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnOpsInferVersionCheck());
    CHECK_OK(cudnnOpsTrainVersionCheck());
    CHECK_OK(cudnnCnnInferVersionCheck());
    CHECK_OK(cudnnCnnTrainVersionCheck());
    CHECK_OK(cudnnAdvInferVersionCheck());
    CHECK_OK(cudnnAdvTrainVersionCheck());
}

static void test_status_strings(void)
{
    SECTION("status strings");
    static const char *const names[] = {
        "CUDNN_STATUS_SUCCESS", "CUDNN_STATUS_NOT_INITIALIZED", "CUDNN_STATUS_ALLOC_FAILED",
        "CUDNN_STATUS_BAD_PARAM", "CUDNN_STATUS_INTERNAL_ERROR", "CUDNN_STATUS_INVALID_VALUE",
        "CUDNN_STATUS_ARCH_MISMATCH", "CUDNN_STATUS_MAPPING_ERROR", "CUDNN_STATUS_EXECUTION_FAILED",
        "CUDNN_STATUS_NOT_SUPPORTED", "CUDNN_STATUS_LICENSE_ERROR", "CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING",
        "CUDNN_STATUS_RUNTIME_IN_PROGRESS", "CUDNN_STATUS_RUNTIME_FP_OVERFLOW", "CUDNN_STATUS_VERSION_MISMATCH",
    };
    for (int i = 0; i < 15; i++)
        CHECK_MSG(strcmp(cudnnGetErrorString((cudnnStatus_t)i), names[i]) == 0, "status %d -> %s", i,
                  cudnnGetErrorString((cudnnStatus_t)i));
    CHECK(strcmp(cudnnGetErrorString((cudnnStatus_t)15), "CUDNN_UNKNOWN_STATUS") == 0);
    CHECK(strcmp(cudnnGetErrorString((cudnnStatus_t)-1), "CUDNN_UNKNOWN_STATUS") == 0);
    CHECK(strcmp(cudnnGetErrorString((cudnnStatus_t)2000), "CUDNN_UNKNOWN_STATUS") == 0);
}

static void test_handle(void)
{
    SECTION("handle");
    cudnnHandle_t h = NULL;
    CHECK_STATUS(cudnnCreate(NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnCreate(&h));
    CHECK(h != NULL);
    cudaStream_t s = (cudaStream_t)1;
    CHECK_OK(cudnnGetStream(h, &s));
    CHECK(s == NULL);
    cudaStream_t mine = (cudaStream_t)(uintptr_t)0x1234;
    CHECK_OK(cudnnSetStream(h, mine));
    CHECK_OK(cudnnGetStream(h, &s));
    CHECK(s == mine);
    CHECK_STATUS(cudnnGetStream(h, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetStream(NULL, mine), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetStream(NULL, &s), CUDNN_STATUS_BAD_PARAM);

    cudnnStatus_t rs = CUDNN_STATUS_INTERNAL_ERROR;
    CHECK_OK(cudnnQueryRuntimeError(h, &rs, CUDNN_ERRQUERY_BLOCKING, NULL));
    CHECK(rs == CUDNN_STATUS_SUCCESS);
    CHECK_OK(cudnnQueryRuntimeError(h, &rs, CUDNN_ERRQUERY_NONBLOCKING, NULL));
    CHECK_OK(cudnnQueryRuntimeError(h, &rs, CUDNN_ERRQUERY_RAWCODE, NULL));
    CHECK_STATUS(cudnnQueryRuntimeError(h, &rs, (cudnnErrQueryMode_t)99, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnQueryRuntimeError(h, NULL, CUDNN_ERRQUERY_BLOCKING, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnQueryRuntimeError(NULL, &rs, CUDNN_ERRQUERY_BLOCKING, NULL), CUDNN_STATUS_BAD_PARAM);

    /* Two handles are independent. */
    cudnnHandle_t h2;
    CHECK_OK(cudnnCreate(&h2));
    CHECK(h2 != h);
    CHECK_OK(cudnnGetStream(h2, &s));
    CHECK(s == NULL);
    CHECK_OK(cudnnDestroy(h2));
    CHECK_OK(cudnnDestroy(h));
    /* A destroyed handle is detected (its memory is kept, tagged dead). */
    CHECK_STATUS(cudnnDestroy(h), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnSetStream(h, mine), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnDestroy(NULL), CUDNN_STATUS_BAD_PARAM);
}

int main(void)
{
    test_versions();
    test_status_strings();
    test_handle();
    return hd_test_finish();
}
