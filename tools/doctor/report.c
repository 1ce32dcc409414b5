/*
 * report.c -- the text report (verdict first, then the inventory, then each finding with
 * its fix) and the JSON document that --json prints and `snapshot` saves.
 */
#include "report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- verdict ---------------- */

static const dr_finding *first_of(const dr_ctx *c, dr_sev s)
{
    for (size_t i = 0; i < c->findings.n; i++)
        if (c->findings.v[i].sev == s)
            return &c->findings.v[i];
    return NULL;
}

char *dr_verdict(const dr_ctx *c)
{
    size_t ne = dr_count(&c->findings, DR_ERROR), nw = dr_count(&c->findings, DR_WARN);
    if (ne)
        return dr_fmt("PROBLEMS FOUND (%zu error%s, %zu warning%s): %s", ne, ne == 1 ? "" : "s", nw, nw == 1 ? "" : "s",
                      first_of(c, DR_ERROR)->msg);
    /* name what would be loaded */
    char what[HD_PATH_MAX + 160] = "";
    for (int m = 9; m >= 7; m--)
        if (c->winner[m] && !what[0]) {
            const dr_copy *w = &c->copies[c->winner[m] - 1];
            snprintf(what, sizeof what, "%s -> %s (%s cuDNN %s)", w->name, w->path,
                     strcmp(w->impl, "hostdnn") == 0 ? "hostdnn" : "NVIDIA", w->version[0] ? w->version : "?");
        }
    if (nw)
        return dr_fmt("OK WITH WARNINGS (%zu warning%s): %s", nw, nw == 1 ? "" : "s", first_of(c, DR_WARN)->msg);
    if (!what[0] && c->opt.win_root)
        return dr_fmt("HEALTHY: the Windows DLL search finds a complete cuDNN");
    return dr_fmt("HEALTHY: %s", what[0] ? what : "nothing to check");
}

/* ---------------- text ---------------- */

static const char *col(const dr_ctx *c, const char *code)
{
    return c->opt.color ? code : "";
}

static void probe_text(const dr_copy *cp, char *out, size_t cap)
{
    if (cp->link_state == 1)
        snprintf(out, cap, "broken symlink");
    else if (cp->link_state == 2)
        snprintf(out, cap, "symlink loop");
    else if (!cp->elf_ok)
        snprintf(out, cap, "not a library: %s", cp->elf_err);
    else if (cp->probe.status == DR_PROBE_OK) {
        char cr[48] = "";
        if (cp->cudart > 0) {
            snprintf(cr, sizeof cr, ", built for CUDA ");
            dr_cuda_decode(cp->cudart, cr + strlen(cr), sizeof cr - strlen(cr));
        }
        snprintf(out, cap, "%s cuDNN %s (cudnnGetVersion %lld%s)", strcmp(cp->impl, "hostdnn") == 0 ? "hostdnn" : "NVIDIA",
                 cp->version, cp->probe.value, cr);
    } else
        snprintf(out, cap, "%s: %s", dr_probe_status_name(cp->probe.status), cp->probe.err);
}

