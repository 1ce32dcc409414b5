/*
 * kernels/gemm/gemm-driver.c -- the GEMM family's driver: the entry points of gemm.h (see
 * docs/gemm.md).  The blocked loop nest is written once in gemm-driver.inc and instantiated
 * here for float and double; this file holds what both share: operand normalisation, thread
 * choice and the packing-buffer cache.  The micro-kernel comes from gemm-config.c.
 */
#include "kernels/gemm/gemm.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "core/memory.h"
#include "core/parallel.h"
#include "kernels/gemm/gemm-ukernels.h"

static char norm_trans(char t)
{
    return (t == 'T' || t == 't' || t == 'C' || t == 'c') ? 'T' : 'N';
}

/* Tiny problems stay on one thread: waking a team costs more than it saves.  The choice
 * never changes results (docs/gemm.md), only speed. */
static int pick_threads(int nthreads, size_t m, size_t n, size_t k)
{
    if (nthreads <= 1)
        return 1;
    double work = (double)m * (double)n * (double)k;
    return work < 64.0 * 64.0 * 64.0 ? 1 : nthreads;
}

/*
 * Phase-2 partition of a chunk of MP x NP panels into MT x NT tiles of whole panels, about
 * MT_PANELS x NT_PANELS each.  With several threads, tiles are added along n (then m) until
 * every thread has work and the count divides evenly among them.  Which thread computes a tile
 * never changes its bits (docs/gemm.md), so the partition may follow the thread count.
 */
static void plan_tiles(size_t mp, size_t mt_panels, size_t np, size_t nt_panels, int threads, size_t *mt,
                       size_t *nt)
{
    size_t a = (mp + mt_panels - 1) / mt_panels, b = (np + nt_panels - 1) / nt_panels;
    size_t th = threads > 1 ? (size_t)threads : 1;
    for (int tries = 0; tries < 8 && (a * b < th || (a * b) % th != 0); tries++) {
        if (b < np)
            b++;
        else if (a < mp)
            a++;
        else
            break;
    }
    *mt = a;
    *nt = b;
}

/*
 * HOSTDNN_GEMM_UNPACKED=1 forces the unpacked fallback (normally taken only when the packing
 * memory cannot be had), so that the tests can check it gives the same bits.  Read once.
 */
static int force_unpacked;
static pthread_once_t force_once = PTHREAD_ONCE_INIT;

static void read_force_unpacked(void)
{
    const char *v = getenv("HOSTDNN_GEMM_UNPACKED");
    force_unpacked = v && strcmp(v, "1") == 0;
}

static int unpacked_forced(void)
{
    pthread_once(&force_once, read_force_unpacked);
    return force_unpacked;
}

/*
 * One packing buffer is kept between calls, so that repeated GEMMs do not pay for fresh
 * pages every time.  A caller takes it with an atomic exchange (a concurrent caller finds the
 * slot empty and allocates its own) and puts it back when done; the larger one survives.
 */
typedef struct {
    size_t bytes;
    uint8_t pad[HD_ALIGN - sizeof(size_t)];
} scratch_head;

static _Atomic(scratch_head *) scratch_slot;

static void *scratch_get(size_t bytes)
{
    scratch_head *h = atomic_exchange(&scratch_slot, NULL);
    if (h && h->bytes >= bytes)
        return h + 1;
    hd_aligned_free(h);
    if (bytes > (size_t)-1 - sizeof(scratch_head))
        return NULL;
    h = hd_aligned_alloc(sizeof(scratch_head) + bytes);
    if (!h)
        return NULL;
    h->bytes = bytes;
    return h + 1;
}

static void scratch_put(void *p)
{
    if (!p)
        return;
    scratch_head *h = (scratch_head *)p - 1;
    scratch_head *old = atomic_exchange(&scratch_slot, h);
    if (old) {
        /* Keep the larger of the two. */
        if (old->bytes > h->bytes) {
            scratch_head *again = atomic_exchange(&scratch_slot, old);
            hd_aligned_free(again);
        } else {
            hd_aligned_free(old);
        }
    }
}

