/*
 * winsearch.h -- the Windows DLL search order as a pure function over a directory tree,
 * so it can be checked on Linux with fake trees: ROOT/C/Windows/System32/... stands for
 * C:\Windows\System32\...  Names are matched case-insensitively, as on NTFS.
 */
#ifndef HD_DOCTOR_WINSEARCH_H
#define HD_DOCTOR_WINSEARCH_H

#include "util.h"

typedef struct {
    const char *root;        /* host directory standing for the machine; NULL: this machine (live) */
    const char *app_dir;     /* the .exe's directory (python.exe's for Python), Windows syntax */
    const char *system32;    /* default C:\Windows\System32 */
    const char *windows_dir; /* default C:\Windows */
    const char *cwd;         /* current directory, may be NULL */
    dr_strlist path;         /* PATH entries */
    dr_strlist dll_dirs;     /* AddDllDirectory / os.add_dll_directory */
    const char *set_dll_dir; /* SetDllDirectory: searched after the app dir, and the CWD is not */
    int safe;                /* 1: SetDefaultDllDirectories mode (Python >= 3.8): no CWD, no PATH */
} dr_win_env;

typedef struct {
    char win_path[1024];        /* C:\dir\name.dll */
    char host_path[HD_PATH_MAX];
    char step[24];              /* "application dir", "System32", "PATH", ... */
} dr_win_hit;

/* Every directory holding dll, in search order; the first is what LoadLibrary gets.
 * Returns the number of hits (at most max). */
int dr_win_search(const dr_win_env *e, const char *dll, dr_win_hit *hits, int max);
/* Map a Windows path onto the tree (case-insensitive); returns 1 when it exists. */
int dr_win_to_host(const char *root, const char *win, char *out, size_t cap);

/* The DLL names a PE file imports (its import directory), pushed onto out in file order.
 * Returns the number found, -1 when the file is not a readable PE image. */
int dr_pe_imports(const char *host_path, dr_strlist *out);
/* 1 for the names every process already has or the system resolves itself (api-ms-win-*
 * API sets, ntdll/kernel32/...): a missing one of these is not a cuDNN problem. */
int dr_win_system_dll(const char *name);

/* PE facts: machine (0x8664 x64, 0x14c x86) and the file version from the
 * VS_FIXEDFILEINFO block (v[4]); returns 1 for a PE file. */
int dr_pe_info(const char *host_path, int *machine, int v[4], int *has_version);

#endif
