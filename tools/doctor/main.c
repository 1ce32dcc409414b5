/*
 * main.c -- cudnn-doctor's command line: parse options, run the stages in order, print.
 *
 *   cudnn-doctor [options]               report on this machine
 *   cudnn-doctor snapshot FILE [options] save the full JSON report
 *   cudnn-doctor diff A B                what changed between two snapshots
 *
 * Exit status: 0 healthy, 1 problems found, 2 usage error.
 */
#include "doctor.h"
#include "report.h"
#include "snapdiff.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _WIN32
#include <windows.h>
#endif

#ifndef HD_DOCTOR_VERSION
#define HD_DOCTOR_VERSION "0.1.0"
#endif

static void usage(FILE *o)
{
    fputs("usage: cudnn-doctor [options]\n"
          "       cudnn-doctor snapshot FILE [options]\n"
          "       cudnn-doctor diff SNAPSHOT_A SNAPSHOT_B\n"
          "Finds every cuDNN the loader could load, loads each in a child process, and explains\n"
          "which one wins and what is wrong.  See docs/doctor.md.\n"
          "options:\n"
          "  --for PROGRAM          resolve libcudnn as PROGRAM would (its DT_RPATH/DT_RUNPATH, DT_NEEDED)\n"
          "  --search DIR           also look for cuDNN in DIR (repeatable)\n"
          "  --site-packages DIR    also look for TensorFlow/PyTorch and nvidia wheels in DIR (repeatable)\n"
          "  --sysroot DIR          look up system locations (ld.so.cache, default dirs, /usr/local/cuda*,\n"
          "                         /proc/driver) under DIR instead of /\n"
          "  --compat FILE          compatibility table (default: <prefix>/share/hostdnn/compat.tsv)\n"
          "  --driver-version X     take X as the NVIDIA driver release (e.g. 450.80.02)\n"
          "  --timeout MS           limit for each child probe (default 10000)\n"
          "  --json                 print the JSON report\n"
          "  --color, --no-color    force colors on or off (default: on for a terminal)\n"
          "  --strict               warnings also give exit status 1\n"
          "  --brief                hide informational findings in the text report\n"
          "  --windows-tree ROOT    also check Windows DLL resolution in a tree (ROOT/C/x = C:\\x)\n"
          "  --win-app-dir DIR      the program's (or python.exe's) directory, Windows syntax\n"
          "  --win-path 'A;B'       the PATH to simulate\n"
          "  --win-cwd DIR          the current directory to simulate\n"
          "  --win-dll-dir DIR      a directory added with os.add_dll_directory (repeatable)\n"
          "  --win-set-dll-dir DIR  a directory set with SetDllDirectory (plain programs)\n"
          "  --win-python           Windows: check the Python >= 3.8 search (no PATH) instead of a plain program's\n"
          "On Windows (cudnn-doctor.exe) the report is about this machine: the program's folder\n"
          "(--win-app-dir, the folder of --for PROGRAM.exe, or the doctor's own), System32, the\n"
          "Windows folder, the current folder and PATH; --win-* options override each part.\n"
          "  -h, --help             this text\n"
          "  --version              the doctor's version\n"
          "exit status: 0 healthy, 1 problems found (or snapshots differ), 2 usage error\n",
          o);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "cudnn-doctor: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(try cudnn-doctor --help)\n");
    return 2;
}

/* "--opt value" or "--opt=value"; returns the value or NULL (then *err is set). */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *matched, int *err)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    *matched = 0;
    if (strncmp(a, name, n) != 0 || (a[n] != 0 && a[n] != '='))
        return NULL;
    *matched = 1;
    if (a[n] == '=')
        return a + n + 1;
    if (*i + 1 >= argc) {
        *err = 1;
        return NULL;
    }
    return argv[++*i];
}

#ifndef _WIN32
static void load_cache(dr_ctx *c)
{
    char *file = dr_sys(c, "/etc/ld.so.cache");
    int ok = dr_ldcache_parse(file, &c->cache);
    free(file);
    if (ok || c->opt.sysroot)
        return;
    /* an unknown cache format: ask ldconfig itself */
    FILE *p = popen("ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null", "r");
    if (!p)
        return;
    size_t cap = 1 << 16, n = 0;
    char *text = dr_xcalloc(cap, 1);
    size_t r;
    while ((r = fread(text + n, 1, cap - n - 1, p)) > 0) {
        n += r;
        if (n + 1 >= cap) {
            char *nt = realloc(text, cap * 2);
            if (!nt)
                break;
            text = nt;
            cap *= 2;
        }
    }
    text[n] = 0;
    pclose(p);
    if (n)
        dr_ldcache_parse_ldconfig_text(text, &c->cache);
    free(text);
}
#endif

