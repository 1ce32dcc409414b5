/*
 * winsearch.c -- see winsearch.h.  Order (SafeDllSearchMode on, no manifest/KnownDLLs
 * entries for these names): application dir, System32, the 16-bit System dir, the
 * Windows dir, the current dir, then PATH.  With SetDefaultDllDirectories (what Python
 * >= 3.8 uses): application dir, the added DLL directories, System32 -- PATH and the
 * current dir are not searched.  SetDllDirectory(D) puts D right after the application
 * dir and drops the current dir.  With root NULL the paths are this machine's own.
 */
#include "winsearch.h"

#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int dr_win_to_host(const char *root, const char *win, char *out, size_t cap)
{
    if (!root) {
        dr_scopy(out, cap, win ? win : "");
        return win && dr_exists(win);
    }
    if (!win || !isalpha((unsigned char)win[0]) || win[1] != ':') {
        dr_scopy(out, cap, "");
        return 0;
    }
    char cur[HD_PATH_MAX];
    snprintf(cur, sizeof cur, "%s/%c", root, toupper((unsigned char)win[0]));
    dr_strlist parts = {0};
    dr_sl_split(&parts, win + 2, "\\/");
    int ok = dr_is_dir(cur);
    for (size_t i = 0; i < parts.n && ok; i++) {
        DIR *d = opendir(cur);
        const char *match = NULL;
        char found[256];
        if (d) {
            struct dirent *de;
            while ((de = readdir(d)))
                if (strcasecmp(de->d_name, parts.v[i]) == 0) {
                    dr_scopy(found, sizeof found, de->d_name);
                    match = found;
                    break;
                }
            closedir(d);
        }
        size_t l = strlen(cur);
        snprintf(cur + l, sizeof cur - l, "/%s", match ? match : parts.v[i]);
        ok = match != NULL;
    }
    dr_sl_free(&parts);
    dr_scopy(out, cap, cur);
    return ok;
}

static int try_dir(const dr_win_env *e, const char *dir, const char *dll, const char *step, dr_win_hit *hits, int n,
                   int max)
{
    if (!dir || !*dir || n >= max)
        return n;
    char win[1024], host[HD_PATH_MAX];
    size_t dl = strlen(dir);
    snprintf(win, sizeof win, "%s%s%s", dir, dl && (dir[dl - 1] == '\\' || dir[dl - 1] == '/') ? "" : "\\", dll);
    if (!dr_win_to_host(e->root, win, host, sizeof host) || !dr_is_file(host))
        return n;
    for (int i = 0; i < n; i++)
        if (strcasecmp(hits[i].host_path, host) == 0)
            return n; /* the same directory listed twice */
    dr_scopy(hits[n].win_path, sizeof hits[n].win_path, win);
    dr_scopy(hits[n].host_path, sizeof hits[n].host_path, host);
    dr_scopy(hits[n].step, sizeof hits[n].step, step);
    return n + 1;
}