typedef int (*f64_pack_a_fn)(const double *a, size_t lda, size_t rows, size_t kc, double *dst);
typedef int (*f64_pack_b_fn)(const double *b, size_t ldb, size_t cols, size_t kc, double *dst);
typedef void (*f64_mv_fn)(size_t n, size_t kc, const double *a, size_t a_stride, const double *b, size_t panel_stride,
                          double *c, double alpha, double beta);
typedef void (*f64_tail2_fn)(size_t mr, size_t nr, size_t kc, const double *a, const double *b, size_t panel_stride,
                             double *c, size_t ldc, double alpha, double beta);

#define T float
/*
 * The packed operands of hd_?gemm_pack_b are kept too, in two slots (the two directions of a
 * bidirectional RNN pack at the same time): an RNN call packs its R matrices (megabytes) once
 * per layer, and fresh pages for them at every call cost more than the packing (the kernel
 * zeroes each page on first touch).  Same exchange discipline as the scratch slot.
 */
#define PB_KEPT 2
static _Atomic(scratch_head *) pb_slots[PB_KEPT];

static void *pb_get(size_t bytes)
{
    for (int i = 0; i < PB_KEPT; i++) {
        scratch_head *h = atomic_exchange(&pb_slots[i], NULL);
        if (!h)
            continue;
        if (h->bytes >= bytes)
            return h + 1;
        hd_aligned_free(h);   /* too small for what is packed now: make room */
    }
    if (bytes > (size_t)-1 - sizeof(scratch_head))
        return NULL;
    scratch_head *h = hd_aligned_alloc(sizeof(scratch_head) + bytes);
    if (!h)
        return NULL;
    h->bytes = bytes;
    return h + 1;
}

static void pb_put(void *p)
{
    if (!p)
        return;
    scratch_head *h = (scratch_head *)p - 1;
    for (int i = 0; i < PB_KEPT; i++) {
        scratch_head *expect = NULL;
        if (atomic_compare_exchange_strong(&pb_slots[i], &expect, h))
            return;
    }
    /* both slots full: keep the larger */
    scratch_head *old = atomic_exchange(&pb_slots[0], h);
    if (old && old->bytes > h->bytes) {
        scratch_head *again = atomic_exchange(&pb_slots[0], old);
        hd_aligned_free(again);
    } else {
        hd_aligned_free(old);
    }
}

#define FN(name) name##_f32
#define UKERNEL(kern) ((kern)->f32)
#define PACK_A_N(kern) ((kern)->f32_pack_a_n)
#define MV(kern) ((kern)->f32_mv)
#define PACK_B_T(kern) ((kern)->f32_pack_b_t)
#define PACK_A_T(kern) ((kern)->f32_pack_a_t)
#define TAIL2(kern) ((kern)->f32_tail2)
#define FMA fmaf
#include "kernels/gemm/gemm-driver.inc"
#undef T
#undef FN
#undef UKERNEL
#undef PACK_A_N
#undef MV
#undef PACK_B_T
#undef PACK_A_T
#undef TAIL2
#undef FMA

#define T double
#define FN(name) name##_f64
#define UKERNEL(kern) ((kern)->f64)
#define PACK_A_N(kern) ((f64_pack_a_fn)NULL) /* no ISA-specific double packer yet */
#define MV(kern) ((f64_mv_fn)NULL)               /* nor a several-panel matrix-vector kernel */
#define PACK_B_T(kern) ((f64_pack_b_fn)NULL)
#define PACK_A_T(kern) ((f64_pack_a_fn)NULL)
#define TAIL2(kern) ((f64_tail2_fn)NULL)
#define FMA fma
#include "kernels/gemm/gemm-driver.inc"
#undef T
#undef FN
#undef UKERNEL
#undef PACK_A_N
#undef MV
#undef PACK_B_T
#undef PACK_A_T
#undef FMA

void hd_sgemm_isa(hd_isa_t isa, int nthreads, char transa, char transb, size_t m, size_t n, size_t k,
                  float alpha, const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C,
                  size_t ldc)
{
    gemm_f32(hd_isa_cap(isa), nthreads, norm_trans(transa), norm_trans(transb), m, n, k, alpha, A, lda, B, ldb,
             beta, C, ldc);
}

