/*
 * GEMM micro-kernels, each on its own, against the contract of kernels/gemm/gemm-ukernels.h
 * written out here as plain loops: acc = FMA (or multiply then add, for the scalar kernels)
 * over p in order from 0, then alpha*acc rounded, beta*C rounded, added.  Every kernel must
 * match it bitwise.  Named edge cases: every mr and
 * nr remainder, kc of 0/1/odd/large, ldc wider than the tile (padding must stay untouched),
 * B packed (stride NR) or read in place (wider stride, unaligned),
 * alpha and beta of 0, 1 and other values, beta == 0 over a C full of NaN; and the
 * ISA-specific A packers against the plain layout.  Kernels the CPU
 * (or HOSTDNN_MAX_ISA) does not allow are skipped and say so.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/cpu.h"
#include "core/memory.h"
#include "kernels/gemm/gemm-ukernels.h"

static uint32_t rng = 12345u;
static double rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return ((rng >> 8) & 0xFFFF) / 32768.0 - 1.0; /* [-1, 1) */
}

#define GUARD 7.25 /* value of C cells the kernel must not touch */

#define CONTRACT(T, FMAF)                                                                           \
    static void contract_##T(int fused, size_t MR, size_t bs, size_t mr, size_t nr, size_t kc,     \
                             const T *a, const T *b, T *c, size_t ldc, T alpha, T beta)             \
    {                                                                                               \
        for (size_t i = 0; i < mr; i++)                                                             \
            for (size_t j = 0; j < nr; j++) {                                                       \
                T acc = 0;                                                                          \
                for (size_t p = 0; p < kc; p++) {                                                   \
                    if (fused) {                                                                    \
                        acc = FMAF(a[p * MR + i], b[p * bs + j], acc);                              \
                    } else {                                                                        \
                        T prod = a[p * MR + i] * b[p * bs + j];                                     \
                        acc = acc + prod;                                                           \
                    }                                                                               \
                }                                                                                   \
                T t = alpha * acc;                                                                  \
                if (beta != 0) {                                                                    \
                    T u = beta * c[i * ldc + j];                                                    \
                    t = t + u;                                                                      \
                }                                                                                   \
                c[i * ldc + j] = t;                                                                 \
            }                                                                                       \
    }
CONTRACT(float, fmaf)
CONTRACT(double, fma)

/* One call of kernel K versus the contract; returns 1 when bitwise equal and guards intact. */
#define RUN_CASE(T, FIELD)                                                                          \
    static int case_##T(const hd_gemm_kernel *K, size_t mr, size_t nr, size_t kc, T alpha, T beta,  \
                        int nan_c, size_t ldc_extra)                                                \
    {                                                                                               \
        size_t MR = K->mr, NR = K->nr, ldc = NR + ldc_extra, rows = MR + 1;                         \
        size_t kk = kc ? kc : 1;                                                                    \
        /* B rows: packed (stride NR), or in place with a wider, odd stride (+1 misaligns) */        \
        size_t bs = ldc_extra % 2 ? NR + 2 * ldc_extra + 1 : NR;                                    \
        T *a = hd_aligned_alloc(kk * MR * sizeof(T)), *b = hd_aligned_alloc((kk * bs + 1) * sizeof(T)); \
        T *c = malloc(rows * ldc * sizeof(T)), *want = malloc(rows * ldc * sizeof(T));               \
        for (size_t i = 0; i < kk * MR; i++)                                                        \
            a[i] = (T)rnd();                                                                        \
        for (size_t i = 0; i < kk * bs + 1; i++)                                                    \
            b[i] = (T)rnd();                                                                        \
        const T *b0 = b + (bs != NR); /* in place: not 64-byte aligned */                           \
        for (size_t i = 0; i < rows; i++)                                                           \
            for (size_t j = 0; j < ldc; j++)                                                        \
                c[i * ldc + j] = (i < mr && j < nr) ? (nan_c ? (T)NAN : (T)rnd()) : (T)GUARD;       \
        memcpy(want, c, rows * ldc * sizeof(T));                                                    \
        contract_##T(K->fused, MR, bs, mr, nr, kc, a, b0, want, ldc, alpha, beta);                             \
        K->FIELD(mr, nr, kc, a, b0, bs, c, ldc, alpha, beta);                                            \
        int ok = memcmp(c, want, rows * ldc * sizeof(T)) == 0;                                      \
        if (!ok) {                                                                                  \
            for (size_t i = 0; i < rows * ldc; i++)                                                 \
                if (memcmp(&c[i], &want[i], sizeof(T)) != 0) {                                      \
                    fprintf(stderr, "  %s mr=%zu nr=%zu kc=%zu alpha=%g beta=%g: C[%zu][%zu] = %.9g, want %.9g\n", \
                            K->name, mr, nr, kc, (double)alpha, (double)beta, i / ldc, i % ldc,     \
                            (double)c[i], (double)want[i]);                                         \
                    break;                                                                          \
                }                                                                                   \
        }                                                                                           \
        hd_aligned_free(a);                                                                         \
        hd_aligned_free(b);                                                                         \
        free(c);                                                                                    \
        free(want);                                                                                 \
        return ok;                                                                                  \
    }
