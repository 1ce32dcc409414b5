/*
 * wincheck.c -- findings for the live Windows inventory (live_win.c): which cudnn64_N.dll
 * the program loads and what it shadows, whether each copy loads and answers, whether its
 * sub-library DLLs and their imports (zlibwapi.dll, nvcuda.dll, cuBLAS) are reachable,
 * NVIDIA's own "Could not load library ... Error code 126" read back to its cause, the
 * driver against the CUDA each piece needs, CUDA_PATH, and AVX.  Every problem carries the
 * fix in Windows terms (PATH, the program's folder, os.add_dll_directory).
 */
#include "doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int dr_win_dll_major(const char *name)
{
    const char *u = strrchr(name, '_');
    size_t n = strlen(name);
    if (!u || n < 4 || strcasecmp(name + n - 4, ".dll") != 0)
        return 0;
    int m = 0;
    return sscanf(u + 1, "%d", &m) == 1 && m > 0 && m < 100 ? m : 0;
}

static void dir_of(const char *p, char *out, size_t cap)
{
    dr_dirname(p, out, cap);
}

static const char *impl_name(const dr_copy *cp)
{
    return strcmp(cp->impl, "hostdnn") == 0 ? "hostdnn" : "NVIDIA";
}

static void describe(const dr_copy *cp, char *out, size_t cap)
{
    if (!cp->elf_ok)
        snprintf(out, cap, "a broken file");
    else if (cp->version[0])
        snprintf(out, cap, "%s cuDNN %s", impl_name(cp), cp->version);
    else
        snprintf(out, cap, "%s cuDNN (version unknown)", impl_name(cp));
}

/* "cuDNN 8.1.0" or, when the copy did not say, "cuDNN 8" */
static const char *release_of(const dr_copy *cp, char *buf, size_t cap)
{
    if (cp->version[0])
        snprintf(buf, cap, "cuDNN %s", cp->version);
    else
        snprintf(buf, cap, "cuDNN %d", cp->major);
    return buf;
}

static int first_hit(const dr_ctx *c, const char *dll, char *out, size_t cap)
{
    dr_win_hit h[1];
    if (!dr_win_search(&c->win_env, dll, h, 1))
        return 0;
    dr_scopy(out, cap, h[0].win_path);
    return 1;
}

/* "put DIR on the search path" in the terms of the search mode in use */
static char *reach_fix(const dr_ctx *c, const char *dir)
{
    if (c->win_env.safe)
        return dr_fmt("call os.add_dll_directory(r\"%s\") before importing the framework (Python >= 3.8 does not "
                      "search PATH)", dir);
    return dr_fmt("put %s first on PATH (set PATH=%s;%%PATH%%, or System Properties > Environment Variables), or copy "
                  "the cuDNN DLLs into the program's folder %s", dir, dir, c->win_app_dir);
}

static void pick_winners(dr_ctx *c)
{
    for (int m = 0; m < 10; m++)
        c->winner[m] = 0;
    /* unlike ld.so, LoadLibrary does not skip a bad first hit: it fails with it */
    for (int m = 7; m <= 9; m++)
        for (size_t i = 0; i < c->ncopies; i++) {
            const dr_copy *cp = &c->copies[i];
            if (cp->major == m && cp->loader_rank &&
                (!c->winner[m] || cp->loader_rank < c->copies[c->winner[m] - 1].loader_rank))
                c->winner[m] = (int)i + 1;
        }
}

