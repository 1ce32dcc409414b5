/*
 * checks.c -- turn the inventory into findings: which copy wins for each libcudnn.so.N,
 * what it shadows, whether it loads and is complete, whether headers, driver,
 * frameworks and CPU fit it.  Every problem carries the concrete fix.
 */
#include "doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dir_of(const char *p, char *out, size_t cap)
{
    dr_dirname(p, out, cap);
}

static const char *impl_name(const dr_copy *cp)
{
    return strcmp(cp->impl, "hostdnn") == 0 ? "hostdnn" : "NVIDIA";
}

/* "NVIDIA cuDNN 9.19.0" / "hostdnn 8.1.0" / "cuDNN (version unknown)" */
static void describe(const dr_copy *cp, char *out, size_t cap)
{
    if (!cp->elf_ok)
        snprintf(out, cap, "a broken file");
    else if (cp->version[0])
        snprintf(out, cap, "%s cuDNN %s", impl_name(cp), cp->version);
    else
        snprintf(out, cap, "%s cuDNN (version unknown)", impl_name(cp));
}

static char *ld_fix(const char *dir)
{
    return dr_fmt("put %s first on LD_LIBRARY_PATH (export LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}), "
                  "or register it system-wide: echo %s | sudo tee /etc/ld.so.conf.d/cudnn.conf && sudo ldconfig",
                  dir, dir, dir);
}

/* The copy the loader would actually open for libcudnn.so.N: the first reachable one
 * that is not a dangling link or a foreign-architecture ELF (both are skipped). */
static void pick_winners(dr_ctx *c)
{
    for (int m = 0; m < 10; m++)
        c->winner[m] = 0;
    for (int m = 7; m <= 9; m++) {
        int best = 0, best_rank = 0;
        for (size_t i = 0; i < c->ncopies; i++) {
            const dr_copy *cp = &c->copies[i];
            if (cp->major != m || !cp->loader_rank || cp->link_state)
                continue;
            if (!cp->elf_ok && strstr(cp->elf_err, "wrong architecture"))
                continue;
            if (!best || cp->loader_rank < best_rank) {
                best = (int)i + 1;
                best_rank = cp->loader_rank;
            }
        }
        c->winner[m] = best;
    }
}

/* NVIDIA's "Could not load library X. Error: Y": name what is really missing.  Returns 1
 * when the cause is the missing driver (then the driver check says nothing more). */
