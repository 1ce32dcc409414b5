/*
 * replay_main.c -- runs a libFuzzer harness without libFuzzer: feeds LLVMFuzzerTestOneInput
 * each file named on the command line, or each file of each directory named, and prints the
 * closing line "N passed, N failed" (a file passes when the harness returns; a crash or a
 * sanitizer report ends the program, which tests/scripts/fuzz_replay.sh counts as a failure).
 * Built with gcc in every test build, so make check replays the corpus with no fuzzer runtime.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int passed, failed;

static void replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "FAIL cannot open %s\n", path);
        failed++;
        return;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "FAIL out of memory reading %s\n", path);
        failed++;
        return;
    }
    /* the harness gets exactly the file's bytes (a copy of that length, as libFuzzer gives) */
    uint8_t *exact = malloc(n ? n : 1);
    if (exact) {
        memcpy(exact, buf, n);
        LLVMFuzzerTestOneInput(exact, n);
        passed++;
    } else {
        failed++;
    }
    free(exact);
    free(buf);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "FAIL no such file or directory: %s\n", path);
        failed++;
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        replay_file(path);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        failed++;
        return;
    }
    /* in name order, so a failure names the same file on every run */
    char **names = NULL;
    size_t count = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        if (count == cap) {
            cap = cap ? cap * 2 : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown)
                break;
            names = grown;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[count] = malloc(len);
        if (!names[count])
            break;
        snprintf(names[count], len, "%s/%s", path, e->d_name);
        count++;
    }
    closedir(d);
    if (count)
        qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        replay_file(names[i]);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        replay_path(argv[i]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