void dr_report_text(const dr_ctx *c, FILE *o)
{
    size_t ne = dr_count(&c->findings, DR_ERROR), nw = dr_count(&c->findings, DR_WARN);
    char *v = dr_verdict(c);
    const char *vc = ne ? "\033[1;31m" : nw ? "\033[1;33m" : "\033[1;32m";
    fprintf(o, "cudnn-doctor: %s%s%s\n\n", col(c, vc), v, col(c, "\033[0m"));
    free(v);

    if (c->opt.win_root)
        goto windows;
    if (c->win_live)
        fprintf(o, "cuDNN DLLs (* loaded, ~ shadowed, - not searched; search of a %s: program folder %s%s%s%s; PATH=%s)\n",
                c->win_mode, c->win_app_dir, c->win_env.set_dll_dir ? ", SetDllDirectory " : "",
                c->win_env.set_dll_dir ? c->win_env.set_dll_dir : "", c->win_env.safe ? ", added DLL dirs, System32" : "",
                c->win_path_env ? c->win_path_env : "");
    else
        fprintf(o, "cuDNN libraries (* loaded, ~ shadowed, - not searched; LD_LIBRARY_PATH=%s; cache: %s)\n",
                getenv("LD_LIBRARY_PATH") ? getenv("LD_LIBRARY_PATH") : "(unset)", c->cache.loaded ? c->cache.source : "none");
    if (c->opt.for_prog)
        fprintf(o, "  for program %s%s%s\n", c->opt.for_prog, c->for_err[0] ? ": " : "", c->for_err);
    if (!c->ncopies)
        fprintf(o, "  none found\n");
    for (size_t i = 0; i < c->ncopies; i++) {
        const dr_copy *cp = &c->copies[i];
        int win = 0;
        for (int m = 7; m <= 9; m++)
            win |= c->winner[m] == (int)i + 1;
        char pt[HD_PATH_MAX + 256];
        probe_text(cp, pt, sizeof pt);
        /* "*" the copy a program loads, "~" shadowed by it, "-" where the loader never looks */
        if (win)
            fprintf(o, "  * %s%s%s\n", col(c, "\033[1m"), cp->path, col(c, "\033[0m"));
        else
            fprintf(o, "  %c %s\n", cp->loader_rank ? '~' : '-', cp->path);
        fprintf(o, "      %s; found via %s%s\n", pt, cp->loader_rank ? cp->loader_via : cp->where,
                win ? " -- this is the one a program loads" : cp->loader_rank ? " (shadowed)" : " (not searched by the loader)");
        if (cp->real[0] && strcmp(cp->real, cp->path))
            fprintf(o, "      real file %s (%lld bytes)%s%s\n", cp->real, cp->size, cp->soname[0] ? ", SONAME " : "",
                    cp->soname);
        else if (cp->elf_ok)
            fprintf(o, "      %lld bytes%s%s\n", cp->size, cp->soname[0] ? ", SONAME " : "", cp->soname);
        if (cp->nsubs) {
            int present = 0;
            for (int s = 0; s < cp->nsubs; s++)
                present += cp->subs[s].path[0] != 0;
            fprintf(o, "      sub-libraries: %d of %d present", present, cp->nsubs);
            for (int s = 0; s < cp->nsubs; s++)
                if (!cp->subs[s].path[0])
                    fprintf(o, "; missing %s", cp->subs[s].name);
                else if (cp->subs[s].missing_deps[0])
                    fprintf(o, "; %s needs %s (not found)", cp->subs[s].name, cp->subs[s].missing_deps);
            fprintf(o, "\n");
        }
        if (cp->header[0])
            fprintf(o, "      header %s (%s)\n", cp->header, cp->header_version);
    }

    fprintf(o, "\nCUDA\n");
    for (int i = 0; i < c->ntoolkits; i++)
        fprintf(o, "  toolkit %s: %s (%s)\n", c->toolkits[i].path,
                c->toolkits[i].version[0] ? c->toolkits[i].version : "version unknown", c->toolkits[i].how);
    if (!c->ntoolkits)
        fprintf(o, "  %s\n", c->win_live ? "no CUDA_PATH or CUDA_PATH_V*_* variable" : "no CUDA toolkit under /usr/local/cuda*");
    for (int i = 0; i < c->ncudarts; i++)
        fprintf(o, "  runtime %s: %s\n", c->cudarts[i].path,
                c->cudarts[i].version[0] ? c->cudarts[i].version : c->cudarts[i].probe.err);
    if (c->driver.present)
        fprintf(o, "  driver: %s (CUDA API %s)%s%s\n", c->driver.release[0] ? c->driver.release : "release unknown",
                c->driver.api_version[0] ? c->driver.api_version : "?", c->driver.probe.loaded_from[0] ? ", " : "",
                c->driver.probe.loaded_from);
    else
        fprintf(o, "  driver: none -- no NVIDIA driver is installed (%s)\n", c->driver.probe.err);
    if (c->win_live)
        goto windows; /* frameworks are read from Linux site-packages only */

    fprintf(o, "\nFrameworks (%zu site-packages dirs searched)\n", c->sites.n);
    if (!c->nfw)
        fprintf(o, "  no TensorFlow or PyTorch installation found\n");
    for (int i = 0; i < c->nfw; i++) {
        const dr_framework *f = &c->fw[i];
        fprintf(o, "  %s %s in %s\n", f->name, f->version, f->site);
        if (f->cpu_only)
            fprintf(o, "      CPU-only build\n");
        else
            fprintf(o, "      built with CUDA %s, cuDNN %s (%s); loads %s%s%s\n", f->cuda[0] ? f->cuda : "?",
                    f->cudnn[0] ? f->cudnn : "?", f->cudnn_source[0] ? f->cudnn_source : "unknown",
                    f->resolved[0] ? f->resolved : "nothing", f->resolved_version[0] ? " = " : "", f->resolved_version);
    }

windows:
    if (c->win_text)
        fprintf(o, "%s%s", c->opt.win_root ? "" : "\n", c->win_text);

    fprintf(o, "\nFindings\n");
    for (int pass = DR_ERROR; pass >= DR_INFO; pass--)
        for (size_t i = 0; i < c->findings.n; i++) {
            const dr_finding *f = &c->findings.v[i];
            if ((int)f->sev != pass || (pass == DR_INFO && c->opt.quiet_info))
                continue;
            const char *tag = f->sev == DR_ERROR ? "ERROR" : f->sev == DR_WARN ? "WARN " : "info ";
            const char *cc = f->sev == DR_ERROR ? "\033[31m" : f->sev == DR_WARN ? "\033[33m" : "";
            fprintf(o, "  %s%s%s [%s] %s\n", col(c, cc), tag, col(c, f->sev != DR_INFO ? "\033[0m" : ""), f->code, f->msg);
            if (f->fix)
                fprintf(o, "        fix: %s\n", f->fix);
        }
}