static int loader_failure(dr_ctx *c, const dr_copy *cp, dr_sev sev)
{
    const dr_loadfail *lf = &cp->probe.lf;
    dr_findings *f = &c->findings;
    char dir[HD_PATH_MAX];
    dir_of(cp->path, dir, sizeof dir);
    switch (lf->cause) {
    case DR_LF_DRIVER:
        if (strcmp(lf->missing, "libcuda.so") == 0 && c->driver.present) {
            char ddir[HD_PATH_MAX] = "/usr/lib/x86_64-linux-gnu", real[HD_PATH_MAX];
            if (c->driver.probe.loaded_from[0] && realpath(c->driver.probe.loaded_from, real))
                dir_of(real, ddir, sizeof ddir);
            char *fix = dr_fmt("create the link: sudo ln -s libcuda.so.1 %s/libcuda.so && sudo ldconfig", ddir);
            dr_add(f, sev, "loader-no-libcuda-so", fix,
                   "%s cannot load %s: the driver is installed but only as libcuda.so.1, and cuDNN asks for "
                   "\"libcuda.so\" (NVIDIA's message: '%s')", cp->path, lf->library, lf->line);
            free(fix);
            return 0;
        }
        dr_add(f, sev, "loader-no-driver",
               "install the NVIDIA driver (it provides libcuda.so.1; NVIDIA's cuDNN needs an NVIDIA GPU and its driver); "
               "on a machine without one use hostdnn's CPU libcudnn.so.8 instead -- this copy itself is fine, do not "
               "remove it",
               "%s is not broken: it stops because the NVIDIA driver is missing -- %s cannot be loaded without %s "
               "(NVIDIA's message: '%s')", cp->path, lf->library, lf->missing, lf->line);
        return 1;
    case DR_LF_SUBLIB: {
        char *fix = dr_fmt("install the complete cuDNN %s package so that %s sits beside %s", cp->version[0] ? cp->version : "",
                           lf->library, cp->path);
        dr_add(f, sev, "loader-sublib-missing", fix, "%s cannot find its sub-library %s (NVIDIA's message: '%s')", cp->path,
               lf->library, lf->line);
        free(fix);
        return 0;
    }
    case DR_LF_DEP:
    case DR_LF_ZLIB: {
        int cublas = strncmp(lf->missing, "libcublas", 9) == 0;
        char *fix = cublas ? dr_fmt("install cuBLAS of the CUDA major this cuDNN was built for (the CUDA toolkit, or pip "
                                    "install nvidia-cublas-cuNN) and make the directory holding %s visible to the loader "
                                    "(LD_LIBRARY_PATH or ldconfig)", lf->missing)
                           : dr_fmt("install the package that provides %s and make its directory visible to the loader "
                                    "(LD_LIBRARY_PATH or ldconfig)", lf->missing);
        dr_add(f, sev, "loader-dep-missing", fix,
               "%s's sub-library %s is present but needs %s, which the loader cannot find (NVIDIA's message: '%s')",
               cp->path, lf->library, lf->missing, lf->line);
        free(fix);
        return 0;
    }
    case DR_LF_OTHER:
        break;
    }
    char *fix = dr_fmt("make %s loadable (ldd on it shows what is missing), or reinstall cuDNN into %s", lf->library, dir);
    dr_add(f, sev, "loader-failed", fix, "%s cannot load its sub-library %s (NVIDIA's message: '%s')", cp->path, lf->library,
           lf->line);
    free(fix);
    return 0;
}