static void shadow_fix_and_add(dr_ctx *c, const dr_copy *w, const dr_copy *cp)
{
    char wd[96], od[96], dir[HD_PATH_MAX], wdir[HD_PATH_MAX];
    describe(w, wd, sizeof wd);
    describe(cp, od, sizeof od);
    dir_of(cp->path, dir, sizeof dir);
    dir_of(w->path, wdir, sizeof wdir);
    const char *code = "win-shadowed";
    char *fix;
    if (strcmp(w->loader_via, "application dir") == 0) {
        code = "win-app-dir-copy";
        fix = dr_fmt("the program's own folder always comes first: delete %s (or replace it with the cuDNN DLLs of "
                     "%s) to use %s", w->path, dir, cp->path);
    } else if (strcmp(w->loader_via, "System32") == 0 || strcmp(w->loader_via, "Windows dir") == 0 ||
               strcmp(w->loader_via, "16-bit System dir") == 0) {
        fix = dr_fmt("delete the stray %s from %s (the Windows folders come before PATH); then %s is used", w->name, wdir,
                     cp->path);
    } else if (strcmp(w->loader_via, "current dir") == 0) {
        fix = dr_fmt("start the program from another folder, or delete %s", w->path);
    } else if (strcmp(w->loader_via, "PATH") == 0 && strcmp(cp->loader_via, "PATH") == 0) {
        fix = dr_fmt("put %s before %s on PATH (set PATH=%s;%%PATH%%), or remove %s from PATH", dir, wdir, dir, wdir);
    } else {
        fix = reach_fix(c, dir);
    }
    if (cp->loader_rank)
        dr_add(&c->findings, DR_WARN, code, fix, "%s (%s, via %s) shadows %s (%s, via %s): programs get the first", w->path,
               wd, w->loader_via, cp->path, od, cp->loader_via);
    else
        dr_add(&c->findings, DR_INFO, "not-searched", fix,
               "%s (%s, %s) is not on the DLL search path; programs load %s instead", cp->path, od, cp->where, w->path);
    free(fix);
}

static void check_shadowing(dr_ctx *c, int m)
{
    const dr_copy *w = &c->copies[c->winner[m] - 1];
    for (size_t i = 0; i < c->ncopies; i++) {
        const dr_copy *cp = &c->copies[i];
        if (cp == w || cp->major != m || !cp->elf_ok)
            continue;
        int differs = strcmp(cp->version, w->version) != 0 || strcmp(cp->impl, w->impl) != 0;
        if (differs)
            shadow_fix_and_add(c, w, cp);
        else if (cp->loader_rank)
            dr_add(&c->findings, DR_INFO, "duplicate", NULL, "%s is a second copy of %s; it is never loaded", cp->path,
                   w->path);
    }
}

/* The imports of a sub-library the search order cannot find: zlib, the driver, or other. */
static void dep_finding(dr_ctx *c, const dr_copy *cp, const dr_sublib *s, const char *dep, dr_sev sev, const char *said)
{
    char dir[HD_PATH_MAX];
    dir_of(cp->path, dir, sizeof dir);
    dr_lf_cause cause = dr_loadfail_cause(s->name, dep);
    if (cause == DR_LF_ZLIB) {
        char *fix = c->win_env.safe
                        ? dr_fmt("put the 64-bit zlibwapi.dll (zlib 1.2.x, ZLIB_WINAPI build) in %s and call "
                                 "os.add_dll_directory(r\"%s\")", dir, dir)
                        : dr_fmt("put the 64-bit zlibwapi.dll (zlib 1.2.x, ZLIB_WINAPI build) beside %s, in %s or in a "
                                 "folder on PATH", cp->path, dir);
        char rel[48];
        dr_add(&c->findings, sev, "win-zlib-missing", fix,
               "%s needs zlibwapi.dll (%s; NVIDIA's cuDNN loads it from 8.3 on) and it is not on the DLL search path%s%s",
               s->path, release_of(cp, rel, sizeof rel), said ? ": " : "", said ? said : "");
        free(fix);
    } else if (cause == DR_LF_DRIVER) {
        dr_add(&c->findings, sev, "loader-no-driver",
               "install the NVIDIA display driver for your GPU (it puts nvcuda.dll in System32); without an NVIDIA GPU use "
               "hostdnn's CPU cudnn64_8.dll -- the cuDNN DLLs themselves are fine",
               "%s needs nvcuda.dll, the NVIDIA driver, which is not installed%s%s", s->path, said ? ": " : "",
               said ? said : "");
        c->driver_reported = 1;
    } else {
        int cublas = strncasecmp(dep, "cublas", 6) == 0;
        char *fix = cublas ? dr_fmt("install the CUDA toolkit (or its cuBLAS) that provides %s and put its bin folder "
                                    "on PATH", dep)
                           : dr_fmt("install what provides %s and put its folder on PATH (or beside %s)", dep, cp->path);
        dr_add(&c->findings, sev, "loader-dep-missing", fix,
               "%s is present but needs %s, which is not on the DLL search path (LoadLibrary error 126)%s%s", s->path, dep,
               said ? ": " : "", said ? said : "");
        free(fix);
    }
}

