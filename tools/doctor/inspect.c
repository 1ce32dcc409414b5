/*
 * inspect.c -- look at each copy found by scan.c: ELF identity, which implementation it
 * is, its version (asked in a child process), its sub-libraries and its header.
 *
 * Implementation rule: a copy is hostdnn's when the file, or for a shim the
 * libcudnn_ops_infer.so.N beside it, contains the string "hostdnn" (every hostdnn
 * sub-library carries it in its log messages; NVIDIA's never does).  Only files under
 * 16 MiB are scanned: hostdnn's are a few hundred KiB, NVIDIA's sub-libraries are far larger.
 */
#include "doctor.h"
#include "elfread.h"
#include "headers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* hostdnn's libraries carry the marker string; only files up to this size are scanned for
 * it (NVIDIA's are hundreds of MiB).  A sanitizer build of ops_infer passes 16 MiB. */
#define MARKER_SCAN_MAX (64ll << 20)

static const char *const SUB8[] = {"ops_infer", "ops_train", "cnn_infer", "cnn_train", "adv_infer", "adv_train"};
static const char *const SUB9[] = {"graph", "ops", "cnn", "adv", "heuristic", "engines_precompiled",
                                   "engines_runtime_compiled"};

static int small_file_has_marker(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || st.st_size > MARKER_SCAN_MAX)
        return 0;
    return dr_file_contains(path, "hostdnn", MARKER_SCAN_MAX);
}

/* "libcudnn_cnn_infer.so.8.1.0" -> "8.1.0"; "" when the name has only the major. */
static void version_from_name(const char *real, char *out, size_t cap)
{
    out[0] = 0;
    const char *b = dr_basename(real), *so = strstr(b, ".so.");
    if (!so)
        return;
    so += 4;
    int dots = 0;
    for (const char *p = so; *p; p++)
        dots += *p == '.';
    if (dots >= 1)
        dr_scopy(out, cap, so);
}

static void fmt_ver(const int v[3], char *out, size_t cap)
{
    snprintf(out, cap, "%d.%d.%d", v[0], v[1], v[2]);
}

static void inspect_sublibs(dr_ctx *c, dr_copy *cp)
{
    const char *const *subs = cp->major == 8 ? SUB8 : SUB9;
    int n = cp->major == 8 ? 6 : cp->major == 9 ? 7 : 0;
    char dir[HD_PATH_MAX];
    dr_dirname(cp->path, dir, sizeof dir);
    cp->nsubs = n;
    for (int i = 0; i < n; i++) {
        dr_sublib *s = &cp->subs[i];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "libcudnn_%s.so.%d", subs[i], cp->major);
        char *p = dr_fmt("%s/%s", dir, s->name);
        if (dr_is_file(p)) {
            dr_scopy(s->path, sizeof s->path, p);
            dr_scopy(s->how, sizeof s->how, "beside the shim");
        } else {
            /* the shim dlopens sub-libraries by bare name: its RUNPATH ($ORIGIN, i.e. the
             * same dir, already tried), LD_LIBRARY_PATH, the cache, the default dirs */
            dr_strlist paths = {0}, hows = {0};
            dr_resolve(c, s->name, NULL, NULL, &paths, &hows);
            for (size_t k = 0; k < paths.n; k++)
                if (dr_is_file(paths.v[k])) {
                    dr_scopy(s->path, sizeof s->path, paths.v[k]);
                    dr_scopy(s->how, sizeof s->how, hows.v[k]);
                    break;
                }
            dr_sl_free(&paths);
            dr_sl_free(&hows);
        }
        free(p);
        if (!s->path[0])
            continue;
        if (!realpath(s->path, s->real))
            dr_scopy(s->real, sizeof s->real, s->path);
        version_from_name(s->real, s->version, sizeof s->version);
        /* load it the way the shim does: after the sub-libraries it depends on (the lists
         * above are in dependency order) */
        const char *pre[DR_MAX_SUBLIBS];
        int npre = 0;
        for (int k = 0; k < i; k++)
            if (cp->subs[k].path[0])
                pre[npre++] = cp->subs[k].path;
        dr_probe pr;
        dr_probe_run_after(pre, npre, s->path, DR_PROBE_CUDNN, c->opt.timeout_ms, &pr);
        if (pr.status == DR_PROBE_OK) {
            int v[3];
            dr_cudnn_decode(pr.value, v);
            fmt_ver(v, s->version, sizeof s->version);
        } else if (pr.status != DR_PROBE_NO_SYMBOL) {
            snprintf(s->err, sizeof s->err, "%s: %s", dr_probe_status_name(pr.status), pr.err);
        }
    }
}