static void check_copy_health(dr_ctx *c, const dr_copy *cp, int is_winner)
{
    dr_findings *f = &c->findings;
    dr_sev sev = is_winner ? DR_ERROR : DR_WARN;
    char dir[HD_PATH_MAX];
    dir_of(cp->path, dir, sizeof dir);
    if (cp->link_state == 1) {
        char *fix = dr_fmt("remove the dangling link (rm %s) or reinstall the library it pointed to", cp->path);
        dr_add(f, DR_WARN, "broken-symlink", fix, "%s is a broken symbolic link (the loader skips it)", cp->path);
        free(fix);
        return;
    }
    if (cp->link_state == 2) {
        char *fix = dr_fmt("remove the looping link: rm %s", cp->path);
        dr_add(f, DR_WARN, "symlink-loop", fix, "%s is a symbolic link loop (the loader skips it)", cp->path);
        free(fix);
        return;
    }
    if (!cp->elf_ok) {
        int foreign = strstr(cp->elf_err, "wrong architecture") != NULL;
        char *fix = dr_fmt("delete or replace %s with a real x86-64 libcudnn.so.%d", cp->path, cp->major);
        if (is_winner && !foreign)
            dr_add(f, DR_ERROR, "not-elf", fix,
                   "%s is not a valid shared library (%s); it comes first, so every dlopen of %s fails with this error",
                   cp->path, cp->elf_err, cp->name);
        else
            dr_add(f, foreign ? DR_INFO : DR_WARN, "not-elf", fix, "%s is not a usable shared library (%s)", cp->path,
                   cp->elf_err);
        free(fix);
        return;
    }
    if (cp->soname[0] && strcmp(cp->soname, cp->name) != 0) {
        char *fix = dr_fmt("install the library under its own name (%s) instead of renaming or linking it as %s",
                           cp->soname, cp->name);
        dr_add(f, DR_WARN, "soname-mismatch", fix,
               "%s has SONAME %s: a program asking for %s gets a library that calls itself something else (renamed "
               "copy of another release?)",
               cp->path, cp->soname, cp->name);
        free(fix);
    }
    const dr_probe *p = &cp->probe;
    if (p->has_lf && loader_failure(c, cp, sev))
        c->driver_reported = 1;
    switch (p->status) {
    case DR_PROBE_OK:
        break;
    case DR_PROBE_LOADER_FAILED:
        return; /* said above, with its cause */
    case DR_PROBE_LOAD_FAILED: {
        char *fix = dr_fmt("install what it depends on (ldd %s shows the missing library) or remove this copy", cp->path);
        dr_add(f, sev, "load-failed", fix, "%s does not load: %s", cp->path, p->err);
        free(fix);
        return;
    }
    case DR_PROBE_NO_SYMBOL:
        dr_add(f, sev, "no-version-symbol", "replace it with a complete cuDNN library",
               "%s loads but does not export cudnnGetVersion: it is not a working cuDNN", cp->path);
        return;
    case DR_PROBE_CRASHED: {
        char *fix = dr_fmt("replace or remove %s; a library that crashes on load takes every program using it down", cp->path);
        dr_add(f, sev, "crashed", fix, "%s crashed while loading or in cudnnGetVersion (%s)", cp->path, p->err);
        free(fix);
        return;
    }
    case DR_PROBE_TIMEOUT: {
        char *fix = dr_fmt("replace or remove %s; programs that load it will hang", cp->path);
        dr_add(f, sev, "hung", fix, "%s hung while loading or in cudnnGetVersion (%s)", cp->path, p->err);
        free(fix);
        return;
    }
    default:
        dr_add(f, sev, "probe-failed", NULL, "%s could not be examined: %s", cp->path, p->err);
        return;
    }
    if (cp->ver[0] != cp->major) {
        char *fix = dr_fmt("the file name promises cuDNN %d; reinstall cuDNN %d into %s", cp->major, cp->major, dir);
        dr_add(f, sev, "version-name-mismatch", fix, "%s reports cuDNN %s, not %d.x as its name says", cp->path,
               cp->version, cp->major);
        free(fix);
    }
    /* sub-libraries: all present, all loadable, all of the shim's version */
    /* one finding for all missing sub-libraries: they usually go missing together */
    char missing[512] = "";
    int nmissing = 0;
    for (int i = 0; i < cp->nsubs; i++)
        if (!cp->subs[i].path[0]) {
            size_t l = strlen(missing);
            snprintf(missing + l, sizeof missing - l, "%s%s", nmissing ? ", " : "", cp->subs[i].name);
            nmissing++;
        }
    if (nmissing) {
        char *fix = dr_fmt("install the complete cuDNN %s package so that every libcudnn_*.so.%d sits beside %s",
                           cp->version, cp->major, cp->path);
        dr_add(f, sev, "sublib-missing", fix,
               "%s %s missing for %s: cuDNN loads %s on first use and the call fails (ldd does not show this)", missing,
               nmissing == 1 ? "is" : "are", cp->path, nmissing == 1 ? "it" : "them");
        free(fix);
    }
    for (int i = 0; i < cp->nsubs; i++) {
        const dr_sublib *s = &cp->subs[i];
        if (!s->path[0])
            continue;
        if (s->err[0] && strstr(s->err, "libcuda.so") && strstr(s->err, "cannot open shared object file")) {
            /* it needs the driver, like every NVIDIA sub-library: one finding for the machine */
            if (!c->driver_reported)
                dr_add(f, sev, "loader-no-driver",
                       "install the NVIDIA driver (it provides libcuda.so.1); on a machine without an NVIDIA GPU use "
                       "hostdnn's CPU libcudnn.so.8 instead -- the cuDNN files themselves are fine",
                       "%s (for %s) cannot be loaded because the NVIDIA driver is missing: %s", s->path, cp->path, s->err);
            c->driver_reported = 1;
        } else if (s->err[0]) {
            char *fix = dr_fmt("make %s loadable (ldd %s lists what is missing)", s->path, s->path);
            dr_add(f, sev, "sublib-load", fix, "%s (for %s) does not load: %s", s->path, cp->path, s->err);
            free(fix);
        }
        int sv[3];
        int parts = dr_parse_version(s->version, sv);
        int same = parts == 0 || (sv[0] == cp->ver[0] && (parts < 2 || sv[1] == cp->ver[1]) &&
                                  (parts < 3 || sv[2] == cp->ver[2]));
        if (!same) {
            char sdir[HD_PATH_MAX];
            dir_of(s->path, sdir, sizeof sdir);
            char *fix = dr_fmt("reinstall cuDNN so every libcudnn*.so.%d comes from the same release; remove %s or put %s "
                               "first on LD_LIBRARY_PATH",
                               cp->major, s->path, dir);
            dr_add(f, sev, "sublib-version", fix,
                   "mixed versions: %s is %s but %s (found %s) is %s (cuDNN fails with a version mismatch status)",
                   cp->path, cp->version, s->path, s->how, s->version);
            free(fix);
        } else if (strcmp(s->how, "beside the shim") != 0) {
            char *fix = dr_fmt("copy or link %s next to %s", s->path, cp->path);
            dr_add(f, DR_WARN, "sublib-elsewhere", fix, "%s is not beside %s; it is found through %s at %s", s->name,
                   cp->path, s->how, s->path);
            free(fix);
        }
    }
    /* header */
    if (cp->header[0]) {
        int hv[3];
        dr_parse_version(cp->header_version, hv);
        if (hv[0] != cp->ver[0] || hv[1] != cp->ver[1] || hv[2] != cp->ver[2]) {
            char *fix = dr_fmt("compile against the header that matches the library (cuDNN %s), or install the matching "
                               "development package",
                               cp->version);
            dr_sev hs = !cp->header_beside ? DR_INFO : hv[0] != cp->ver[0] ? DR_ERROR : DR_WARN;
            if (!is_winner && hs > DR_WARN)
                hs = DR_WARN;
            dr_add(f, hs, "header-mismatch", fix, "header %s says cuDNN %s but %s is %s%s", cp->header,
                   cp->header_version, cp->path, cp->version,
                   cp->header_beside ? "" : " (a system-wide header, used by builds that pass no -I)");
            free(fix);
        }
    } else if (is_winner) {
        dr_add(f, DR_INFO, "header-missing", "install the cuDNN development package to build against it",
               "no cudnn_version.h/cudnn.h found for %s (only needed to compile programs)", cp->path);
    }
}

