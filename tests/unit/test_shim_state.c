/*
 * libcudnn.so.8 forwards to the sub-libraries, so a program that links the shim and also
 * loads a sub-library directly sees one state: a callback set through one is read back
 * through the other, and a descriptor made through one is usable through the other.
 */
#include <cudnn.h>
#include <dlfcn.h>
#include "harness.h"

static void cb(cudnnSeverity_t s, void *u, const cudnnDebug_t *d, const char *m) { (void)s, (void)u, (void)d, (void)m; }

int main(void)
{
    SECTION("one state");
    void *ops = dlopen("libcudnn_ops_infer.so.8", RTLD_NOW | RTLD_LOCAL);
    CHECK_MSG(ops != NULL, "dlopen: %s", dlerror());
    if (!ops)
        return hd_test_finish();
    cudnnStatus_t (*get_cb)(unsigned *, void **, cudnnCallback_t *);
    cudnnStatus_t (*get4d)(cudnnTensorDescriptor_t, cudnnDataType_t *, int *, int *, int *, int *, int *, int *, int *, int *);
    size_t (*ver)(void);
    *(void **)&get_cb = dlsym(ops, "cudnnGetCallback");
    *(void **)&get4d = dlsym(ops, "cudnnGetTensor4dDescriptor");
    *(void **)&ver = dlsym(ops, "cudnnGetVersion");
    CHECK(get_cb && get4d && ver);
    if (!get_cb || !get4d || !ver)
        return hd_test_finish();
    CHECK_EQ_INT(ver(), 8100);
    int marker;
    CHECK_OK(cudnnSetCallback(CUDNN_SEV_ERROR_EN, &marker, cb));
    unsigned mask = 0;
    void *ud = NULL;
    cudnnCallback_t fp = NULL;
    CHECK_OK(get_cb(&mask, &ud, &fp));
    CHECK(mask == CUDNN_SEV_ERROR_EN && ud == &marker && fp == cb);
    cudnnSetCallback(0, NULL, NULL);

    cudnnTensorDescriptor_t t;
    CHECK_OK(cudnnCreateTensorDescriptor(&t));
    CHECK_OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 1, 2, 3, 4));
    cudnnDataType_t dt;
    int n, c, h, w, ns, cs, hs, ws;
    CHECK_OK(get4d(t, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    CHECK(c == 2 && cs == 1 && ws == 2);
    CHECK_OK(cudnnDestroyTensorDescriptor(t));
    dlclose(ops);
    return hd_test_finish();
}
