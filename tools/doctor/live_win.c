/*
 * live_win.c -- cudnn-doctor.exe on the machine itself: the real DLL search order of the
 * program in question (its folder, System32, the Windows folder, the current folder, PATH;
 * SetDllDirectory, or the Python >= 3.8 rules with os.add_dll_directory folders), every
 * cudnn64_N.dll it reaches plus those under CUDA_PATH*, --search and the cuDNN installer's
 * folder, each probed in a child; their sub-library DLLs and what those import; the driver
 * (nvcuda.dll), cudart64_*.dll, the CUDA_PATH variables and the CPU.  wincheck.c turns it
 * into findings.
 */
#ifdef _WIN32
#include "doctor.h"
#include "headers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <windows.h>

static const char *const SUB8[] = {"ops_infer", "ops_train", "cnn_infer", "cnn_train", "adv_infer", "adv_train"};
static const char *const SUB9[] = {"graph", "ops", "cnn", "adv", "heuristic", "engines_precompiled",
                                   "engines_runtime_compiled"};

/* hostdnn's DLLs carry the marker; NVIDIA's are far larger than this */
#define MARKER_SCAN_MAX (64ll << 20)

static void dir_of(const char *p, char *out, size_t cap)
{
    dr_dirname(p, out, cap);
}

static int has_marker(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size <= MARKER_SCAN_MAX && dr_file_contains(path, "hostdnn", MARKER_SCAN_MAX);
}

static dr_copy *add_copy(dr_ctx *c, const char *path, int major, const char *where, int rank, const char *via)
{
    for (size_t i = 0; i < c->ncopies; i++)
        if (strcasecmp(c->copies[i].path, path) == 0)
            return NULL;
    if (c->ncopies == c->capcopies) {
        size_t nc = c->capcopies ? c->capcopies * 2 : 8;
        dr_copy *nv = realloc(c->copies, nc * sizeof *nv);
        if (!nv)
            abort();
        c->copies = nv;
        c->capcopies = nc;
    }
    dr_copy *cp = &c->copies[c->ncopies++];
    memset(cp, 0, sizeof *cp);
    dr_scopy(cp->path, sizeof cp->path, path);
    dr_scopy(cp->real, sizeof cp->real, path);
    dr_scopy(cp->name, sizeof cp->name, dr_basename(path));
    dr_scopy(cp->where, sizeof cp->where, where);
    dr_scopy(cp->loader_via, sizeof cp->loader_via, via ? via : "");
    cp->major = major;
    cp->loader_rank = rank;
    cp->cudart = -1;
    return cp;
}

static void pe_version(const char *path, char *out, size_t cap, int ver[3])
{
    int mach = 0, v[4], hv = 0;
    out[0] = 0;
    if (dr_pe_info(path, &mach, v, &hv) && hv) {
        snprintf(out, cap, "%d.%d.%d", v[0], v[1], v[2]);
        if (ver)
            ver[0] = v[0], ver[1] = v[1], ver[2] = v[2];
    }
}

/* Imports of a DLL that neither its own folder nor the search order provides. */
static void missing_imports(const dr_ctx *c, const char *dll, char *out, size_t cap)
{
    out[0] = 0;
    dr_strlist imps = {0};
    dr_pe_imports(dll, &imps);
    char dir[HD_PATH_MAX];
    dir_of(dll, dir, sizeof dir);
    for (size_t i = 0; i < imps.n; i++) {
        const char *n = imps.v[i];
        if (dr_win_system_dll(n))
            continue;
        char *beside = dr_fmt("%s\\%s", dir, n);
        int ok = dr_is_file(beside);
        free(beside);
        dr_win_hit h[1];
        if (!ok)
            ok = dr_win_search(&c->win_env, n, h, 1) > 0;
        if (!ok) {
            size_t l = strlen(out);
            snprintf(out + l, cap - l, "%s%s", l ? ", " : "", n);
        }
    }
    dr_sl_free(&imps);
}

