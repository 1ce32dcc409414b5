/*
 * windows.c -- the Windows checks (--windows-tree ROOT): which cudnn64_N.dll, which
 * sub-library DLLs and which zlibwapi.dll a plain program and a Python >= 3.8 process
 * would load, their versions (PE version resource) and what is missing or mixed.
 */
#include "doctor.h"
#include "winsearch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const SUB8[] = {"ops_infer", "ops_train", "cnn_infer", "cnn_train", "adv_infer", "adv_train"};
static const char *const SUB9[] = {"graph", "ops", "cnn", "adv", "heuristic", "engines_precompiled",
                                   "engines_runtime_compiled"};

typedef struct {
    char *s;
    size_t n, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) DR_PRINTF(2, 3);
static void sb_add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *t = NULL;
    if (vasprintf(&t, fmt, ap) < 0)
        abort();
    va_end(ap);
    size_t l = strlen(t);
    if (b->n + l + 1 > b->cap) {
        b->cap = (b->n + l + 1) * 2;
        char *ns = realloc(b->s, b->cap);
        if (!ns)
            abort();
        b->s = ns;
    }
    memcpy(b->s + b->n, t, l + 1);
    b->n += l;
    free(t);
}

static void json_str(sbuf *b, const char *s)
{
    sb_add(b, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            sb_add(b, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            sb_add(b, "\\u%04x", (unsigned char)*s);
        else
            sb_add(b, "%c", *s);
    }
    sb_add(b, "\"");
}

static void win_dir(const char *winpath, char *out, size_t cap)
{
    dr_scopy(out, cap, winpath);
    char *s = strrchr(out, '\\');
    if (s)
        *s = 0;
}

static void check_mode(dr_ctx *c, dr_win_env *e, const char *mode, sbuf *txt, sbuf *js)
{
    dr_findings *f = &c->findings;
    sb_add(txt, "  %s:\n", mode);
    sb_add(js, "{\"mode\":");
    json_str(js, mode);
    sb_add(js, ",\"dlls\":[");
    int first_json = 1, any = 0;
    for (int m = 9; m >= 7; m--) {
        char dll[32];
        snprintf(dll, sizeof dll, "cudnn64_%d.dll", m);
        dr_win_hit hits[16];
        int n = dr_win_search(e, dll, hits, 16);
        if (!n)
            continue;
        any = 1;
        int mach = 0, v[4], hv = 0;
        dr_pe_info(hits[0].host_path, &mach, v, &hv);
        int hostdnn = dr_file_contains(hits[0].host_path, "hostdnn", 16ll << 20);
        char ver[32] = "unknown";
        if (hv)
            snprintf(ver, sizeof ver, "%d.%d.%d", v[0], v[1], v[2]);
        sb_add(txt, "    %s -> %s (%s, %s %s)\n", dll, hits[0].win_path, hits[0].step, hostdnn ? "hostdnn" : "NVIDIA", ver);
        sb_add(js, "%s{\"name\":", first_json ? "" : ",");
        first_json = 0;
        json_str(js, dll);
        sb_add(js, ",\"path\":");
        json_str(js, hits[0].win_path);
        sb_add(js, ",\"step\":");
        json_str(js, hits[0].step);
        sb_add(js, ",\"version\":");
        json_str(js, ver);
        sb_add(js, ",\"implementation\":\"%s\"}", hostdnn ? "hostdnn" : "nvidia");
        char shimdir[1024];
        win_dir(hits[0].win_path, shimdir, sizeof shimdir);
        if (mach && mach != 0x8664)
            dr_add(f, DR_ERROR, "win-wrong-arch", "install the 64-bit cuDNN",
                   "[windows, %s] %s is not a 64-bit DLL (machine 0x%x): LoadLibrary fails with error 193", mode,
                   hits[0].win_path, mach);
        for (int k = 1; k < n; k++) {
            int m2 = 0, v2[4], hv2 = 0;
            dr_pe_info(hits[k].host_path, &m2, v2, &hv2);
            if (hv2 && hv && (v2[0] != v[0] || v2[1] != v[1] || v2[2] != v[2])) {
                char d2[1024];
                win_dir(hits[k].win_path, d2, sizeof d2);
                char *fix = dr_fmt("to use it, move %s before %s in the search order (or remove the other copy)", d2, shimdir);
                dr_add(f, DR_WARN, "win-shadowed", fix, "[windows, %s] %s (%s) shadows %s (%d.%d.%d, %s)", mode,
                       hits[0].win_path, ver, hits[k].win_path, v2[0], v2[1], v2[2], hits[k].step);
                free(fix);
            }
        }
        /* sub-libraries: looked up by bare name from inside the shim */
        int ns = m == 8 ? 6 : m == 9 ? 7 : 0;
        for (int s = 0; s < ns; s++) {
            char sub[64];
            snprintf(sub, sizeof sub, "cudnn_%s64_%d.dll", m == 8 ? SUB8[s] : SUB9[s], m);
            dr_win_hit sh[4];
            int sn = dr_win_search(e, sub, sh, 4);
            if (!sn) {
                char *fix = dr_fmt("copy %s from the same cuDNN %s release into %s", sub, ver, shimdir);
                dr_add(f, DR_ERROR, "win-sublib-missing", fix,
                       "[windows, %s] %s is not found: cuDNN fails with 'Could not locate %s' / error 126", mode, sub, sub);
                free(fix);
                continue;
            }
            int sm = 0, sv[4], shv = 0;
            dr_pe_info(sh[0].host_path, &sm, sv, &shv);
            if (shv && hv && (sv[0] != v[0] || sv[1] != v[1] || sv[2] != v[2])) {
                char *fix = dr_fmt("use the %s from the cuDNN %s release (in %s)", sub, ver, shimdir);
                dr_add(f, DR_ERROR, "win-sublib-version", fix,
                       "[windows, %s] mixed versions: %s is %s but %s is %d.%d.%d (error 127 or a version mismatch status)",
                       mode, hits[0].win_path, ver, sh[0].win_path, sv[0], sv[1], sv[2]);
                free(fix);
            }
        }
        /* zlib: NVIDIA cuDNN 8.3 .. 9.1 loads zlibwapi.dll; 9.2+ has it built in; hostdnn never needs it */
        int ver_num = v[0] * 10000 + v[1] * 100 + v[2];
        if (!hostdnn && hv && ver_num >= 80300 && ver_num < 90200) {
            dr_win_hit zh[4];
            int zn = dr_win_search(e, "zlibwapi.dll", zh, 4);
            if (!zn) {
                char *fix = e->safe ? dr_fmt("put a 64-bit zlibwapi.dll in %s or System32, or register its directory with "
                                             "os.add_dll_directory()", shimdir)
                                    : dr_fmt("put a 64-bit zlibwapi.dll beside %s or in a directory on PATH", hits[0].win_path);
                dr_add(f, DR_ERROR, "win-zlib-missing", fix,
                       "[windows, %s] cuDNN %s needs zlibwapi.dll and it is not on the search path ('Could not locate "
                       "zlibwapi.dll')",
                       mode, ver);
                free(fix);
            } else {
                int zm = 0, zv[4], zhv = 0;
                dr_pe_info(zh[0].host_path, &zm, zv, &zhv);
                sb_add(txt, "    zlibwapi.dll -> %s (%s)\n", zh[0].win_path, zh[0].step);
                if (zm && zm != 0x8664)
                    dr_add(f, DR_ERROR, "win-zlib-arch", "replace it with the 64-bit zlibwapi.dll",
                           "[windows, %s] %s is a 32-bit DLL (machine 0x%x): error 193", mode, zh[0].win_path, zm);
            }
        }
    }
    sb_add(js, "]}");
    if (!any) {
        sb_add(txt, "    no cudnn64_*.dll on this search path\n");
        /* is it somewhere the other mode would have found it? */
        if (e->safe) {
            dr_win_env classic = *e;
            classic.safe = 0;
            for (int m = 9; m >= 7; m--) {
                char dll[32];
                snprintf(dll, sizeof dll, "cudnn64_%d.dll", m);
                dr_win_hit h[2];
                if (dr_win_search(&classic, dll, h, 2) && strcmp(h[0].step, "PATH") == 0) {
                    char d[1024];
                    win_dir(h[0].win_path, d, sizeof d);
                    char *fix = dr_fmt("call os.add_dll_directory(r\"%s\") before importing the framework", d);
                    dr_add(f, DR_ERROR, "win-path-not-searched", fix,
                           "[windows, %s] %s is only on PATH, which Python >= 3.8 does not search for extension "
                           "dependencies",
                           mode, h[0].win_path);
                    free(fix);
                    break;
                }
            }
        } else {
            dr_add(f, DR_ERROR, "win-no-cudnn", "add the cuDNN bin directory to PATH or put the DLLs beside the program",
                   "[windows, %s] no cudnn64_7/8/9.dll on the DLL search path", mode);
        }
    }
}

void dr_windows(dr_ctx *c)
{
    if (!c->opt.win_root)
        return;
    dr_win_env e;
    memset(&e, 0, sizeof e);
    e.root = c->opt.win_root;
    e.app_dir = c->opt.win_app_dir;
    e.cwd = c->opt.win_cwd;
    e.set_dll_dir = c->opt.win_set_dll_dir;
    dr_sl_split(&e.path, c->opt.win_path, ";");
    for (size_t i = 0; i < c->opt.win_dll_dirs.n; i++)
        dr_sl_push(&e.dll_dirs, c->opt.win_dll_dirs.v[i]);
    sbuf txt = {0}, js = {0};
    sb_add(&txt, "Windows (tree %s):\n", e.root);
    sb_add(&js, "[");
    e.safe = 0;
    check_mode(c, &e, "plain program", &txt, &js);
    sb_add(&js, ",");
    e.safe = 1;
    check_mode(c, &e, "Python >= 3.8 extension", &txt, &js);
    sb_add(&js, "]");
    c->win_text = txt.s;
    c->win_json = js.s;
    dr_sl_free(&e.path);
    dr_sl_free(&e.dll_dirs);
}
