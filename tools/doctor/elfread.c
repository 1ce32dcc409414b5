/*
 * elfread.c -- a bounds-checked ELF reader.  It only uses pread at offsets taken from the
 * file, checks every offset against the file size, and maps DT_STRTAB (a virtual address)
 * to a file offset through the PT_LOAD segments, as the loader would.
 */
#include "elfread.h"

#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    uint64_t vaddr, off, filesz;
} seg_t;

static int rd(int fd, uint64_t off, void *buf, size_t n, uint64_t fsize)
{
    if (off > fsize || n > fsize - off)
        return 0;
    return pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

static int vaddr_to_off(const seg_t *s, size_t ns, uint64_t va, uint64_t *off)
{
    for (size_t i = 0; i < ns; i++)
        if (va >= s[i].vaddr && va - s[i].vaddr < s[i].filesz) {
            *off = s[i].off + (va - s[i].vaddr);
            return 1;
        }
    return 0;
}

/* Read a NUL-terminated string at file offset off (at most cap-1 chars). */
static void rd_str(int fd, uint64_t off, uint64_t limit, uint64_t fsize, char *out, size_t cap)
{
    out[0] = 0;
    if (off >= fsize || off >= limit)
        return;
    size_t n = cap - 1;
    if (n > fsize - off)
        n = (size_t)(fsize - off);
    if (n > limit - off)
        n = (size_t)(limit - off);
    ssize_t r = pread(fd, out, n, (off_t)off);
    if (r < 0)
        r = 0;
    out[r] = 0;
}

void dr_elf_free(dr_elf *e)
{
    dr_sl_free(&e->needed);
}

int dr_elf_read(const char *path, dr_elf *e)
{
    memset(e, 0, sizeof *e);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        dr_scopy(e->err, sizeof e->err, "cannot open");
        return 0;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        dr_scopy(e->err, sizeof e->err, "not a regular file");
        close(fd);
        return 0;
    }
    uint64_t fsize = (uint64_t)st.st_size;
    unsigned char ident[EI_NIDENT];
    if (!rd(fd, 0, ident, sizeof ident, fsize) || memcmp(ident, ELFMAG, SELFMAG) != 0) {
        dr_scopy(e->err, sizeof e->err, fsize < EI_NIDENT ? "file too short (not an ELF file)"
                                                         : "invalid ELF header (not an ELF file)");
        close(fd);
        return 0;
    }
    if (ident[EI_DATA] != ELFDATA2LSB || (ident[EI_CLASS] != ELFCLASS64 && ident[EI_CLASS] != ELFCLASS32)) {
        dr_scopy(e->err, sizeof e->err, "unsupported ELF class or byte order");
        close(fd);
        return 0;
    }
    int is64 = ident[EI_CLASS] == ELFCLASS64;
    e->elf_class = is64 ? 64 : 32;
    uint64_t phoff, phnum, phentsize;
    if (is64) {
        Elf64_Ehdr h;
        if (!rd(fd, 0, &h, sizeof h, fsize))
            goto short_file;
        e->machine = h.e_machine;
        phoff = h.e_phoff;
        phnum = h.e_phnum;
        phentsize = h.e_phentsize;
        if (phentsize != sizeof(Elf64_Phdr))
            goto bad;
    } else {
        Elf32_Ehdr h;
        if (!rd(fd, 0, &h, sizeof h, fsize))
            goto short_file;
        e->machine = h.e_machine;
        phoff = h.e_phoff;
        phnum = h.e_phnum;
        phentsize = h.e_phentsize;
        if (phentsize != sizeof(Elf32_Phdr))
            goto bad;
    }
    if (phnum == 0 || phnum > 4096)
        goto bad;
    seg_t segs[64];
    size_t nseg = 0;
    uint64_t dyn_off = 0, dyn_size = 0;
    for (uint64_t i = 0; i < phnum; i++) {
        uint64_t type, off, va, fsz;
        if (is64) {
            Elf64_Phdr p;
            if (!rd(fd, phoff + i * phentsize, &p, sizeof p, fsize))
                goto bad;
            type = p.p_type; off = p.p_offset; va = p.p_vaddr; fsz = p.p_filesz;
        } else {
            Elf32_Phdr p;
            if (!rd(fd, phoff + i * phentsize, &p, sizeof p, fsize))
                goto bad;
            type = p.p_type; off = p.p_offset; va = p.p_vaddr; fsz = p.p_filesz;
        }
        if (type == PT_LOAD && nseg < 64)
            segs[nseg++] = (seg_t){va, off, fsz};
        if (type == PT_DYNAMIC) {
            dyn_off = off;
            dyn_size = fsz;
        }
    }
    e->ok = 1;
    if (!dyn_size) {
        close(fd);
        return 1; /* static program: no dynamic section, nothing to resolve */
    }
    e->has_dynamic = 1;
    uint64_t entsz = is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
    uint64_t ndyn = dyn_size / entsz;
    if (ndyn > 100000)
        ndyn = 100000;
    uint64_t strtab = 0, strsz = 0, soname = 0, rpath = 0, runpath = 0;
    int have_soname = 0, have_rpath = 0, have_runpath = 0;
    uint64_t needed[256];
    size_t nneeded = 0;
    for (uint64_t i = 0; i < ndyn; i++) {
        int64_t tag;
        uint64_t val;
        if (is64) {
            Elf64_Dyn d;
            if (!rd(fd, dyn_off + i * entsz, &d, sizeof d, fsize))
                break;
            tag = d.d_tag; val = d.d_un.d_val;
        } else {
            Elf32_Dyn d;
            if (!rd(fd, dyn_off + i * entsz, &d, sizeof d, fsize))
                break;
            tag = d.d_tag; val = d.d_un.d_val;
        }
        if (tag == DT_NULL)
            break;
        switch (tag) {
        case DT_STRTAB: strtab = val; break;
        case DT_STRSZ: strsz = val; break;
        case DT_SONAME: soname = val; have_soname = 1; break;
        case DT_RPATH: rpath = val; have_rpath = 1; break;
        case DT_RUNPATH: runpath = val; have_runpath = 1; break;
        case DT_NEEDED: if (nneeded < 256) needed[nneeded++] = val; break;
        default: break;
        }
    }
    uint64_t stroff;
    if (!strtab || !vaddr_to_off(segs, nseg, strtab, &stroff)) {
        close(fd);
        return 1; /* no string table: nothing named */
    }
    uint64_t limit = strsz ? stroff + strsz : fsize;
    char buf[HD_PATH_MAX];
    if (have_soname)
        rd_str(fd, stroff + soname, limit, fsize, e->soname, sizeof e->soname);
    if (have_rpath)
        rd_str(fd, stroff + rpath, limit, fsize, e->rpath, sizeof e->rpath);
    if (have_runpath)
        rd_str(fd, stroff + runpath, limit, fsize, e->runpath, sizeof e->runpath);
    for (size_t i = 0; i < nneeded; i++) {
        rd_str(fd, stroff + needed[i], limit, fsize, buf, sizeof buf);
        if (buf[0])
            dr_sl_push(&e->needed, buf);
    }
    close(fd);
    return 1;
short_file:
    dr_scopy(e->err, sizeof e->err, "file too short (truncated ELF header)");
    close(fd);
    return 0;
bad:
    dr_scopy(e->err, sizeof e->err, "corrupt ELF program headers");
    e->ok = 0;
    close(fd);
    return 0;
}

void dr_elf_expand_path(const char *value, const char *origin, dr_strlist *dirs)
{
    dr_strlist parts = {0};
    dr_sl_split(&parts, value, ":");
    for (size_t i = 0; i < parts.n; i++) {
        const char *p = parts.v[i];
        char out[HD_PATH_MAX];
        size_t o = 0;
        while (*p && o + 1 < sizeof out) {
            size_t skip = 0;
            if (strncmp(p, "$ORIGIN", 7) == 0)
                skip = 7;
            else if (strncmp(p, "${ORIGIN}", 9) == 0)
                skip = 9;
            if (skip) {
                size_t ol = strlen(origin);
                if (o + ol >= sizeof out)
                    break;
                memcpy(out + o, origin, ol);
                o += ol;
                p += skip;
            } else {
                out[o++] = *p++;
            }
        }
        out[o] = 0;
        dr_sl_push_unique(dirs, out);
    }
    dr_sl_free(&parts);
}
