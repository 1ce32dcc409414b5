/*
 * core/log.c -- cuDNN-style API logging (see log.h for the controls).
 *
 * Messages are assembled in a per-thread buffer and delivered in one piece, either to the
 * user's callback or to the default one, which writes them to CUDNN_LOGDEST_DBG.  This file
 * lives in libcudnn_ops_infer, with the severity mask and the callback, and the other
 * sub-libraries log through it (the private interface), so one cudnnSetCallback and one
 * CUDNN_LOGDEST_DBG file serve them all.  libcublas and libhostdnn have their own copy.
 */
#define _GNU_SOURCE
#include "core/api.h"
#include "core/handle.h"
#include "core/status.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#define HD_LOG_BUF 16384

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t dest_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned env_mask;          /* severity bits enabled by the environment */
static char dest_name[1024];       /* "stdout", "stderr" or a path */
static FILE *dest_file;            /* opened lazily for a path */
static struct timeval start_time;

static _Thread_local char rec[HD_LOG_BUF];
static _Thread_local size_t rec_len;
static _Thread_local int rec_overflow;

static int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] && strcmp(v, "0") != 0;
}

static void read_env(void)
{
    env_mask = 0;
    if (env_flag("CUDNN_LOGERR_DBG"))
        env_mask |= CUDNN_SEV_ERROR_EN;
    if (env_flag("CUDNN_LOGWARN_DBG"))
        env_mask |= CUDNN_SEV_WARNING_EN;
    if (env_flag("CUDNN_LOGINFO_DBG"))
        env_mask |= CUDNN_SEV_INFO_EN;
    const char *d = getenv("CUDNN_LOGDEST_DBG");
    /* No destination given: stderr, so that enabling a level always shows something. */
    snprintf(dest_name, sizeof dest_name, "%s", (d && d[0]) ? d : "stderr");
    gettimeofday(&start_time, NULL);
}

static void init_env(void) { read_env(); }

unsigned hd_log_env_mask(void)
{
    pthread_once(&env_once, init_env);
    return env_mask;
}

void hd_log_reload_env(void)
{
    pthread_once(&env_once, init_env);
    pthread_mutex_lock(&dest_lock);
    if (dest_file) {
        fclose(dest_file);
        dest_file = NULL;
    }
    read_env();
    pthread_mutex_unlock(&dest_lock);
}

int hd_log_enabled(cudnnSeverity_t sev)
{
    unsigned mask;
    void *ud;
    cudnnCallback_t fp;
    hd_log_callback_state(&mask, &ud, &fp);
    return (mask >> (unsigned)sev) & 1u;
}

int hd_log_info_enabled(void) { return hd_log_enabled(CUDNN_SEV_INFO); }

void hd_log_default_callback(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev;
    (void)udata;
    (void)dbg;
    pthread_once(&env_once, init_env);
    pthread_mutex_lock(&dest_lock);
    FILE *f = NULL;
    if (strcmp(dest_name, "stdout") == 0)
        f = stdout;
    else if (strcmp(dest_name, "stderr") == 0)
        f = stderr;
    else {
        if (!dest_file)
            dest_file = fopen(dest_name, "a");
        f = dest_file;
    }
    if (f) {
        fputs(msg, f);
        fflush(f);
    }
    pthread_mutex_unlock(&dest_lock);
}

static void deliver_tagged(cudnnSeverity_t sev, cudnnStatus_t status, const void *handle, const char *msg,
                           const int *tags, int ntags)
{
    unsigned mask;
    void *ud;
    cudnnCallback_t fp;
    hd_log_callback_state(&mask, &ud, &fp);
    if (!((mask >> (unsigned)sev) & 1u))
        return;
    cudnnDebug_t dbg;
    memset(&dbg, 0, sizeof dbg);
    struct timeval now;
    gettimeofday(&now, NULL);
    dbg.cudnn_version = CUDNN_VERSION;
    dbg.cudnnStatus = status;
    dbg.time_sec = (unsigned)now.tv_sec;
    dbg.time_usec = (unsigned)now.tv_usec;
    dbg.time_delta = (unsigned)(now.tv_sec - start_time.tv_sec);
    dbg.handle = (cudnnHandle_t)handle;
    dbg.stream = handle ? hd_handle_stream_unchecked((cudnnHandle_t)handle) : NULL;
    dbg.pid = (unsigned long long)getpid();
    dbg.tid = (unsigned long long)syscall(SYS_gettid);
    dbg.cudaDeviceId = 0;
    for (int i = 0; i < ntags && i < (int)(sizeof dbg.reserved / sizeof *dbg.reserved); i++)
        dbg.reserved[i] = tags[i];
    if (fp)
        fp(sev, ud, &dbg, msg);
    else
        hd_log_default_callback(sev, ud, &dbg, msg);
}

static void deliver(cudnnSeverity_t sev, cudnnStatus_t status, const void *handle, const char *msg)
{
    deliver_tagged(sev, status, handle, msg, NULL, 0);
}

