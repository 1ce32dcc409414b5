/*
 * doctor.h -- the doctor's model of a machine: options, every cuDNN copy found, the CUDA
 * and framework inventory, and the findings.  Each stage (scan, inspect, cuda, frameworks,
 * cpu, windows, checks) fills its part of dr_ctx; report.c only prints it.
 */
#ifndef HD_DOCTOR_DOCTOR_H
#define HD_DOCTOR_DOCTOR_H

#include "compat.h"
#include "findings.h"
#include "ldcache.h"
#include "probe.h"
#include "util.h"
#include "winsearch.h"

#define DR_MAX_SUBLIBS 7

typedef struct {
    const char *for_prog;    /* --for PROGRAM */
    const char *sysroot;     /* --sysroot DIR: system locations are looked up under DIR */
    const char *compat_file; /* --compat FILE */
    const char *driver_version; /* --driver-version X (overrides detection) */
    dr_strlist search_dirs;  /* --search DIR */
    dr_strlist site_dirs;    /* --site-packages DIR */
    int timeout_ms;          /* --timeout MS, per child probe */
    int json;                /* --json */
    int color;               /* 1 on a terminal unless --no-color */
    int strict;              /* --strict: warnings make the exit status 1 */
    int quiet_info;          /* hide info-level findings in the text report */
    /* Windows simulation (--windows-tree ROOT) */
    const char *win_root;
    const char *win_app_dir;
    const char *win_cwd;
    const char *win_path;    /* ';'-separated, Windows syntax */
    dr_strlist win_dll_dirs; /* os.add_dll_directory / AddDllDirectory */
    const char *win_set_dll_dir; /* --win-set-dll-dir: SetDllDirectory */
    int win_python;          /* --win-python: the Python >= 3.8 search (no PATH) */
} dr_opts;

typedef struct {
    char name[64];
    char path[HD_PATH_MAX];  /* "" when not found */
    char real[HD_PATH_MAX];
    char how[40];            /* "beside the shim", "LD_LIBRARY_PATH", ... */
    char version[32];        /* "" when unknown */
    char err[600];           /* why it does not load, when probed and failed */
    char missing_deps[256];  /* Windows: imported DLLs the search order cannot find, ", "-separated */
} dr_sublib;

typedef struct {
    char path[HD_PATH_MAX];  /* where it was found (as the loader would open it) */
    char real[HD_PATH_MAX];  /* through symlinks; "" if broken */
    char where[48];          /* how it was found: "LD_LIBRARY_PATH", "ld.so.cache", ... */
    char name[64];           /* libcudnn.so.N */
    int major;               /* N from the name */
    int link_state;          /* 0 ok, 1 broken symlink, 2 symlink loop */
    long long size;
    int elf_ok;
    char elf_err[160];
    char soname[256];
    char impl[16];           /* "nvidia" or "hostdnn" ("" when not an ELF) */
    dr_probe probe;
    char version[32];        /* decoded cudnnGetVersion(), "" when unknown */
    int ver[3];
    long long cudart;        /* cudnnGetCudartVersion(), -1 unknown */
    int loader_rank;         /* 1-based position in the loader order; 0 = not searched */
    char loader_via[48];     /* which loader step reaches it */
    dr_sublib subs[DR_MAX_SUBLIBS];
    int nsubs;
    char header[HD_PATH_MAX];/* nearest cudnn_version.h / cudnn.h, "" none */
    char header_version[32];
    int header_beside;       /* 1: the header sits in the copy's own prefix */
} dr_copy;

typedef struct {
    char path[HD_PATH_MAX];
    char version[32];        /* "13.0.88" */
    char how[32];            /* "version.json", "version.txt", "nvcc -V" */
} dr_toolkit;

typedef struct {
    char path[HD_PATH_MAX];
    char real[HD_PATH_MAX];
    dr_probe probe;
    char version[32];        /* decoded cudaRuntimeGetVersion() */
} dr_cudart;

typedef struct {
    char name[16];           /* "tensorflow" or "torch" */
    char version[64];
    char site[HD_PATH_MAX];  /* site-packages it lives in */
    char cuda[32];           /* CUDA it was built for, "" unknown */
    char cudnn[32];          /* cuDNN it was built with (as precise as known) */
    char cudnn_source[256];   /* where that came from */
    int cpu_only;
    char resolved[HD_PATH_MAX]; /* the libcudnn it would load, "" none */
    char resolved_version[32];
    char resolved_how[48];
} dr_framework;

