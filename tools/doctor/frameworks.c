/*
 * frameworks.c -- TensorFlow and PyTorch, from package metadata only (no import): the
 * *.dist-info/METADATA of each site-packages dir, torch/version.py and TensorFlow's
 * build_info.py.  For each we work out the cuDNN it was built with and the copy its
 * process would load.
 */
#include "doctor.h"
#include "elfread.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Value after "Key:" at the start of a line in an RFC-822 style file. */
static int meta_field(const char *text, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, kl) == 0 && p[kl] == ':') {
            const char *v = p + kl + 1;
            while (*v == ' ')
                v++;
            size_t k = strcspn(v, "\r\n");
            if (k >= cap)
                k = cap - 1;
            memcpy(out, v, k);
            out[k] = 0;
            return 1;
        }
    }
    return 0;
}

/* The pinned version in "Requires-Dist: nvidia-cudnn-cu12==9.1.0.70; ..." */
static int pinned_cudnn(const char *text, char *out, size_t cap, char *pkg, size_t pkgcap)
{
    const char *p = strstr(text, "nvidia-cudnn-cu");
    while (p) {
        const char *eq = p;
        while (*eq && *eq != '\n' && strncmp(eq, "==", 2) != 0)
            eq++;
        if (strncmp(eq, "==", 2) == 0) {
            size_t pk = strcspn(p, "=<>; \n");
            if (pk >= pkgcap)
                pk = pkgcap - 1;
            memcpy(pkg, p, pk);
            pkg[pk] = 0;
            eq += 2;
            size_t k = 0;
            while (eq[k] && (isdigit((unsigned char)eq[k]) || eq[k] == '.'))
                k++;
            if (k && k < cap) {
                memcpy(out, eq, k);
                out[k] = 0;
                return 1;
            }
        }
        p = strstr(p + 1, "nvidia-cudnn-cu");
    }
    return 0;
}

/* A python assignment "name = 'value'" or "name: T = 'value'" or "'name': 'value'". */
static int py_string(const char *text, const char *name, char *out, size_t cap, int *is_none)
{
    *is_none = 0;
    size_t nl = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        const char *q = p + nl;
        if (*q == '\'' || *q == '"')
            q++; /* dict key */
        if (isalnum((unsigned char)*q) || *q == '_')
            continue;
        const char *eol = strchr(q, '\n');
        const char *sep = strpbrk(q, "=:");
        if (!sep || (eol && sep > eol))
            continue;
        /* skip a type annotation: "cuda: Optional[str] = '11.8'" */
        const char *eq = strchr(q, '=');
        if (*sep == ':' && eq && (!eol || eq < eol))
            sep = eq;
        q = sep + 1;
        while (*q == ' ')
            q++;
        if (strncmp(q, "None", 4) == 0 || strncmp(q, "False", 5) == 0) {
            *is_none = 1;
            return 0;
        }
        if (*q != '\'' && *q != '"')
            continue;
        char quote = *q++;
        size_t k = 0;
        while (q[k] && q[k] != quote && q[k] != '\n')
            k++;
        if (k >= cap)
            k = cap - 1;
        memcpy(out, q, k);
        out[k] = 0;
        return 1;
    }
    return 0;
}

static void resolve_for(dr_ctx *c, dr_framework *f, dr_strlist *rpath, dr_strlist *runpath)
{
    int v[3];
    if (f->cpu_only || dr_parse_version(f->cudnn, v) < 1)
        return;
    char name[32];
    snprintf(name, sizeof name, "libcudnn.so.%d", v[0]);
    dr_strlist paths = {0}, hows = {0};
    dr_resolve(c, name, rpath, runpath, &paths, &hows);
    for (size_t i = 0; i < paths.n; i++) {
        if (!dr_is_file(paths.v[i]))
            continue;
        dr_scopy(f->resolved, sizeof f->resolved, paths.v[i]);
        dr_scopy(f->resolved_how, sizeof f->resolved_how, hows.v[i]);
        char real[HD_PATH_MAX] = "";
        if (!realpath(paths.v[i], real))
            real[0] = 0;
        for (size_t k = 0; k < c->ncopies; k++)
            if (strcmp(c->copies[k].path, paths.v[i]) == 0 || (real[0] && strcmp(c->copies[k].real, real) == 0))
                dr_scopy(f->resolved_version, sizeof f->resolved_version, c->copies[k].version);
        if (!f->resolved_version[0]) {
            /* reached through a RUNPATH dir no other scan looked at: ask it directly */
            dr_probe pr;
            dr_probe_run(paths.v[i], DR_PROBE_CUDNN, c->opt.timeout_ms, &pr);
            if (pr.status == DR_PROBE_OK) {
                int v[3];
                dr_cudnn_decode(pr.value, v);
                snprintf(f->resolved_version, sizeof f->resolved_version, "%d.%d.%d", v[0], v[1], v[2]);
            }
        }
        break;
    }
    dr_sl_free(&paths);
    dr_sl_free(&hows);
}

