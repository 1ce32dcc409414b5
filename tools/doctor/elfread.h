/*
 * elfread.h -- read what the loader needs from an ELF shared object or program, without
 * loading it: class, machine, SONAME, DT_NEEDED, DT_RPATH and DT_RUNPATH.
 */
#ifndef HD_DOCTOR_ELFREAD_H
#define HD_DOCTOR_ELFREAD_H

#include "util.h"

typedef struct {
    int ok;              /* 1: a readable ELF with a dynamic section (or a static program) */
    int elf_class;       /* 32 or 64 */
    int machine;         /* e_machine, 62 = x86-64 */
    int has_dynamic;
    char soname[256];
    char rpath[HD_PATH_MAX];
    char runpath[HD_PATH_MAX];
    dr_strlist needed;
    char err[160];       /* why ok == 0, e.g. "not an ELF file" */
} dr_elf;

/* Fill e from the file at path; returns e->ok.  Free with dr_elf_free. */
int dr_elf_read(const char *path, dr_elf *e);
void dr_elf_free(dr_elf *e);

/* Expand $ORIGIN / ${ORIGIN} (origin = directory of the object) and split a
 * colon-separated RPATH/RUNPATH value into dirs. */
void dr_elf_expand_path(const char *value, const char *origin, dr_strlist *dirs);

#endif
