/*
 * core/win32/include/dlfcn.h -- dlopen and friends over the Windows loader (MinGW-w64 builds).
 *
 * Callers keep their Linux library names: "libcudnn_cnn_train.so.8" is mapped to the name of
 * the Windows DLL ("cudnn_cnn_train64_8.dll"), the way NVIDIA names them.  A bare name is
 * looked for first in the folder of the module that calls dlopen (what $ORIGIN in the Linux
 * libraries' run path does), then through the normal DLL search.  A DLL loaded by path finds
 * its own dependencies beside itself (LOAD_WITH_ALTERED_SEARCH_PATH).  RTLD_DEFAULT searches
 * every module of the process.  Flags are otherwise ignored: Windows binds every DLL's
 * symbols locally.
 */
#ifndef HD_CORE_WIN32_DLFCN_H
#define HD_CORE_WIN32_DLFCN_H

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <psapi.h>
#include <stdio.h>
#include <string.h>

#define RTLD_LAZY 0x1
#define RTLD_NOW 0x2
#define RTLD_GLOBAL 0x100
#define RTLD_LOCAL 0
#define RTLD_DEEPBIND 0x8
#define RTLD_DEFAULT ((void *)0)

typedef struct {
    const char *dli_fname;
    void *dli_fbase;
    const char *dli_sname;
    void *dli_saddr;
} Dl_info;

static __thread char hd_dl_error[512];
static __thread int hd_dl_has_error;

static inline void hd_dl_set_error(const char *what, const char *name)
{
    DWORD code = GetLastError();
    snprintf(hd_dl_error, sizeof hd_dl_error, "%s %s: Windows error %lu", what, name ? name : "(null)",
             (unsigned long)code);
    hd_dl_has_error = 1;
    SetLastError(code);   /* callers may report GetLastError() themselves */
}

/* The Windows file name of a Linux library name, into OUT (N bytes); 0 when it does not fit. */
static inline int hd_dl_windows_name(const char *base, char *out, size_t n)
{
    static const char *const map[][2] = {
        {"libcudnn.so.8", "cudnn64_8.dll"},
        {"libcudnn_ops_infer.so.8", "cudnn_ops_infer64_8.dll"},
        {"libcudnn_ops_train.so.8", "cudnn_ops_train64_8.dll"},
        {"libcudnn_cnn_infer.so.8", "cudnn_cnn_infer64_8.dll"},
        {"libcudnn_cnn_train.so.8", "cudnn_cnn_train64_8.dll"},
        {"libcudnn_adv_infer.so.8", "cudnn_adv_infer64_8.dll"},
        {"libcudnn_adv_train.so.8", "cudnn_adv_train64_8.dll"},
        {"libcudart.so.11.0", "cudart64_110.dll"},
        {"libcublas.so.11", "cublas64_11.dll"},
        {"libcublasLt.so.11", "cublasLt64_11.dll"},
        {"libhostdnn.so.0", "hostdnn.dll"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(base, map[i][0]) == 0)
            return snprintf(out, n, "%s", map[i][1]) < (int)n;
    return snprintf(out, n, "%s", base) < (int)n;
}

static inline void hd_dl_anchor(void) {}

static inline void *dlopen(const char *name, int flags)
{
    char path[MAX_PATH * 2], winname[MAX_PATH];
    (void)flags;
    hd_dl_has_error = 0;
    if (!name)
        return (void *)GetModuleHandleA(NULL);
    const char *slash = strrchr(name, '/'), *bslash = strrchr(name, '\\');
    if (bslash && (!slash || bslash > slash))
        slash = bslash;
    const char *base = slash ? slash + 1 : name;
    if (!hd_dl_windows_name(base, winname, sizeof winname)) {
        hd_dl_set_error("name too long:", name);
        return NULL;
    }
    HMODULE h = NULL;
    if (slash) {
        int dir = (int)(slash - name);
        if (snprintf(path, sizeof path, "%.*s\\%s", dir, name, winname) >= (int)sizeof path) {
            hd_dl_set_error("path too long:", name);
            return NULL;
        }
        for (char *c = path; *c; c++)
            if (*c == '/')
                *c = '\\';
        h = LoadLibraryExA(path, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    } else {
        HMODULE self = NULL;
        DWORD len = 0;
        if (GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                               (LPCSTR)(void *)&hd_dl_anchor, &self))
            len = GetModuleFileNameA(self, path, MAX_PATH);
        char *cut = len > 0 && len < MAX_PATH ? strrchr(path, '\\') : NULL;
        if (cut && (size_t)(cut - path) + strlen(winname) + 2 < sizeof path) {
            strcpy(cut + 1, winname);
            if (GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES)
                h = LoadLibraryExA(path, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
        }
        if (!h)
            h = LoadLibraryA(winname);
    }
    if (!h)
        hd_dl_set_error("cannot load", name);
    return (void *)h;
}

static inline void *dlsym(void *lib, const char *name)
{
    FARPROC p = NULL;
    hd_dl_has_error = 0;
    if (lib) {
        p = GetProcAddress((HMODULE)lib, name);
    } else {
        HMODULE mods[1024];
        DWORD need = 0;
        if (K32EnumProcessModules(GetCurrentProcess(), mods, sizeof mods, &need))
            for (DWORD i = 0; i < need / sizeof mods[0] && i < 1024 && !p; i++)
                p = GetProcAddress(mods[i], name);
    }
    if (!p)
        hd_dl_set_error("no symbol", name);
    void *out;
    memcpy(&out, &p, sizeof out);
    return out;
}

static inline int dlclose(void *lib)
{
    return lib && FreeLibrary((HMODULE)lib) ? 0 : -1;
}

static inline char *dlerror(void)
{
    if (!hd_dl_has_error)
        return NULL;
    hd_dl_has_error = 0;
    return hd_dl_error;
}

/* The file (with '/' separators) of the module holding ADDR. */
static inline int dladdr(const void *addr, Dl_info *info)
{
    static __thread char file[MAX_PATH];
    HMODULE h = NULL;
    if (!GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            (LPCSTR)addr, &h))
        return 0;
    DWORD len = GetModuleFileNameA(h, file, sizeof file);
    if (len == 0 || len >= sizeof file)
        return 0;
    for (char *c = file; *c; c++)
        if (*c == '\\')
            *c = '/';
    info->dli_fname = file;
    info->dli_fbase = (void *)h;
    info->dli_sname = NULL;
    info->dli_saddr = NULL;
    return 1;
}

#endif