static int load_compat(dr_ctx *c)
{
    char err[512] = "";
    if (c->opt.compat_file) {
        if (!dr_compat_load(&c->compat, c->opt.compat_file, err, sizeof err)) {
            fprintf(stderr, "cudnn-doctor: bad compatibility table: %s\n", err);
            return 0;
        }
        return 1;
    }
    char *cands[4];
    int n = 0;
    if (c->self_dir[0]) {
        cands[n++] = dr_fmt("%s/../share/hostdnn/compat.tsv", c->self_dir);
        cands[n++] = dr_fmt("%s/compat.tsv", c->self_dir); /* a zip: beside cudnn-doctor.exe */
    }
#ifdef HD_DOCTOR_SOURCE_COMPAT
    cands[n++] = dr_xstrdup(HD_DOCTOR_SOURCE_COMPAT);
#endif
    for (int i = 0; i < n; i++) {
        if (!c->compat.loaded && dr_is_file(cands[i]))
            dr_compat_load(&c->compat, cands[i], err, sizeof err);
        free(cands[i]);
    }
    if (!c->compat.loaded)
        dr_add(&c->findings, DR_WARN, "no-compat-table", "reinstall hostdnn or pass --compat FILE",
               "the compatibility table (compat.tsv) was not found; driver and framework checks are limited%s%s",
               err[0] ? ": " : "", err);
    return 1;
}

static void free_ctx(dr_ctx *c)
{
    dr_compat_free(&c->compat);
#ifndef _WIN32
    dr_ldcache_free(&c->cache);
#endif
    dr_sl_free(&c->rpath);
    dr_sl_free(&c->runpath);
    dr_sl_free(&c->sites);
    dr_sl_free(&c->unreadable);
    dr_sl_free(&c->ldconf);
    dr_sl_free(&c->opt.search_dirs);
    dr_sl_free(&c->opt.site_dirs);
    dr_sl_free(&c->opt.win_dll_dirs);
    dr_findings_free(&c->findings);
    free(c->copies);
    free(c->win_text);
    free(c->win_json);
    dr_sl_free(&c->win_env.path);
    dr_sl_free(&c->win_env.dll_dirs);
    dr_sl_free(&c->cuda_path_bad);
    free(c->win_path_env);
}

