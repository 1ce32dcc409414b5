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
    unlink(path);
    return hd_test_finish();
}