RUN_CASE(float, f32)
RUN_CASE(double, f64)

#define TEST_FAMILY(T, ESIZE)                                                                       \
    static void test_family_##T(void)                                                               \
    {                                                                                               \
        size_t n;                                                                                   \
        const hd_gemm_kernel *ks = hd_gemm_kernels(ESIZE, &n);                                      \
        for (size_t q = 0; q < n; q++) {                                                            \
            const hd_gemm_kernel *K = &ks[q];                                                       \
            if (K->isa > hd_cpu_isa()) {                                                            \
                SKIP("%s (ISA %s not available)", K->name, hd_isa_name(K->isa));                     \
                continue;                                                                           \
            }                                                                                       \
            printf("test %s\n", K->name);                                                           \
            SECTION(K->name);                                                                       \
            /* every remainder in m and n */                                                        \
            int all = 1;                                                                            \
            for (size_t mr = 1; mr <= K->mr; mr++)                                                  \
                for (size_t nr = 1; nr <= K->nr; nr++)                                              \
                    all &= case_##T(K, mr, nr, 5, (T)1.5, (T)0.5, 0, 3);                            \
            CHECK_MSG(all, "remainders mr 1..%zu x nr 1..%zu", K->mr, K->nr);                       \
            /* depth: empty, one, odd, the blocking depth and beyond */                             \
            static const size_t kcs[] = {0, 1, 2, 3, 17, HD_GEMM_KC, HD_GEMM_KC + 9};               \
            for (size_t i = 0; i < sizeof kcs / sizeof kcs[0]; i++) {                               \
                CHECK_MSG(case_##T(K, K->mr, K->nr, kcs[i], (T)1, (T)1, 0, 0), "full tile kc=%zu", kcs[i]); \
                CHECK_MSG(case_##T(K, K->mr - 1, K->nr - 1, kcs[i], (T)-0.75, (T)2, 0, 5),          \
                          "edge tile kc=%zu", kcs[i]);                                              \
            }                                                                                       \
            /* alpha and beta: 0, 1 and other values; beta 0 over NaN */                            \
            static const double alphas[] = {0, 1, -2.5}, betas[] = {0, 1, -0.3};                    \
            for (int ia = 0; ia < 3; ia++)                                                          \
                for (int ib = 0; ib < 3; ib++) {                                                    \
                    CHECK_MSG(case_##T(K, K->mr, K->nr, 33, (T)alphas[ia], (T)betas[ib], 0, 1),     \
                              "alpha=%g beta=%g", alphas[ia], betas[ib]);                           \
                    CHECK_MSG(case_##T(K, 1 + K->mr / 2, 1 + K->nr / 2, 33, (T)alphas[ia],          \
                                       (T)betas[ib], 0, 17), "half tile alpha=%g beta=%g",          \
                              alphas[ia], betas[ib]);                                               \
                }                                                                                   \
            CHECK_MSG(case_##T(K, K->mr, K->nr, 40, (T)1, (T)0, 1, 2), "beta=0 over NaN (full)");   \
            CHECK_MSG(case_##T(K, K->mr - 1, K->nr - 1, 40, (T)-1, (T)0, 1, 2), "beta=0 over NaN (edge)"); \
            /* wide leading dimension */                                                            \
            CHECK_MSG(case_##T(K, K->mr, K->nr, 64, (T)1, (T)1, 0, 1000), "ldc = NR + 1000");       \
        }                                                                                           \
    }
TEST_FAMILY(float, 4)
TEST_FAMILY(double, 8)

/* The table: ordered by ISA, names match the tile shape, kernel choice follows the ISA. */
static void test_table(void)
{
    SECTION("table");
    for (size_t es = 4; es <= 8; es += 4) {
        size_t n;
        const hd_gemm_kernel *ks = hd_gemm_kernels(es, &n);
        CHECK(n >= 3);
        for (size_t i = 0; i < n; i++) {
            char shape[32];
            snprintf(shape, sizeof shape, "-%zux%zu-", ks[i].mr, ks[i].nr);
            CHECK_MSG(strstr(ks[i].name, shape) != NULL, "%s has shape %s", ks[i].name, shape);
            CHECK(strncmp(ks[i].name, es == 4 ? "f32-" : "f64-", 4) == 0);
            CHECK((es == 4 ? (void *)ks[i].f32 : (void *)ks[i].f64) != NULL);
            if (i > 0)
                CHECK(ks[i].isa >= ks[i - 1].isa);
            CHECK(hd_gemm_kernel_for(es, ks[i].isa)->isa <= ks[i].isa);
        }
        CHECK(ks[0].isa == HD_ISA_SCALAR);
        CHECK(hd_gemm_kernel_for(es, HD_ISA_SCALAR) == &ks[0]);
    }
}

/* ISA-specific A packers: the same layout as the plain definition, rows beyond ROWS zero. */
static void test_pack_a(void)
{
    size_t n;
    const hd_gemm_kernel *ks = hd_gemm_kernels(4, &n);
    for (size_t q = 0; q < n; q++) {
        const hd_gemm_kernel *K = &ks[q];
        if (!K->f32_pack_a_n || K->isa > hd_cpu_isa())
            continue;
        SECTION(K->name);
        printf("test %s A packing\n", K->name);
        static const size_t kcs[] = {1, 7, 16, 17, HD_GEMM_KC};
        int all = 1;
        for (size_t ik = 0; ik < sizeof kcs / sizeof kcs[0]; ik++) {
            for (size_t rows = 1; rows <= K->mr; rows++) {
                size_t kc = kcs[ik], lda = kc + 5;
                float *a = malloc(rows * lda * sizeof(float));
                float *got = malloc(kc * K->mr * sizeof(float)), *want = malloc(kc * K->mr * sizeof(float));
                for (size_t i = 0; i < rows * lda; i++)
                    a[i] = (float)rnd();
                for (size_t p = 0; p < kc; p++)
                    for (size_t r = 0; r < K->mr; r++) {
                        want[p * K->mr + r] = r < rows ? a[r * lda + p] : 0.0f;
                        got[p * K->mr + r] = NAN;
                    }
                int ok = K->f32_pack_a_n(a, lda, rows, kc, got) == 1 &&
                         memcmp(got, want, kc * K->mr * sizeof(float)) == 0;
                if (!ok)
                    fprintf(stderr, "  %s pack rows=%zu kc=%zu differs\n", K->name, rows, kc);
                all &= ok;
                free(a);
                free(got);
                free(want);
            }
        }
        CHECK_MSG(all, "A packing, rows 1..%zu, kc 1..%d", K->mr, HD_GEMM_KC);
        /* an lda beyond the 32-bit gather offsets is refused, not mis-packed */
        float dummy[16] = {0};
        CHECK(K->f32_pack_a_n(dummy, (size_t)1 << 40, 1, 1, dummy) == 0);
        CHECK(K->f32_pack_a_n(dummy, 4, 0, 1, dummy) == 0);
    }
}

/* The A-in-place entries: the same bits as the packed kernel on the same values, A's k steps
 * a wider stride apart (every remainder, depths around the blocking, alpha/beta, NaN in C). */
static int sa_case(const hd_gemm_kernel *K, size_t mr, size_t nr, size_t kc, float alpha, float beta, int nan_c)
{
    size_t MR = K->mr, NR = K->nr, as = MR + 5, ldc = NR + 3, kk = kc ? kc : 1;
    float *a = malloc(kk * MR * sizeof(float)), *ain = malloc(kk * as * sizeof(float));
    float *b = malloc(kk * NR * sizeof(float)), *c1 = malloc((MR + 1) * ldc * sizeof(float));
    float *c2 = malloc((MR + 1) * ldc * sizeof(float));
    for (size_t p = 0; p < kk; p++)
        for (size_t i = 0; i < as; i++) {
            float v = (float)rnd();
            ain[p * as + i] = v;
            if (i < MR)
                a[p * MR + i] = v;
        }
    for (size_t i = 0; i < kk * NR; i++)
        b[i] = (float)rnd();
    for (size_t i = 0; i < (MR + 1) * ldc; i++)
        c1[i] = c2[i] = (i / ldc < mr && i % ldc < nr) ? (nan_c ? NAN : (float)rnd()) : (float)GUARD;
    memcpy(c2, c1, (MR + 1) * ldc * sizeof(float));
    K->f32(mr, nr, kc, a, b, NR, c1, ldc, alpha, beta);
    K->f32_sa(mr, nr, kc, ain, as, b, NR, c2, ldc, alpha, beta);
    int ok = memcmp(c1, c2, (MR + 1) * ldc * sizeof(float)) == 0;
    if (!ok)
        fprintf(stderr, "  %s A in place mr=%zu nr=%zu kc=%zu alpha=%g beta=%g differs\n", K->name, mr, nr, kc,
                (double)alpha, (double)beta);
    free(a), free(ain), free(b), free(c1), free(c2);
    return ok;
}

static void test_sa(void)
{
    size_t n;
    const hd_gemm_kernel *ks = hd_gemm_kernels(4, &n);
    for (size_t q = 0; q < n; q++) {
        const hd_gemm_kernel *K = &ks[q];
        if (!K->f32_sa || K->isa > hd_cpu_isa())
            continue;
        SECTION(K->name);
        printf("test %s with A in place\n", K->name);
        int all = 1;
        for (size_t mr = 1; mr <= K->mr; mr++)
            for (size_t nr = 1; nr <= K->nr; nr++)
                all &= sa_case(K, mr, nr, 7, 1.5f, 0.5f, 0);
        CHECK_MSG(all, "A in place, remainders mr 1..%zu x nr 1..%zu", K->mr, K->nr);
        static const size_t kcs[] = {0, 1, 17, HD_GEMM_KC, 2 * HD_GEMM_KC + 3};
        for (size_t i = 0; i < sizeof kcs / sizeof kcs[0]; i++)
            CHECK_MSG(sa_case(K, K->mr, K->nr, kcs[i], 1.0f, 1.0f, 0), "A in place, kc=%zu", kcs[i]);
        CHECK(sa_case(K, K->mr, K->nr, 33, -2.5f, -0.3f, 0));
        CHECK(sa_case(K, K->mr - 1, K->nr - 1, 40, 1.0f, 0.0f, 1));
    }
}

/* The several-panel matrix-vector entries: columns [0, n) of one row from consecutive packed
 * panels give the bits of the kernel with mr = 1 on each panel (every width up to the panel
 * count, depths around the blocking, alpha/beta, NaN in C with beta 0), nothing past n stored. */
static int mv_case(const hd_gemm_kernel *K, size_t n, size_t kc, float alpha, float beta, int nan_c)
{
    const size_t MR = K->mr, NR = K->nr, NP = HD_GEMM_MV_PANELS, kk = kc ? kc : 1, W = NP * NR;
    float *a = malloc(kk * MR * sizeof(float)), *b = malloc((NP * kk * NR + NR) * sizeof(float));
    float *c1 = malloc((W + 8) * sizeof(float)), *c2 = malloc((W + 8) * sizeof(float));
    for (size_t i = 0; i < kk * MR; i++)
        a[i] = (float)rnd();
    for (size_t i = 0; i < NP * kk * NR + NR; i++)
        b[i] = (float)rnd();
    for (size_t i = 0; i < W + 8; i++)
        c1[i] = i < n ? (nan_c ? NAN : (float)rnd()) : (float)GUARD;
    memcpy(c2, c1, (W + 8) * sizeof(float));
    for (size_t q = 0; q * NR < n; q++)
        K->f32(1, n - q * NR < NR ? n - q * NR : NR, kc, a, b + q * kk * NR, NR, c1 + q * NR, NR, alpha, beta);
    K->f32_mv(n, kc, a, MR, b, kk * NR, c2, alpha, beta);
    int ok = memcmp(c1, c2, (W + 8) * sizeof(float)) == 0;
    if (!ok)
        fprintf(stderr, "  %s matrix-vector n=%zu kc=%zu alpha=%g beta=%g differs\n", K->name, n, kc, (double)alpha,
                (double)beta);
    free(a), free(b), free(c1), free(c2);
    return ok;
}

static void test_mv(void)
{
    size_t cnt;
    const hd_gemm_kernel *ks = hd_gemm_kernels(4, &cnt);
    for (size_t q = 0; q < cnt; q++) {
        const hd_gemm_kernel *K = &ks[q];
        if (!K->f32_mv || K->isa > hd_cpu_isa())
            continue;
        SECTION(K->name);
        printf("test %s matrix-vector entry\n", K->name);
        int all = 1;
        for (size_t n = 1; n <= HD_GEMM_MV_PANELS * K->nr; n++)
            all &= mv_case(K, n, 9, 1.5f, 0.5f, 0);
        CHECK_MSG(all, "matrix-vector, n 1..%zu", HD_GEMM_MV_PANELS * K->nr);
        static const size_t kcs[] = {0, 1, 17, HD_GEMM_KC, 2 * HD_GEMM_KC + 3};
        for (size_t i = 0; i < sizeof kcs / sizeof kcs[0]; i++)
            CHECK_MSG(mv_case(K, HD_GEMM_MV_PANELS * K->nr, kcs[i], 1.0f, 1.0f, 0), "matrix-vector, kc=%zu", kcs[i]);
        const size_t W = HD_GEMM_MV_PANELS * K->nr;   /* 128 on AVX-512, 64 on AVX2 */
        CHECK(mv_case(K, W * 3 / 5 + 1, 33, -2.5f, -0.3f, 0));
        CHECK(mv_case(K, W - 28, 40, 1.0f, 0.0f, 1));
    }
}

/* The two-row tail entries: rows [0, mr) of one A panel over two consecutive packed panels
 * give the bits of the kernel called on each panel (mr 1 and 2, every width past one panel,
 * depths around the blocking, alpha/beta, NaN in C with beta 0), nothing past the tile stored. */
static int tail2_case(const hd_gemm_kernel *K, size_t mr, size_t nr, size_t kc, float alpha, float beta, int nan_c)
{
    const size_t MR = K->mr, NR = K->nr, kk = kc ? kc : 1, ldc = 2 * NR + 3, cn = MR * ldc;
    float *a = malloc(kk * MR * sizeof(float)), *b = malloc((2 * kk * NR + NR) * sizeof(float));
    float *c1 = malloc(cn * sizeof(float)), *c2 = malloc(cn * sizeof(float));
    for (size_t i = 0; i < kk * MR; i++)
        a[i] = (float)rnd();
    for (size_t i = 0; i < 2 * kk * NR + NR; i++)
        b[i] = (float)rnd();
    for (size_t i = 0; i < cn; i++)
        c1[i] = (i / ldc < mr && i % ldc < nr) ? (nan_c ? NAN : (float)rnd()) : (float)GUARD;
    memcpy(c2, c1, cn * sizeof(float));
    K->f32(mr, NR, kc, a, b, NR, c1, ldc, alpha, beta);
    K->f32(mr, nr - NR, kc, a, b + kk * NR, NR, c1 + NR, ldc, alpha, beta);
    K->f32_tail2(mr, nr, kc, a, b, kk * NR, c2, ldc, alpha, beta);
    int ok = memcmp(c1, c2, cn * sizeof(float)) == 0;
    if (!ok)
        fprintf(stderr, "  %s two-row tail mr=%zu nr=%zu kc=%zu alpha=%g beta=%g differs\n", K->name, mr, nr, kc,
                (double)alpha, (double)beta);
    free(a), free(b), free(c1), free(c2);
    return ok;
}

static void test_tail2(void)
{
    size_t cnt;
    const hd_gemm_kernel *ks = hd_gemm_kernels(4, &cnt);
    for (size_t q = 0; q < cnt; q++) {
        const hd_gemm_kernel *K = &ks[q];
        if (!K->f32_tail2 || K->isa > hd_cpu_isa())
            continue;
        SECTION(K->name);
        printf("test %s two-row tail entry\n", K->name);
        int all = 1;
        for (size_t mr = 1; mr <= 2; mr++)
            for (size_t nr = K->nr + 1; nr <= 2 * K->nr; nr++)
                all &= tail2_case(K, mr, nr, 9, 1.5f, 0.5f, 0);
        CHECK_MSG(all, "two-row tail, mr 1..2, nr %zu..%zu", K->nr + 1, 2 * K->nr);
        static const size_t kcs[] = {0, 1, 17, HD_GEMM_KC, 2 * HD_GEMM_KC + 3};
        for (size_t i = 0; i < sizeof kcs / sizeof kcs[0]; i++)
            CHECK_MSG(tail2_case(K, 2, 2 * K->nr, kcs[i], 1.0f, 1.0f, 0), "two-row tail, kc=%zu", kcs[i]);
        CHECK(tail2_case(K, 2, K->nr + 5, 33, -2.5f, -0.3f, 0));
        CHECK(tail2_case(K, 1, 2 * K->nr - 1, 40, 1.0f, 0.0f, 1));
    }
}

/* The transposed-B packers: a panel of COLS rows of B (kc values each, ldb apart) becomes kc
 * rows of NR values, columns past COLS zero, nothing written past the panel. */
static void test_pack_b_t(void)
{
    size_t n;
    const hd_gemm_kernel *ks = hd_gemm_kernels(4, &n);
    for (size_t q = 0; q < n; q++) {
        const hd_gemm_kernel *K = &ks[q];
        if (!K->f32_pack_b_t || K->isa > hd_cpu_isa())
            continue;
        SECTION(K->name);
        printf("test %s transposed B packing\n", K->name);
        static const size_t kcs[] = {1, 7, 16, 17, 33, HD_GEMM_KC};
        int all = 1;
        for (size_t ik = 0; ik < sizeof kcs / sizeof kcs[0]; ik++) {
            for (size_t cols = 1; cols <= K->nr; cols++) {
                size_t kc = kcs[ik], ldb = kc + 3, NR = K->nr;
                float *b = malloc(cols * ldb * sizeof(float));
                float *got = malloc((kc * NR + 16) * sizeof(float)), *want = malloc((kc * NR + 16) * sizeof(float));
                for (size_t i = 0; i < cols * ldb; i++)
                    b[i] = (float)rnd();
                for (size_t i = 0; i < kc * NR + 16; i++)
                    got[i] = want[i] = (float)GUARD;
                for (size_t p = 0; p < kc; p++)
                    for (size_t c = 0; c < NR; c++)
                        want[p * NR + c] = c < cols ? b[c * ldb + p] : 0.0f;
                int ok = K->f32_pack_b_t(b, ldb, cols, kc, got) == 1 &&
                         memcmp(got, want, (kc * NR + 16) * sizeof(float)) == 0;
                if (!ok)
                    fprintf(stderr, "  %s pack B^T cols=%zu kc=%zu differs\n", K->name, cols, kc);
                all &= ok;
                free(b);
                free(got);
                free(want);
            }
        }
        CHECK_MSG(all, "transposed B packing, cols 1..%zu", K->nr);
        float dummy[16] = {0};
        CHECK(K->f32_pack_b_t(dummy, 4, K->nr + 1, 1, dummy) == 0);
    }
}

/* The A^T packers: k step p's ROWS values are consecutive in row p of A (lda apart); the panel
 * holds them, rows past ROWS zero. */
static void test_pack_a_t(void)
{
    size_t n;
    const hd_gemm_kernel *ks = hd_gemm_kernels(4, &n);
    for (size_t q = 0; q < n; q++) {
        const hd_gemm_kernel *K = &ks[q];
        if (!K->f32_pack_a_t || K->isa > hd_cpu_isa())
            continue;
        SECTION(K->name);
        printf("test %s transposed A packing\n", K->name);
        static const size_t kcs[] = {1, 7, 17, HD_GEMM_KC};
        int all = 1;
        for (size_t ik = 0; ik < sizeof kcs / sizeof kcs[0]; ik++) {
            for (size_t rows = 1; rows <= K->mr; rows++) {
                size_t kc = kcs[ik], lda = rows + 3, MR = K->mr;
                float *a = malloc(kc * lda * sizeof(float));
                float *got = malloc((kc * MR + 16) * sizeof(float)), *want = malloc((kc * MR + 16) * sizeof(float));
                for (size_t i = 0; i < kc * lda; i++)
                    a[i] = (float)rnd();
                for (size_t i = 0; i < kc * MR + 16; i++)
                    got[i] = want[i] = (float)GUARD;
                for (size_t p = 0; p < kc; p++)
                    for (size_t r = 0; r < MR; r++)
                        want[p * MR + r] = r < rows ? a[p * lda + r] : 0.0f;
                int ok = K->f32_pack_a_t(a, lda, rows, kc, got) == 1 &&
                         memcmp(got, want, (kc * MR + 16) * sizeof(float)) == 0;
                if (!ok)
                    fprintf(stderr, "  %s pack A^T rows=%zu kc=%zu differs\n", K->name, rows, kc);
                all &= ok;
                free(a);
                free(got);
                free(want);
            }
        }
        CHECK_MSG(all, "transposed A packing, rows 1..%zu", K->mr);
        float dummy[16] = {0};
        CHECK(K->f32_pack_a_t(dummy, 4, K->mr + 1, 1, dummy) == 0);
        CHECK(K->f32_pack_a_t(dummy, 4, 0, 1, dummy) == 0);
    }
}

int main(void)
{
    printf("cpu isa in effect: %s (hardware %s)\n", hd_isa_name(hd_cpu_isa()), hd_isa_name(hd_cpu()->hw_isa));
    test_table();
    test_family_float();
    test_family_double();
    test_pack_a();
    test_sa();
    test_mv();
    test_tail2();
    test_pack_b_t();
    test_pack_a_t();
    return hd_test_finish();
}
