/*
 * GEMM with a pre-packed B operand (hd_sgemm_pack_b / hd_sgemm_pb and the double pair,
 * kernels/gemm/gemm.h): bitwise the result of hd_sgemm / hd_dgemm on the unpacked operand,
 * for both transposes of A and B, k below/at/above the k block, remainders of every tile,
 * alpha/beta of 0, 1 and other values, leading dimensions wider than the matrices, 1 and 2
 * threads, and one packing reused for several A; the column slices of hd_?gemm_pb_cols (A packed
 * by hd_?gemm_pb_pack_a) in pieces that start inside kernel panels give the same bits.  tests/scripts/gemm_isa.sh-style caps
 * (HOSTDNN_MAX_ISA) change the kernel both sides use, so the comparison holds under them too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/cpu.h"
#include "kernels/gemm/gemm.h"

static uint32_t rng = 4242u;
static double rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return ((rng >> 8) & 0xFFFF) / 32768.0 - 1.0;
}

static void one(int dbl, char ta, char tb, size_t m, size_t n, size_t k, double alpha, double beta, int threads)
{
    const size_t pad = 3, es = dbl ? 8 : 4;
    size_t ar = ta == 'N' ? m : k, ac = ta == 'N' ? k : m, br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
    size_t lda = ac + pad, ldb = bc + pad, ldc = n + pad;
    unsigned char *A = malloc((ar * lda + 1) * es), *B = malloc((br * ldb + 1) * es);
    unsigned char *C0 = malloc((m * ldc + 1) * es), *C1 = malloc((m * ldc + 1) * es);
    for (size_t i = 0; i < ar * lda; i++) { double v = rnd(); if (dbl) ((double *)A)[i] = v; else ((float *)A)[i] = (float)v; }
    for (size_t i = 0; i < br * ldb; i++) { double v = rnd(); if (dbl) ((double *)B)[i] = v; else ((float *)B)[i] = (float)v; }
    for (size_t i = 0; i < m * ldc; i++) { double v = rnd(); if (dbl) ((double *)C0)[i] = v; else ((float *)C0)[i] = (float)v; }
    hd_gemm_packed_b pb;
    int same = 1;
    if (dbl) hd_dgemm_pack_b(&pb, threads, tb, n, k, (const double *)B, ldb);
    else hd_sgemm_pack_b(&pb, threads, tb, n, k, (const float *)B, ldb);
    /* the same packing serves several A: the second product uses A shifted by one element */
    for (int rep = 0; rep < 2; rep++) {
        const unsigned char *Ar = A + (size_t)rep * es;
        memcpy(C1, C0, m * ldc * es);
        unsigned char *Cr = malloc((m * ldc + 1) * es);
        memcpy(Cr, C0, m * ldc * es);
        if (dbl) {
            hd_dgemm(threads, ta, tb, m, n, k, alpha, (const double *)Ar, lda, (const double *)B, ldb, beta, (double *)Cr, ldc);
            hd_dgemm_pb(threads, ta, m, alpha, (const double *)Ar, lda, &pb, beta, (double *)C1, ldc);
        } else {
            hd_sgemm(threads, ta, tb, m, n, k, (float)alpha, (const float *)Ar, lda, (const float *)B, ldb, (float)beta,
                     (float *)Cr, ldc);
            hd_sgemm_pb(threads, ta, m, (float)alpha, (const float *)Ar, lda, &pb, (float)beta, (float *)C1, ldc);
        }
        if (memcmp(Cr, C1, m * ldc * es) != 0) same = 0;
        /* column slices (hd_?gemm_pb_pack_a / _pb_cols), cut at odd places, starting inside
           kernel panels: the same bits */
        if (pb.data && k > 0 && alpha != 0) {
            memcpy(C1, C0, m * ldc * es);
            size_t na = dbl ? hd_dgemm_pb_a_elems(&pb, m) : hd_sgemm_pb_a_elems(&pb, m);
            void *Ap = malloc(na * es);
            if (dbl) hd_dgemm_pb_pack_a(&pb, ta, m, (const double *)Ar, lda, Ap);
            else hd_sgemm_pb_pack_a(&pb, ta, m, (const float *)Ar, lda, Ap);
            for (size_t c0 = 0, w = 1; c0 < n; c0 += w, w = w * 3 % 41 + 1) {
                size_t c1 = c0 + w < n ? c0 + w : n;
                if (dbl)
                    hd_dgemm_pb_cols(&pb, m, Ap, c0, c1, alpha, beta, (double *)C1, ldc);
                else
                    hd_sgemm_pb_cols(&pb, m, Ap, c0, c1, (float)alpha, (float)beta, (float *)C1, ldc);
            }
            if (memcmp(Cr, C1, m * ldc * es) != 0) same = 0;
            free(Ap);
        }
        free(Cr);
    }
    hd_gemm_pb_free(&pb);
    CHECK_MSG(same, "%s ta %c tb %c m %zu n %zu k %zu alpha %g beta %g threads %d: packed B differs from the "
              "unpacked product", dbl ? "double" : "float", ta, tb, m, n, k, alpha, beta, threads);
    free(A); free(B); free(C0); free(C1);
}

int main(void)
{
    printf("kernels: %s %s\n", hd_gemm_kernel_name(4, HD_ISA_AVX512), hd_gemm_kernel_name(8, HD_ISA_AVX512));
    static const size_t ms[] = { 1, 5, 14, 32, 61, 300 }, ns[] = { 1, 7, 16, 33, 200, 2048 };
    static const size_t ks[] = { 1, 9, 256, 300, 600 };
    static const double ab[][2] = { { 1, 0 }, { 1, 1 }, { 0.5, 0.25 }, { 0, 0.5 } };
    const char tr[2] = { 'N', 'T' };
    for (int dbl = 0; dbl < 2; dbl++)
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
            for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
                for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
                    if (ms[mi] * ns[ni] * ks[ki] > 5000000) continue;
                    for (int t = 0; t < 4; t++) {
                        const double *a = ab[(mi + ni + ki + (size_t)t) % 4];
                        one(dbl, tr[t & 1], tr[t >> 1], ms[mi], ns[ni], ks[ki], a[0], a[1], 1 + (t & 1));
                    }
                }
    /* the RNN's shapes: a batch of states times [G*H x P] transposed, and the backward's R */
    one(0, 'N', 'T', 32, 2048, 512, 1, 0, 2);
    one(0, 'N', 'N', 32, 512, 2048, 1, 0, 2);
    one(1, 'N', 'T', 3, 12, 3, 1, 0, 2);
    /* batch 1 (the several-panel matrix-vector kernel where there is one): every panel count
       and a partial last panel, k over two blocks */
    one(0, 'N', 'T', 1, 3072, 1024, 1, 0, 2);
    one(0, 'N', 'T', 1, 75 * 4, 75, 1, 0, 3);
    one(0, 'N', 'N', 1, 1024, 3072, 1, 0, 2);
    one(0, 'T', 'T', 1, 100, 513, 0.5, 0.25, 1);
    return hd_test_finish();
}