static void inspect_subs(dr_ctx *c, dr_copy *cp)
{
    int n = cp->major == 8 ? 6 : cp->major == 9 ? 7 : 0;
    char dir[HD_PATH_MAX];
    dir_of(cp->path, dir, sizeof dir);
    cp->nsubs = n;
    for (int i = 0; i < n; i++) {
        dr_sublib *s = &cp->subs[i];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "cudnn_%s64_%d.dll", cp->major == 8 ? SUB8[i] : SUB9[i], cp->major);
        char *beside = dr_fmt("%s\\%s", dir, s->name);
        dr_win_hit h[1];
        /* the shim loads them by bare name: the program's search order decides, except for
         * a copy that order never reaches (then: as if its folder were on it) */
        if (cp->loader_rank && dr_win_search(&c->win_env, s->name, h, 1)) {
            dr_scopy(s->path, sizeof s->path, h[0].win_path);
            dr_scopy(s->how, sizeof s->how, strcasecmp(h[0].win_path, beside) == 0 ? "beside the shim" : h[0].step);
        } else if (dr_is_file(beside)) {
            dr_scopy(s->path, sizeof s->path, beside);
            dr_scopy(s->how, sizeof s->how, "beside the shim");
        }
        free(beside);
        if (!s->path[0])
            continue;
        dr_scopy(s->real, sizeof s->real, s->path);
        pe_version(s->path, s->version, sizeof s->version, NULL);
        missing_imports(c, s->path, s->missing_deps, sizeof s->missing_deps);
        dr_probe pr;
        dr_probe_run(s->path, DR_PROBE_CUDNN, c->opt.timeout_ms, &pr);
        if (pr.status == DR_PROBE_OK) {
            int v[3];
            dr_cudnn_decode(pr.value, v);
            snprintf(s->version, sizeof s->version, "%d.%d.%d", v[0], v[1], v[2]);
        } else if (pr.status != DR_PROBE_NO_SYMBOL) {
            snprintf(s->err, sizeof s->err, "%s: %s", dr_probe_status_name(pr.status), pr.err);
        }
    }
}

static void inspect_copy(dr_ctx *c, dr_copy *cp)
{
    struct stat st;
    if (stat(cp->path, &st) == 0)
        cp->size = (long long)st.st_size;
    int mach = 0, v[4], hv = 0;
    if (!dr_pe_info(cp->path, &mach, v, &hv)) {
        snprintf(cp->elf_err, sizeof cp->elf_err, "not a DLL (no PE header)");
        return;
    }
    if (mach != 0x8664) {
        snprintf(cp->elf_err, sizeof cp->elf_err,
                 "not a 64-bit DLL (machine 0x%x): LoadLibrary fails with error 193", mach);
        return;
    }
    cp->elf_ok = 1;
    char dir[HD_PATH_MAX];
    dir_of(cp->path, dir, sizeof dir);
    char *ops = dr_fmt("%s\\cudnn_ops_infer64_%d.dll", dir, cp->major);
    dr_scopy(cp->impl, sizeof cp->impl, has_marker(cp->path) || (cp->major == 8 && has_marker(ops)) ? "hostdnn" : "nvidia");
    free(ops);
    dr_probe_run(cp->path, DR_PROBE_CUDNN, c->opt.timeout_ms, &cp->probe);
    if (cp->probe.status == DR_PROBE_OK) {
        dr_cudnn_decode(cp->probe.value, cp->ver);
        snprintf(cp->version, sizeof cp->version, "%d.%d.%d", cp->ver[0], cp->ver[1], cp->ver[2]);
        cp->cudart = cp->probe.value2;
    } else if (hv) {
        /* not answering: the file version is the best there is */
        cp->ver[0] = v[0], cp->ver[1] = v[1], cp->ver[2] = v[2];
        snprintf(cp->version, sizeof cp->version, "%d.%d.%d", v[0], v[1], v[2]);
    }
    inspect_subs(c, cp);
    /* the archive layout: bin\cudnn64_8.dll, include\cudnn_version.h */
    char *inc = dr_fmt("%s\\..\\include", dir);
    int hv3[3];
    if (dr_header_in_dir(inc, cp->header, sizeof cp->header, hv3)) {
        snprintf(cp->header_version, sizeof cp->header_version, "%d.%d.%d", hv3[0], hv3[1], hv3[2]);
        cp->header_beside = 1;
    }
    free(inc);
}

static void add_dir_copies(dr_ctx *c, const char *dir, const char *where)
{
    char *pat = dr_fmt("%s\\cudnn64_*.dll", dir);
    dr_strlist g = {0};
    dr_glob(pat, &g);
    free(pat);
    for (size_t i = 0; i < g.n; i++) {
        int m = dr_win_dll_major(dr_basename(g.v[i]));
        if (m >= 7 && m <= 9)
            add_copy(c, g.v[i], m, where, 0, NULL);
    }
    dr_sl_free(&g);
}