/* NVIDIA's "Could not load library X. Error code N": find out which file is missing. */
static void loader_failure(dr_ctx *c, dr_copy *cp, dr_sev sev)
{
    dr_loadfail *lf = &cp->probe.lf;
    char dir[HD_PATH_MAX];
    dir_of(cp->path, dir, sizeof dir);
    const dr_sublib *s = NULL;
    for (int i = 0; i < cp->nsubs; i++)
        if (strcasecmp(cp->subs[i].name, lf->library) == 0)
            s = &cp->subs[i];
    if (lf->code == 193) {
        char *fix = dr_fmt("replace %s with the 64-bit DLL of the same cuDNN release", lf->library);
        dr_add(&c->findings, sev, "loader-failed", fix, "%s: %s is not a 64-bit DLL (NVIDIA's message: '%s')", cp->path,
               lf->library, lf->line);
        free(fix);
        return;
    }
    if (s && !s->path[0]) {
        lf->cause = DR_LF_SUBLIB;
        dr_scopy(lf->missing, sizeof lf->missing, s->name);
        char rel[48];
        char *fix = dr_fmt("copy %s from the same %s release into %s", s->name, release_of(cp, rel, sizeof rel), dir);
        dr_add(&c->findings, sev, "loader-sublib-missing", fix,
               "%s cannot find its sub-library %s on the DLL search path (NVIDIA's message: '%s')", cp->path, s->name,
               lf->line);
        free(fix);
        return;
    }
    if (s && s->missing_deps[0]) {
        char first[128];
        dr_scopy(first, sizeof first, s->missing_deps);
        first[strcspn(first, ",")] = 0;
        lf->cause = dr_loadfail_cause(s->name, first);
        dr_scopy(lf->missing, sizeof lf->missing, first);
        char said[400];
        snprintf(said, sizeof said, "NVIDIA's message '%s' means this", lf->line);
        dep_finding(c, cp, s, first, sev, said);
        return;
    }
    char *fix = lf->code == 127 ? dr_fmt("use sub-library DLLs of one cuDNN release only (all from %s)", dir)
                                : dr_fmt("reinstall the complete cuDNN %s into %s", cp->version[0] ? cp->version : "release", dir);
    dr_add(&c->findings, sev, "loader-failed", fix, "%s cannot load %s (NVIDIA's message: '%s')", cp->path, lf->library,
           lf->line);
    free(fix);
}

static void check_subs(dr_ctx *c, const dr_copy *cp, dr_sev sev)
{
    char dir[HD_PATH_MAX];
    dir_of(cp->path, dir, sizeof dir);
    char missing[512] = "";
    int nmissing = 0;
    for (int i = 0; i < cp->nsubs; i++)
        if (!cp->subs[i].path[0]) {
            size_t l = strlen(missing);
            snprintf(missing + l, sizeof missing - l, "%s%s", nmissing ? ", " : "", cp->subs[i].name);
            nmissing++;
        }
    int lf_named_sub = cp->probe.has_lf;
    if (nmissing && !lf_named_sub) {
        char rel[48];
        char *fix = dr_fmt("copy %s from the bin folder of the same %s release into %s", missing,
                           release_of(cp, rel, sizeof rel), dir);
        dr_add(&c->findings, sev, "win-sublib-missing", fix,
               "%s %s missing for %s: the first call that needs %s fails with 'Could not load library ... Error code 126'",
               missing, nmissing == 1 ? "is" : "are", cp->path, nmissing == 1 ? "it" : "them");
        free(fix);
    }
    for (int i = 0; i < cp->nsubs; i++) {
        const dr_sublib *s = &cp->subs[i];
        if (!s->path[0])
            continue;
        if (s->missing_deps[0] && !lf_named_sub) {
            dr_strlist deps = {0};
            dr_sl_split(&deps, s->missing_deps, ", ");
            for (size_t k = 0; k < deps.n; k++) {
                dr_lf_cause cause = dr_loadfail_cause(s->name, deps.v[k]);
                if ((cause == DR_LF_DRIVER && c->driver_reported) || (cause == DR_LF_ZLIB && dr_has(&c->findings, "win-zlib-missing")))
                    continue;
                dep_finding(c, cp, s, deps.v[k], sev, NULL);
            }
            dr_sl_free(&deps);
        } else if (s->err[0] && !s->missing_deps[0]) {
            char rel[48];
            char *fix = dr_fmt("replace %s with the one from the %s release", s->path, release_of(cp, rel, sizeof rel));
            dr_add(&c->findings, sev, "sublib-load", fix, "%s (for %s) does not load: %s", s->path, cp->path, s->err);
            free(fix);
        }
        int sv[3];
        int parts = dr_parse_version(s->version, sv);
        int same = parts == 0 || !cp->version[0] ||
                   (sv[0] == cp->ver[0] && (parts < 2 || sv[1] == cp->ver[1]) && (parts < 3 || sv[2] == cp->ver[2]));
        if (!same) {
            char *fix = dr_fmt("use the %s of the cuDNN %s release (in %s); remove the other one", s->name, cp->version, dir);
            dr_add(&c->findings, sev, "win-sublib-version", fix,
                   "mixed versions: %s is %s but %s (found %s) is %s (cuDNN fails with error 127 or a version mismatch)",
                   cp->path, cp->version, s->path, s->how, s->version);
            free(fix);
        } else if (strcmp(s->how, "beside the shim") != 0) {
            char *fix = dr_fmt("copy %s next to %s", s->path, cp->path);
            dr_add(&c->findings, DR_WARN, "sublib-elsewhere", fix, "%s is not beside %s; it is found through %s at %s",
                   s->name, cp->path, s->how, s->path);
            free(fix);
        }
    }
}