int main(int argc, char **argv)
{
    static dr_ctx ctx;
    dr_ctx *c = &ctx;
    c->opt.timeout_ms = 10000;
    int color = -1;
    const char *snapshot = NULL;
#ifdef _WIN32
    /* the child probe: the doctor started by itself to load one DLL (probe_win.c) */
    if (argc == 4 && strcmp(argv[1], "--probe-dll") == 0)
        return dr_probe_child_main(argv[2], argv[3]);
#endif
    if (argc >= 2 && strcmp(argv[1], "diff") == 0) {
        if (argc != 4)
            return bad_usage("diff needs exactly two snapshot files%s", "");
        return dr_snapshot_diff(argv[2], argv[3], stdout, stderr);
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int m = 0, err = 0;
#define VAL(name) ((v = opt_value(argc, argv, &i, name, &m, &err)), m)
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            free_ctx(c);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("cudnn-doctor %s\n", HD_DOCTOR_VERSION);
            free_ctx(c);
            return 0;
        } else if (strcmp(a, "snapshot") == 0 && !snapshot) {
            if (i + 1 >= argc || argv[i + 1][0] == '-') {
                free_ctx(c);
                return bad_usage("snapshot needs a FILE%s", "");
            }
            snapshot = argv[++i];
        } else if (strcmp(a, "--json") == 0) {
            c->opt.json = 1;
        } else if (strcmp(a, "--color") == 0) {
            color = 1;
        } else if (strcmp(a, "--no-color") == 0) {
            color = 0;
        } else if (strcmp(a, "--strict") == 0) {
            c->opt.strict = 1;
        } else if (strcmp(a, "--brief") == 0) {
            c->opt.quiet_info = 1;
        } else if (VAL("--for")) {
            c->opt.for_prog = v;
        } else if (VAL("--search")) {
            if (v) dr_sl_push(&c->opt.search_dirs, v);
        } else if (VAL("--site-packages")) {
            if (v) dr_sl_push(&c->opt.site_dirs, v);
        } else if (VAL("--sysroot")) {
            c->opt.sysroot = v;
        } else if (VAL("--compat")) {
            c->opt.compat_file = v;
        } else if (VAL("--driver-version")) {
            c->opt.driver_version = v;
        } else if (VAL("--timeout")) {
            if (v) {
                char *end;
                long t = strtol(v, &end, 10);
                if (*end || t < 1 || t > 600000) {
                    free_ctx(c);
                    return bad_usage("--timeout wants milliseconds between 1 and 600000, not '%s'", v);
                }
                c->opt.timeout_ms = (int)t;
            }
        } else if (VAL("--windows-tree")) {
            c->opt.win_root = v;
        } else if (VAL("--win-app-dir")) {
            c->opt.win_app_dir = v;
        } else if (VAL("--win-path")) {
            c->opt.win_path = v;
        } else if (VAL("--win-cwd")) {
            c->opt.win_cwd = v;
        } else if (VAL("--win-dll-dir")) {
            if (v) dr_sl_push(&c->opt.win_dll_dirs, v);
        } else if (VAL("--win-set-dll-dir")) {
            c->opt.win_set_dll_dir = v;
        } else if (strcmp(a, "--win-python") == 0) {
            c->opt.win_python = 1;
        } else {
            free_ctx(c);
            return bad_usage(a[0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'", a);
        }
#undef VAL
        if (err) {
            free_ctx(c);
            return bad_usage("option '%s' needs a value", a);
        }
    }
    if (c->opt.sysroot && !dr_is_dir(c->opt.sysroot)) {
        free_ctx(c);
        return bad_usage("--sysroot %s is not a directory", c->opt.sysroot);
    }
    if (c->opt.win_root && !dr_is_dir(c->opt.win_root)) {
        free_ctx(c);
        return bad_usage("--windows-tree %s is not a directory", c->opt.win_root);
    }
    if (c->opt.for_prog && !dr_is_file(c->opt.for_prog)) {
        free_ctx(c);
        return bad_usage("--for %s: no such program", c->opt.for_prog);
    }
    c->opt.color = color >= 0 ? color : (!c->opt.json && isatty(1) && !getenv("NO_COLOR"));

    char self[HD_PATH_MAX];
#ifdef _WIN32
    DWORD n = GetModuleFileNameA(NULL, self, sizeof self - 1);
    if (n > 0 && n < sizeof self - 1) {
        self[n] = 0;
        dr_dirname(self, c->self_dir, sizeof c->self_dir);
    }
#else
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        dr_dirname(self, c->self_dir, sizeof c->self_dir);
    }
#endif
    if (!load_compat(c)) {
        free_ctx(c);
        return 2;
    }
    if (c->opt.win_root) {
        /* a Windows tree is checked on its own: this Linux machine is not the subject */
        dr_windows(c);
    } else {
#ifdef _WIN32
        dr_win_live(c);
        if (c->opt.for_prog && c->for_err[0]) {
            fprintf(stderr, "cudnn-doctor: --for %s\n", c->for_err);
            free_ctx(c);
            return 2;
        }
#else
        load_cache(c);
        dr_scan(c);
        if (c->opt.for_prog && c->for_err[0]) {
            fprintf(stderr, "cudnn-doctor: --for %s\n", c->for_err);
            free_ctx(c);
            return 2;
        }
        dr_inspect(c);
        dr_cuda(c);
        dr_frameworks(c);
        dr_cpu_detect(&c->cpu);
        dr_checks(c);
#endif
    }

    int rc = dr_count(&c->findings, DR_ERROR) || (c->opt.strict && dr_count(&c->findings, DR_WARN)) ? 1 : 0;
    if (snapshot) {
        FILE *f = fopen(snapshot, "w");
        if (!f) {
            fprintf(stderr, "cudnn-doctor: cannot write %s\n", snapshot);
            free_ctx(c);
            return 2;
        }
        dr_report_json(c, f);
        fclose(f);
        char *v = dr_verdict(c);
        printf("cudnn-doctor: %s\nsnapshot written to %s\n", v, snapshot);
        free(v);
    } else if (c->opt.json) {
        dr_report_json(c, stdout);
    } else {
        dr_report_text(c, stdout);
    }
    free_ctx(c);
    return rc;
}