static void check_shadowing(dr_ctx *c, int m)
{
    const dr_copy *w = &c->copies[c->winner[m] - 1];
    char wd[96];
    describe(w, wd, sizeof wd);
    for (size_t i = 0; i < c->ncopies; i++) {
        const dr_copy *cp = &c->copies[i];
        if (cp == w || cp->major != m || cp->link_state || !cp->elf_ok)
            continue;
        char od[96], dir[HD_PATH_MAX];
        describe(cp, od, sizeof od);
        dir_of(cp->path, dir, sizeof dir);
        int differs = strcmp(cp->version, w->version) != 0 || strcmp(cp->impl, w->impl) != 0;
        char *fix = ld_fix(dir);
        char *fix2 = dr_fmt("to use it instead: %s", fix);
        if (cp->loader_rank) {
            if (differs)
                dr_add(&c->findings, DR_WARN, "shadowed", fix2,
                       "%s (%s, via %s) shadows %s (%s, via %s)", w->path, wd, w->loader_via, cp->path, od,
                       cp->loader_via);
            else
                dr_add(&c->findings, DR_INFO, "duplicate", NULL, "%s is a second copy of %s (%s); it is never loaded",
                       cp->path, od, w->path);
        } else if (differs) {
            dr_add(&c->findings, DR_INFO, "not-searched", fix2,
                   "%s (%s, %s) is not on the loader's search path; programs load %s instead", cp->path, od, cp->where,
                   w->path);
        }
        free(fix);
        free(fix2);
    }
}

