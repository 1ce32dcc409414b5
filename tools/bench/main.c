/*
 * tools/bench/main.c -- hostdnn-bench command line.
 *
 *   hostdnn-bench                       the short default suite (peak, stream, gemm; < 1 min)
 *   hostdnn-bench --mode=peak|stream|gemm|ukernel|conv [options] [problem ...]
 *
 * Options: --threads=N (measure 1 and N threads; default: HOSTDNN_NUM_THREADS or all cores),
 * --reps=R (median of R, default 5), --min-time=S (seconds per repetition, default 0.05; 0.02
 * in the default suite),
 * --isa=scalar|avx2|avx512 (gemm kernel family), --dt=f32|f64, --stream-mb=M (array size),
 * --batch=FILE (problems, one per line, '#' starts a comment), --ref=dnnl (also time oneDNN's
 * dnnl_sgemm/dnnl_dgemm, loaded at run time if installed), -v (progress on stderr).
 * Problems: see problem.c (m1024n1024k1024, g1n16c64h56w56k64r3s3p1u1, ...).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "core/parallel.h"

static const char *const default_gemm[] = {
    /* square sizes */
    "m256n256k256", "m512n512k512", "m1024n1024k1024", "m2048n2048k2048",
    /* convolution-like: ResNet-50 layers as im2col GEMMs (m = out channels, n = output pixels,
       k = in channels x filter), and their transposed forms used by the backward passes */
    "m64n3136k576", "m256n3136k64", "m128n784k1152", "m512n196k2304", "m2048n49k512",
    "m576n64k3136tb1", "m64n576k3136ta1",
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hostdnn-bench [--mode=peak|stream|gemm|ukernel|conv] [--threads=N] [--reps=R] [--min-time=S]\n"
            "                     [--isa=scalar|avx2|avx512] [--dt=f32|f64] [--stream-mb=M] [--batch=FILE]\n"
            "                     [--ref=dnnl] [-v] [problem ...]\n"
            "  conv mode:         [--dir=fwd,bwd_d,bwd_w] [--layout=nchw|nhwc] [--algo=heuristic|find|N]\n"
            "                     [--check=perf|corr|bitwise|all|parse]\n"
            "  no arguments: short default suite (peak, stream, gemm, one convolution)\n"
            "  gemm problem: m<M>n<N>k<K>[ta1][tb1]           e.g. m1024n1024k1024\n"
            "  conv problem: g<G>n<N>c<C>h<H>w<W>k<K>r<R>s<S>p<P>u<U>[d<D>][_name]  e.g. g1n16c64h56w56k64r3s3p1u1\n"
            "  --batch=FILE reads problems from a file, e.g. bench/shapes/resnet50.txt\n");
}

static int add_problem(const char *s, bench_prob **probs, size_t *n, size_t *cap)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        bench_prob *p = realloc(*probs, nc * sizeof *p);
        if (!p)
            return -1;
        *probs = p;
        *cap = nc;
    }
    char err[160];
    if (bench_parse_problem(s, &(*probs)[*n], err, sizeof err)) {
        fprintf(stderr, "hostdnn-bench: bad problem '%s': %s\n", s, err);
        return -1;
    }
    (*n)++;
    return 0;
}

static int read_batch(const char *path, bench_prob **probs, size_t *n, size_t *cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "hostdnn-bench: cannot open %s\n", path);
        return -1;
    }
    char line[512];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        char *h = strchr(line, '#');
        if (h)
            *h = 0;
        for (char *tok = strtok(line, " \t\r\n"); tok && rc == 0; tok = strtok(NULL, " \t\r\n"))
            rc = add_problem(tok, probs, n, cap);
    }
    fclose(f);
    return rc;
}

