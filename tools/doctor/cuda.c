/*
 * cuda.c -- the CUDA side: toolkits under /usr/local/cuda* (version.json, version.txt,
 * nvcc -V), libcudart copies and their cudaRuntimeGetVersion(), and the driver
 * (libcuda.so.1 + cuDriverGetVersion() in a child; the release number from
 * /proc/driver/nvidia/version or libcuda's file name).
 */
#include "doctor.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "Cuda compilation tools, release 13.0, V13.0.88" from nvcc -V */
static int version_nvcc(const char *nvcc, char *out, size_t cap)
{
    if (!dr_is_file(nvcc))
        return 0;
    char *cmd = dr_fmt("'%s' -V 2>/dev/null", nvcc);
    FILE *f = popen(cmd, "r");
    free(cmd);
    if (!f)
        return 0;
    char line[512];
    int ok = 0;
    while (fgets(line, sizeof line, f)) {
        const char *v = strstr(line, ", V");
        if (v && !ok) {
            v += 3;
            size_t k = strcspn(v, " \r\n");
            if (k && k < cap) {
                memcpy(out, v, k);
                out[k] = 0;
                ok = 1;
            }
        }
    }
    pclose(f);
    return ok;
}

static void find_toolkits(dr_ctx *c)
{
    dr_strlist g = {0}, seen = {0};
    char *pat = dr_sys(c, "/usr/local/cuda*");
    dr_glob(pat, &g);
    free(pat);
    for (size_t i = 0; i < g.n && c->ntoolkits < 16; i++) {
        char real[HD_PATH_MAX];
        if (!dr_is_dir(g.v[i]) || !realpath(g.v[i], real) || !dr_sl_push_unique(&seen, real))
            continue;
        dr_toolkit *t = &c->toolkits[c->ntoolkits];
        memset(t, 0, sizeof *t);
        char *vj = dr_fmt("%s/version.json", real), *vt = dr_fmt("%s/version.txt", real),
             *nv = dr_fmt("%s/bin/nvcc", real);
        if (dr_cuda_version_json(vj, t->version, sizeof t->version))
            dr_scopy(t->how, sizeof t->how, "version.json");
        else if (dr_cuda_version_txt(vt, t->version, sizeof t->version))
            dr_scopy(t->how, sizeof t->how, "version.txt");
        else if (version_nvcc(nv, t->version, sizeof t->version))
            dr_scopy(t->how, sizeof t->how, "nvcc -V");
        free(vj); free(vt); free(nv);
        if (!t->version[0])
            continue;
        dr_scopy(t->path, sizeof t->path, real);
        c->ntoolkits++;
    }
    dr_sl_free(&g);
    dr_sl_free(&seen);
}

static void add_cudart(dr_ctx *c, const char *path)
{
    char real[HD_PATH_MAX];
    if (!dr_is_file(path) || !realpath(path, real) || c->ncudarts >= 16)
        return;
    for (int i = 0; i < c->ncudarts; i++)
        if (strcmp(c->cudarts[i].real, real) == 0)
            return;
    dr_cudart *r = &c->cudarts[c->ncudarts++];
    memset(r, 0, sizeof *r);
    dr_scopy(r->path, sizeof r->path, path);
    dr_scopy(r->real, sizeof r->real, real);
    dr_probe_run(path, DR_PROBE_CUDART, c->opt.timeout_ms, &r->probe);
    if (r->probe.status == DR_PROBE_OK)
        dr_cuda_decode(r->probe.value, r->version, sizeof r->version);
}

static void find_cudarts(dr_ctx *c)
{
    static const char *const names[] = {"libcudart.so.10.0", "libcudart.so.10.1", "libcudart.so.10.2",
                                        "libcudart.so.11.0", "libcudart.so.12", "libcudart.so.13"};
    /* every copy the loader would reach, then beside each toolkit and each cuDNN copy */
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        dr_strlist paths = {0}, hows = {0};
        dr_resolve(c, names[i], NULL, NULL, &paths, &hows);
        for (size_t k = 0; k < paths.n; k++)
            add_cudart(c, paths.v[k]);
        dr_sl_free(&paths);
        dr_sl_free(&hows);
        for (int t = 0; t < c->ntoolkits; t++) {
            char *p = dr_fmt("%s/lib64/%s", c->toolkits[t].path, names[i]);
            add_cudart(c, p);
            free(p);
        }
        for (size_t s = 0; s < c->sites.n; s++) {
            char *p = dr_fmt("%s/nvidia/cuda_runtime/lib/%s", c->sites.v[s], names[i]);
            add_cudart(c, p);
            free(p);
        }
    }
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ..." */
static int release_from_proc(const char *file, char *out, size_t cap)
{
    char buf[2048];
    if (dr_read_file(file, buf, sizeof buf) <= 0)
        return 0;
    const char *p = strstr(buf, "Kernel Module");
    if (!p)
        return 0;
    p += 13;
    while (*p && !isdigit((unsigned char)*p))
        p++;
    size_t k = 0;
    while (p[k] && (isdigit((unsigned char)p[k]) || p[k] == '.'))
        k++;
    if (!k || k >= cap)
        return 0;
    memcpy(out, p, k);
    out[k] = 0;
    return 1;
}

static void find_driver(dr_ctx *c)
{
    dr_driver *d = &c->driver;
    memset(d, 0, sizeof *d);
    dr_probe_run("libcuda.so.1", DR_PROBE_DRIVER, c->opt.timeout_ms, &d->probe);
    d->present = d->probe.status == DR_PROBE_OK || d->probe.status == DR_PROBE_NO_SYMBOL;
    if (d->probe.status == DR_PROBE_OK && d->probe.call_status == 0)
        dr_cuda_decode(d->probe.value, d->api_version, sizeof d->api_version);
    char *proc = dr_sys(c, "/proc/driver/nvidia/version");
    if (c->opt.driver_version) {
        dr_scopy(d->release, sizeof d->release, c->opt.driver_version);
        dr_scopy(d->release_source, sizeof d->release_source, "--driver-version");
    } else if (release_from_proc(proc, d->release, sizeof d->release)) {
        dr_scopy(d->release_source, sizeof d->release_source, "/proc/driver/nvidia/version");
    } else if (d->present && d->probe.loaded_from[0]) {
        /* libcuda.so.1 -> libcuda.so.535.104.05 */
        char real[HD_PATH_MAX];
        if (realpath(d->probe.loaded_from, real)) {
            const char *b = dr_basename(real);
            if (strncmp(b, "libcuda.so.", 11) == 0 && strchr(b + 11, '.')) {
                dr_scopy(d->release, sizeof d->release, b + 11);
                dr_scopy(d->release_source, sizeof d->release_source, "libcuda file name");
            }
        }
    }
    free(proc);
}

void dr_cuda(dr_ctx *c)
{
    find_toolkits(c);
    find_cudarts(c);
    find_driver(c);
}