static void check_driver(dr_ctx *c, const dr_copy *nv_winner)
{
    dr_findings *f = &c->findings;
    const dr_driver *d = &c->driver;
    if (!d->present) {
        if (c->driver_reported)
            return; /* the copy's own loader failure already named the driver */
        if (nv_winner)
            dr_add(f, DR_ERROR, "no-driver",
                   "install the NVIDIA driver (a GPU and the driver are required by NVIDIA's cuDNN), or use hostdnn's "
                   "CPU libcudnn.so.8",
                   "no NVIDIA driver: libcuda.so.1 cannot be loaded (%s); NVIDIA's cuDNN at %s cannot run here",
                   d->probe.err, nv_winner->path);
        else
            dr_add(f, DR_INFO, "no-driver", NULL, "no NVIDIA driver (libcuda.so.1 not loadable); hostdnn does not need one");
        return;
    }
    /* cuDNN 8's cnn_infer dlopens the unversioned "libcuda.so"; WSL and many containers
     * ship only libcuda.so.1 */
    if (nv_winner && nv_winner->ver[0] == 8) {
        dr_strlist paths = {0}, hows = {0};
        dr_resolve(c, "libcuda.so", NULL, NULL, &paths, &hows);
        if (paths.n == 0) {
            char dir[HD_PATH_MAX] = "/usr/lib/x86_64-linux-gnu";
            char real[HD_PATH_MAX];
            if (d->probe.loaded_from[0] && realpath(d->probe.loaded_from, real))
                dir_of(real, dir, sizeof dir);
            char *fix = dr_fmt("create the link: sudo ln -s libcuda.so.1 %s/libcuda.so && sudo ldconfig", dir);
            dr_add(f, DR_WARN, "no-libcuda-so", fix,
                   "only libcuda.so.1 is present; cuDNN 8 loads \"libcuda.so\" and fails with 'Could not load library "
                   "libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file'");
            free(fix);
        }
        dr_sl_free(&paths);
        dr_sl_free(&hows);
    }
    /* CUDA versions the driver must serve: each toolkit, and each winner's build CUDA */
    char seen[16][32];
    int ns = 0;
    char cud[32];
    for (int t = 0; t < c->ntoolkits + 10 && ns < 16; t++) {
        const char *what;
        if (t < c->ntoolkits) {
            int v[3];
            dr_parse_version(c->toolkits[t].version, v);
            snprintf(cud, sizeof cud, "%d.%d", v[0], v[1]);
            what = "toolkit";
        } else {
            int m = t - c->ntoolkits;
            if (!c->winner[m])
                continue;
            const dr_copy *w = &c->copies[c->winner[m] - 1];
            if (w->cudart <= 0 || strcmp(w->impl, "hostdnn") == 0)
                continue;
            dr_cuda_decode(w->cudart, cud, sizeof cud);
            what = "cuDNN build";
        }
        int dup = 0;
        for (int k = 0; k < ns; k++)
            dup |= strcmp(seen[k], cud) == 0;
        if (dup)
            continue;
        dr_scopy(seen[ns++], 32, cud);
        char full[32], minor[32];
        dr_compat_driver_min(&c->compat, cud, "linux", full, sizeof full, minor, sizeof minor);
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
                   "minor-version compatibility (>= %s)",
                   d->release, full[0] ? full : "?", cud, what, minor);
            free(fix);
        } else if (full[0] || minor[0]) {
            char *fix = dr_fmt("update the NVIDIA driver to >= %s", full[0] ? full : minor);
            dr_add(f, DR_ERROR, "driver-old", fix, "the driver %s is older than %s that CUDA %s (%s) needs", d->release,
                   full[0] ? full : minor, cud, what);
            free(fix);
        }
    }
}

/* NVIDIA's cuDNN calls into cuBLASLt of the CUDA major it was built for (8.x also cuBLAS);
 * they are dlopened or DT_NEEDED by bare name, so they must be reachable too. */