int main(int argc, char **argv)
{
    bench_opts o = {{1, 2}, 2, 5, 0.05, HD_ISA_AVX512, 0, 0, NULL, 0, 0, -1, 0};
    int nthreads = hd_default_threads();
    const char *mode = NULL;
    size_t stream_mb = 64;
    bench_prob *probs = NULL;
    size_t nprobs = 0, cap = 0;
    int rc = 0, min_time_given = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--mode=", 7) == 0) {
            mode = a + 7;
        } else if (strncmp(a, "--threads=", 10) == 0) {
            nthreads = atoi(a + 10);
        } else if (strncmp(a, "--reps=", 7) == 0) {
            o.reps = atoi(a + 7);
        } else if (strncmp(a, "--min-time=", 11) == 0) {
            o.min_time = atof(a + 11);
            min_time_given = 1;
        } else if (strncmp(a, "--stream-mb=", 12) == 0) {
            stream_mb = (size_t)atol(a + 12);
        } else if (strncmp(a, "--isa=", 6) == 0) {
            const char *v = a + 6;
            if (strcmp(v, "scalar") == 0)
                o.isa = HD_ISA_SCALAR;
            else if (strcmp(v, "avx2") == 0)
                o.isa = HD_ISA_AVX2;
            else if (strcmp(v, "avx512") == 0)
                o.isa = HD_ISA_AVX512;
            else {
                fprintf(stderr, "hostdnn-bench: unknown ISA '%s'\n", v);
                return 2;
            }
        } else if (strncmp(a, "--dt=", 5) == 0) {
            if (strcmp(a + 5, "f32") == 0)
                o.dt_double = 0;
            else if (strcmp(a + 5, "f64") == 0)
                o.dt_double = 1;
            else {
                fprintf(stderr, "hostdnn-bench: unknown data type '%s'\n", a + 5);
                return 2;
            }
        } else if (strncmp(a, "--batch=", 8) == 0) {
            if (read_batch(a + 8, &probs, &nprobs, &cap))
                return 2;
        } else if (strncmp(a, "--ref=", 6) == 0) {
            if (bench_load_ref(a + 6))
                return 2;
        } else if (strncmp(a, "--dir=", 6) == 0) {
            o.conv_dirs = a + 6;
        } else if (strncmp(a, "--layout=", 9) == 0) {
            if (strcmp(a + 9, "nchw") && strcmp(a + 9, "nhwc")) {
                fprintf(stderr, "hostdnn-bench: --layout is nchw or nhwc\n");
                return 2;
            }
            o.conv_nhwc = strcmp(a + 9, "nhwc") == 0;
        } else if (strncmp(a, "--algo=", 7) == 0) {
            const char *v = a + 7;
            if (strcmp(v, "find") == 0)
                o.conv_find = 1;
            else if (strcmp(v, "heuristic") == 0)
                o.conv_find = 0;
            else if (v[0] >= '0' && v[0] <= '9')
                o.conv_algo = atoi(v);
            else {
                fprintf(stderr, "hostdnn-bench: --algo is heuristic, find or an algorithm number\n");
                return 2;
            }
        } else if (strncmp(a, "--check=", 8) == 0) {
            const char *v = a + 8;
            o.check = !strcmp(v, "perf") ? 0 : !strcmp(v, "corr") ? 1 : !strcmp(v, "bitwise") ? 2 : !strcmp(v, "all") ? 3
                    : !strcmp(v, "parse") ? 4 : -1;
            if (o.check < 0) {
                fprintf(stderr, "hostdnn-bench: --check is perf, corr, bitwise, all or parse\n");
                return 2;
            }
        } else if (strcmp(a, "-v") == 0) {
            o.verbose = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (a[0] == '-') {
            fprintf(stderr, "hostdnn-bench: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (add_problem(a, &probs, &nprobs, &cap)) {
            return 2;
        }
    }
    if (o.reps < 1 || o.reps > 64 || nthreads < 1 || nthreads > 1024 || o.min_time < 0 || stream_mb < 1) {
        fprintf(stderr, "hostdnn-bench: --reps must be 1..64, --threads 1..1024, --stream-mb >= 1\n");
        return 2;
    }
    o.threads[1] = nthreads;
    o.nthread_counts = nthreads > 1 ? 2 : 1;

    /* OpenMP teams spin at barriers by default; on an oversubscribed machine (a shared VM,
       other jobs) a spinning thread takes the core its partner needs and 2-thread numbers
       collapse.  Sleep at barriers unless the user chose otherwise (docs/performance.md). */
    /* The OpenMP runtime reads its environment when it is loaded, so the driver re-executes
       itself once with the variable set. */
    const char *wait = getenv("OMP_WAIT_POLICY");
    if (!wait) {
        setenv("OMP_WAIT_POLICY", "passive", 0);
        setenv("HD_BENCH_SET_WAIT", "1", 1);
        execv("/proc/self/exe", argv);
        wait = "active (default; re-exec failed)"; /* execv returned: carry on as we are */
    } else if (getenv("HD_BENCH_SET_WAIT")) {
        wait = "passive (set by hostdnn-bench)";
    }

    const hd_cpu_info *cpu = hd_cpu();
    printf("hostdnn-bench: %s, ISA %s (hardware %s), threads 1%s%d, OMP_WAIT_POLICY %s\n",
           cpu->brand[0] ? cpu->brand : "unknown CPU", hd_isa_name(cpu->isa), hd_isa_name(cpu->hw_isa),
           nthreads > 1 ? " and " : " only; max ", nthreads, wait);
    fflush(stdout);

    int want_default = mode == NULL && nprobs == 0;
    if (want_default) {
        /* keep the whole default suite under a minute, even on a busy machine */
        if (!min_time_given)
            o.min_time = 0.02;
        for (size_t i = 0; i < sizeof default_gemm / sizeof default_gemm[0]; i++)
            if (add_problem(default_gemm[i], &probs, &nprobs, &cap))
                return 2;
        if (add_problem("g1n16c64h56w56k64r3s3p1u1", &probs, &nprobs, &cap))
            return 2;
    }
    int has_gemm = 0, has_conv = 0;
    for (size_t i = 0; i < nprobs; i++) {
        has_gemm |= probs[i].kind == PROB_GEMM;
        has_conv |= probs[i].kind == PROB_CONV;
    }
    if (want_default || (mode && strcmp(mode, "peak") == 0))
        rc |= bench_mode_peak(&o);
    if (want_default || (mode && strcmp(mode, "stream") == 0))
        rc |= bench_mode_stream(&o, stream_mb);
    if ((mode && strcmp(mode, "gemm") == 0) || (!mode && has_gemm)) {
        if (!has_gemm) {
            for (size_t i = 0; i < sizeof default_gemm / sizeof default_gemm[0]; i++)
                if (add_problem(default_gemm[i], &probs, &nprobs, &cap))
                    return 2;
        }
        rc |= bench_mode_gemm(&o, probs, nprobs);
    }
    if (mode && strcmp(mode, "ukernel") == 0)
        rc |= bench_mode_ukernel(&o);
    if ((mode && strcmp(mode, "conv") == 0) || (!mode && has_conv))
        rc |= bench_mode_conv(&o, probs, nprobs);
    if (mode && strcmp(mode, "peak") && strcmp(mode, "stream") && strcmp(mode, "gemm") && strcmp(mode, "conv") &&
        strcmp(mode, "ukernel")) {
        fprintf(stderr, "hostdnn-bench: unknown mode '%s'\n", mode);
        rc = 2;
    }
    free(probs);
    return rc;
}
