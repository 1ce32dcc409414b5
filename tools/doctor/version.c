/* version.c -- the version integers cuDNN and CUDA hand out, turned into dotted strings, and
 * the version files of a CUDA toolkit. */
#include "doctor.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void dr_cudnn_decode(long long v, int out[3])
{
    /* cuDNN 9 switched from major*1000 to major*10000; 9.0.0 is 90000 and no 7/8 value
     * comes near it, so the size of the number says which scheme it uses. */
    if (v < 0)
        v = 0;
    if (v >= 90000) {
        out[0] = (int)(v / 10000);
        out[1] = (int)(v / 100 % 100);
        out[2] = (int)(v % 100);
    } else {
        out[0] = (int)(v / 1000);
        out[1] = (int)(v / 100 % 10);
        out[2] = (int)(v % 100);
    }
}

void dr_cuda_decode(long long v, char *out, size_t cap)
{
    if (v <= 0) {
        snprintf(out, cap, "?");
        return;
    }
    snprintf(out, cap, "%lld.%lld", v / 1000, v % 1000 / 10);
}

/* "cuda" : { "name" : ..., "version" : "13.0.88" } in version.json */
int dr_cuda_version_json(const char *file, char *out, size_t cap)
{
    char buf[65536];
    if (dr_read_file(file, buf, sizeof buf) <= 0)
        return 0;
    const char *p = strstr(buf, "\"cuda\"");
    if (!p)
        return 0;
    p = strstr(p, "\"version\"");
    if (!p)
        return 0;
    p = strchr(p + 9, '"');
    if (!p)
        return 0;
    p++;
    size_t k = strcspn(p, "\"");
    if (k == 0 || k >= cap)
        return 0;
    memcpy(out, p, k);
    out[k] = 0;
    return 1;
}

/* "CUDA Version 10.2.89" in version.txt */
int dr_cuda_version_txt(const char *file, char *out, size_t cap)
{
    char buf[4096];
    if (dr_read_file(file, buf, sizeof buf) <= 0)
        return 0;
    const char *p = strstr(buf, "CUDA Version");
    if (!p)
        return 0;
    p += 12;
    while (*p == ' ')
        p++;
    size_t k = 0;
    while (p[k] && (isdigit((unsigned char)p[k]) || p[k] == '.'))
        k++;
    if (!k || k >= cap)
        return 0;
    memcpy(out, p, k);
    out[k] = 0;
    return 1;
}