static void check_copy(dr_ctx *c, dr_copy *cp, int is_winner)
{
    dr_findings *f = &c->findings;
    dr_sev sev = is_winner ? DR_ERROR : DR_WARN;
    if (!is_winner && !cp->loader_rank)
        sev = DR_INFO; /* never loaded by the program in question */
    char dir[HD_PATH_MAX];
    dir_of(cp->path, dir, sizeof dir);
    if (!cp->elf_ok) {
        char *fix = dr_fmt("replace %s with the 64-bit cuDNN DLL", cp->path);
        dr_add(f, sev, "win-bad-dll", fix, "%s is unusable: %s", cp->path, cp->elf_err);
        free(fix);
        return;
    }
    const dr_probe *p = &cp->probe;
    if (p->has_lf)
        loader_failure(c, cp, sev);
    switch (p->status) {
    case DR_PROBE_OK:
    case DR_PROBE_LOADER_FAILED:
        break;
    case DR_PROBE_LOAD_FAILED: {
        char missing[256] = "";
        dr_strlist imps = {0};
        dr_pe_imports(cp->path, &imps);
        for (size_t i = 0; i < imps.n; i++) {
            char hit[HD_PATH_MAX], *beside = dr_fmt("%s\\%s", dir, imps.v[i]);
            if (!dr_win_system_dll(imps.v[i]) && !dr_is_file(beside) && !first_hit(c, imps.v[i], hit, sizeof hit)) {
                size_t l = strlen(missing);
                snprintf(missing + l, sizeof missing - l, "%s%s", l ? ", " : "", imps.v[i]);
            }
            free(beside);
        }
        dr_sl_free(&imps);
        char *fix = missing[0] ? dr_fmt("install %s and put its folder on PATH (or beside %s)", missing, cp->path)
                               : dr_fmt("replace %s with a complete cuDNN DLL", cp->path);
        dr_add(f, sev, "load-failed", fix, "%s does not load: %s%s%s", cp->path, p->err,
               missing[0] ? "; it imports what the search path lacks: " : "", missing);
        free(fix);
        return;
    }
    case DR_PROBE_NO_SYMBOL:
        dr_add(f, sev, "no-version-symbol", "replace it with a complete cuDNN DLL",
               "%s loads but does not export cudnnGetVersion: it is not a working cuDNN", cp->path);
        return;
    case DR_PROBE_CRASHED: {
        char *fix = dr_fmt("delete or replace %s (reinstall cuDNN from NVIDIA's archive); a DLL that crashes on load "
                           "takes every program using it down", cp->path);
        dr_add(f, sev, "crashed", fix, "%s crashed while loading or in cudnnGetVersion (%s)", cp->path, p->err);
        free(fix);
        return;
    }
    case DR_PROBE_TIMEOUT: {
        char *fix = dr_fmt("delete or replace %s; programs that load it will hang", cp->path);
        dr_add(f, sev, "hung", fix, "%s hung while loading or in cudnnGetVersion (%s)", cp->path, p->err);
        free(fix);
        return;
    }
    default:
        dr_add(f, sev, "probe-failed", NULL, "%s could not be examined: %s", cp->path, p->err);
        return;
    }
    if (p->status == DR_PROBE_OK && cp->ver[0] != cp->major) {
        char *fix = dr_fmt("the file name promises cuDNN %d; reinstall cuDNN %d into %s", cp->major, cp->major, dir);
        dr_add(f, sev, "version-name-mismatch", fix, "%s reports cuDNN %s, not %d.x as its name says", cp->path,
               cp->version, cp->major);
        free(fix);
    }
    check_subs(c, cp, sev);
    /* zlib: NVIDIA cuDNN 8.3 .. 9.1 loads zlibwapi.dll; 9.2+ has it built in; hostdnn never needs it */
    int vn = cp->ver[0] * 10000 + cp->ver[1] * 100 + cp->ver[2];
    if (is_winner && strcmp(cp->impl, "hostdnn") != 0 && vn >= 80300 && vn < 90200 && !dr_has(f, "win-zlib-missing")) {
        char hit[HD_PATH_MAX], *beside = dr_fmt("%s\\zlibwapi.dll", dir);
        if (!dr_is_file(beside) && !first_hit(c, "zlibwapi.dll", hit, sizeof hit)) {
            char *fix = dr_fmt("put the 64-bit zlibwapi.dll (zlib 1.2.x, ZLIB_WINAPI build) beside %s or in a folder on "
                               "PATH", cp->path);
            dr_add(f, DR_ERROR, "win-zlib-missing", fix,
                   "cuDNN %s needs zlibwapi.dll and it is not on the DLL search path (cudnn_cnn_infer64_%d.dll then fails "
                   "with error 126)", cp->version, cp->major);
            free(fix);
        }
        free(beside);
    }
}