/* CUDA_PATH and CUDA_PATH_Vx_y: the toolkits the installers registered */
static void find_toolkits(dr_ctx *c)
{
    char *envs = GetEnvironmentStringsA();
    if (!envs)
        return;
    for (const char *e = envs; *e && c->ntoolkits < 16; e += strlen(e) + 1) {
        const char *eq = strchr(e, '=');
        if (!eq || eq == e)
            continue;
        size_t kl = (size_t)(eq - e);
        char key[64];
        if (kl >= sizeof key)
            continue;
        memcpy(key, e, kl);
        key[kl] = 0;
        int vmaj = 0, vmin = 0;
        int named = strncasecmp(key, "CUDA_PATH_V", 11) == 0 && sscanf(key + 11, "%d_%d", &vmaj, &vmin) == 2;
        if (!named && strcasecmp(key, "CUDA_PATH") != 0)
            continue;
        const char *val = eq + 1;
        if (!dr_is_dir(val)) {
            char *b = dr_fmt("%s=%s", key, val);
            dr_sl_push(&c->cuda_path_bad, b);
            free(b);
            continue;
        }
        dr_toolkit *t = &c->toolkits[c->ntoolkits];
        memset(t, 0, sizeof *t);
        dr_scopy(t->path, sizeof t->path, val);
        char *vj = dr_fmt("%s\\version.json", val), *vt = dr_fmt("%s\\version.txt", val);
        if (!dr_cuda_version_json(vj, t->version, sizeof t->version) && !dr_cuda_version_txt(vt, t->version, sizeof t->version) &&
            named)
            snprintf(t->version, sizeof t->version, "%d.%d", vmaj, vmin);
        free(vj);
        free(vt);
        dr_scopy(t->how, sizeof t->how, key);
        c->ntoolkits++; /* even without a version: its bin folder may hold cuDNN */
    }
    FreeEnvironmentStringsA(envs);
}

static void find_cudarts(dr_ctx *c)
{
    static const char *const names[] = {"cudart64_100.dll", "cudart64_101.dll", "cudart64_102.dll",
                                        "cudart64_110.dll", "cudart64_12.dll", "cudart64_13.dll"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        dr_win_hit h[4];
        int n = dr_win_search(&c->win_env, names[i], h, 4);
        for (int k = 0; k < n && c->ncudarts < 16; k++) {
            dr_cudart *r = &c->cudarts[c->ncudarts++];
            memset(r, 0, sizeof *r);
            dr_scopy(r->path, sizeof r->path, h[k].win_path);
            dr_scopy(r->real, sizeof r->real, h[k].win_path);
            dr_probe_run(r->path, DR_PROBE_CUDART, c->opt.timeout_ms, &r->probe);
            if (r->probe.status == DR_PROBE_OK)
                dr_cuda_decode(r->probe.value, r->version, sizeof r->version);
        }
    }
}

/* nvcuda.dll file version a.b.c.d carries the driver release in its last five digits:
 * 31.0.15.3623 -> 536.23 */
static void find_driver(dr_ctx *c)
{
    dr_driver *d = &c->driver;
    memset(d, 0, sizeof *d);
    char *p = dr_fmt("%s\\nvcuda.dll", c->win_sys32);
    if (!dr_is_file(p)) {
        d->probe.status = DR_PROBE_LOAD_FAILED;
        snprintf(d->probe.err, sizeof d->probe.err, "%s does not exist", p);
    } else {
        dr_probe_run(p, DR_PROBE_DRIVER, c->opt.timeout_ms, &d->probe);
        d->present = d->probe.status == DR_PROBE_OK || d->probe.status == DR_PROBE_NO_SYMBOL;
        if (!d->probe.loaded_from[0])
            dr_scopy(d->probe.loaded_from, sizeof d->probe.loaded_from, p);
        if (d->probe.status == DR_PROBE_OK && d->probe.call_status == 0)
            dr_cuda_decode(d->probe.value, d->api_version, sizeof d->api_version);
        int mach = 0, v[4], hv = 0;
        if (dr_pe_info(p, &mach, v, &hv) && hv && v[3] >= 0) {
            int r = (v[2] % 10) * 10000 + v[3];
            snprintf(d->release, sizeof d->release, "%d.%02d", r / 100, r % 100);
            dr_scopy(d->release_source, sizeof d->release_source, "nvcuda.dll file version");
        }
    }
    free(p);
    if (c->opt.driver_version) {
        dr_scopy(d->release, sizeof d->release, c->opt.driver_version);
        dr_scopy(d->release_source, sizeof d->release_source, "--driver-version");
    }
}