static void torch(dr_ctx *c, const char *site, const char *meta_text, dr_framework *f)
{
    char vpath[HD_PATH_MAX], text[65536], pkg[64];
    int none = 0;
    snprintf(vpath, sizeof vpath, "%s/torch/version.py", site);
    if (dr_read_file(vpath, text, sizeof text) > 0 && !py_string(text, "cuda", f->cuda, sizeof f->cuda, &none) && none)
        f->cpu_only = 1;
    const char *plus = strchr(f->version, '+');
    if (plus && strncmp(plus, "+cpu", 4) == 0)
        f->cpu_only = 1;
    if (!f->cuda[0] && plus && strncmp(plus, "+cu", 3) == 0 && strlen(plus) >= 6) {
        /* +cu118 -> 11.8, +cu121 -> 12.1 */
        const char *d = plus + 3;
        size_t k = strspn(d, "0123456789");
        if (k >= 3)
            snprintf(f->cuda, sizeof f->cuda, "%.*s.%c", (int)(k - 1), d, d[k - 1]);
    }
    if (f->cpu_only)
        return;
    const char *src = NULL;
    if (pinned_cudnn(meta_text, f->cudnn, sizeof f->cudnn, pkg, sizeof pkg)) {
        snprintf(f->cudnn_source, sizeof f->cudnn_source, "METADATA pins %s==%s", pkg, f->cudnn);
    } else if (dr_compat_torch(&c->compat, f->version, f->cuda, f->cudnn, sizeof f->cudnn, &src)) {
        snprintf(f->cudnn_source, sizeof f->cudnn_source, "compat.tsv (torch %s, CUDA %s)", f->version,
                 f->cuda[0] ? f->cuda : "?");
    }
    /* torch's libraries find cuDNN through their own RUNPATH: read it when present */
    dr_strlist rp = {0}, rn = {0};
    char *lib = dr_fmt("%s/torch/lib/libtorch_cuda.so", site);
    dr_elf e;
    if (dr_is_file(lib) && dr_elf_read(lib, &e)) {
        char origin[HD_PATH_MAX];
        dr_dirname(lib, origin, sizeof origin);
        if (e.rpath[0])
            dr_elf_expand_path(e.rpath, origin, &rp);
        if (e.runpath[0])
            dr_elf_expand_path(e.runpath, origin, &rn);
        dr_elf_free(&e);
    } else {
        /* no library to read: use what the wheels set ($ORIGIN and ../../nvidia/cudnn/lib) */
        char *a = dr_fmt("%s/torch/lib", site), *b = dr_fmt("%s/nvidia/cudnn/lib", site);
        dr_sl_push(&rn, a);
        dr_sl_push(&rn, b);
        free(a);
        free(b);
    }
    free(lib);
    resolve_for(c, f, &rp, &rn);
    dr_sl_free(&rp);
    dr_sl_free(&rn);
}

