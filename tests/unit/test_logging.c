/*
 * API logging: the CUDNN_LOG*_DBG environment variables, the destinations, the records'
 * contents, and cudnnSetCallback/cudnnGetCallback (including messages raised in another
 * sub-library).  Each scenario runs in a forked child, because the environment is read once
 * per process; the parent never calls cuDNN before forking.
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

static char path[256];

static char *slurp(const char *p)
{
    FILE *f = fopen(p, "r");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* Run fn in a child with the given environment; return its exit status. */
static int in_child(const char *info, const char *warn, const char *err, const char *dest, void (*fn)(void))
{
    unlink(path);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        unsetenv("CUDNN_LOGINFO_DBG");
        unsetenv("CUDNN_LOGWARN_DBG");
        unsetenv("CUDNN_LOGERR_DBG");
        unsetenv("CUDNN_LOGDEST_DBG");
        if (info) setenv("CUDNN_LOGINFO_DBG", info, 1);
        if (warn) setenv("CUDNN_LOGWARN_DBG", warn, 1);
        if (err) setenv("CUDNN_LOGERR_DBG", err, 1);
        if (dest) setenv("CUDNN_LOGDEST_DBG", dest, 1);
        fn();
        fflush(NULL);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return st;
}

static void calls(void)
{
    cudnnTensorDescriptor_t t;
    cudnnCreateTensorDescriptor(&t);
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5);
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 3, 4, 5); /* fails */
    cudnnDestroyTensorDescriptor(t);
}

static void info_to_file(void)
{
    SECTION("info level to a file");
    CHECK(in_child("1", NULL, NULL, path, calls) == 0);
    char *s = slurp(path);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK(strstr(s, "I! CuDNN (v8100) function cudnnSetTensor4dDescriptor() called:") != NULL);
    CHECK(strstr(s, "i!     format: type=cudnnTensorFormat_t; val=CUDNN_TENSOR_NCHW (0);") != NULL);
    CHECK(strstr(s, "i!     dataType: type=cudnnDataType_t; val=CUDNN_DATA_FLOAT (0);") != NULL);
    CHECK(strstr(s, "i!     n: type=int; val=2;") != NULL);
    CHECK(strstr(s, "i!     n: type=int; val=0;") != NULL);
    CHECK(strstr(s, "function cudnnCreateTensorDescriptor() called") != NULL);
    CHECK(strstr(s, "i! Time:") != NULL);
    CHECK(strstr(s, "E! ") == NULL); /* error level not enabled */
}

static void errors_only(void)
{
    SECTION("error level only");
    CHECK(in_child(NULL, NULL, "1", path, calls) == 0);
    char *s = slurp(path);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK(strstr(s, "E! CuDNN (v8100) function cudnnSetTensor4dDescriptor() called:") != NULL);
    CHECK(strstr(s, "e!     Error: CUDNN_STATUS_BAD_PARAM; Reason: dimension 0 is 0") != NULL);
    CHECK(strstr(s, "I! ") == NULL);
}

static void nothing_enabled(void)
{
    SECTION("nothing enabled");
    CHECK(in_child(NULL, NULL, NULL, path, calls) == 0);
    CHECK(access(path, F_OK) != 0);
    CHECK(in_child("0", "0", "0", path, calls) == 0);
    CHECK(access(path, F_OK) != 0);
    /* Warnings alone do not show errors. */
    CHECK(in_child(NULL, "1", NULL, path, calls) == 0);
    char *s = slurp(path);
    CHECK(s == NULL || strstr(s, "E! ") == NULL);
}

