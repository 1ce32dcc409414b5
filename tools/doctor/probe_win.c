/*
 * probe_win.c -- the child probe on Windows.  There is no fork: the doctor starts itself
 * with CreateProcess in its hidden "--probe-dll KIND DLL" mode, the child LoadLibrary's the
 * DLL and prints its answer between marker lines; stdout and stderr come back through one
 * pipe, so what the DLL printed (NVIDIA's "Could not load library ..." above all) is kept.
 * The parent waits with a deadline, kills a child that is late, and reads an exception
 * exit code (0xC0000005 ...) as a crash.
 */
#ifdef _WIN32
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#define MARK_END "@@cudnn-doctor-probe-end "
#define MARK_FROM "@@cudnn-doctor-probe-from "
#define MARK_ERR "@@cudnn-doctor-probe-err "

const char *dr_win_exception_name(unsigned long code)
{
    switch (code) {
    case 0xC0000005ul: return "access violation";
    case 0xC000001Dul: return "illegal instruction";
    case 0xC0000094ul: return "integer division by zero";
    case 0xC00000FDul: return "stack overflow";
    case 0xC0000409ul: return "fail-fast / stack buffer overrun";
    case 0xC0000374ul: return "heap corruption";
    case 0xC0000096ul: return "privileged instruction";
    case 0x80000003ul: return "breakpoint";
    case 0xC0000135ul: return "a DLL the program needs was not found";
    case 0xC0000142ul: return "DLL initialization failed";
    }
    return NULL;
}

/* ---------------- child ---------------- */

/* an unhandled exception ends the child with its code at once: no error dialog, no debugger */
static LONG WINAPI die_with_code(EXCEPTION_POINTERS *ep)
{
    TerminateProcess(GetCurrentProcess(), ep && ep->ExceptionRecord ? ep->ExceptionRecord->ExceptionCode : 1);
    return EXCEPTION_EXECUTE_HANDLER;
}

static void print_err(const char *fmt, unsigned long code, const char *what)
{
    char msg[256] = "";
    FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, msg, sizeof msg, NULL);
    msg[strcspn(msg, "\r\n")] = 0;
    printf("\n" MARK_ERR);
    printf(fmt, code, msg[0] ? msg : "no system text", what);
    printf("\n");
}

int dr_probe_child_main(const char *kind, const char *dll)
{
    SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
    SetUnhandledExceptionFilter(die_with_code);
    setvbuf(stdout, NULL, _IONBF, 0);
    setvbuf(stderr, NULL, _IONBF, 0);
    /* a full path: its own folder is searched for what it loads by name, as when it is the
     * copy a program picks (then that folder is on the program's search path) */
    char dir[MAX_PATH];
    const char *slash = strrchr(dll, '\\');
    if (slash && (size_t)(slash - dll) < sizeof dir) {
        memcpy(dir, dll, (size_t)(slash - dll));
        dir[slash - dll] = 0;
        SetDllDirectoryA(dir);
    }
    HMODULE h = LoadLibraryExA(dll, NULL, slash ? LOAD_WITH_ALTERED_SEARCH_PATH : 0);
    int status = DR_PROBE_OK;
    long long value = 0, value2 = -1;
    int call = 0;
    if (!h) {
        unsigned long e = GetLastError();
        /* 998 / 1114: the loader caught an exception in the DLL's own start-up code */
        int crashed = e == ERROR_NOACCESS || e == ERROR_DLL_INIT_FAILED;
        print_err("LoadLibrary failed with error %lu (%s)%s", e,
                  crashed ? "; its DllMain crashed or refused to start" : "");
        printf(MARK_END "%d 0 -1 %lu\n", crashed ? DR_PROBE_CRASHED : DR_PROBE_LOAD_FAILED, e);
        return 0;
    }
    char from[MAX_PATH] = "";
    GetModuleFileNameA(h, from, sizeof from);
    printf("\n" MARK_FROM "%s\n", from);
    if (strcmp(kind, "cudnn") == 0) {
        FARPROC gv = GetProcAddress(h, "cudnnGetVersion"), gc = GetProcAddress(h, "cudnnGetCudartVersion");
        if (!gv) {
            status = DR_PROBE_NO_SYMBOL;
            printf("\n" MARK_ERR "cudnnGetVersion is not exported\n");
        } else {
            value = (long long)((size_t (*)(void))(void (*)(void))gv)();
            value2 = gc ? (long long)((size_t (*)(void))(void (*)(void))gc)() : -1;
        }
    } else if (strcmp(kind, "driver") == 0 || strcmp(kind, "cudart") == 0) {
        const char *fn = kind[1] == 'r' ? "cuDriverGetVersion" : "cudaRuntimeGetVersion";
        FARPROC f = GetProcAddress(h, fn);
        if (!f) {
            status = DR_PROBE_NO_SYMBOL;
            printf("\n" MARK_ERR "%s is not exported\n", fn);
        } else {
            int v = 0;
            call = ((int (*)(int *))(void (*)(void))f)(&v);
            value = v;
        }
    }
    printf("\n" MARK_END "%d %lld %lld %d\n", status, value, value2, call);
    fflush(stdout);
    /* no FreeLibrary, no CRT teardown: the library's exit code paths are not the question */
    TerminateProcess(GetCurrentProcess(), 0);
    return 0;
}

/* ---------------- parent ---------------- */

static const char *kind_arg(dr_probe_kind k)
{
    return k == DR_PROBE_CUDNN ? "cudnn" : k == DR_PROBE_DRIVER ? "driver" : k == DR_PROBE_CUDART ? "cudart" : "load";
}