void hd_dgemm_isa(hd_isa_t isa, int nthreads, char transa, char transb, size_t m, size_t n, size_t k,
                  double alpha, const double *A, size_t lda, const double *B, size_t ldb, double beta,
                  double *C, size_t ldc)
{
    gemm_f64(hd_isa_cap(isa), nthreads, norm_trans(transa), norm_trans(transb), m, n, k, alpha, A, lda, B, ldb,
             beta, C, ldc);
}

void hd_sgemm(int nthreads, char transa, char transb, size_t m, size_t n, size_t k, float alpha,
              const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
    hd_sgemm_isa(HD_ISA_AVX512, nthreads, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void hd_dgemm(int nthreads, char transa, char transb, size_t m, size_t n, size_t k, double alpha,
              const double *A, size_t lda, const double *B, size_t ldb, double beta, double *C, size_t ldc)
{
    hd_dgemm_isa(HD_ISA_AVX512, nthreads, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void hd_sgemm_pack_b(hd_gemm_packed_b *pb, int nthreads, char transb, size_t n, size_t k, const float *B, size_t ldb)
{
    pack_b_once_f32(pb, hd_isa_cap(HD_ISA_AVX512), nthreads, norm_trans(transb), n, k, B, ldb);
}

void hd_dgemm_pack_b(hd_gemm_packed_b *pb, int nthreads, char transb, size_t n, size_t k, const double *B, size_t ldb)
{
    pack_b_once_f64(pb, hd_isa_cap(HD_ISA_AVX512), nthreads, norm_trans(transb), n, k, B, ldb);
}

void hd_sgemm_pb(int nthreads, char transa, size_t m, float alpha, const float *A, size_t lda, const hd_gemm_packed_b *pb,
                 float beta, float *C, size_t ldc)
{
    gemm_pb_f32(nthreads, norm_trans(transa), m, alpha, A, lda, pb, beta, C, ldc);
}

void hd_dgemm_pb(int nthreads, char transa, size_t m, double alpha, const double *A, size_t lda,
                 const hd_gemm_packed_b *pb, double beta, double *C, size_t ldc)
{
    gemm_pb_f64(nthreads, norm_trans(transa), m, alpha, A, lda, pb, beta, C, ldc);
}

void hd_gemm_pb_free(hd_gemm_packed_b *pb)
{
    if (!pb)
        return;
    pb_put(pb->data);
    pb->data = NULL;
}

const char *hd_gemm_kernel_name(size_t elem_size, hd_isa_t isa)
{
    return hd_gemm_kernel_for(elem_size == 8 ? 8 : 4, hd_isa_cap(isa))->name;
}

size_t hd_sgemm_pb_a_elems(const hd_gemm_packed_b *pb, size_t m) { return pb_a_elems_f32(pb, m); }
size_t hd_dgemm_pb_a_elems(const hd_gemm_packed_b *pb, size_t m) { return pb_a_elems_f64(pb, m); }

void hd_sgemm_pb_pack_a(const hd_gemm_packed_b *pb, char transa, size_t m, const float *A, size_t lda, float *Ap)
{
    pb_pack_a_f32(pb, norm_trans(transa), m, A, lda, Ap);
}

void hd_dgemm_pb_pack_a(const hd_gemm_packed_b *pb, char transa, size_t m, const double *A, size_t lda, double *Ap)
{
    pb_pack_a_f64(pb, norm_trans(transa), m, A, lda, Ap);
}

void hd_sgemm_pb_cols(const hd_gemm_packed_b *pb, size_t m, const float *Ap, size_t c0, size_t c1, float alpha,
                      float beta, float *C, size_t ldc)
{
    pb_cols_f32(pb, m, Ap, c0, c1, alpha, beta, C, ldc);
}

void hd_dgemm_pb_cols(const hd_gemm_packed_b *pb, size_t m, const double *Ap, size_t c0, size_t c1, double alpha,
                      double beta, double *C, size_t ldc)
{
    pb_cols_f64(pb, m, Ap, c0, c1, alpha, beta, C, ldc);
}