static void to_stdout(void)
{
    SECTION("stdout destination");
    int fd[2];
    CHECK(pipe(fd) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        setenv("CUDNN_LOGERR_DBG", "1", 1);
        setenv("CUDNN_LOGDEST_DBG", "stdout", 1);
        calls();
        fflush(NULL);
        _exit(0);
    }
    close(fd[1]);
    static char buf[1 << 14];
    size_t n = 0;
    ssize_t r;
    while ((r = read(fd[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = 0;
    close(fd[0]);
    waitpid(pid, NULL, 0);
    CHECK(strstr(buf, "Error: CUDNN_STATUS_BAD_PARAM") != NULL);
}

/* One NOT_SUPPORTED refusal from each sub-library family (ops, cnn, adv, backend): a refusal
 * must be visible with CUDNN_LOGERR_DBG=1 alone, so each logs its reason at error level. */
static const char *const refusal_reasons[] = {
    "cuDNN 8.1 supports groupCnt 1 only (got 2)",                       /* ops_infer */
    "CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK is not implemented in hostdnn", /* cnn_train */
    "nbDims must be 4 (got 3)",                                          /* adv_infer */
    "is filled in by cuDNN and cannot be finalized by the user",         /* backend */
};

static int refusals(void)
{
    int bad = 0;
    cudnnTensorDescriptor_t x, a, b;
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&a);
    cudnnCreateTensorDescriptor(&b);
    cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5);
    bad += cudnnDeriveNormTensorDescriptor(a, b, x, CUDNN_NORM_PER_CHANNEL, 2) != CUDNN_STATUS_NOT_SUPPORTED;
    cudnnHandle_t h;
    cudnnFusedOpsPlan_t plan;
    cudnnFusedOpsConstParamPack_t pack;
    size_t ws = 0;
    bad += cudnnCreate(&h) != CUDNN_STATUS_SUCCESS;
    cudnnCreateFusedOpsPlan(&plan, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK);
    cudnnCreateFusedOpsConstParamPack(&pack, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK);
    bad += cudnnMakeFusedOpsPlan(h, plan, pack, &ws) != CUDNN_STATUS_NOT_SUPPORTED;
    cudnnSeqDataDescriptor_t sd;
    int dims[4] = { 2, 2, 1, 4 }, lens[2] = { 2, 2 };
    cudnnSeqDataAxis_t axes[4] = { CUDNN_SEQDATA_TIME_DIM, CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM,
                                   CUDNN_SEQDATA_VECT_DIM };
    cudnnCreateSeqDataDescriptor(&sd);
    bad += cudnnSetSeqDataDescriptor(sd, CUDNN_DATA_FLOAT, 3, dims, axes, 2, lens, NULL) != CUDNN_STATUS_NOT_SUPPORTED;
    cudnnBackendDescriptor_t knob;
    cudnnBackendCreateDescriptor(CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, &knob);
    bad += cudnnBackendFinalize(knob) != CUDNN_STATUS_NOT_SUPPORTED;
    return bad;
}

static void refusals_child(void)
{
    _exit(refusals() ? 20 : 0);
}

static int err_cb_hits[4], err_cb_other;
static void error_callback(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)udata;
    if (sev != CUDNN_SEV_ERROR || dbg->cudnnStatus == CUDNN_STATUS_SUCCESS) {
        err_cb_other++;
        return;
    }
    for (int i = 0; i < 4; i++)
        if (strstr(msg, refusal_reasons[i]))
            err_cb_hits[i]++;
}

static void refusals_callback_child(void)
{
    cudnnSetCallback(CUDNN_SEV_ERROR_EN, NULL, error_callback);
    if (refusals())
        _exit(20);
    for (int i = 0; i < 4; i++)
        if (err_cb_hits[i] != 1)
            _exit(21 + i);
    _exit(err_cb_other ? 25 : 0);
}

static void refusals_at_error_level(void)
{
    SECTION("NOT_SUPPORTED refusals with CUDNN_LOGERR_DBG=1 alone");
    int st = in_child(NULL, NULL, "1", path, refusals_child);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child exit %d", WEXITSTATUS(st));
    char *s = slurp(path);
    CHECK(s != NULL);
    if (!s)
        return;
    for (int i = 0; i < 4; i++) {
        const char *r = strstr(s, refusal_reasons[i]);
        CHECK_MSG(r != NULL, "reason \"%s\" not logged at error level", refusal_reasons[i]);
        /* the reason sits on an error record's "e!     Error: CUDNN_STATUS_NOT_SUPPORTED" line */
        const char *line = r;
        while (line > s && line[-1] != '\n')
            line--;
        static const char head[] = "e!     Error: CUDNN_STATUS_NOT_SUPPORTED; Reason:";
        CHECK_MSG(r && strncmp(line, head, sizeof head - 1) == 0,
                  "reason \"%s\" is not on an error line", refusal_reasons[i]);
    }
    CHECK(strstr(s, "W! ") == NULL && strstr(s, "w! ") == NULL);

    SECTION("NOT_SUPPORTED refusals through a CUDNN_SEV_ERROR_EN callback");
    st = in_child(NULL, NULL, NULL, NULL, refusals_callback_child);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child exit %d", WEXITSTATUS(st));
}

static int cb_count, cb_bad;
static cudnnSeverity_t cb_sev;
static cudnnStatus_t cb_status;
static char cb_msg[4096];
static void *cb_udata;
static void callback(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    cb_count++;
    cb_sev = sev;
    cb_udata = udata;
    cb_status = dbg->cudnnStatus;
    if (dbg->cudnn_version != 8100 || dbg->pid == 0)
        cb_bad++;
    snprintf(cb_msg, sizeof cb_msg, "%s", msg);
}

static void callback_child(void)
{
    int marker = 0;
    unsigned mask = 99;
    void *ud = &mask;
    cudnnCallback_t fp = callback;
    /* Before any cudnnSetCallback the mask is what the environment enabled (errors here). */
    if (cudnnGetCallback(&mask, &ud, &fp) != CUDNN_STATUS_SUCCESS || mask != CUDNN_SEV_ERROR_EN || fp != NULL)
        _exit(10);
    if (cudnnSetCallback(CUDNN_SEV_ERROR_EN | CUDNN_SEV_WARNING_EN, &marker, callback) != CUDNN_STATUS_SUCCESS)
        _exit(11);
    if (cudnnGetCallback(&mask, &ud, &fp) != CUDNN_STATUS_SUCCESS || mask != (CUDNN_SEV_ERROR_EN | CUDNN_SEV_WARNING_EN) ||
        ud != &marker || fp != callback)
        _exit(12);
    calls();
    if (cb_count != 1 || cb_sev != CUDNN_SEV_ERROR || cb_status != CUDNN_STATUS_BAD_PARAM || cb_udata != &marker ||
        !strstr(cb_msg, "dimension 0 is 0") || cb_bad)
        _exit(13);
    /* A message raised in another sub-library reaches the same callback. */
    cb_count = 0;
    cudnnCreateConvolutionDescriptor(NULL);
    if (cb_count != 1)
        _exit(14);
    /* Mask 0 silences everything, even with the environment asking for errors. */
    cb_count = 0;
    cudnnSetCallback(0, NULL, callback);
    calls();
    if (cb_count != 0)
        _exit(15);
    /* A NULL function pointer selects the default destination (here: the file). */
    cudnnSetCallback(CUDNN_SEV_ERROR_EN, NULL, NULL);
    calls();
    if (cudnnGetCallback(NULL, &ud, &fp) != CUDNN_STATUS_BAD_PARAM)
        _exit(16);
    _exit(0);
}

static void callbacks(void)
{
    SECTION("callback");
    int st = in_child(NULL, NULL, "1", path, callback_child);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child exit %d", WEXITSTATUS(st));
    char *s = slurp(path);
    CHECK(s != NULL && strstr(s, "Error: CUDNN_STATUS_BAD_PARAM") != NULL);
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/hostdnn_log_test_%d.txt", (int)getpid());
    info_to_file();
    errors_only();
    nothing_enabled();
    to_stdout();
    callbacks();
    refusals_at_error_level();
    unlink(path);
    return hd_test_finish();
}