/* ---------------- JSON ---------------- */

typedef struct {
    FILE *f;
    int depth;
    int first[64];
} jw;

static void jw_indent(jw *w)
{
    fputc('\n', w->f);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->f);
}

static void jw_esc(jw *w, const char *s)
{
    fputc('"', w->f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(w->f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", w->f);
        else if (*p < 0x20)
            fprintf(w->f, "\\u%04x", *p);
        else
            fputc(*p, w->f);
    }
    fputc('"', w->f);
}

static void jw_key(jw *w, const char *key)
{
    if (!w->first[w->depth])
        fputc(',', w->f);
    w->first[w->depth] = 0;
    if (w->depth)
        jw_indent(w);
    if (key) {
        jw_esc(w, key);
        fputs(": ", w->f);
    }
}

static void jw_open(jw *w, const char *key, char ch)
{
    jw_key(w, key);
    fputc(ch, w->f);
    w->depth++;
    w->first[w->depth] = 1;
}

static void jw_close(jw *w, char ch)
{
    int empty = w->first[w->depth];
    w->depth--;
    if (!empty)
        jw_indent(w);
    fputc(ch, w->f);
}

static void jw_str(jw *w, const char *key, const char *v)
{
    jw_key(w, key);
    jw_esc(w, v);
}

static void jw_int(jw *w, const char *key, long long v)
{
    jw_key(w, key);
    fprintf(w->f, "%lld", v);
}

static void jw_bool(jw *w, const char *key, int v)
{
    jw_key(w, key);
    fputs(v ? "true" : "false", w->f);
}

static void jw_raw(jw *w, const char *key, const char *raw)
{
    jw_key(w, key);
    fputs(raw, w->f);
}

void dr_report_json(const dr_ctx *c, FILE *o)
{
    jw w = {o, 0, {1}};
    jw_open(&w, NULL, '{');
    jw_str(&w, "tool", "cudnn-doctor");
    jw_int(&w, "format", 1);
    char *v = dr_verdict(c);
    jw_str(&w, "verdict", v);
    free(v);
    size_t ne = dr_count(&c->findings, DR_ERROR), nw = dr_count(&c->findings, DR_WARN);
    jw_str(&w, "status", ne ? "problems" : nw ? "warnings" : "healthy");
    jw_int(&w, "errors", (long long)ne);
    jw_int(&w, "warnings", (long long)nw);

    jw_open(&w, "loader", '{');
    jw_str(&w, "os", c->win_live ? "windows" : "linux");
    if (c->win_live) {
        jw_str(&w, "mode", c->win_mode);
        jw_str(&w, "app_dir", c->win_app_dir);
        jw_str(&w, "system32", c->win_sys32);
        jw_str(&w, "windows_dir", c->win_windir);
        jw_str(&w, "current_dir", c->win_cwd);
        jw_str(&w, "set_dll_directory", c->win_env.set_dll_dir ? c->win_env.set_dll_dir : "");
        jw_open(&w, "dll_directories", '[');
        for (size_t i = 0; i < c->win_env.dll_dirs.n; i++)
            jw_str(&w, NULL, c->win_env.dll_dirs.v[i]);
        jw_close(&w, ']');
        jw_open(&w, "path", '[');
        for (size_t i = 0; i < c->win_env.path.n; i++)
            jw_str(&w, NULL, c->win_env.path.v[i]);
        jw_close(&w, ']');
    }
    jw_str(&w, "ld_library_path", getenv("LD_LIBRARY_PATH") ? getenv("LD_LIBRARY_PATH") : "");
    jw_str(&w, "cache", c->cache.loaded ? c->cache.source : "none");
    jw_str(&w, "for_program", c->opt.for_prog ? c->opt.for_prog : "");
    jw_int(&w, "for_program_major", c->for_major);
    jw_open(&w, "rpath", '[');
    for (size_t i = 0; i < c->rpath.n; i++)
        jw_str(&w, NULL, c->rpath.v[i]);
    jw_close(&w, ']');
    jw_open(&w, "runpath", '[');
    for (size_t i = 0; i < c->runpath.n; i++)
        jw_str(&w, NULL, c->runpath.v[i]);
    jw_close(&w, ']');
    jw_open(&w, "loads", '{');
    for (int m = 7; m <= 9; m++)
        if (c->winner[m])
            jw_str(&w, c->copies[c->winner[m] - 1].name, c->copies[c->winner[m] - 1].path);
    jw_close(&w, '}');
    jw_close(&w, '}');

    jw_open(&w, "copies", '[');
    for (size_t i = 0; i < c->ncopies; i++) {
        const dr_copy *cp = &c->copies[i];
        jw_open(&w, NULL, '{');
        jw_str(&w, "path", cp->path);
        jw_str(&w, "real_path", cp->real);
        jw_str(&w, "name", cp->name);
        jw_str(&w, "found_via", cp->loader_rank ? cp->loader_via : cp->where);
        jw_int(&w, "loader_rank", cp->loader_rank);
        jw_str(&w, "link", cp->link_state == 1 ? "broken" : cp->link_state == 2 ? "loop" : "ok");
        jw_int(&w, "size", cp->size);
        jw_bool(&w, "elf_ok", cp->elf_ok);
        jw_str(&w, "elf_error", cp->elf_err);
        jw_str(&w, "soname", cp->soname);
        jw_str(&w, "implementation", cp->impl);
        jw_str(&w, "probe", dr_probe_status_name(cp->probe.status));
        jw_str(&w, "probe_error", cp->probe.err);
        jw_str(&w, "probe_output", cp->probe.output);
        if (cp->probe.has_lf) {
            const dr_loadfail *lf = &cp->probe.lf;
            jw_open(&w, "loader_failure", '{');
            jw_str(&w, "message", lf->line);
            jw_str(&w, "library", lf->library);
            jw_str(&w, "error", lf->error);
            jw_int(&w, "code", lf->code);
            jw_str(&w, "missing", lf->missing);
            jw_str(&w, "cause", dr_loadfail_cause_name(lf->cause));
            jw_close(&w, '}');
        }
        jw_int(&w, "cudnnGetVersion", cp->probe.status == DR_PROBE_OK ? cp->probe.value : -1);
        jw_str(&w, "version", cp->version);
        jw_int(&w, "cudnnGetCudartVersion", cp->cudart);
        jw_open(&w, "sublibraries", '[');
        for (int s = 0; s < cp->nsubs; s++) {
            const dr_sublib *sl = &cp->subs[s];
            jw_open(&w, NULL, '{');
            jw_str(&w, "name", sl->name);
            jw_str(&w, "path", sl->path);
            jw_str(&w, "found_via", sl->how);
            jw_str(&w, "version", sl->version);
            jw_str(&w, "error", sl->err);
            if (c->win_live)
                jw_str(&w, "missing_imports", sl->missing_deps);
            jw_close(&w, '}');
        }
        jw_close(&w, ']');
        jw_str(&w, "header", cp->header);
        jw_str(&w, "header_version", cp->header_version);
        jw_close(&w, '}');
    }
    jw_close(&w, ']');

    jw_open(&w, "cuda", '{');
    jw_open(&w, "toolkits", '[');
    for (int i = 0; i < c->ntoolkits; i++) {
        jw_open(&w, NULL, '{');
        jw_str(&w, "path", c->toolkits[i].path);
        jw_str(&w, "version", c->toolkits[i].version);
        jw_str(&w, "source", c->toolkits[i].how);
        jw_close(&w, '}');
    }
    jw_close(&w, ']');
    jw_open(&w, "runtimes", '[');
    for (int i = 0; i < c->ncudarts; i++) {
        jw_open(&w, NULL, '{');
        jw_str(&w, "path", c->cudarts[i].path);
        jw_str(&w, "version", c->cudarts[i].version);
        jw_str(&w, "probe", dr_probe_status_name(c->cudarts[i].probe.status));
        jw_close(&w, '}');
    }
    jw_close(&w, ']');
    jw_open(&w, "driver", '{');
    jw_bool(&w, "present", c->driver.present);
    jw_str(&w, "api_version", c->driver.api_version);
    jw_str(&w, "release", c->driver.release);
    jw_str(&w, "release_source", c->driver.release_source);
    jw_str(&w, "library", c->driver.probe.loaded_from);
    jw_str(&w, "error", c->driver.present ? "" : c->driver.probe.err);
    jw_close(&w, '}');
    jw_close(&w, '}');

    jw_open(&w, "frameworks", '[');
    for (int i = 0; i < c->nfw; i++) {
        const dr_framework *f = &c->fw[i];
        jw_open(&w, NULL, '{');
        jw_str(&w, "name", f->name);
        jw_str(&w, "version", f->version);
        jw_str(&w, "site_packages", f->site);
        jw_bool(&w, "cpu_only", f->cpu_only);
        jw_str(&w, "built_cuda", f->cuda);
        jw_str(&w, "built_cudnn", f->cudnn);
        jw_str(&w, "built_cudnn_source", f->cudnn_source);
        jw_str(&w, "loads", f->resolved);
        jw_str(&w, "loads_version", f->resolved_version);
        jw_str(&w, "loads_via", f->resolved_how);
        jw_close(&w, '}');
    }
    jw_close(&w, ']');

    jw_open(&w, "cpu", '{');
    jw_str(&w, "brand", c->cpu.brand);
    jw_bool(&w, "avx", c->cpu.has_avx);
    jw_bool(&w, "avx2", c->cpu.has_avx2);
    jw_bool(&w, "fma", c->cpu.has_fma);
    jw_bool(&w, "avx512", c->cpu.has_avx512_core);
    jw_str(&w, "hostdnn_kernels", c->cpu.hostdnn_isa);
    jw_close(&w, '}');

    if (c->win_json)
        jw_raw(&w, "windows", c->win_json);

    jw_open(&w, "findings", '[');
    for (size_t i = 0; i < c->findings.n; i++) {
        const dr_finding *f = &c->findings.v[i];
        jw_open(&w, NULL, '{');
        jw_str(&w, "severity", dr_sev_name(f->sev));
        jw_str(&w, "code", f->code);
        jw_str(&w, "message", f->msg);
        jw_str(&w, "fix", f->fix ? f->fix : "");
        jw_close(&w, '}');
    }
    jw_close(&w, ']');
    jw_close(&w, '}');
    fputc('\n', o);
}
