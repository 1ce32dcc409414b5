/*
 * kernels/gemm/gemm.h -- general matrix multiply, the workhorse under convolution, RNN and the
 * cuBLAS subset.
 *
 * Row-major: C[m x n] = alpha * op(A)[m x k] * op(B)[k x n] + beta * C, where op(X) is X or
 * its transpose (trans = 'N' or 'T'; 'n', 't', 'C', 'c' are accepted too), and lda/ldb/ldc
 * are row strides in elements of the matrices as stored.  beta == 0 means C is not read (it
 * may hold NaN).  alpha == 0 or k == 0 mean A and B are not read: C = beta * C.  Column-major
 * callers (cuBLAS) compute C^T = op(B)^T op(A)^T by swapping the operands.
 *
 * Results are bitwise identical for any thread count: each element of C is reduced over k
 * in the same order whatever the partition.  The AVX2 and AVX-512 kernels give the same
 * bits as each other (fused multiply-adds in the same order); the scalar kernels round the
 * multiply and the add separately, so they can differ in the last bit (docs/gemm.md).
 * NTHREADS <= 1 runs on the calling thread.  The implementation is a BLIS-style packed-panel
 * GEMM (kernels/gemm/); it allocates (and caches) at most a few MiB of packing buffers and
 * falls back to an unpacked loop, with the same results, if that memory is not available.
 */
#ifndef HD_KERNELS_GEMM_H
#define HD_KERNELS_GEMM_H

#include <stddef.h>

#include "core/cpu.h"

void hd_sgemm(int nthreads, char transa, char transb, size_t m, size_t n, size_t k, float alpha,
              const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc);

void hd_dgemm(int nthreads, char transa, char transb, size_t m, size_t n, size_t k, double alpha,
              const double *A, size_t lda, const double *B, size_t ldb, double beta, double *C, size_t ldc);

/*
 * The same with the micro-kernel family of ISA, lowered to hd_cpu_isa() (the hardware, capped
 * by HOSTDNN_MAX_ISA) -- for tests and benchmarks that compare kernel families in one process.
 */
void hd_sgemm_isa(hd_isa_t isa, int nthreads, char transa, char transb, size_t m, size_t n, size_t k,
                  float alpha, const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C,
                  size_t ldc);
void hd_dgemm_isa(hd_isa_t isa, int nthreads, char transa, char transb, size_t m, size_t n, size_t k,
                  double alpha, const double *A, size_t lda, const double *B, size_t ldb, double beta,
                  double *C, size_t ldc);

/*
 * op(B) packed once for many products with different A -- the RNN's recurrent and projection
 * matrices, multiplied with a new batch of states at every time step.  hd_sgemm would pack
 * (or, for a transposed B, transpose) the same panels again at every call.
 *
 * hd_?gemm_pack_b packs op(B) [k x n] (B as hd_?gemm takes it: TRANSB, LDB) for the kernel
 * hd_?gemm would use now; hd_?gemm_pb computes C = alpha * op(A) op(B) + beta * C with it,
 * bitwise what hd_?gemm gives on the unpacked operand (same kernel, same k blocks, any thread
 * count).  B must stay alive and unchanged until hd_gemm_pb_free: when the packing memory
 * cannot be had (or HOSTDNN_GEMM_UNPACKED=1), the products read B itself.  hd_gemm_pb_free
 * keeps the packed buffer for the next hd_?gemm_pack_b (two are kept per process), so that a
 * call that packs its weights every time does not fault in fresh pages every time.
 */
typedef struct {
    size_t elem, n, k;
    char transb;
    const void *B;          /* the operand as given */
    size_t ldb;
    const void *kern;       /* the micro-kernel it was packed for (gemm-ukernels.h) */
    size_t npanels;
    void *data;             /* owned; NULL: not packed (products use B) */
} hd_gemm_packed_b;

void hd_sgemm_pack_b(hd_gemm_packed_b *pb, int nthreads, char transb, size_t n, size_t k, const float *B, size_t ldb);
void hd_dgemm_pack_b(hd_gemm_packed_b *pb, int nthreads, char transb, size_t n, size_t k, const double *B, size_t ldb);
void hd_sgemm_pb(int nthreads, char transa, size_t m, float alpha, const float *A, size_t lda, const hd_gemm_packed_b *pb,
                 float beta, float *C, size_t ldc);
void hd_dgemm_pb(int nthreads, char transa, size_t m, double alpha, const double *A, size_t lda,
                 const hd_gemm_packed_b *pb, double beta, double *C, size_t ldc);
void hd_gemm_pb_free(hd_gemm_packed_b *pb);

/*
 * Column slices of the product with a packed B, for callers that split the columns over
 * threads themselves and act on each slice as soon as it is done (the RNN's recurrent product
 * followed by the cell update of the same hidden units).  Only for a PB whose data is set
 * (pb->data != NULL, packing succeeded), with k > 0 and alpha != 0.
 *
 * hd_?gemm_pb_pack_a packs op(A) [m x k] (TRANSA, LDA) for PB's kernel into AP, which holds
 * hd_?gemm_pb_a_elems(pb, m) elements, on the calling thread; hd_?gemm_pb_cols then computes
 * columns [c0, c1) of C = alpha * op(A) op(B) + beta * C (C is the whole m x n matrix) on the
 * calling thread.  Any split of the columns gives bitwise what hd_?gemm_pb gives.
 */
size_t hd_sgemm_pb_a_elems(const hd_gemm_packed_b *pb, size_t m);
size_t hd_dgemm_pb_a_elems(const hd_gemm_packed_b *pb, size_t m);
void hd_sgemm_pb_pack_a(const hd_gemm_packed_b *pb, char transa, size_t m, const float *A, size_t lda, float *Ap);
void hd_dgemm_pb_pack_a(const hd_gemm_packed_b *pb, char transa, size_t m, const double *A, size_t lda, double *Ap);
void hd_sgemm_pb_cols(const hd_gemm_packed_b *pb, size_t m, const float *Ap, size_t c0, size_t c1, float alpha,
                      float beta, float *C, size_t ldc);
void hd_dgemm_pb_cols(const hd_gemm_packed_b *pb, size_t m, const double *Ap, size_t c0, size_t c1, double alpha,
                      double beta, double *C, size_t ldc);

/* Name of the micro-kernel used for elements of ELEM_SIZE bytes (4: sgemm, 8: dgemm) at ISA
 * (lowered to hd_cpu_isa()), e.g. "f32-gemm-14x32-avx512". */
const char *hd_gemm_kernel_name(size_t elem_size, hd_isa_t isa);

#endif
