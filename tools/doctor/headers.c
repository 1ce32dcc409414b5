/* headers.c -- see headers.h.  A plain line scanner: "#define CUDNN_MAJOR 8" etc. */
#include "headers.h"

#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dr_header_version(const char *file, int v[3])
{
    FILE *f = fopen(file, "r");
    if (!f)
        return 0;
    static const char *const names[3] = {"CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL"};
    int found[3] = {0, 0, 0};
    v[0] = v[1] = v[2] = 0;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        const char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (*p != '#')
            continue;
        p++;
        while (isspace((unsigned char)*p))
            p++;
        if (strncmp(p, "define", 6) != 0)
            continue;
        p += 6;
        while (isspace((unsigned char)*p))
            p++;
        for (int i = 0; i < 3; i++) {
            size_t k = strlen(names[i]);
            if (strncmp(p, names[i], k) == 0 && isspace((unsigned char)p[k])) {
                const char *q = p + k;
                while (isspace((unsigned char)*q) || *q == '(')
                    q++;
                if (isdigit((unsigned char)*q) && !found[i]) {
                    v[i] = atoi(q);
                    found[i] = 1;
                }
            }
        }
    }
    fclose(f);
    return found[0];
}

int dr_header_in_dir(const char *dir, char *file, size_t cap, int v[3])
{
    static const char *const names[] = {"cudnn_version.h", "cudnn_version_v9.h", "cudnn_version_v8.h", "cudnn.h"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *p = dr_fmt("%s/%s", dir, names[i]);
        int ok = dr_is_file(p) && dr_header_version(p, v);
        if (ok)
            dr_scopy(file, cap, p);
        free(p);
        if (ok)
            return 1;
    }
    return 0;
}