/* the marker lines out of the captured text; the rest is what the library printed */
static int take_markers(char *text, dr_probe *out)
{
    int answered = 0;
    char *clean = text, *p = text;
    while (*p) {
        char *eol = p + strcspn(p, "\n");
        int last = *eol == 0;
        *eol = 0;
        if (strncmp(p, MARK_END, sizeof MARK_END - 1) == 0) {
            int st = 0, call = 0;
            long long v = 0, v2 = -1;
            if (sscanf(p + sizeof MARK_END - 1, "%d %lld %lld %d", &st, &v, &v2, &call) == 4) {
                out->status = (dr_probe_status)st;
                out->value = v;
                out->value2 = v2;
                out->call_status = call;
                answered = 1;
            }
        } else if (strncmp(p, MARK_FROM, sizeof MARK_FROM - 1) == 0) {
            dr_scopy(out->loaded_from, sizeof out->loaded_from, p + sizeof MARK_FROM - 1);
        } else if (strncmp(p, MARK_ERR, sizeof MARK_ERR - 1) == 0) {
            dr_scopy(out->err, sizeof out->err, p + sizeof MARK_ERR - 1);
        } else if (*p) {
            size_t l = strlen(p);
            memmove(clean, p, l);
            clean += l;
            *clean++ = '\n';
        }
        if (last)
            break;
        p = eol + 1;
    }
    *clean = 0;
    return answered;
}

void dr_probe_run(const char *target, dr_probe_kind kind, int timeout_ms, dr_probe *out)
{
    dr_probe_run_after(NULL, 0, target, kind, timeout_ms, out);
}

void dr_probe_run_after(const char *const *preload, int npreload, const char *target, dr_probe_kind kind,
                        int timeout_ms, dr_probe *out)
{
    (void)preload;
    (void)npreload;
    memset(out, 0, sizeof *out);
    out->value2 = -1;
    char self[MAX_PATH];
    if (!GetModuleFileNameA(NULL, self, sizeof self)) {
        out->status = DR_PROBE_ERROR;
        dr_scopy(out->err, sizeof out->err, "cannot find the doctor's own program to start the probe");
        return;
    }
    char *cmd = dr_fmt("\"%s\" --probe-dll %s \"%s\"", self, kind_arg(kind), target);
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
    HANDLE rd = NULL, wr = NULL;
    if (!CreatePipe(&rd, &wr, &sa, 0)) {
        free(cmd);
        out->status = DR_PROBE_ERROR;
        dr_scopy(out->err, sizeof out->err, "CreatePipe failed");
        return;
    }
    SetHandleInformation(rd, HANDLE_FLAG_INHERIT, 0);
    STARTUPINFOA si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = wr;
    si.hStdError = wr;
    PROCESS_INFORMATION pi;
    fflush(NULL);
    BOOL started = CreateProcessA(self, cmd, NULL, NULL, TRUE, CREATE_NO_WINDOW, NULL, NULL, &si, &pi);
    free(cmd);
    CloseHandle(wr);
    if (!started) {
        CloseHandle(rd);
        out->status = DR_PROBE_ERROR;
        snprintf(out->err, sizeof out->err, "CreateProcess failed (error %lu)", (unsigned long)GetLastError());
        return;
    }
    enum { CAP = 16384 };
    char *text = dr_xcalloc(CAP + 1, 1);
    size_t got = 0;
    ULONGLONG deadline = GetTickCount64() + (ULONGLONG)timeout_ms;
    int timed_out = 0, exited = 0;
    for (;;) {
        DWORD avail = 0;
        if (PeekNamedPipe(rd, NULL, 0, NULL, &avail, NULL) && avail) {
            char chunk[4096];
            DWORD r = 0;
            if (ReadFile(rd, chunk, avail < sizeof chunk ? avail : sizeof chunk, &r, NULL) && r) {
                /* keep the first CAP bytes; drain the rest so the child never blocks */
                size_t take = got + r > CAP ? CAP - got : r;
                memcpy(text + got, chunk, take);
                got += take;
            }
            continue;
        }
        if (exited)
            break; /* exited and drained */
        if (WaitForSingleObject(pi.hProcess, 10) == WAIT_OBJECT_0) {
            exited = 1; /* one more round to drain what is left */
            continue;
        }
        if (GetTickCount64() > deadline) {
            timed_out = 1;
            TerminateProcess(pi.hProcess, 1);
            WaitForSingleObject(pi.hProcess, 5000);
            break;
        }
    }
    DWORD code = 0;
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    CloseHandle(rd);
    text[got] = 0;
    int answered = take_markers(text, out);
    dr_scopy(out->output, sizeof out->output, text);
    free(text);
    out->has_lf = dr_loadfail_parse(out->output, &out->lf);
    if (answered && !timed_out)
        return;
    out->loaded_from[0] = 0;
    const char *ex = dr_win_exception_name(code);
    if (timed_out) {
        out->status = DR_PROBE_TIMEOUT;
        snprintf(out->err, sizeof out->err, "no answer within %d ms; the child was killed", timeout_ms);
        return;
    } else if (ex || code == 3) {
        /* 3: the C runtime's abort() */
        out->status = DR_PROBE_CRASHED;
        out->sig = (int)code;
        if (ex)
            snprintf(out->err, sizeof out->err, "the child died with exception 0x%08lX (%s)", (unsigned long)code, ex);
        else
            snprintf(out->err, sizeof out->err, "the child called abort() (exit status 3)");
    } else {
        out->status = DR_PROBE_ERROR;
        snprintf(out->err, sizeof out->err, "the child exited with status %lu without answering", (unsigned long)code);
    }
    if (out->has_lf) {
        char how[128];
        dr_scopy(how, sizeof how, out->err);
        out->status = DR_PROBE_LOADER_FAILED;
        snprintf(out->err, sizeof out->err, "%s (then %s)", out->lf.line, how);
    }
}
#endif
