/*
 * snapdiff.h -- compare two snapshots (the doctor's JSON).  Both are parsed, flattened
 * into "key = value" lines with array elements named by their "path" (copies,
 * libraries) or "code: message" (findings), and compared key by key.
 */
#ifndef HD_DOCTOR_SNAPDIFF_H
#define HD_DOCTOR_SNAPDIFF_H

#include "util.h"

#include <stdio.h>

/* Flatten a JSON text into keys/values (same index).  Returns 1, or 0 with err set. */
int dr_json_flatten(const char *text, dr_strlist *keys, dr_strlist *vals, char *err, size_t errcap);
/* Print the differences; returns 0 identical, 1 different, 2 unreadable/invalid input. */
int dr_snapshot_diff(const char *file_a, const char *file_b, FILE *out, FILE *err);

#endif
