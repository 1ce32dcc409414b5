/*
 * probe.c -- fork, dlopen in the child, send a fixed-size answer through a pipe, _exit.
 * The parent polls the pipe with a deadline and SIGKILLs a child that is late.  The
 * child's stdout/stderr go to an unlinked temporary file, so chatty libraries cannot garble
 * the report and NVIDIA's "Could not load library" message, printed just before it aborts,
 * can be read back to name the real cause.
 */
#include "probe.h"

#include <string.h>

const char *dr_probe_status_name(dr_probe_status s)
{
    switch (s) {
    case DR_PROBE_NOT_RUN: return "not-run";
    case DR_PROBE_OK: return "ok";
    case DR_PROBE_LOAD_FAILED: return "load-failed";
    case DR_PROBE_NO_SYMBOL: return "no-symbol";
    case DR_PROBE_CRASHED: return "crashed";
    case DR_PROBE_TIMEOUT: return "timeout";
    case DR_PROBE_ERROR: return "error";
    case DR_PROBE_LOADER_FAILED: return "loader-failed";
    }
    return "?";
}

#ifndef _WIN32 /* probe_win.c does the same with CreateProcess */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void child(const char *const *preload, int npreload, const char *target, dr_probe_kind kind, int wfd,
                  int outfd)
{
    dr_probe r;
    memset(&r, 0, sizeof r);
    r.value2 = -1;
    /* a crash must kill the child by its signal so the parent can name it, even when the
     * doctor itself runs under a sanitizer that would catch the signal and exit(1) */
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        sigaction(fatal[i], &sa, NULL);
    }
    int sink = outfd >= 0 ? outfd : open("/dev/null", O_WRONLY);
    if (sink >= 0) {
        dup2(sink, 1);
        dup2(sink, 2);
    }
    /* unbuffered: a library that prints and then aborts must not lose its last words */
    setvbuf(stdout, NULL, _IONBF, 0);
    for (int i = 0; i < npreload; i++)
        dlopen(preload[i], RTLD_NOW | RTLD_GLOBAL);
    void *h = dlopen(target, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        r.status = DR_PROBE_LOAD_FAILED;
        dr_scopy(r.err, sizeof r.err, e ? e : "dlopen failed");
    } else {
        struct link_map *lm = NULL;
        if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name)
            dr_scopy(r.loaded_from, sizeof r.loaded_from, lm->l_name);
        r.status = DR_PROBE_OK;
        if (kind == DR_PROBE_CUDNN) {
            size_t (*gv)(void) = (size_t (*)(void))dlsym(h, "cudnnGetVersion");
            size_t (*gc)(void) = (size_t (*)(void))dlsym(h, "cudnnGetCudartVersion");
            if (!gv) {
                r.status = DR_PROBE_NO_SYMBOL;
                dr_scopy(r.err, sizeof r.err, "cudnnGetVersion is not exported");
            } else {
                r.value = (long long)gv();
                r.value2 = gc ? (long long)gc() : -1;
            }
        } else if (kind == DR_PROBE_DRIVER || kind == DR_PROBE_CUDART) {
            const char *fn = kind == DR_PROBE_DRIVER ? "cuDriverGetVersion" : "cudaRuntimeGetVersion";
            int (*f)(int *) = (int (*)(int *))dlsym(h, fn);
            if (!f) {
                r.status = DR_PROBE_NO_SYMBOL;
                snprintf(r.err, sizeof r.err, "%s is not exported", fn);
            } else {
                int v = 0;
                r.call_status = f(&v);
                r.value = v;
            }
        }
    }
    const char *p = (const char *)&r;
    size_t left = sizeof r;
    while (left) {
        ssize_t w = write(wfd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        p += w;
        left -= (size_t)w;
    }
    _exit(0); /* no destructors, no atexit: the library's teardown is not our business */
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void dr_probe_run(const char *target, dr_probe_kind kind, int timeout_ms, dr_probe *out)
{
    dr_probe_run_after(NULL, 0, target, kind, timeout_ms, out);
}

void dr_probe_run_after(const char *const *preload, int npreload, const char *target, dr_probe_kind kind,
                        int timeout_ms, dr_probe *out)
{
    memset(out, 0, sizeof *out);
    out->value2 = -1;
    int fds[2];
    if (pipe(fds) != 0) {
        out->status = DR_PROBE_ERROR;
        dr_scopy(out->err, sizeof out->err, "pipe failed");
        return;
    }
    fflush(NULL);
    FILE *outf = tmpfile();
    int out_fd = outf ? fileno(outf) : -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        if (outf)
            fclose(outf);
        out->status = DR_PROBE_ERROR;
        dr_scopy(out->err, sizeof out->err, "fork failed");
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        /* a second guard in case the parent is gone: the alarm kills a hung child */
        alarm((unsigned)(timeout_ms / 1000 + 2));
        child(preload, npreload, target, kind, fds[1], out_fd);
    }
    close(fds[1]);
    dr_probe r;
    size_t got = 0;
    long long deadline = now_ms() + timeout_ms;
    int timed_out = 0;
    while (got < sizeof r) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd pf = {fds[0], POLLIN, 0};
        int pr = poll(&pf, 1, (int)left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0) {
            timed_out = 1;
            break;
        }
        ssize_t n = read(fds[0], (char *)&r + got, sizeof r - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* EOF: the child died or exited */
        got += (size_t)n;
    }
    close(fds[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    char printed[sizeof out->output];
    printed[0] = 0;
    if (outf) {
        rewind(outf);
        size_t k = fread(printed, 1, sizeof printed - 1, outf);
        printed[k] = 0;
        fclose(outf);
    }
    if (got == sizeof r) {
        *out = r;
        out->err[sizeof out->err - 1] = 0;
        out->loaded_from[sizeof out->loaded_from - 1] = 0;
        memcpy(out->output, printed, sizeof printed);
        out->has_lf = dr_loadfail_parse(out->output, &out->lf);
        return;
    }
    memcpy(out->output, printed, sizeof printed);
    out->has_lf = dr_loadfail_parse(out->output, &out->lf);
    if (timed_out) {
        out->status = DR_PROBE_TIMEOUT;
        snprintf(out->err, sizeof out->err, "no answer within %d ms; the child was killed", timeout_ms);
    } else if (WIFSIGNALED(st)) {
        out->status = WTERMSIG(st) == SIGALRM ? DR_PROBE_TIMEOUT : DR_PROBE_CRASHED;
        out->sig = WTERMSIG(st);
        snprintf(out->err, sizeof out->err, "the child died from signal %d (%s)", out->sig, strsignal(out->sig));
    } else {
        out->status = DR_PROBE_ERROR;
        snprintf(out->err, sizeof out->err, "the child exited with status %d without answering",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    /* NVIDIA's shim says why it gave up before it aborts: that is the cause, not a crash */
    if (out->has_lf && out->status != DR_PROBE_TIMEOUT) {
        char how[96];
        dr_scopy(how, sizeof how, out->err);
        out->status = DR_PROBE_LOADER_FAILED;
        snprintf(out->err, sizeof out->err, "%s (then %s)", out->lf.line, how);
    }
}
#endif