static void tensorflow(dr_ctx *c, const char *site, const char *meta_text, dr_framework *f)
{
    char bpath[HD_PATH_MAX], text[65536], pkg[64];
    int none = 0;
    snprintf(bpath, sizeof bpath, "%s/tensorflow/python/platform/build_info.py", site);
    if (dr_read_file(bpath, text, sizeof text) > 0) {
        if (strstr(text, "'is_cuda_build': False") || strstr(text, "\"is_cuda_build\": False"))
            f->cpu_only = 1;
        py_string(text, "cuda_version", f->cuda, sizeof f->cuda, &none);
        if (py_string(text, "cudnn_version", f->cudnn, sizeof f->cudnn, &none))
            snprintf(f->cudnn_source, sizeof f->cudnn_source, "build_info.py (major only)");
    }
    if (f->cpu_only)
        return;
    char cuda[32], cudnn[32];
    const char *src = NULL;
    if (pinned_cudnn(meta_text, cudnn, sizeof cudnn, pkg, sizeof pkg)) {
        /* tensorflow[and-cuda] pins the wheel; that is the version it was built against */
        dr_scopy(f->cudnn, sizeof f->cudnn, cudnn);
        snprintf(f->cudnn_source, sizeof f->cudnn_source, "METADATA pins %s==%s", pkg, cudnn);
    } else if (dr_compat_tf(&c->compat, f->version, "linux", cuda, sizeof cuda, cudnn, sizeof cudnn, &src)) {
        int a[3], b[3];
        /* the table has major.minor; build_info has the major only: keep the finer one
         * when they agree */
        if (!f->cudnn[0] || (dr_parse_version(f->cudnn, a) && dr_parse_version(cudnn, b) && a[0] == b[0])) {
            dr_scopy(f->cudnn, sizeof f->cudnn, cudnn);
            snprintf(f->cudnn_source, sizeof f->cudnn_source, "compat.tsv (tested build of TF %s)", f->version);
        }
        if (!f->cuda[0])
            dr_scopy(f->cuda, sizeof f->cuda, cuda);
    }
    dr_strlist rn = {0};
    char *b = dr_fmt("%s/nvidia/cudnn/lib", site);
    dr_sl_push(&rn, b);
    free(b);
    resolve_for(c, f, NULL, &rn);
    dr_sl_free(&rn);
}

void dr_frameworks(dr_ctx *c)
{
    /* pip installs leave *.dist-info/METADATA; Debian's packages (python3-torch) leave
     * *.egg-info/PKG-INFO in dist-packages, with the same "Version:" field. */
    static const char *const pats[] = {"tensorflow-*.dist-info", "tensorflow_gpu-*.dist-info",
                                       "tensorflow_cpu-*.dist-info", "tf_nightly-*.dist-info", "torch-*.dist-info",
                                       "tensorflow-*.egg-info", "torch-*.egg-info"};
    for (size_t s = 0; s < c->sites.n; s++)
        for (size_t p = 0; p < sizeof pats / sizeof pats[0]; p++) {
            dr_strlist g = {0};
            char *pat = dr_fmt("%s/%s", c->sites.v[s], pats[p]);
            dr_glob(pat, &g);
            free(pat);
            for (size_t i = 0; i < g.n && c->nfw < 16; i++) {
                char *mp = dr_fmt("%s/METADATA", g.v[i]);
                char *text = dr_xcalloc(1 << 20, 1);
                long n = dr_read_file(mp, text, 1 << 20);
                free(mp);
                if (n <= 0) {
                    mp = dr_fmt("%s/PKG-INFO", g.v[i]);
                    n = dr_read_file(mp, text, 1 << 20);
                    free(mp);
                }
                dr_framework *f = &c->fw[c->nfw];
                memset(f, 0, sizeof *f);
                char name[64] = "";
                if (n <= 0 || !meta_field(text, "Version", f->version, sizeof f->version)) {
                    free(text);
                    continue;
                }
                meta_field(text, "Name", name, sizeof name);
                dr_scopy(f->site, sizeof f->site, c->sites.v[s]);
                int is_torch = strncmp(dr_basename(g.v[i]), "torch-", 6) == 0;
                dr_scopy(f->name, sizeof f->name, is_torch ? "torch" : "tensorflow");
                if (!is_torch && strstr(name, "cpu"))
                    f->cpu_only = 1;
                if (is_torch)
                    torch(c, c->sites.v[s], text, f);
                else
                    tensorflow(c, c->sites.v[s], text, f);
                free(text);
                c->nfw++;
            }
            dr_sl_free(&g);
        }
}
