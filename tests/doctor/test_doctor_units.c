/*
 * test_doctor_units.c -- the doctor's pieces one by one: version decoding, the
 * compatibility table and its lookups, the ld.so.cache reader (against ldconfig -p and
 * hand-made caches), the ELF reader (real, garbage and mutated files), the child probe,
 * header parsing, the Windows search order on a fake tree, PE version reading, the
 * snapshot JSON parser, findings.
 */
#include "harness.h"

#include "compat.h"
#include "doctor.h"
#include "elfread.h"
#include "findings.h"
#include "headers.h"
#include "ldcache.h"
#include "probe.h"
#include "snapdiff.h"
#include "winsearch.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

static char *tpath(const char *name)
{
    return dr_fmt("%s/%s", tmpdir, name);
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fwrite(data, 1, n, f);
    fclose(f);
}

static void write_text(const char *path, const char *text)
{
    write_file(path, text, strlen(text));
}

static void mkdirs(const char *path)
{
    char *cmd = dr_fmt("mkdir -p '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "mkdir failed: %s\n", path);
    free(cmd);
}

static void test_versions(void)
{
    SECTION("versions");
    int v[3];
    dr_cudnn_decode(8101, v);
    CHECK(v[0] == 8 && v[1] == 1 && v[2] == 1);
    dr_cudnn_decode(8100, v);
    CHECK(v[0] == 8 && v[1] == 1 && v[2] == 0);
    dr_cudnn_decode(8907, v);
    CHECK(v[0] == 8 && v[1] == 9 && v[2] == 7);
    dr_cudnn_decode(7605, v);
    CHECK(v[0] == 7 && v[1] == 6 && v[2] == 5);
    dr_cudnn_decode(90600, v);
    CHECK(v[0] == 9 && v[1] == 6 && v[2] == 0);
    dr_cudnn_decode(91900, v);
    CHECK(v[0] == 9 && v[1] == 19 && v[2] == 0);
    dr_cudnn_decode(91001, v);
    CHECK(v[0] == 9 && v[1] == 10 && v[2] == 1);
    dr_cudnn_decode(-5, v);
    CHECK(v[0] == 0 && v[1] == 0 && v[2] == 0);
    char s[32];
    dr_cuda_decode(11020, s, sizeof s);
    CHECK(strcmp(s, "11.2") == 0);
    dr_cuda_decode(12040, s, sizeof s);
    CHECK(strcmp(s, "12.4") == 0);
    dr_cuda_decode(13010, s, sizeof s);
    CHECK(strcmp(s, "13.1") == 0);
    dr_cuda_decode(0, s, sizeof s);
    CHECK(strcmp(s, "?") == 0);
    CHECK(dr_vercmp("450.80.02", "460.27.03") < 0);
    CHECK(dr_vercmp("470.82.01", "460.27.03") > 0);
    CHECK(dr_vercmp("525.60.13", "525.60.13") == 0);
    CHECK(dr_vercmp("580", "575.57.08") > 0);
    CHECK(dr_vercmp("11.2", "11.2.0") == 0);
    CHECK(dr_vercmp("9.10", "9.9") > 0);
    CHECK(dr_parse_version("8.1.0.77", v) == 3 && v[0] == 8 && v[1] == 1 && v[2] == 0);
    CHECK(dr_parse_version("CUDA 11.2", v) == 2 && v[0] == 11 && v[1] == 2);
    CHECK(dr_parse_version("none", v) == 0);
    CHECK(dr_parse_version(NULL, v) == 0);
}

static void test_compat(void)
{
    SECTION("compat");
    dr_compat c;
    char err[512] = "";
    CHECK_MSG(dr_compat_load(&c, HD_DOCTOR_COMPAT, err, sizeof err), "%s", err);
    CHECK_EQ_INT(c.n, 284);
    size_t nosrc = 0, kinds[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < c.n; i++) {
        nosrc += !c.rows[i].source[0];
        kinds[0] += strcmp(c.rows[i].kind, "tf") == 0;
        kinds[1] += strcmp(c.rows[i].kind, "torch") == 0;
        kinds[2] += strcmp(c.rows[i].kind, "cuda_driver") == 0;
        kinds[3] += strcmp(c.rows[i].kind, "cudnn_cuda") == 0;
    }
    CHECK_EQ_INT(nosrc, 0);
    CHECK_EQ_INT(kinds[0], 69);
    CHECK_EQ_INT(kinds[1], 56);
    CHECK_EQ_INT(kinds[2], 117);
    CHECK_EQ_INT(kinds[3], 42);

    char full[32], minor[32];
    dr_compat_driver_min(&c, "11.2", "linux", full, sizeof full, minor, sizeof minor);
    CHECK(strcmp(full, "460.27.03") == 0);
    CHECK(strcmp(minor, "450.80.02") == 0);
    dr_compat_driver_min(&c, "11.2", "windows", full, sizeof full, minor, sizeof minor);
    CHECK(strcmp(full, "460.82") == 0);
    CHECK(strcmp(minor, "452.39") == 0);
    dr_compat_driver_min(&c, "12.0", "linux", full, sizeof full, minor, sizeof minor);
    CHECK(strcmp(full, "525.60.13") == 0);
    CHECK(strcmp(minor, "525.60.13") == 0);
    dr_compat_driver_min(&c, "12.8", "linux", full, sizeof full, minor, sizeof minor);
    CHECK(strcmp(full, "570.26") == 0);
    dr_compat_driver_min(&c, "10.2", "linux", full, sizeof full, minor, sizeof minor);
    CHECK(strcmp(full, "440.33") == 0);
    CHECK(minor[0] == 0); /* no minor-version compatibility before CUDA 11 */
    dr_compat_driver_min(&c, "13.0", "linux", full, sizeof full, minor, sizeof minor);
    CHECK(strcmp(minor, "580") == 0);
    dr_compat_driver_min(&c, "garbage", "linux", full, sizeof full, minor, sizeof minor);
    CHECK(full[0] == 0 && minor[0] == 0);

    char cuda[64], cudnn[64];
    const char *src = NULL;
    CHECK(dr_compat_tf(&c, "2.10.0", "linux", cuda, sizeof cuda, cudnn, sizeof cudnn, &src));
    CHECK(strcmp(cuda, "11.2") == 0 && strcmp(cudnn, "8.1") == 0 && src && strstr(src, "tensorflow/docs"));
    CHECK(dr_compat_tf(&c, "2.16.1", "linux", cuda, sizeof cuda, cudnn, sizeof cudnn, NULL));
    CHECK(strcmp(cuda, "12.3") == 0 && strcmp(cudnn, "8.9") == 0);
    CHECK(dr_compat_tf(&c, "2.5.3", "linux", cuda, sizeof cuda, cudnn, sizeof cudnn, NULL));
    CHECK(strcmp(cudnn, "8.1") == 0);
    CHECK(dr_compat_tf(&c, "2.10.1", "windows", cuda, sizeof cuda, cudnn, sizeof cudnn, NULL));
    CHECK(!dr_compat_tf(&c, "2.11.0", "windows", cuda, sizeof cuda, cudnn, sizeof cudnn, NULL));
    CHECK(!dr_compat_tf(&c, "3.0", "linux", cuda, sizeof cuda, cudnn, sizeof cudnn, NULL));

    CHECK(dr_compat_torch(&c, "2.1.0+cu118", "11.8", cudnn, sizeof cudnn, NULL));
    CHECK(strcmp(cudnn, "8.7.0.84") == 0);
    CHECK(dr_compat_torch(&c, "2.1.2", "12.1", cudnn, sizeof cudnn, NULL));
    CHECK(strcmp(cudnn, "8.9.2.26") == 0);
    CHECK(dr_compat_torch(&c, "2.4.0", "", cudnn, sizeof cudnn, NULL));
    CHECK(strcmp(cudnn, "9.1") == 0);
    CHECK(!dr_compat_torch(&c, "2.7.0", "", cudnn, sizeof cudnn, NULL)); /* 9.1, 9.5, 9.7: ambiguous */
    CHECK(dr_compat_torch(&c, "1.8.1", "10.2", cudnn, sizeof cudnn, NULL));
    CHECK(strcmp(cudnn, "7.6.5.32") == 0);
    CHECK(!dr_compat_torch(&c, "2.1.0", "10.0", cudnn, sizeof cudnn, NULL));
    dr_compat_free(&c);

    /* broken tables are refused with the line that is wrong */
    const char *hdr = "kind\tsubject_version\tos\tcuda\tcudnn\tdriver_min\tsource\n";
    struct {
        const char *text, *want;
    } bad[] = {
        {"kind\tsubject\tos\n", ":1:"},
        {"", "no rows"},
        {"tf\t2.10.0\tlinux\t11.2\t8.1\t\tsrc\n", "header must be"},
        {"tf 2.10.0\n", "missing header"},
        {NULL, "columns"},
        {NULL, "unknown kind"},
        {NULL, "source column is empty"},
    };
    char *p = tpath("bad.tsv");
    for (int i = 0; i < 7; i++) {
        char *text;
        if (i == 4)
            text = dr_fmt("%stf\t2.10.0\tlinux\t11.2\n", hdr);
        else if (i == 5)
            text = dr_fmt("%sjax\t0.4\tlinux\t12\t9\t\tsrc\n", hdr);
        else if (i == 6)
            text = dr_fmt("%stf\t2.10.0\tlinux\t11.2\t8.1\t\t\n", hdr);
        else
            text = dr_xstrdup(bad[i].text);
        write_text(p, text);
        free(text);
        err[0] = 0;
        CHECK(!dr_compat_load(&c, p, err, sizeof err));
        CHECK_MSG(strstr(err, bad[i].want) != NULL, "case %d: %s", i, err);
        CHECK(c.n == 0 && c.rows == NULL);
    }
    CHECK(!dr_compat_load(&c, "/nonexistent/compat.tsv", err, sizeof err));
    free(p);
}

/* A glibc-style cache with the given entries, optionally behind an old-format table. */
static size_t make_cache(unsigned char *buf, int with_old, const char *const *names, const char *const *paths,
                         int n, uint32_t flags)
{
    size_t off = 0;
    if (with_old) {
        memcpy(buf, "ld.so-1.7.0", 11);
        buf[11] = 0;
        uint32_t zero = 0;
        memcpy(buf + 12, &zero, 4); /* no old entries */
        off = 16;
    }
    size_t base = off;
    memcpy(buf + base, "glibc-ld.so.cache1.1", 20);
    uint32_t nl = (uint32_t)n;
    memcpy(buf + base + 20, &nl, 4);
    size_t strings = base + 48 + (size_t)n * 24, sp = strings;
    for (int i = 0; i < n; i++) {
        uint32_t k = (uint32_t)(sp - base);
        strcpy((char *)buf + sp, names[i]);
        sp += strlen(names[i]) + 1;
        uint32_t v = (uint32_t)(sp - base);
        strcpy((char *)buf + sp, paths[i]);
        sp += strlen(paths[i]) + 1;
        unsigned char *e = buf + base + 48 + (size_t)i * 24;
        memset(e, 0, 24);
        memcpy(e, &flags, 4);
        memcpy(e + 4, &k, 4);
        memcpy(e + 8, &v, 4);
    }
    return sp;
}

static void test_ldcache(void)
{
    SECTION("ldcache");
    dr_ldcache c;
    memset(&c, 0, sizeof c);
    if (dr_is_file("/etc/ld.so.cache") && dr_ldcache_parse("/etc/ld.so.cache", &c)) {
        /* the same x86-64 entries, in the same order, as ldconfig -p shows */
        FILE *p = popen("ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null", "r");
        char *text = dr_xcalloc(1 << 22, 1);
        size_t n = p ? fread(text, 1, (1 << 22) - 1, p) : 0;
        if (p)
            pclose(p);
        if (n) {
            dr_ldcache ref;
            memset(&ref, 0, sizeof ref);
            dr_ldcache_parse_ldconfig_text(text, &ref);
            CHECK_EQ_INT(c.names.n, ref.names.n);
            size_t same = 0;
            for (size_t i = 0; i < c.names.n && i < ref.names.n; i++)
                same += strcmp(c.names.v[i], ref.names.v[i]) == 0 && strcmp(c.paths.v[i], ref.paths.v[i]) == 0;
            CHECK_EQ_INT(same, c.names.n);
            dr_ldcache_free(&ref);
        }
        free(text);
    }
    dr_ldcache_free(&c);

    static unsigned char buf[4096];
    const char *names[] = {"libcudnn.so.8", "libfoo.so.1", "libcudnn.so.8"};
    const char *paths[] = {"/opt/a/libcudnn.so.8", "/usr/lib/libfoo.so.1", "/opt/b/libcudnn.so.8"};
    char *f = tpath("ld.so.cache");
    for (int old = 0; old <= 1; old++) {
        size_t n = make_cache(buf, old, names, paths, 3, 0x0303);
        write_file(f, buf, n);
        memset(&c, 0, sizeof c);
        CHECK(dr_ldcache_parse(f, &c));
        CHECK_EQ_INT(c.names.n, 3);
        const char *hit = dr_ldcache_lookup(&c, "libcudnn.so.8");
        CHECK(hit && strcmp(hit, "/opt/a/libcudnn.so.8") == 0); /* first entry wins */
        CHECK(dr_ldcache_lookup(&c, "libcudnn.so.9") == NULL);
        dr_ldcache_free(&c);
    }
    /* 32-bit entries are not for a 64-bit process */
    size_t n = make_cache(buf, 0, names, paths, 3, 0x0003);
    write_file(f, buf, n);
    memset(&c, 0, sizeof c);
    CHECK(dr_ldcache_parse(f, &c));
    CHECK_EQ_INT(c.names.n, 0);
    dr_ldcache_free(&c);
    /* an entry count far past the file, truncations and garbage are refused, not read */
    n = make_cache(buf, 0, names, paths, 3, 0x0303);
    uint32_t huge = 100000000;
    memcpy(buf + 20, &huge, 4);
    write_file(f, buf, n);
    memset(&c, 0, sizeof c);
    CHECK(!dr_ldcache_parse(f, &c));
    n = make_cache(buf, 0, names, paths, 3, 0x0303);
    for (size_t cut = 0; cut < n; cut += 7) {
        write_file(f, buf, cut);
        memset(&c, 0, sizeof c);
        dr_ldcache_parse(f, &c); /* must not crash; entries with cut strings are dropped */
        CHECK(c.names.n <= 3);
        dr_ldcache_free(&c);
    }
    write_text(f, "this is not a cache");
    memset(&c, 0, sizeof c);
    CHECK(!dr_ldcache_parse(f, &c));
    CHECK(!dr_ldcache_parse("/nonexistent/ld.so.cache", &c));
    free(f);
    memset(&c, 0, sizeof c);
    dr_ldcache_parse_ldconfig_text("123 libs found in cache `/etc/ld.so.cache'\n"
                                   "\tlibcudnn.so.9 (libc6,x86-64) => /usr/lib/libcudnn.so.9\n"
                                   "\tlibold.so.1 (libc6) => /usr/lib32/libold.so.1\n",
                                   &c);
    CHECK_EQ_INT(c.names.n, 1);
    CHECK(dr_ldcache_lookup(&c, "libcudnn.so.9") && strcmp(dr_ldcache_lookup(&c, "libcudnn.so.9"), "/usr/lib/libcudnn.so.9") == 0);
    dr_ldcache_free(&c);
}

static void test_elf(void)
{
    SECTION("elf");
    dr_elf e;
    CHECK(dr_elf_read("/proc/self/exe", &e));
    CHECK(e.elf_class == 64 && e.has_dynamic);
    int libc = 0;
    for (size_t i = 0; i < e.needed.n; i++)
        libc |= strncmp(e.needed.v[i], "libc.so", 7) == 0;
    CHECK(libc);
    dr_elf_free(&e);

    char *g = tpath("garbage.so");
    write_text(g, "definitely not an ELF file, but long enough to have a header......");
    CHECK(!dr_elf_read(g, &e));
    CHECK(strstr(e.err, "invalid ELF header") != NULL);
    write_text(g, "hi\n");
    CHECK(!dr_elf_read(g, &e));
    CHECK(strstr(e.err, "too short") != NULL);
    CHECK(!dr_elf_read("/nonexistent/libx.so", &e));
    CHECK(!dr_elf_read("/", &e));

    /* mutate a real ELF's headers: the reader must never crash or read out of bounds */
    FILE *f = fopen("/proc/self/exe", "rb");
    static unsigned char img[1 << 16];
    size_t n = f ? fread(img, 1, sizeof img, f) : 0;
    if (f)
        fclose(f);
    CHECK(n > 1024);
    unsigned seed = 12345;
    int survived = 0;
    for (int it = 0; it < 300; it++) {
        static unsigned char m[1 << 16];
        memcpy(m, img, n);
        size_t len = n;
        for (int k = 0; k < 8; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t pos = (seed >> 8) % 128; /* ELF and first program headers */
            if (k == 7)
                pos = (seed >> 8) % len;
            m[pos] = (unsigned char)(seed >> 3);
        }
        m[0] = 0x7f; m[1] = 'E'; m[2] = 'L'; m[3] = 'F';
        if (it % 3 == 0)
            len = (seed >> 4) % n;
        write_file(g, m, len);
        dr_elf_read(g, &e);
        dr_elf_free(&e);
        survived++;
    }
    CHECK_EQ_INT(survived, 300);
    free(g);

    dr_strlist d = {0};
    dr_elf_expand_path("$ORIGIN/../lib:${ORIGIN}:/abs::$ORIGIN", "/opt/app/bin", &d);
    CHECK_EQ_INT(d.n, 3);
    CHECK(d.n == 3 && strcmp(d.v[0], "/opt/app/bin/../lib") == 0 && strcmp(d.v[1], "/opt/app/bin") == 0 &&
          strcmp(d.v[2], "/abs") == 0);
    dr_sl_free(&d);
}

static void test_probe(void)
{
    SECTION("probe");
    dr_probe p;
    dr_probe_run("libc.so.6", DR_PROBE_LOADONLY, 5000, &p);
    CHECK(p.status == DR_PROBE_OK);
    CHECK(strstr(p.loaded_from, "libc") != NULL);
    dr_probe_run("libc.so.6", DR_PROBE_CUDNN, 5000, &p);
    CHECK(p.status == DR_PROBE_NO_SYMBOL);
    dr_probe_run("/nonexistent/libcudnn.so.8", DR_PROBE_CUDNN, 5000, &p);
    CHECK(p.status == DR_PROBE_LOAD_FAILED);
    CHECK(strstr(p.err, "nonexistent") != NULL);
    dr_probe_run("libdoes-not-exist.so.1", DR_PROBE_DRIVER, 5000, &p);
    CHECK(p.status == DR_PROBE_LOAD_FAILED);
    CHECK(strcmp(dr_probe_status_name(DR_PROBE_TIMEOUT), "timeout") == 0);
    CHECK(strcmp(dr_probe_status_name(DR_PROBE_CRASHED), "crashed") == 0);
}

static void test_headers(void)
{
    SECTION("headers");
    char *d = tpath("inc");
    mkdirs(d);
    char *h = tpath("inc/cudnn_version.h");
    write_text(h, "/* x */\n#  define CUDNN_MAJOR 8\n#define CUDNN_MINOR\t9\n#define CUDNN_PATCHLEVEL 7\n"
                  "#define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n");
    int v[3];
    CHECK(dr_header_version(h, v));
    CHECK(v[0] == 8 && v[1] == 9 && v[2] == 7);
    char file[4096];
    CHECK(dr_header_in_dir(d, file, sizeof file, v));
    CHECK(strcmp(file, h) == 0);
    write_text(h, "#define CUDNN_MAJOR_X 8\n");
    CHECK(!dr_header_version(h, v));
    CHECK(!dr_header_in_dir("/nonexistent", file, sizeof file, v));
    free(d);
    free(h);
}

static void mkdll(const char *path, int machine, int a, int b, int c)
{
    unsigned char buf[512];
    memset(buf, 0, sizeof buf);
    buf[0] = 'M';
    buf[1] = 'Z';
    uint32_t pe = 0x80;
    memcpy(buf + 0x3c, &pe, 4);
    memcpy(buf + 0x80, "PE\0\0", 4);
    buf[0x84] = (unsigned char)(machine & 0xff);
    buf[0x85] = (unsigned char)(machine >> 8);
    uint32_t ffi[4] = {0xFEEF04BDu, 0x10000u, (uint32_t)(a << 16 | b), (uint32_t)(c << 16)};
    memcpy(buf + 0x100, ffi, sizeof ffi);
    write_file(path, buf, sizeof buf);
}

static void test_windows(void)
{
    SECTION("windows");
    char *root = tpath("win");
    const char *dirs[] = {"C/Windows/System32", "C/Windows/System", "C/App", "C/cwd", "C/p1", "C/p2", "D/extra"};
    for (int i = 0; i < 7; i++) {
        char *p = dr_fmt("%s/%s", root, dirs[i]);
        mkdirs(p);
        free(p);
    }
    const char *files[] = {"C/Windows/System32/x.dll", "C/App/x.dll",  "C/p1/x.dll",  "C/cwd/y.dll",
                           "C/p2/y.dll",               "C/p2/Z.DLL",   "D/extra/z.dll", "C/Windows/w.dll"};
    for (int i = 0; i < 8; i++) {
        char *p = dr_fmt("%s/%s", root, files[i]);
        mkdll(p, 0x8664, 8, i, 0);
        free(p);
    }
    dr_win_env e;
    memset(&e, 0, sizeof e);
    e.root = root;
    e.app_dir = "c:\\app";
    e.cwd = "C:\\cwd";
    dr_sl_split(&e.path, "C:\\p1;C:\\P2;D:\\extra", ";");
    dr_win_hit h[8];
    int n = dr_win_search(&e, "x.dll", h, 8);
    CHECK_EQ_INT(n, 3);
    CHECK(n == 3 && strcmp(h[0].step, "application dir") == 0 && strcmp(h[1].step, "System32") == 0 &&
          strcmp(h[2].step, "PATH") == 0);
    n = dr_win_search(&e, "y.dll", h, 8);
    CHECK(n == 2 && strcmp(h[0].step, "current dir") == 0 && strcmp(h[1].step, "PATH") == 0);
    n = dr_win_search(&e, "z.dll", h, 8); /* case-insensitive: Z.DLL in C:\p2 first */
    CHECK(n == 2 && strstr(h[0].host_path, "C/p2/Z.DLL") != NULL);
    n = dr_win_search(&e, "w.dll", h, 8);
    CHECK(n == 1 && strcmp(h[0].step, "Windows dir") == 0);
    /* SetDllDirectory: right after the program's folder, and the current dir drops out */
    e.set_dll_dir = "C:\\p2";
    n = dr_win_search(&e, "y.dll", h, 8);
    CHECK(n == 1 && strcmp(h[0].step, "SetDllDirectory") == 0);
    n = dr_win_search(&e, "x.dll", h, 8);
    CHECK(n == 3 && strcmp(h[0].step, "application dir") == 0 && strcmp(h[1].step, "System32") == 0);
    e.set_dll_dir = NULL;
    /* Python >= 3.8: no current dir, no PATH; added directories instead */
    e.safe = 1;
    n = dr_win_search(&e, "y.dll", h, 8);
    CHECK_EQ_INT(n, 0);
    dr_sl_push(&e.dll_dirs, "D:\\EXTRA");
    n = dr_win_search(&e, "z.dll", h, 8);
    CHECK(n == 1 && strcmp(h[0].step, "added DLL dir") == 0);
    n = dr_win_search(&e, "x.dll", h, 8);
    CHECK(n == 2 && strcmp(h[0].step, "application dir") == 0 && strcmp(h[1].step, "System32") == 0);
    CHECK_EQ_INT(dr_win_search(&e, "x.dll", h, 1), 1);
    char out[4096];
    CHECK(!dr_win_to_host(root, "\\\\server\\share\\x.dll", out, sizeof out));
    CHECK(!dr_win_to_host(root, "relative\\x.dll", out, sizeof out));
    CHECK(!dr_win_to_host(root, "Q:\\x.dll", out, sizeof out));
    dr_sl_free(&e.path);
    dr_sl_free(&e.dll_dirs);

    int machine, v[4], hv;
    char *p = dr_fmt("%s/C/p2/Z.DLL", root);
    CHECK(dr_pe_info(p, &machine, v, &hv));
    CHECK(machine == 0x8664 && hv && v[0] == 8 && v[1] == 5 && v[2] == 0);
    mkdll(p, 0x14c, 1, 2, 11);
    CHECK(dr_pe_info(p, &machine, v, &hv) && machine == 0x14c && v[0] == 1 && v[1] == 2 && v[2] == 11);
    write_text(p, "MZ but nothing else");
    CHECK(!dr_pe_info(p, &machine, v, &hv));
    CHECK(!dr_pe_info("/nonexistent.dll", &machine, v, &hv));
    free(p);
    free(root);
}

/* a PE32+ image with one section holding an import directory naming two DLLs */
static void mkimports(const char *path)
{
    unsigned char buf[1024];
    memset(buf, 0, sizeof buf);
    buf[0] = 'M';
    buf[1] = 'Z';
    uint32_t pe = 0x80, v;
    memcpy(buf + 0x3c, &pe, 4);
    memcpy(buf + pe, "PE\0\0", 4);
    buf[pe + 4] = 0x64;
    buf[pe + 5] = 0x86;
    buf[pe + 6] = 1;   /* one section */
    buf[pe + 20] = 240; /* optional header size */
    uint32_t opt = pe + 24;
    buf[opt] = 0x0b;
    buf[opt + 1] = 0x02; /* PE32+ */
    v = 0x1000;
    memcpy(buf + opt + 120, &v, 4); /* import directory RVA */
    uint32_t sec = opt + 240, vals[4] = {0x1000, 0x1000, 0x200, 0x200}; /* vsize, va, raw size, raw ptr */
    memcpy(buf + sec + 8, vals, sizeof vals);
    v = 0x1100;
    memcpy(buf + 0x200 + 12, &v, 4);
    v = 0x1110;
    memcpy(buf + 0x214 + 12, &v, 4);
    memcpy(buf + 0x300, "zlibwapi.dll", 13);
    memcpy(buf + 0x310, "KERNEL32.dll", 13);
    write_file(path, buf, sizeof buf);
}

static void test_loader_failures(void)
{
    SECTION("loader failures");
    dr_loadfail lf;
    CHECK(dr_loadfail_parse("noise\nCould not load library libcudnn_ops_infer.so.8. Error: libcuda.so.1: cannot open shared "
                            "object file: No such file or directory\nAborted\n", &lf));
    CHECK(strcmp(lf.library, "libcudnn_ops_infer.so.8") == 0 && strcmp(lf.missing, "libcuda.so.1") == 0);
    CHECK(lf.cause == DR_LF_DRIVER && strcmp(dr_loadfail_cause_name(lf.cause), "missing-driver") == 0);
    CHECK(strncmp(lf.line, "Could not load library", 22) == 0 && !strchr(lf.line, '\n'));
    CHECK(dr_loadfail_parse("Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open "
                            "shared object file: No such file or directory", &lf));
    CHECK(lf.cause == DR_LF_SUBLIB);
    CHECK(dr_loadfail_parse("Could not load library libcudnn_cnn_infer.so.8. Error: libcublasLt.so.11: cannot open shared "
                            "object file: No such file or directory", &lf));
    CHECK(lf.cause == DR_LF_DEP && strcmp(lf.missing, "libcublasLt.so.11") == 0);
    CHECK(dr_loadfail_parse("Could not load library libcudnn_cnn_infer.so.8. Error: /x/libcudnn_cnn_infer.so.8: undefined "
                            "symbol: foo", &lf));
    CHECK(lf.cause == DR_LF_OTHER && lf.missing[0] == 0);
    CHECK(dr_loadfail_parse("Could not load library cudnn_cnn_infer64_8.dll. Error code 126\r\nPlease make sure "
                            "cudnn_cnn_infer64_8.dll is in your library path!\r\n", &lf));
    CHECK(strcmp(lf.library, "cudnn_cnn_infer64_8.dll") == 0 && lf.code == 126 && lf.cause == DR_LF_OTHER);
    CHECK(dr_loadfail_cause("cudnn_cnn_infer64_8.dll", "ZLIBWAPI.DLL") == DR_LF_ZLIB);
    CHECK(dr_loadfail_cause("cudnn_cnn_infer64_8.dll", "nvcuda.dll") == DR_LF_DRIVER);
    CHECK(dr_loadfail_cause("x", "") == DR_LF_OTHER);
    CHECK(!dr_loadfail_parse("Segmentation fault", &lf));
    CHECK(!dr_loadfail_parse(NULL, &lf));
    CHECK(dr_loadfail_parse("Could not load library ", &lf) && lf.library[0] == 0);
    CHECK_EQ_INT(dr_win_dll_major("cudnn64_8.dll"), 8);
    CHECK_EQ_INT(dr_win_dll_major("cudnn_cnn_infer64_9.DLL"), 9);
    CHECK_EQ_INT(dr_win_dll_major("cudnn64_8.so"), 0);
    CHECK_EQ_INT(dr_win_dll_major("cudnn.dll"), 0);

    char *p = tpath("imports.dll");
    mkimports(p);
    dr_strlist imps = {0};
    CHECK_EQ_INT(dr_pe_imports(p, &imps), 2);
    CHECK(imps.n == 2 && strcmp(imps.v[0], "zlibwapi.dll") == 0 && strcmp(imps.v[1], "KERNEL32.dll") == 0);
    CHECK(dr_win_system_dll(imps.v[1]) && !dr_win_system_dll(imps.v[0]));
    CHECK(dr_win_system_dll("api-ms-win-crt-runtime-l1-1-0.dll"));
    dr_sl_free(&imps);
    write_text(p, "MZ");
    CHECK_EQ_INT(dr_pe_imports(p, &imps), -1);
    CHECK_EQ_INT(dr_pe_imports("/nonexistent.dll", &imps), -1);
    free(p);
}

static void test_json(void)
{
    SECTION("json");
    dr_strlist k = {0}, v = {0};
    char err[256];
    CHECK(dr_json_flatten("{\"tool\": \"cudnn-doctor\", \"n\": -1.5e3, \"ok\": true, \"x\": null,"
                          " \"copies\": [{\"path\": \"/a\", \"version\": \"8.1.0\"}, {\"v\": [1, 2]}],"
                          " \"findings\": [{\"code\": \"c\", \"message\": \"m \\\"q\\\" \\u00e9\"}]}",
                          &k, &v, err, sizeof err));
    CHECK(dr_sl_contains(&k, "copies[/a].version"));
    CHECK(dr_sl_contains(&k, "copies[1].v[0]"));
    CHECK(dr_sl_contains(&k, "findings[c: m \"q\" ?].code"));
    CHECK(dr_sl_contains(&k, "n") && dr_sl_contains(&v, "-1.5e3"));
    dr_sl_free(&k);
    dr_sl_free(&v);
    const char *bad[] = {"", "{", "[1,2]", "{\"tool\": \"other\"}", "{\"tool\": \"cudnn-doctor\"} trailing",
                         "{\"tool\": \"cudnn-doctor\", }", "{\"tool\": \"cudnn-doctor\", \"a\": [1,]}",
                         "{\"tool\": \"cudnn-\\x\"}", "{\"a\": \"unterminated", "{'tool': 'cudnn-doctor'}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        CHECK_MSG(!dr_json_flatten(bad[i], &k, &v, err, sizeof err), "accepted: %s", bad[i]);
        CHECK(err[0] != 0);
        dr_sl_free(&k);
        dr_sl_free(&v);
    }
    /* very deep nesting is refused, not recursed into */
    char *deep = dr_xcalloc(20002, 1);
    for (int i = 0; i < 10000; i++)
        deep[i] = '[';
    CHECK(!dr_json_flatten(deep, &k, &v, err, sizeof err));
    CHECK(strstr(err, "deeply") != NULL);
    free(deep);
    dr_sl_free(&k);
    dr_sl_free(&v);
}

static void touch(const char *dir, const char *name)
{
    mkdirs(dir);
    char *p = dr_fmt("%s/%s", dir, name);
    write_text(p, "x");
    free(p);
}

static void test_resolve(void)
{
    SECTION("resolve");
    /* a fake machine: every step of the loader order holds a libx.so.1 */
    static dr_ctx c;
    memset(&c, 0, sizeof c);
    char *root = tpath("sys");
    c.opt.sysroot = root;
    char *d_rpath = tpath("rpath"), *d_llp1 = tpath("llp1"), *d_llp2 = tpath("llp2"), *d_run = tpath("runpath");
    char *d_cache = dr_fmt("%s/opt/cached", root), *d_def = dr_fmt("%s/usr/lib/x86_64-linux-gnu", root),
         *d_lib = dr_fmt("%s/lib", root);
    touch(d_rpath, "libx.so.1");
    touch(d_llp2, "libx.so.1"); /* llp1 has none */
    mkdirs(d_llp1);
    touch(d_run, "libx.so.1");
    touch(d_cache, "libx.so.1");
    touch(d_def, "libx.so.1");
    touch(d_lib, "libx.so.1");
    dr_sl_push(&c.cache.names, "libx.so.1");
    dr_sl_push(&c.cache.paths, "/opt/cached/libx.so.1");
    dr_sl_push(&c.cache.names, "libx.so.1");
    dr_sl_push(&c.cache.paths, "/opt/gone/libx.so.1"); /* stale entry: file deleted */
    char *llp = dr_fmt("%s:%s", d_llp1, d_llp2);
    setenv("LD_LIBRARY_PATH", llp, 1);
    dr_strlist rp = {0}, rn = {0}, paths = {0}, hows = {0};
    dr_sl_push(&rp, d_rpath);
    dr_sl_push(&rn, d_run);
    /* with a RUNPATH, DT_RPATH is ignored and LD_LIBRARY_PATH comes first */
    dr_resolve(&c, "libx.so.1", &rp, &rn, &paths, &hows);
    CHECK_EQ_INT(paths.n, 5);
    if (paths.n == 5) {
        CHECK(strcmp(hows.v[0], "LD_LIBRARY_PATH") == 0 && strstr(paths.v[0], "llp2"));
        CHECK(strcmp(hows.v[1], "DT_RUNPATH") == 0);
        CHECK(strcmp(hows.v[2], "ld.so.cache") == 0 && strstr(paths.v[2], "/sys/opt/cached/"));
        CHECK(strcmp(hows.v[3], "default dir") == 0 && strstr(paths.v[3], "x86_64-linux-gnu"));
        CHECK(strcmp(hows.v[4], "default dir") == 0 && strstr(paths.v[4], "/sys/lib/"));
    }
    dr_sl_free(&paths);
    dr_sl_free(&hows);
    /* without one, DT_RPATH beats LD_LIBRARY_PATH */
    dr_strlist none = {0};
    dr_resolve(&c, "libx.so.1", &rp, &none, &paths, &hows);
    CHECK(paths.n == 5 && strcmp(hows.v[0], "DT_RPATH") == 0 && strcmp(hows.v[1], "LD_LIBRARY_PATH") == 0);
    dr_sl_free(&paths);
    dr_sl_free(&hows);
    dr_resolve(&c, "libnothing.so.1", &rp, &rn, &paths, &hows);
    CHECK_EQ_INT(paths.n, 0);
    /* LD_LIBRARY_PATH parsing: ':' and ';', empty entries are the current directory */
    dr_strlist l = {0};
    setenv("LD_LIBRARY_PATH", "/a;/b:", 1);
    CHECK(dr_ld_library_path(&l) == 1);
    CHECK(l.n == 3 && strcmp(l.v[1], "/b") == 0 && strcmp(l.v[2], ".") == 0);
    dr_sl_free(&l);
    setenv("LD_LIBRARY_PATH", "/a", 1);
    CHECK(dr_ld_library_path(&l) == 0 && l.n == 1);
    dr_sl_free(&l);
    unsetenv("LD_LIBRARY_PATH");
    CHECK(dr_ld_library_path(&l) == 0 && l.n == 0);
    dr_sl_free(&rp);
    dr_sl_free(&rn);
    dr_ldcache_free(&c.cache);
    free(llp); free(root); free(d_rpath); free(d_llp1); free(d_llp2); free(d_run);
    free(d_cache); free(d_def); free(d_lib);
}

static void test_findings(void)
{
    SECTION("findings");
    dr_findings f = {0};
    dr_add(&f, DR_ERROR, "a", "fix it", "message %d", 1);
    dr_add(&f, DR_WARN, "b", NULL, "w");
    dr_add(&f, DR_INFO, "c", NULL, "i");
    CHECK_EQ_INT(dr_count(&f, DR_ERROR), 1);
    CHECK_EQ_INT(dr_count(&f, DR_WARN), 1);
    CHECK(dr_has(&f, "b") && !dr_has(&f, "z"));
    CHECK(strcmp(f.v[0].msg, "message 1") == 0 && strcmp(f.v[0].fix, "fix it") == 0 && f.v[1].fix == NULL);
    CHECK(strcmp(dr_sev_name(DR_WARN), "warning") == 0);
    dr_findings_free(&f);
    CHECK(f.n == 0);
}

static void test_util(void)
{
    SECTION("util");
    dr_strlist l = {0};
    dr_sl_split(&l, "::a:b;;c:", ":;");
    CHECK(l.n == 3 && strcmp(l.v[2], "c") == 0);
    CHECK(!dr_sl_push_unique(&l, "a") && dr_sl_push_unique(&l, "d"));
    dr_sl_free(&l);
    char d[16];
    dr_dirname("/x", d, sizeof d);
    CHECK(strcmp(d, "/") == 0);
    dr_dirname("name", d, sizeof d);
    CHECK(strcmp(d, ".") == 0);
    dr_dirname("/a/b/c", d, sizeof d);
    CHECK(strcmp(d, "/a/b") == 0);
    CHECK(strcmp(dr_basename("/a/b/c.so"), "c.so") == 0);
    char s[4];
    dr_scopy(s, sizeof s, "abcdef");
    CHECK(strcmp(s, "abc") == 0);
    char *p = tpath("marker.bin");
    static char big[3 << 20];
    memset(big, 'x', sizeof big);
    memcpy(big + (1 << 20) - 3, "hostdnn", 7); /* across the 1 MiB read boundary */
    write_file(p, big, sizeof big);
    CHECK(dr_file_contains(p, "hostdnn", 16ll << 20));
    CHECK(!dr_file_contains(p, "hostdnn", 1 << 19));
    CHECK(!dr_file_contains(p, "nvidia", 16ll << 20));
    free(p);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/doctor-units.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_versions();
    test_compat();
    test_ldcache();
    test_elf();
    test_probe();
    test_headers();
    test_windows();
    test_loader_failures();
    test_json();
    test_resolve();
    test_findings();
    test_util();
    char *cmd = dr_fmt("rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    free(cmd);
    return hd_test_finish();
}