static void find_header(dr_ctx *c, dr_copy *cp)
{
    char dir[HD_PATH_MAX];
    dr_dirname(cp->real[0] ? cp->real : cp->path, dir, sizeof dir);
    char *cands[8];
    int n = 0;
    cands[n++] = dr_fmt("%s/../include", dir);          /* <prefix>/lib -> <prefix>/include */
    cands[n++] = dr_fmt("%s/../../include", dir);       /* targets/<arch>/lib, lib/x86_64-linux-gnu */
    if (strstr(dir, "/lib/x86_64-linux-gnu"))
        cands[n++] = dr_fmt("%s/../../include/x86_64-linux-gnu", dir);
    char pdir[HD_PATH_MAX];
    dr_dirname(cp->path, pdir, sizeof pdir);
    cands[n++] = dr_fmt("%s/../include", pdir);
    int v[3];
    for (int i = 0; i < n && !cp->header[0]; i++)
        if (dr_header_in_dir(cands[i], cp->header, sizeof cp->header, v)) {
            char real[HD_PATH_MAX];
            if (realpath(cp->header, real))
                dr_scopy(cp->header, sizeof cp->header, real);
            fmt_ver(v, cp->header_version, sizeof cp->header_version);
            cp->header_beside = 1;
        }
    for (int i = 0; i < n; i++)
        free(cands[i]);
    (void)c;
}

void dr_inspect(dr_ctx *c)
{
    for (size_t i = 0; i < c->ncopies; i++) {
        dr_copy *cp = &c->copies[i];
        if (cp->link_state)
            continue;
        dr_elf e;
        cp->elf_ok = dr_elf_read(cp->path, &e);
        if (!cp->elf_ok) {
            dr_scopy(cp->elf_err, sizeof cp->elf_err, e.err);
        } else {
            dr_scopy(cp->soname, sizeof cp->soname, e.soname);
            if (e.elf_class != 64 || e.machine != 62) {
                cp->elf_ok = 0;
                snprintf(cp->elf_err, sizeof cp->elf_err, "wrong architecture (ELF%d, machine %d); the loader skips it",
                         e.elf_class, e.machine);
            }
            dr_elf_free(&e);
        }
        if (!cp->elf_ok)
            continue;
        char dir[HD_PATH_MAX];
        dr_dirname(cp->path, dir, sizeof dir);
        char *ops = dr_fmt("%s/libcudnn_ops_infer.so.%d", dir, cp->major);
        int hostdnn = small_file_has_marker(cp->path) || (cp->major == 8 && small_file_has_marker(ops));
        free(ops);
        dr_scopy(cp->impl, sizeof cp->impl, hostdnn ? "hostdnn" : "nvidia");
        dr_probe_run(cp->path, DR_PROBE_CUDNN, c->opt.timeout_ms, &cp->probe);
        if (cp->probe.status == DR_PROBE_OK) {
            dr_cudnn_decode(cp->probe.value, cp->ver);
            fmt_ver(cp->ver, cp->version, sizeof cp->version);
            cp->cudart = cp->probe.value2;
        }
        inspect_sublibs(c, cp);
        find_header(c, cp);
    }
    /* headers installed system-wide serve any copy that has none of its own */
    const char *sys_inc[] = {"/usr/include", "/usr/include/x86_64-linux-gnu", "/usr/local/cuda/include"};
    for (size_t i = 0; i < c->ncopies; i++) {
        dr_copy *cp = &c->copies[i];
        if (!cp->elf_ok || cp->header[0])
            continue;
        for (size_t k = 0; k < 3 && !cp->header[0]; k++) {
            char *d = dr_sys(c, sys_inc[k]);
            int v[3];
            if (dr_header_in_dir(d, cp->header, sizeof cp->header, v))
                fmt_ver(v, cp->header_version, sizeof cp->header_version);
            free(d);
        }
    }
}