/* The driver against the CUDA each piece needs (compat.tsv, Windows rows). */
static void check_driver(dr_ctx *c, const dr_copy *nv)
{
    dr_findings *f = &c->findings;
    const dr_driver *d = &c->driver;
    if (!d->present) {
        if (c->driver_reported)
            return;
        if (nv)
            dr_add(f, DR_ERROR, "no-driver",
                   "install the NVIDIA display driver for your GPU (it puts nvcuda.dll in System32); without an NVIDIA GPU "
                   "use hostdnn's CPU cudnn64_8.dll",
                   "no NVIDIA driver: nvcuda.dll cannot be loaded (%s); NVIDIA's cuDNN at %s cannot run here", d->probe.err,
                   nv->path);
        else
            dr_add(f, DR_INFO, "no-driver", NULL, "no NVIDIA driver (nvcuda.dll); hostdnn does not need one");
        return;
    }
    char seen[20][32];
    int ns = 0;
    for (int t = 0; t < c->ntoolkits + 1 && ns < 20; t++) {
        char cud[32];
        const char *what;
        if (t < c->ntoolkits) {
            int v[3];
            if (!dr_parse_version(c->toolkits[t].version, v))
                continue;
            snprintf(cud, sizeof cud, "%d.%d", v[0], v[1]);
            what = c->toolkits[t].how;
        } else {
            if (!nv || nv->cudart <= 0)
                continue;
            dr_cuda_decode(nv->cudart, cud, sizeof cud);
            what = "cuDNN build";
        }
        int dup = 0;
        for (int k = 0; k < ns; k++)
            dup |= strcmp(seen[k], cud) == 0;
        if (dup)
            continue;
        dr_scopy(seen[ns++], 32, cud);
        char full[32], minor[32];
        dr_compat_driver_min(&c->compat, cud, "windows", full, sizeof full, minor, sizeof minor);
        if (!d->release[0]) {
            if (d->api_version[0] && dr_vercmp(d->api_version, cud) < 0)
                dr_add(f, DR_ERROR, "driver-old", "update the NVIDIA driver",
                       "the driver supports CUDA up to %s, older than CUDA %s (%s)", d->api_version, cud, what);
            continue;
        }
        if (full[0] && dr_vercmp(d->release, full) >= 0) {
            dr_add(f, DR_INFO, "driver-ok", NULL, "driver %s meets CUDA %s (%s, needs >= %s)", d->release, cud, what, full);
        } else if (minor[0] && dr_vercmp(d->release, minor) >= 0) {
            char *fix = dr_fmt("update the driver to >= %s for the full CUDA %s feature set", full[0] ? full : "?", cud);
            dr_add(f, DR_WARN, "driver-minor-compat", fix,
                   "the driver %s is older than %s that CUDA %s (%s) needs; it runs with limited features under "
                   "minor-version compatibility (>= %s)", d->release, full[0] ? full : "?", cud, what, minor);
            free(fix);
        } else if (full[0] || minor[0]) {
            char *fix = dr_fmt("update the NVIDIA driver to >= %s", full[0] ? full : minor);
            dr_add(f, DR_ERROR, "driver-old", fix, "the driver %s is older than %s that CUDA %s (%s) needs", d->release,
                   full[0] ? full : minor, cud, what);
            free(fix);
        }
    }
}

