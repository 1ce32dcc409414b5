/*
 * scan.c -- find every libcudnn.so.N: first along the dynamic loader's own search order
 * (what a program would load), then in the places people install cuDNN that the loader
 * does not search (CUDA toolkits, conda, pip wheels, PyTorch's bundled copy, hostdnn's
 * prefix, --search dirs).
 */
#include "doctor.h"
#include "elfread.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* glibc's trusted directories on a 64-bit Debian-style multiarch system, in order. */
static const char *const DEFAULT_DIRS[] = {
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
};

char *dr_sys(const dr_ctx *c, const char *abs_path)
{
    if (c->opt.sysroot && abs_path[0] == '/')
        return dr_fmt("%s%s", c->opt.sysroot, abs_path);
    return dr_xstrdup(abs_path);
}

static void try_dir(const char *dir, const char *name, const char *how, dr_strlist *paths, dr_strlist *hows)
{
    char *p = dr_fmt("%s/%s", dir, name);
    if (dr_exists(p) && !dr_sl_contains(paths, p)) {
        dr_sl_push(paths, p);
        dr_sl_push(hows, how);
    }
    free(p);
}

int dr_ld_library_path(dr_strlist *dirs)
{
    /* glibc splits on ':' and ';' and reads an empty entry as the current directory,
     * the classic result of LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/x with an unset variable */
    const char *v = getenv("LD_LIBRARY_PATH");
    int empty = 0;
    if (!v || !*v)
        return 0;
    const char *p = v;
    for (;;) {
        size_t k = strcspn(p, ":;");
        if (k == 0) {
            empty = 1;
            dr_sl_push(dirs, ".");
        } else {
            char *t = dr_xcalloc(k + 1, 1);
            memcpy(t, p, k);
            dr_sl_push(dirs, t);
            free(t);
        }
        if (!p[k])
            break;
        p += k + 1;
    }
    return empty;
}

void dr_resolve(const dr_ctx *c, const char *name, const dr_strlist *rpath, const dr_strlist *runpath,
                dr_strlist *paths, dr_strlist *hows)
{
    /* 1. DT_RPATH, only when the object has no DT_RUNPATH */
    if (rpath && (!runpath || runpath->n == 0))
        for (size_t i = 0; i < rpath->n; i++)
            try_dir(rpath->v[i], name, "DT_RPATH", paths, hows);
    /* 2. LD_LIBRARY_PATH (glibc splits on ':' and ';') */
    dr_strlist llp = {0};
    dr_ld_library_path(&llp);
    for (size_t i = 0; i < llp.n; i++)
        try_dir(llp.v[i], name, "LD_LIBRARY_PATH", paths, hows);
    dr_sl_free(&llp);
    /* 3. DT_RUNPATH */
    if (runpath)
        for (size_t i = 0; i < runpath->n; i++)
            try_dir(runpath->v[i], name, "DT_RUNPATH", paths, hows);
    /* 4. the ld.so.cache */
    for (size_t i = 0; i < c->cache.names.n; i++)
        if (strcmp(c->cache.names.v[i], name) == 0) {
            char *p = dr_sys(c, c->cache.paths.v[i]);
            if (dr_exists(p) && !dr_sl_contains(paths, p)) {
                dr_sl_push(paths, p);
                dr_sl_push(hows, "ld.so.cache");
            }
            free(p);
        }
    /* 5. trusted default directories */
    for (size_t i = 0; i < sizeof DEFAULT_DIRS / sizeof DEFAULT_DIRS[0]; i++) {
        char *d = dr_sys(c, DEFAULT_DIRS[i]);
        try_dir(d, name, "default dir", paths, hows);
        free(d);
    }
}

/* Index of the copy with this path or real path, or -1. */
static long find_copy(const dr_ctx *c, const char *path, const char *real)
{
    for (size_t i = 0; i < c->ncopies; i++) {
        if (strcmp(c->copies[i].path, path) == 0)
            return (long)i;
        if (real[0] && strcmp(c->copies[i].real, real) == 0)
            return (long)i;
    }
    return -1;
}