typedef struct {
    int has_avx, has_avx2, has_fma, has_f16c, has_avx512f, has_avx512_core;
    char brand[64];
    char hostdnn_isa[16];    /* scalar / avx2 / avx512 after HOSTDNN_MAX_ISA */
} dr_cpu;

typedef struct {
    int present;             /* 1 when libcuda.so.1 loaded */
    dr_probe probe;
    char api_version[32];    /* cuDriverGetVersion as "12.2" */
    char release[32];        /* "535.104.05" (from /proc or the file name), "" unknown */
    char release_source[64];
} dr_driver;

typedef struct {
    dr_opts opt;
    dr_compat compat;
    dr_ldcache cache;
    char self_dir[HD_PATH_MAX]; /* the doctor's own directory (for hostdnn's prefix) */
    dr_strlist rpath, runpath;  /* of --for PROGRAM, expanded */
    dr_strlist sites;           /* site-packages dirs searched */
    dr_strlist unreadable;      /* dirs we could not look into */
    dr_strlist ldconf;          /* dirs listed in /etc/ld.so.conf(.d) */
    int for_major;              /* libcudnn.so.N the program needs, 0 none */
    char for_err[256];
    dr_copy *copies;
    size_t ncopies, capcopies;
    dr_toolkit toolkits[16];
    int ntoolkits;
    dr_cudart cudarts[16];
    int ncudarts;
    dr_driver driver;
    int driver_reported;        /* a copy's loader failure already named the missing driver */
    dr_framework fw[16];
    int nfw;
    dr_cpu cpu;
    dr_findings findings;
    int winner[10];             /* index+1 into copies of the copy loaded for libcudnn.so.N */
    /* Windows simulation results are findings plus this text block */
    char *win_text;
    char *win_json;
    /* live Windows (cudnn-doctor.exe on the machine itself): copies[] holds the DLLs */
    int win_live;
    dr_win_env win_env;         /* the search order of the program in question */
    char win_mode[40];          /* "plain program" / "Python >= 3.8 extension" */
    char win_app_dir[HD_PATH_MAX];
    char win_sys32[HD_PATH_MAX], win_windir[HD_PATH_MAX], win_cwd[HD_PATH_MAX];
    char *win_path_env;         /* PATH as read (owned) */
    dr_strlist cuda_path_bad;   /* "CUDA_PATH=C:\x" whose folder does not exist */
} dr_ctx;

/* sysroot-aware path: "/usr/lib" -> "<sysroot>/usr/lib" (malloc'ed) */
char *dr_sys(const dr_ctx *c, const char *abs_path);

/* stages */
void dr_scan(dr_ctx *c);            /* scan.c: find copies, loader order, winners */
void dr_inspect(dr_ctx *c);         /* inspect.c: ELF, probe, sub-libraries, headers */
void dr_cuda(dr_ctx *c);            /* cuda.c: toolkits, cudart copies, driver */
void dr_frameworks(dr_ctx *c);      /* frameworks.c */
void dr_cpu_detect(dr_cpu *cpu);    /* cpu.c */
void dr_checks(dr_ctx *c);          /* checks.c: turn the inventory into findings */
void dr_windows(dr_ctx *c);         /* windows.c: --windows-tree simulation */
void dr_win_live(dr_ctx *c);        /* live_win.c (Windows builds): this machine's DLLs */
void dr_win_checks(dr_ctx *c);      /* wincheck.c: findings for the live Windows inventory */
/* Windows: the major of cudnn64_N.dll / cudnn_x64_N.dll names, 0 otherwise */
int dr_win_dll_major(const char *name);

/* Loader resolution of a bare name for a plain dlopen (or for --for's program).
 * Appends the candidate paths in loader order to paths and the step labels to how. */
void dr_resolve(const dr_ctx *c, const char *name, const dr_strlist *rpath, const dr_strlist *runpath,
                dr_strlist *paths, dr_strlist *how);

/* LD_LIBRARY_PATH as glibc reads it (an empty entry is "."); returns 1 if it has one. */
int dr_ld_library_path(dr_strlist *dirs);

/* version helpers (version.c) */
void dr_cudnn_decode(long long v, int out[3]);      /* 8101 -> 8.1.1, 90600 -> 9.6.0 */
void dr_cuda_decode(long long v, char *out, size_t cap); /* 11020 -> "11.2" */
/* a CUDA toolkit's version from its version.json ("cuda": {"version": "13.0.88"}) or
 * version.txt ("CUDA Version 10.2.89"); 1 when found */
int dr_cuda_version_json(const char *file, char *out, size_t cap);
int dr_cuda_version_txt(const char *file, char *out, size_t cap);

#endif