/* cuDNN calls cuBLAS(Lt) of the CUDA major it was built for, and a program's own
 * cudart64_*.dll should be of that major too (cuDNN 8.x for CUDA 11 with cudart64_12.dll
 * means two CUDA stacks in one process). */
static void check_cuda_pairing(dr_ctx *c, const dr_copy *w)
{
    if (w->cudart <= 0)
        return;
    long long major = w->cudart / 1000;
    char name[48], hit[HD_PATH_MAX], dir[HD_PATH_MAX];
    snprintf(name, sizeof name, "cublasLt64_%lld.dll", major);
    dir_of(w->path, dir, sizeof dir);
    char *beside = dr_fmt("%s\\%s", dir, name);
    if (!dr_is_file(beside) && !first_hit(c, name, hit, sizeof hit)) {
        char *fix = dr_fmt("install the CUDA %lld toolkit (or its cuBLAS) and put its bin folder on PATH", major);
        dr_add(&c->findings, DR_WARN, "no-cublaslt", fix,
               "%s (NVIDIA cuDNN %s, built for CUDA %lld) needs %s, which is not on the DLL search path", w->path,
               w->version, major, name);
        free(fix);
    }
    free(beside);
    for (int i = 0; i < c->ncudarts; i++) {
        const dr_cudart *r = &c->cudarts[i];
        int v[3];
        if (!r->version[0] || !dr_parse_version(r->version, v))
            continue;
        dr_win_hit h[1];
        int first = dr_win_search(&c->win_env, dr_basename(r->path), h, 1) && strcasecmp(h[0].win_path, r->path) == 0;
        if (first && v[0] != major) {
            char *fix = dr_fmt("use the cuDNN build for CUDA %d, or put the CUDA %lld runtime first on PATH", v[0], major);
            dr_add(&c->findings, DR_WARN, "cuda-major-mismatch", fix,
                   "%s is CUDA %s but %s was built for CUDA %lld: cuDNN needs cuBLAS and the runtime of its own CUDA major",
                   r->path, r->version, w->path, major);
            free(fix);
        }
    }
}

static void check_env(dr_ctx *c)
{
    for (size_t i = 0; i < c->cuda_path_bad.n; i++)
        dr_add(&c->findings, DR_WARN, "cuda-path-missing",
               "fix or delete the variable (System Properties > Environment Variables); reinstalling CUDA sets it again",
               "%s names a folder that does not exist", c->cuda_path_bad.v[i]);
    for (int i = 0; i < c->ntoolkits; i++)
        dr_add(&c->findings, DR_INFO, "cuda-toolkit", NULL, "%s = %s (CUDA %s)", c->toolkits[i].how, c->toolkits[i].path,
               c->toolkits[i].version[0] ? c->toolkits[i].version : "version unknown");
}

static void check_cpu(dr_ctx *c, int nvidia8)
{
    const dr_cpu *p = &c->cpu;
    dr_add(&c->findings, DR_INFO, "cpu", NULL, "CPU %s: AVX %s, AVX2 %s, FMA %s, AVX-512 %s; hostdnn kernels: %s",
           p->brand[0] ? p->brand : "(unknown)", p->has_avx ? "yes" : "no", p->has_avx2 ? "yes" : "no",
           p->has_fma ? "yes" : "no", p->has_avx512_core ? "yes" : "no", p->hostdnn_isa);
    if (!p->has_avx && nvidia8)
        dr_add(&c->findings, DR_ERROR, "cpu-no-avx", "use a CPU with AVX, or builds made without AVX",
               "this CPU has no AVX: cuDNN 8+ and the frameworks built on it need AVX (\"Illegal instruction\", "
               "exception 0xC000001D)");
}