static dr_copy *add_copy(dr_ctx *c, const char *path, const char *where, int major)
{
    char real[HD_PATH_MAX] = "";
    int link_state = 0;
    struct stat st;
    if (stat(path, &st) != 0)
        link_state = errno == ELOOP ? 2 : 1;
    else if (!realpath(path, real))
        real[0] = 0;
    long k = find_copy(c, path, real);
    if (k >= 0)
        return &c->copies[k];
    if (c->ncopies == c->capcopies) {
        c->capcopies = c->capcopies ? c->capcopies * 2 : 16;
        dr_copy *n = realloc(c->copies, c->capcopies * sizeof *n);
        if (!n)
            abort();
        c->copies = n;
    }
    dr_copy *cp = &c->copies[c->ncopies++];
    memset(cp, 0, sizeof *cp);
    dr_scopy(cp->path, sizeof cp->path, path);
    dr_scopy(cp->real, sizeof cp->real, real);
    dr_scopy(cp->where, sizeof cp->where, where);
    snprintf(cp->name, sizeof cp->name, "libcudnn.so.%d", major);
    cp->major = major;
    cp->link_state = link_state;
    cp->size = link_state ? -1 : (long long)st.st_size;
    cp->cudart = -1;
    return cp;
}

static void note_unreadable(dr_ctx *c, const char *dir)
{
    if (access(dir, X_OK) != 0 && errno == EACCES)
        dr_sl_push_unique(&c->unreadable, dir);
}

static void scan_dir(dr_ctx *c, const char *dir, const char *where)
{
    if (!dr_is_dir(dir)) {
        note_unreadable(c, dir);
        return;
    }
    note_unreadable(c, dir);
    for (int m = 7; m <= 9; m++) {
        char *p = dr_fmt("%s/libcudnn.so.%d", dir, m);
        if (dr_exists(p))
            add_copy(c, p, where, m);
        free(p);
    }
}

static void scan_glob(dr_ctx *c, const char *pattern, const char *where)
{
    dr_strlist g = {0};
    char *pat = dr_sys(c, pattern);
    dr_glob(pat, &g);
    free(pat);
    for (size_t i = 0; i < g.n; i++)
        scan_dir(c, g.v[i], where);
    dr_sl_free(&g);
}

/* Conda installs and envs under a base dir (e.g. ~/miniconda3). */
static void scan_conda_base(dr_ctx *c, const char *base, dr_strlist *pys)
{
    char *lib = dr_fmt("%s/lib", base), *envs = dr_fmt("%s/envs/*/lib", base);
    char *py = dr_fmt("%s/lib/python3*/site-packages", base), *envpy = dr_fmt("%s/envs/*/lib/python3*/site-packages", base);
    scan_dir(c, lib, "conda");
    dr_strlist g = {0};
    dr_glob(envs, &g);
    for (size_t i = 0; i < g.n; i++)
        scan_dir(c, g.v[i], "conda env");
    dr_sl_free(&g);
    dr_glob(py, pys);
    dr_glob(envpy, pys);
    free(lib); free(envs); free(py); free(envpy);
}

static void find_sites(dr_ctx *c)
{
    dr_strlist g = {0};
    for (size_t i = 0; i < c->opt.site_dirs.n; i++)
        dr_sl_push(&g, c->opt.site_dirs.v[i]);
    const char *sys_pats[] = {"/usr/lib/python3*/site-packages", "/usr/lib/python3/dist-packages",
                              "/usr/local/lib/python3*/site-packages", "/usr/local/lib/python3*/dist-packages",
                              "/opt/conda/lib/python3*/site-packages", "/opt/conda/envs/*/lib/python3*/site-packages"};
    for (size_t i = 0; i < sizeof sys_pats / sizeof sys_pats[0]; i++) {
        char *p = dr_sys(c, sys_pats[i]);
        dr_glob(p, &g);
        free(p);
    }
    const char *envs[] = {"VIRTUAL_ENV", "CONDA_PREFIX"};
    for (size_t i = 0; i < 2; i++) {
        const char *e = getenv(envs[i]);
        if (e && *e) {
            char *p = dr_fmt("%s/lib/python3*/site-packages", e);
            dr_glob(p, &g);
            free(p);
        }
    }
    const char *home = getenv("HOME");
    if (home && *home) {
        char *p = dr_fmt("%s/.local/lib/python3*/site-packages", home);
        dr_glob(p, &g);
        free(p);
        const char *bases[] = {"miniconda3", "anaconda3", "miniforge3", "mambaforge"};
        for (size_t i = 0; i < 4; i++) {
            char *b = dr_fmt("%s/%s", home, bases[i]);
            if (dr_is_dir(b))
                scan_conda_base(c, b, &g);
            free(b);
        }
    }
    /* keep each site once, by real path */
    for (size_t i = 0; i < g.n; i++) {
        char real[HD_PATH_MAX];
        if (!dr_is_dir(g.v[i]) || !realpath(g.v[i], real))
            continue;
        dr_sl_push_unique(&c->sites, real);
    }
    dr_sl_free(&g);
}