static void setup_env(dr_ctx *c)
{
    dr_win_env *e = &c->win_env;
    memset(e, 0, sizeof *e);
    if (c->opt.win_app_dir)
        dr_scopy(c->win_app_dir, sizeof c->win_app_dir, c->opt.win_app_dir);
    else if (c->opt.for_prog)
        dir_of(c->opt.for_prog, c->win_app_dir, sizeof c->win_app_dir);
    else
        dr_scopy(c->win_app_dir, sizeof c->win_app_dir, c->self_dir);
    GetSystemDirectoryA(c->win_sys32, sizeof c->win_sys32);
    GetWindowsDirectoryA(c->win_windir, sizeof c->win_windir);
    if (c->opt.win_cwd)
        dr_scopy(c->win_cwd, sizeof c->win_cwd, c->opt.win_cwd);
    else
        GetCurrentDirectoryA(sizeof c->win_cwd, c->win_cwd);
    const char *path = c->opt.win_path ? c->opt.win_path : getenv("PATH");
    c->win_path_env = dr_xstrdup(path ? path : "");
    e->root = NULL;
    e->app_dir = c->win_app_dir;
    e->system32 = c->win_sys32;
    e->windows_dir = c->win_windir;
    e->cwd = c->win_cwd;
    dr_sl_split(&e->path, c->win_path_env, ";");
    for (size_t i = 0; i < c->opt.win_dll_dirs.n; i++)
        dr_sl_push(&e->dll_dirs, c->opt.win_dll_dirs.v[i]);
    e->set_dll_dir = c->opt.win_set_dll_dir;
    e->safe = c->opt.win_python || c->opt.win_dll_dirs.n > 0;
    dr_scopy(c->win_mode, sizeof c->win_mode, e->safe ? "Python >= 3.8 extension" : "plain program");
}

/* --for PROGRAM.exe: its folder is the application dir, its imports say which cuDNN */
static void for_program(dr_ctx *c)
{
    dr_strlist imps = {0};
    if (dr_pe_imports(c->opt.for_prog, &imps) < 0)
        snprintf(c->for_err, sizeof c->for_err, "%s is not a Windows program (no PE header)", c->opt.for_prog);
    for (size_t i = 0; i < imps.n; i++) {
        int m = dr_win_dll_major(imps.v[i]);
        if (m >= 7 && m <= 9 && strncasecmp(imps.v[i], "cudnn64_", 8) == 0)
            c->for_major = m;
    }
    dr_sl_free(&imps);
}

void dr_win_live(dr_ctx *c)
{
    c->win_live = 1;
    setup_env(c);
    if (c->opt.for_prog)
        for_program(c);
    for (int m = 9; m >= 7; m--) {
        char dll[32];
        snprintf(dll, sizeof dll, "cudnn64_%d.dll", m);
        dr_win_hit h[16];
        int n = dr_win_search(&c->win_env, dll, h, 16);
        for (int k = 0; k < n; k++)
            add_copy(c, h[k].win_path, m, h[k].step, k + 1, h[k].step);
        if (c->win_env.safe) {
            /* what a plain program would find through PATH: there, but not for Python */
            dr_win_env plain = c->win_env;
            plain.safe = 0;
            n = dr_win_search(&plain, dll, h, 16);
            for (int k = 0; k < n; k++)
                if (strcmp(h[k].step, "PATH") == 0)
                    add_copy(c, h[k].win_path, m, "PATH (not searched here)", 0, NULL);
        }
    }
    find_toolkits(c);
    /* copies the search order does not reach: toolkits, --search, the cuDNN installer */
    for (int t = 0; t < c->ntoolkits; t++) {
        char *b = dr_fmt("%s\\bin", c->toolkits[t].path);
        add_dir_copies(c, b, c->toolkits[t].how);
        free(b);
    }
    for (size_t i = 0; i < c->opt.search_dirs.n; i++)
        add_dir_copies(c, c->opt.search_dirs.v[i], "--search");
    const char *pf = getenv("ProgramFiles");
    if (pf) {
        dr_strlist vers = {0};
        char *pat = dr_fmt("%s\\NVIDIA\\CUDNN\\v*", pf);
        dr_glob(pat, &vers);
        free(pat);
        for (size_t i = 0; i < vers.n; i++) {
            char *b = dr_fmt("%s\\bin", vers.v[i]);
            add_dir_copies(c, b, "cuDNN installer folder");
            dr_strlist sub = {0};
            char *p2 = dr_fmt("%s\\*", b); /* cuDNN 9: bin\12.x\ */
            dr_glob(p2, &sub);
            for (size_t k = 0; k < sub.n; k++)
                if (dr_is_dir(sub.v[k]))
                    add_dir_copies(c, sub.v[k], "cuDNN installer folder");
            dr_sl_free(&sub);
            free(p2);
            free(b);
        }
        dr_sl_free(&vers);
    }
    for (size_t i = 0; i < c->ncopies; i++)
        inspect_copy(c, &c->copies[i]);
    find_cudarts(c);
    find_driver(c);
    dr_cpu_detect(&c->cpu);
    dr_win_checks(c);
}
#endif