static void rec_add(const char *fmt, ...) HD_PRINTF(1, 2);
static void rec_add(const char *fmt, ...)
{
    if (rec_len >= HD_LOG_BUF - 1) {
        rec_overflow = 1;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(rec + rec_len, HD_LOG_BUF - rec_len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    rec_len += (size_t)n;
    if (rec_len >= HD_LOG_BUF)
        rec_len = HD_LOG_BUF - 1, rec_overflow = 1;
}

void hd_log_call_begin(const char *fn)
{
    pthread_once(&env_once, init_env);
    rec_len = 0;
    rec_overflow = 0;
    rec[0] = 0;
    rec_add("I! CuDNN (v%d) function %s() called:\n", CUDNN_VERSION, fn);
}

void hd_log_arg_ptr(const char *name, const char *type, const void *p)
{
    if (p)
        rec_add("i!     %s: type=%s; addr=%p;\n", name, type, p);
    else
        rec_add("i!     %s: type=%s; addr=NULL_PTR;\n", name, type);
}

void hd_log_arg_enum(const char *name, const char *type, int v, const char *vname)
{
    rec_add("i!     %s: type=%s; val=%s (%d);\n", name, type, vname, v);
}

void hd_log_arg_int(const char *name, const char *type, long long v)
{
    rec_add("i!     %s: type=%s; val=%lld;\n", name, type, v);
}

void hd_log_arg_uint(const char *name, const char *type, unsigned long long v)
{
    rec_add("i!     %s: type=%s; val=%llu;\n", name, type, v);
}

void hd_log_arg_double(const char *name, const char *type, double v)
{
    rec_add("i!     %s: type=%s; val=%.9g;\n", name, type, v);
}

static void add_trailer(const void *handle)
{
    struct timeval now;
    gettimeofday(&now, NULL);
    long el = (long)(now.tv_sec - start_time.tv_sec);
    struct tm tmv;
    time_t t = now.tv_sec;
    gmtime_r(&t, &tmv);
    rec_add("i! Time: %04d-%02d-%02dT%02d:%02d:%02d.%06ld (%ldd+%ldh+%ldm+%lds since start)\n",
            tmv.tm_year + 1900, tmv.tm_mon + 1, tmv.tm_mday, tmv.tm_hour, tmv.tm_min, tmv.tm_sec,
            (long)now.tv_usec, el / 86400, (el / 3600) % 24, (el / 60) % 60, el % 60);
    if (handle)
        rec_add("i! Process=%d; Thread=%ld; GPU=NULL; Handle=%p; StreamId=%p.\n", (int)getpid(),
                (long)syscall(SYS_gettid), handle, (void *)hd_handle_stream_unchecked((cudnnHandle_t)handle));
    else
        rec_add("i! Process=%d; Thread=%ld; GPU=NULL; Handle=NULL; StreamId=NULL.\n", (int)getpid(),
                (long)syscall(SYS_gettid));
    if (rec_overflow)
        rec_add("i! (record truncated)\n");
    rec_add("\n");
}

void hd_log_call_end(const void *handle)
{
    add_trailer(handle);
    deliver(CUDNN_SEV_INFO, CUDNN_STATUS_SUCCESS, handle, rec);
}

static void vmessage(cudnnSeverity_t sev, const char *fn, cudnnStatus_t status, const int *rtags, int ntags,
                     const char *fmt, va_list ap)
{
    if (!hd_log_enabled(sev))
        return;
    pthread_once(&env_once, init_env);   /* start_time, in libraries that never read the env */
    static const char tags[] = {'F', 'E', 'W', 'I'};
    char c = tags[(int)sev & 3];
    char lc = (char)(c + ('a' - 'A'));
    char reason[2048];
    vsnprintf(reason, sizeof reason, fmt, ap);
    rec_len = 0;
    rec_overflow = 0;
    rec[0] = 0;
    rec_add("%c! CuDNN (v%d) function %s() called:\n", c, CUDNN_VERSION, fn ? fn : "(internal)");
    rec_add("%c!     %s: %s; Reason: %s\n", lc, sev == CUDNN_SEV_INFO ? "Info" : (sev == CUDNN_SEV_WARNING ? "Warning" : "Error"),
            hd_status_name(status), reason);
    struct timeval now;
    gettimeofday(&now, NULL);
    long el = (long)(now.tv_sec - start_time.tv_sec);
    rec_add("%c! Time: %ld.%06ld (%ldd+%ldh+%ldm+%lds since start)\n", lc, (long)now.tv_sec, (long)now.tv_usec,
            el / 86400, (el / 3600) % 24, (el / 60) % 60, el % 60);
    rec_add("%c! Process=%d; Thread=%ld; GPU=NULL.\n\n", lc, (int)getpid(), (long)syscall(SYS_gettid));
    deliver_tagged(sev, status, NULL, rec, rtags, ntags);
}

void hd_logf(cudnnSeverity_t sev, const char *fn, cudnnStatus_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(sev, fn, status, NULL, 0, fmt, ap);
    va_end(ap);
}

void hd_logf_tagged(cudnnSeverity_t sev, const char *fn, cudnnStatus_t status, const int *tags, int ntags,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(sev, fn, status, tags, ntags, fmt, ap);
    va_end(ap);
}

/* The public function name is what users grep for: strip our hd_impl_ prefix. */
static const char *public_name(const char *fn)
{
    return strncmp(fn, "hd_impl_", 8) == 0 ? fn + 8 : fn;
}

cudnnStatus_t hd_fail(cudnnStatus_t status, const char *fn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(CUDNN_SEV_ERROR, public_name(fn), status, NULL, 0, fmt, ap);
    va_end(ap);
    return status;
}

cudnnStatus_t hd_warn(cudnnStatus_t status, const char *fn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(CUDNN_SEV_WARNING, public_name(fn), status, NULL, 0, fmt, ap);
    va_end(ap);
    return status;
}

cudnnStatus_t hd_not_implemented(const char *fn)
{
    return hd_fail(CUDNN_STATUS_NOT_SUPPORTED, fn,
                   "%s is not implemented in hostdnn yet (see docs/coverage.md)", fn);
}