void dr_win_checks(dr_ctx *c)
{
    dr_findings *f = &c->findings;
    pick_winners(c);
    if (c->opt.for_prog && !c->for_err[0])
        dr_add(f, DR_INFO, "for-program", NULL, "%s%s%s; its folder %s is searched first", c->opt.for_prog,
               c->for_major ? " imports cudnn64_" : " does not import cuDNN directly",
               c->for_major ? (c->for_major == 7 ? "7.dll" : c->for_major == 8 ? "8.dll" : "9.dll") : "", c->win_app_dir);
    int any_winner = 0, nvidia8 = 0;
    const dr_copy *nv = NULL;
    for (int m = 7; m <= 9; m++)
        any_winner |= c->winner[m] != 0;
    if (!any_winner) {
        const dr_copy *off = NULL;
        for (size_t i = 0; i < c->ncopies; i++)
            if (c->copies[i].elf_ok && (!off || c->copies[i].major > off->major))
                off = &c->copies[i];
        if (off) {
            char dir[HD_PATH_MAX];
            dir_of(off->path, dir, sizeof dir);
            char *fix = reach_fix(c, dir);
            dr_add(f, DR_ERROR, "win-not-on-search-path", fix,
                   "%s is installed at %s (%s) but the DLL search of a %s does not reach it: LoadLibrary(\"%s\") fails "
                   "with error 126", off->name, off->path, off->where, c->win_mode, off->name);
            free(fix);
        } else {
            dr_add(f, DR_ERROR, "win-no-cudnn",
                   "install cuDNN (NVIDIA's zip or installer, or hostdnn) and add its bin folder to PATH, or copy the DLLs "
                   "into the program's folder",
                   "no cudnn64_7/8/9.dll anywhere on the DLL search path of a %s (program folder %s)", c->win_mode,
                   c->win_app_dir);
        }
    }
    if (c->for_major && !c->winner[c->for_major])
        dr_add(f, DR_ERROR, "not-found", "install cuDNN of that major version",
               "%s needs cudnn64_%d.dll and the search order finds none", c->opt.for_prog, c->for_major);
    for (int m = 9; m >= 7; m--) {
        if (!c->winner[m])
            continue;
        const dr_copy *w = &c->copies[c->winner[m] - 1];
        char wd[96];
        describe(w, wd, sizeof wd);
        dr_add(f, DR_INFO, "winner", NULL, "%s resolves to %s (%s, via %s)", w->name, w->path, wd, w->loader_via);
        if (w->elf_ok && strcmp(w->impl, "hostdnn") != 0 &&
            (w->probe.status == DR_PROBE_OK || w->probe.status == DR_PROBE_LOADER_FAILED)) {
            if (!nv)
                nv = w;
            nvidia8 |= w->ver[0] >= 8 || w->probe.status == DR_PROBE_LOADER_FAILED;
        }
        check_shadowing(c, m);
        if (!c->win_env.safe && strcmp(w->loader_via, "PATH") == 0) {
            char dir[HD_PATH_MAX];
            dir_of(w->path, dir, sizeof dir);
            char *fix = dr_fmt("in Python, call os.add_dll_directory(r\"%s\") before importing the framework; check "
                               "with cudnn-doctor --win-python --win-app-dir <python.exe folder>", dir);
            dr_add(f, DR_INFO, "win-python-path", fix,
                   "%s is found through PATH, which Python >= 3.8 does not search for extension modules' DLLs", w->path);
            free(fix);
        }
    }
    for (size_t i = 0; i < c->ncopies; i++) {
        int is_winner = 0;
        for (int m = 7; m <= 9; m++)
            is_winner |= c->winner[m] == (int)i + 1;
        check_copy(c, &c->copies[i], is_winner);
    }
    if (nv && nv->probe.status == DR_PROBE_OK)
        check_cuda_pairing(c, nv);
    check_driver(c, nv);
    check_env(c);
    check_cpu(c, nvidia8);
}