static void check_cublas(dr_ctx *c, const dr_copy *w)
{
    if (w->cudart <= 0 || !w->elf_ok)
        return;
    long long major = w->cudart / 1000;
    char name[48];
    snprintf(name, sizeof name, "libcublasLt.so.%lld", major);
    char dir[HD_PATH_MAX];
    dir_of(w->real[0] ? w->real : w->path, dir, sizeof dir);
    /* beside the library, the wheel layout ($ORIGIN/../../cublas/lib), then the loader */
    char *beside = dr_fmt("%s/%s", dir, name), *wheel = dr_fmt("%s/../../cublas/lib/%s", dir, name);
    int found = dr_is_file(beside) || dr_is_file(wheel);
    free(beside);
    free(wheel);
    if (!found) {
        dr_strlist paths = {0}, hows = {0};
        dr_resolve(c, name, NULL, NULL, &paths, &hows);
        for (size_t i = 0; i < paths.n && !found; i++)
            found = dr_is_file(paths.v[i]);
        dr_sl_free(&paths);
        dr_sl_free(&hows);
    }
    if (!found) {
        char *fix = dr_fmt("install cuBLAS for CUDA %lld (e.g. the CUDA %lld toolkit, or pip install nvidia-cublas-cu%lld) and "
                           "make its lib dir visible to the loader",
                           major, major, major);
        dr_add(&c->findings, DR_WARN, "no-cublaslt", fix,
               "%s (NVIDIA cuDNN %s, built for CUDA %lld) needs %s, which the loader cannot find", w->path, w->version,
               major, name);
        free(fix);
    }
}

static void check_frameworks(dr_ctx *c)
{
    dr_findings *f = &c->findings;
    for (int i = 0; i < c->nfw; i++) {
        const dr_framework *fw = &c->fw[i];
        const char *nm = strcmp(fw->name, "torch") == 0 ? "PyTorch" : "TensorFlow";
        if (fw->cpu_only) {
            dr_add(f, DR_INFO, "framework-cpu", NULL, "%s %s (%s) is a CPU-only build; it does not load cuDNN", nm,
                   fw->version, fw->site);
            continue;
        }
        int need[3];
        int parts = dr_parse_version(fw->cudnn, need);
        if (!parts) {
            dr_add(f, DR_INFO, "framework-unknown", NULL,
                   "%s %s (%s): the cuDNN it was built with is not known (not in compat.tsv)", nm, fw->version, fw->site);
            continue;
        }
        if (!fw->resolved[0]) {
            char *fix = dr_fmt("install cuDNN %d.%d or newer %d.x (e.g. pip install nvidia-cudnn-cu%s) or make its directory "
                               "visible on LD_LIBRARY_PATH",
                               need[0], need[1], need[0], fw->cuda[0] == '1' && fw->cuda[1] == '1' ? "11" : "12");
            dr_add(f, DR_ERROR, "framework-no-cudnn", fix, "%s %s needs libcudnn.so.%d (built with cuDNN %s, %s) and none loads",
                   nm, fw->version, need[0], fw->cudnn, fw->cudnn_source);
            free(fix);
            continue;
        }
        int have[3];
        if (!fw->resolved_version[0] || dr_parse_version(fw->resolved_version, have) < 2) {
            dr_add(f, DR_WARN, "framework-cudnn-unknown", NULL, "%s %s would load %s, whose version could not be read", nm,
                   fw->version, fw->resolved);
            continue;
        }
        /* both frameworks: same major, runtime minor >= build minor (torch: exact for < 7) */
        int ok = have[0] == need[0] && (parts < 2 || have[1] >= need[1]);
        if (strcmp(fw->name, "torch") == 0 && need[0] < 7)
            ok = have[0] == need[0] && have[1] == need[1];
        char dir[HD_PATH_MAX];
        dir_of(fw->resolved, dir, sizeof dir);
        if (ok) {
            dr_add(f, DR_INFO, "framework-ok", NULL, "%s %s (built with cuDNN %s) would load %s = cuDNN %s (via %s): compatible",
                   nm, fw->version, fw->cudnn, fw->resolved, fw->resolved_version, fw->resolved_how);
        } else {
            char *fix = strcmp(fw->resolved_how, "LD_LIBRARY_PATH") == 0
                            ? dr_fmt("remove %s from LD_LIBRARY_PATH so %s finds its own cuDNN, or install cuDNN >= %d.%d there",
                                     dir, nm, need[0], need[1])
                            : dr_fmt("install cuDNN %d.%d or newer %d.x and put it first on LD_LIBRARY_PATH", need[0], need[1],
                                     need[0]);
            dr_add(f, DR_ERROR, "framework-cudnn-old", fix,
                   "%s %s was built with cuDNN %s but would load %s = cuDNN %s (via %s): it needs the same major and an equal "
                   "or newer minor",
                   nm, fw->version, fw->cudnn, fw->resolved, fw->resolved_version, fw->resolved_how);
            free(fix);
        }
    }
}

