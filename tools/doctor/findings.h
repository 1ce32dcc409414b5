/*
 * findings.h -- what the doctor concludes: one entry per problem or fact worth telling,
 * each with a severity, a stable code (for scripts and snapshot diffs), the message, and
 * the concrete fix.
 */
#ifndef HD_DOCTOR_FINDINGS_H
#define HD_DOCTOR_FINDINGS_H

#include <stddef.h>

#include "util.h"

typedef enum { DR_INFO = 0, DR_WARN = 1, DR_ERROR = 2 } dr_sev;

typedef struct {
    dr_sev sev;
    char *code;
    char *msg;
    char *fix; /* NULL when there is nothing to do */
} dr_finding;

typedef struct {
    dr_finding *v;
    size_t n, cap;
} dr_findings;

/* fix may be NULL; it is copied. */
void dr_add(dr_findings *f, dr_sev sev, const char *code, const char *fix, const char *fmt, ...)
    DR_PRINTF(5, 6);
size_t dr_count(const dr_findings *f, dr_sev sev);
int dr_has(const dr_findings *f, const char *code);
void dr_findings_free(dr_findings *f);
const char *dr_sev_name(dr_sev s);

#endif