int dr_win_search(const dr_win_env *e, const char *dll, dr_win_hit *hits, int max)
{
    const char *sys32 = e->system32 ? e->system32 : "C:\\Windows\\System32";
    const char *windir = e->windows_dir ? e->windows_dir : "C:\\Windows";
    int n = 0;
    n = try_dir(e, e->app_dir, dll, "application dir", hits, n, max);
    if (e->safe) {
        for (size_t i = 0; i < e->dll_dirs.n; i++)
            n = try_dir(e, e->dll_dirs.v[i], dll, "added DLL dir", hits, n, max);
        n = try_dir(e, sys32, dll, "System32", hits, n, max);
        return n;
    }
    n = try_dir(e, e->set_dll_dir, dll, "SetDllDirectory", hits, n, max);
    n = try_dir(e, sys32, dll, "System32", hits, n, max);
    char sys16[1024];
    snprintf(sys16, sizeof sys16, "%s\\System", windir);
    n = try_dir(e, sys16, dll, "16-bit System dir", hits, n, max);
    n = try_dir(e, windir, dll, "Windows dir", hits, n, max);
    if (!e->set_dll_dir)
        n = try_dir(e, e->cwd, dll, "current dir", hits, n, max);
    for (size_t i = 0; i < e->path.n; i++)
        n = try_dir(e, e->path.v[i], dll, "PATH", hits, n, max);
    return n;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int dr_pe_info(const char *host_path, int *machine, int v[4], int *has_version)
{
    *machine = 0;
    *has_version = 0;
    v[0] = v[1] = v[2] = v[3] = 0;
    FILE *f = fopen(host_path, "rb");
    if (!f)
        return 0;
    enum { CAP = 64 << 20 };
    unsigned char *buf = malloc(CAP);
    if (!buf) {
        fclose(f);
        return 0;
    }
    size_t n = fread(buf, 1, CAP, f);
    fclose(f);
    int ok = 0;
    if (n >= 0x40 && buf[0] == 'M' && buf[1] == 'Z') {
        uint32_t pe = le32(buf + 0x3c);
        if ((uint64_t)pe + 6 <= n && memcmp(buf + pe, "PE\0\0", 4) == 0) {
            *machine = buf[pe + 4] | buf[pe + 5] << 8;
            ok = 1;
        }
    }
    /* VS_FIXEDFILEINFO: signature 0xFEEF04BD, struct version, FileVersionMS, FileVersionLS */
    for (size_t i = 0; ok && i + 16 <= n; i += 4)
        if (le32(buf + i) == 0xFEEF04BDu) {
            uint32_t ms = le32(buf + i + 8), ls = le32(buf + i + 12);
            v[0] = (int)(ms >> 16);
            v[1] = (int)(ms & 0xffff);
            v[2] = (int)(ls >> 16);
            v[3] = (int)(ls & 0xffff);
            *has_version = 1;
            break;
        }
    free(buf);
    return ok;
}

static uint16_t le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* file offset of an RVA through the section table; 0 when no section holds it */
static uint64_t rva_to_off(const unsigned char *buf, size_t n, uint32_t pe, uint32_t rva)
{
    uint16_t nsec = le16(buf + pe + 6), optsz = le16(buf + pe + 20);
    uint64_t sec = (uint64_t)pe + 24 + optsz;
    for (uint16_t i = 0; i < nsec && sec + 40 <= n; i++, sec += 40) {
        uint32_t va = le32(buf + sec + 12), vsz = le32(buf + sec + 8), raw = le32(buf + sec + 20),
                 rsz = le32(buf + sec + 16);
        uint32_t span = vsz > rsz ? vsz : rsz;
        if (rva >= va && rva < va + span)
            return (uint64_t)raw + (rva - va);
    }
    return 0;
}

int dr_pe_imports(const char *host_path, dr_strlist *out)
{
    FILE *f = fopen(host_path, "rb");
    if (!f)
        return -1;
    enum { CAP = 64 << 20 };
    unsigned char *buf = malloc(CAP);
    if (!buf) {
        fclose(f);
        return -1;
    }
    size_t n = fread(buf, 1, CAP, f);
    fclose(f);
    int found = -1;
    uint32_t pe = n >= 0x40 ? le32(buf + 0x3c) : 0;
    if (n >= 0x40 && buf[0] == 'M' && buf[1] == 'Z' && (uint64_t)pe + 24 <= n && memcmp(buf + pe, "PE\0\0", 4) == 0) {
        uint64_t opt = (uint64_t)pe + 24;
        uint16_t magic = opt + 2 <= n ? le16(buf + opt) : 0;
        /* data directory 1 (imports): PE32+ at 112+8, PE32 at 96+8 */
        uint64_t dd = opt + (magic == 0x20b ? 120 : 104);
        if (dd + 8 <= n) {
            found = 0;
            uint32_t rva = le32(buf + dd);
            uint64_t off = rva ? rva_to_off(buf, n, pe, rva) : 0;
            /* IMAGE_IMPORT_DESCRIPTOR: 20 bytes, Name RVA at +12, all-zero terminator */
            for (int k = 0; off && off + 20 <= n && k < 512; k++, off += 20) {
                uint32_t name = le32(buf + off + 12);
                if (!name)
                    break;
                uint64_t no = rva_to_off(buf, n, pe, name);
                if (!no || no >= n)
                    continue;
                size_t len = strnlen((const char *)buf + no, n - no);
                if (len == 0 || len > 255 || no + len >= n)
                    continue;
                dr_sl_push(out, (const char *)buf + no);
                found++;
            }
        }
    }
    free(buf);
    return found;
}

int dr_win_system_dll(const char *name)
{
    static const char *const sys[] = {"kernel32.dll", "ntdll.dll", "user32.dll", "advapi32.dll", "msvcrt.dll",
                                      "ucrtbase.dll", "shell32.dll", "ole32.dll", "oleaut32.dll", "gdi32.dll",
                                      "ws2_32.dll", "version.dll", "setupapi.dll", "shlwapi.dll", "bcrypt.dll",
                                      "crypt32.dll", "dbghelp.dll", "psapi.dll", "rpcrt4.dll", "comdlg32.dll"};
    if (strncasecmp(name, "api-ms-win-", 11) == 0 || strncasecmp(name, "ext-ms-", 7) == 0)
        return 1;
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
        if (strcasecmp(name, sys[i]) == 0)
            return 1;
    return 0;
}