static void check_cpu(dr_ctx *c, int any_cudnn8)
{
    const dr_cpu *p = &c->cpu;
    int tf = 0;
    for (int i = 0; i < c->nfw; i++)
        if (strcmp(c->fw[i].name, "tensorflow") == 0 && dr_vercmp(c->fw[i].version, "1.6") >= 0)
            tf = 1;
    dr_add(&c->findings, DR_INFO, "cpu", NULL, "CPU %s: AVX %s, AVX2 %s, FMA %s, AVX-512 %s; hostdnn kernels: %s",
           p->brand[0] ? p->brand : "(unknown)", p->has_avx ? "yes" : "no", p->has_avx2 ? "yes" : "no",
           p->has_fma ? "yes" : "no", p->has_avx512_core ? "yes" : "no", p->hostdnn_isa);
    if (!p->has_avx && (tf || any_cudnn8))
        dr_add(&c->findings, DR_ERROR, "cpu-no-avx", "use a CPU with AVX, or builds made without AVX",
               "this CPU has no AVX: %s (\"Illegal instruction\")",
               tf ? "TensorFlow >= 1.6 binaries will not run" : "cuDNN 8+ binaries need AVX");
}

void dr_checks(dr_ctx *c)
{
    dr_findings *f = &c->findings;
    pick_winners(c);
    if (c->opt.for_prog) {
        if (c->for_major)
            dr_add(f, DR_INFO, "for-program", NULL, "%s needs libcudnn.so.%d (DT_NEEDED)%s%s%s%s", c->opt.for_prog,
                   c->for_major, c->rpath.n ? "; DT_RPATH " : "", c->rpath.n ? c->rpath.v[0] : "",
                   c->runpath.n ? "; DT_RUNPATH " : "", c->runpath.n ? c->runpath.v[0] : "");
        else
            dr_add(f, DR_INFO, "for-program", NULL,
                   "%s does not link libcudnn directly; its DT_RPATH/DT_RUNPATH still apply to the dlopen calls it makes",
                   c->opt.for_prog);
    }
    dr_strlist llp = {0};
    if (dr_ld_library_path(&llp))
        dr_add(f, DR_WARN, "ld-library-path-empty-entry",
               "drop the empty entry (write LD_LIBRARY_PATH=/dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH})",
               "LD_LIBRARY_PATH=\"%s\" has an empty entry: the loader searches the current directory there, so the "
               "cuDNN a program gets depends on where it is started",
               getenv("LD_LIBRARY_PATH"));
    dr_sl_free(&llp);
    for (size_t i = 0; i < c->unreadable.n; i++)
        dr_add(f, DR_WARN, "unreadable-dir", "fix the directory permissions (chmod a+rx) so the loader can search it",
               "cannot search %s (permission denied)", c->unreadable.v[i]);
    if (c->ncopies == 0) {
        dr_add(f, DR_ERROR, "no-cudnn",
               "install cuDNN (NVIDIA's package, pip install nvidia-cudnn-cu12, or hostdnn) and make it visible to the loader",
               "no libcudnn.so.7/8/9 found anywhere");
    }
    /* which majors matter: the program's, the frameworks', or every one installed */
    int needed[10] = {0}, any_needed = 0;
    if (c->for_major) {
        needed[c->for_major] = 1;
        any_needed = 1;
    }
    for (int i = 0; i < c->nfw; i++) {
        int v[3];
        if (!c->fw[i].cpu_only && dr_parse_version(c->fw[i].cudnn, v) && v[0] >= 7 && v[0] <= 9) {
            needed[v[0]] = 1;
            any_needed = 1;
        }
    }
    int any_winner = 0, any_cudnn8 = 0;
    const dr_copy *nv_winner = NULL;
    for (int m = 7; m <= 9; m++)
        any_winner |= c->winner[m] != 0;
    for (int m = 9; m >= 7; m--) {
        int have = 0;
        for (size_t i = 0; i < c->ncopies; i++)
            have |= c->copies[i].major == m;
        if (!have && !needed[m])
            continue;
        if (!c->winner[m]) {
            const dr_copy *off = NULL;
            for (size_t i = 0; i < c->ncopies; i++)
                if (c->copies[i].major == m && c->copies[i].elf_ok && (!off || c->copies[i].version[0]))
                    off = &c->copies[i];
            dr_sev sev = needed[m] || !any_winner ? DR_ERROR : DR_WARN;
            if (!needed[m] && any_needed)
                sev = DR_INFO;
            if (off) {
                char dir[HD_PATH_MAX], real_dir[HD_PATH_MAX];
                dir_of(off->path, dir, sizeof dir);
                int in_conf = dr_sl_contains(&c->ldconf, dir);
                for (size_t k = 0; k < c->ldconf.n && !in_conf; k++)
                    if (realpath(c->ldconf.v[k], real_dir) && off->real[0] && strncmp(off->real, real_dir, strlen(real_dir)) == 0 &&
                        off->real[strlen(real_dir)] == '/' && !strchr(off->real + strlen(real_dir) + 1, '/'))
                        in_conf = 1;
                char *fix = in_conf ? dr_fmt("%s is listed in /etc/ld.so.conf(.d) but the cache is stale: run sudo ldconfig", dir)
                                    : ld_fix(dir);
                dr_add(f, sev, "not-on-loader-path", fix,
                       "libcudnn.so.%d is installed at %s (%s) but the loader does not search there: dlopen(\"libcudnn.so.%d\") "
                       "fails with 'cannot open shared object file'",
                       m, off->path, off->where, m);
                free(fix);
            } else if (needed[m]) {
                dr_add(f, DR_ERROR, "not-found", "install cuDNN of that major version",
                       "libcudnn.so.%d is needed but no usable copy exists", m);
            }
            continue;
        }
        const dr_copy *w = &c->copies[c->winner[m] - 1];
        char wd[96];
        describe(w, wd, sizeof wd);
        dr_add(f, DR_INFO, "winner", NULL, "libcudnn.so.%d resolves to %s (%s, via %s)%s%s", m, w->path, wd, w->loader_via,
               w->real[0] && strcmp(w->real, w->path) ? " -> " : "", w->real[0] && strcmp(w->real, w->path) ? w->real : "");
        if (w->elf_ok && (w->probe.status == DR_PROBE_OK || w->probe.status == DR_PROBE_LOADER_FAILED)) {
            if (strcmp(w->impl, "hostdnn") && !nv_winner)
                nv_winner = w;
            if (w->ver[0] >= 8 && strcmp(w->impl, "hostdnn"))
                any_cudnn8 = 1;
        }
        /* the real loader, asked in a child by bare name, must agree with our model */
        if (!c->opt.for_prog && !c->opt.sysroot && w->elf_ok && w->probe.status == DR_PROBE_OK) {
            dr_probe real;
            dr_probe_run(w->name, DR_PROBE_LOADONLY, c->opt.timeout_ms, &real);
            char a[HD_PATH_MAX], b[HD_PATH_MAX];
            if (real.status == DR_PROBE_OK && realpath(real.loaded_from, a) && realpath(w->path, b) && strcmp(a, b) != 0)
                dr_add(f, DR_WARN, "loader-disagrees", NULL,
                       "the system loader actually picked %s for %s, not %s (a preloaded or cached entry)", real.loaded_from,
                       w->name, w->path);
        }
        check_shadowing(c, m);
        if (w->probe.status == DR_PROBE_OK && strcmp(w->impl, "hostdnn") != 0)
            check_cublas(c, w);
    }
    for (size_t i = 0; i < c->ncopies; i++) {
        int is_winner = 0;
        for (int m = 7; m <= 9; m++)
            is_winner |= c->winner[m] == (int)i + 1;
        check_copy_health(c, &c->copies[i], is_winner);
    }
    check_driver(c, nv_winner);
    check_frameworks(c);
    check_cpu(c, any_cudnn8);
}