static int major_of_needed(const char *n)
{
    if (strncmp(n, "libcudnn.so.", 12) == 0 && n[12] >= '1' && n[12] <= '9' && n[13] == 0)
        return n[12] - '0';
    return 0;
}

static void read_program(dr_ctx *c)
{
    dr_elf e;
    char real[HD_PATH_MAX];
    if (!realpath(c->opt.for_prog, real) || !dr_elf_read(real, &e)) {
        snprintf(c->for_err, sizeof c->for_err, "%s: %s", c->opt.for_prog,
                 dr_exists(c->opt.for_prog) ? "not a readable ELF program" : "no such file");
        if (dr_exists(c->opt.for_prog))
            dr_elf_free(&e);
        return;
    }
    char origin[HD_PATH_MAX];
    dr_dirname(real, origin, sizeof origin);
    if (e.rpath[0])
        dr_elf_expand_path(e.rpath, origin, &c->rpath);
    if (e.runpath[0])
        dr_elf_expand_path(e.runpath, origin, &c->runpath);
    for (size_t i = 0; i < e.needed.n; i++)
        if (major_of_needed(e.needed.v[i]))
            c->for_major = major_of_needed(e.needed.v[i]);
    dr_elf_free(&e);
}

void dr_scan(dr_ctx *c)
{
    if (c->opt.for_prog)
        read_program(c);
    /* loader order first, so a copy is labelled by how the loader reaches it */
    for (int m = 7; m <= 9; m++) {
        char name[32];
        snprintf(name, sizeof name, "libcudnn.so.%d", m);
        dr_strlist paths = {0}, hows = {0};
        dr_resolve(c, name, c->opt.for_prog ? &c->rpath : NULL, c->opt.for_prog ? &c->runpath : NULL, &paths, &hows);
        for (size_t i = 0; i < paths.n; i++) {
            dr_copy *cp = add_copy(c, paths.v[i], hows.v[i], m);
            if (!cp->loader_rank) {
                cp->loader_rank = (int)i + 1;
                dr_scopy(cp->loader_via, sizeof cp->loader_via, hows.v[i]);
            }
        }
        dr_sl_free(&paths);
        dr_sl_free(&hows);
    }
    /* dirs ldconfig is told about: a copy there that the cache lacks means a stale cache */
    dr_ldconf_dirs(c->opt.sysroot, &c->ldconf);
    for (size_t i = 0; i < c->ldconf.n; i++)
        scan_dir(c, c->ldconf.v[i], "ld.so.conf dir");
    /* then everywhere people install cuDNN */
    scan_glob(c, "/usr/local/cuda*/lib64", "CUDA toolkit");
    scan_glob(c, "/usr/local/cuda*/lib", "CUDA toolkit");
    scan_glob(c, "/usr/local/cuda*/targets/*/lib", "CUDA toolkit");
    scan_glob(c, "/usr/lib/x86_64-linux-gnu", "system lib dir");
    scan_glob(c, "/usr/local/lib", "system lib dir");
    scan_glob(c, "/opt/conda/lib", "conda");
    scan_glob(c, "/opt/conda/envs/*/lib", "conda env");
    const char *cp = getenv("CONDA_PREFIX");
    if (cp && *cp) {
        char *d = dr_fmt("%s/lib", cp);
        scan_dir(c, d, "conda env ($CONDA_PREFIX)");
        free(d);
    }
    find_sites(c);
    for (size_t i = 0; i < c->sites.n; i++) {
        char *a = dr_fmt("%s/nvidia/cudnn/lib", c->sites.v[i]);
        char *b = dr_fmt("%s/torch/lib", c->sites.v[i]);
        scan_dir(c, a, "pip nvidia-cudnn wheel");
        scan_dir(c, b, "bundled with torch");
        free(a);
        free(b);
    }
    if (c->self_dir[0]) {
        char *d = dr_fmt("%s/../lib", c->self_dir);
        char real[HD_PATH_MAX];
        if (realpath(d, real))
            scan_dir(c, real, "hostdnn prefix");
        free(d);
    }
    for (size_t i = 0; i < c->opt.search_dirs.n; i++)
        scan_dir(c, c->opt.search_dirs.v[i], "--search");
}
