/* report.h -- print the doctor's results: the human report and the JSON document. */
#ifndef HD_DOCTOR_REPORT_H
#define HD_DOCTOR_REPORT_H

#include "doctor.h"

#include <stdio.h>

/* The one-line verdict (malloc'ed). */
char *dr_verdict(const dr_ctx *c);
void dr_report_text(const dr_ctx *c, FILE *out);
void dr_report_json(const dr_ctx *c, FILE *out);

#endif
