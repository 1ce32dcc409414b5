/*
 * tests/harness.h -- the tiny test harness every C test uses.
 *
 * CHECK(cond) and the CHECK_* helpers count passes and failures and print each failure with
 * its line; SKIP(reason...) counts a part that cannot run on this machine (a missing vendor
 * library, ISA or tool) and prints "SKIP <reason>", so no skip is silent; hd_test_finish()
 * prints the closing line "N passed, N failed" (with ", N skipped" when anything was skipped)
 * and gives the exit status (non-zero when anything failed, never for a skip).
 * tests/run_all.sh sums the three counts and lists the SKIP lines.
 */
#ifndef HD_TEST_HARNESS_H
#define HD_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int hd_t_passed, hd_t_failed, hd_t_skipped;
static const char *hd_t_section = "";

#define SECTION(name) (hd_t_section = (name))

#define SKIP(...) do { hd_t_skipped++; fputs("SKIP ", stdout); printf(__VA_ARGS__); putchar('\n'); \
    fflush(stdout); } while (0)

#define CHECK(cond) do { if (cond) hd_t_passed++; else { hd_t_failed++; \
    fprintf(stderr, "FAIL %s:%d [%s] %s\n", __FILE__, __LINE__, hd_t_section, #cond); } } while (0)

#define CHECK_MSG(cond, ...) do { if (cond) hd_t_passed++; else { hd_t_failed++; \
    fprintf(stderr, "FAIL %s:%d [%s] %s: ", __FILE__, __LINE__, hd_t_section, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* Compare a cudnnStatus_t with the expected value and print both names on mismatch. */
#define CHECK_STATUS(expr, want) do { cudnnStatus_t got_ = (expr); \
    if (got_ == (want)) hd_t_passed++; else { hd_t_failed++; \
    fprintf(stderr, "FAIL %s:%d [%s] %s -> %s, want %s\n", __FILE__, __LINE__, hd_t_section, #expr, \
            cudnnGetErrorString(got_), cudnnGetErrorString(want)); } } while (0)
#define CHECK_OK(expr) CHECK_STATUS(expr, CUDNN_STATUS_SUCCESS)

#define CHECK_EQ_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
    if (a_ == b_) hd_t_passed++; else { hd_t_failed++; \
    fprintf(stderr, "FAIL %s:%d [%s] %s == %s: %lld vs %lld\n", __FILE__, __LINE__, hd_t_section, #a, #b, a_, b_); } } while (0)

#define CHECK_NEAR(a, b, tol) do { double a_ = (double)(a), b_ = (double)(b); \
    if (fabs(a_ - b_) <= (tol)) hd_t_passed++; else { hd_t_failed++; \
    fprintf(stderr, "FAIL %s:%d [%s] %s ~ %s: %.9g vs %.9g (tol %g)\n", __FILE__, __LINE__, hd_t_section, #a, #b, a_, b_, (double)(tol)); } } while (0)

static inline int hd_test_finish(void)
{
    if (hd_t_skipped)
        printf("%d passed, %d failed, %d skipped\n", hd_t_passed, hd_t_failed, hd_t_skipped);
    else
        printf("%d passed, %d failed\n", hd_t_passed, hd_t_failed);
    return hd_t_failed != 0;
}

#endif
