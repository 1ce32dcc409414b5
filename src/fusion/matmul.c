/*
 * fusion/matmul.c -- batched C = A x B for the backend's matmul graphs, on the packed GEMM.
 *
 * An operand the GEMM can read in place (float, unit stride along one of its two matrix
 * dimensions) is passed as it is, transposed or not; any other is first copied to packed
 * float rows in the workspace, one batch at a time.  C is produced in float (in place when
 * it is float with unit column stride, else through the workspace and converted).  Each
 * batch is one GEMM, whose results do not depend on the thread count (kernels/gemm/gemm.h).
 *
 * With a pointwise chain after it (bias, GELU, ...), each batch's B is packed once and the
 * rows of C are dealt to the threads in blocks of about CHAIN_BLOCK_FLOATS: a thread computes
 * its block with the packed GEMM and at once runs the chain on it, while the block is still
 * in its cache, instead of a second pass over C in memory.  A block of rows gives the same
 * bits as the whole GEMM (each element is reduced over k in the same order), so the result
 * is the same for every thread count and block size.
 */
#include "fusion/fusion.h"
#include "core/convert.h"
#include "core/parallel.h"
#include "kernels/gemm/gemm.h"

#include <string.h>

/* Floats of C per block that the chain runs on: well inside a core's L2 with A and B's panels. */
#define CHAIN_BLOCK_FLOATS 16384
/* Fewer rows per thread than this: the GEMM is split along n instead (hd_sgemm), then the chain
 * runs over the batch. */
#define CHAIN_MIN_ROWS 16

/* Can the GEMM read the R x C matrix of V (strides sr, sc) directly?  *trans, *ld as it needs. */
static int direct(const hd_pw_view *v, int64_t rs, int64_t cs, int64_t rows, int64_t cols, char *trans, size_t *ld)
{
    if (v->dt != CUDNN_DATA_FLOAT)
        return 0;
    if (cs == 1 || cols == 1) {
        *trans = 'N';
        *ld = (size_t)(rows == 1 ? (cols > 0 ? cols : 1) : rs);
        return rs >= cols || rows == 1;
    }
    if (rs == 1 || rows == 1) {
        *trans = 'T';
        *ld = (size_t)(cols == 1 ? (rows > 0 ? rows : 1) : cs);
        return cs >= rows || cols == 1;
    }
    return 0;
}

static float ld_elem(const hd_pw_view *v, int64_t off)
{
    switch (v->dt) {
    case CUDNN_DATA_FLOAT: return ((const float *)v->ptr)[off];
    case CUDNN_DATA_HALF: return hd_f16_to_f32(((const uint16_t *)v->ptr)[off]);
    case CUDNN_DATA_BFLOAT16: return hd_bf16_to_f32(((const uint16_t *)v->ptr)[off]);
    default: return (float)((const double *)v->ptr)[off];
    }
}

static void st_elem(const hd_pw_view *v, int64_t off, float x)
{
    switch (v->dt) {
    case CUDNN_DATA_FLOAT: ((float *)v->ptr)[off] = x; break;
    case CUDNN_DATA_HALF: ((uint16_t *)v->ptr)[off] = hd_f32_to_f16(x); break;
    case CUDNN_DATA_BFLOAT16: ((uint16_t *)v->ptr)[off] = hd_f32_to_bf16(x); break;
    default: ((double *)v->ptr)[off] = x; break;
    }
}

/* Copy the rows x cols matrix at OFF of V into packed float rows. */
static void pack(const hd_pw_view *v, int64_t off, int64_t rs, int64_t cs, int64_t rows, int64_t cols, float *dst)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            dst[i * cols + j] = ld_elem(v, off + i * rs + j * cs);
}

static int c_direct(const hd_matmul_desc *d)
{
    int nb = d->nbatch;
    return d->c.dt == CUDNN_DATA_FLOAT && (d->c.strides[nb + 1] == 1 || d->N == 1) &&
           (d->c.strides[nb] >= d->N || d->M == 1);
}

size_t hd_matmul_workspace(const hd_matmul_desc *d)
{
    int nb = d->nbatch;
    char t;
    size_t ld, floats = 0;
    if (!direct(&d->a, d->a.strides[nb], d->a.strides[nb + 1], d->M, d->K, &t, &ld))
        floats += (size_t)(d->M * d->K);
    if (!direct(&d->b, d->b.strides[nb], d->b.strides[nb + 1], d->K, d->N, &t, &ld))
        floats += (size_t)(d->K * d->N);
    if (!c_direct(d))
        floats += (size_t)(d->M * d->N);
    return floats * sizeof(float);
}

/* Offset of batch number BI (C's batch dims, last fastest) in V; broadcast dims step 0. */
static int64_t batch_offset(const hd_matmul_desc *d, const hd_pw_view *v, int64_t bi)
{
    int64_t off = 0;
    for (int k = d->nbatch - 1; k >= 0; k--) {
        off += (bi % d->batch[k]) * v->strides[k];
        bi /= d->batch[k];
    }
    return off;
}

/* Copy rows [R0, R1) of the float result WC (N wide) to C at OC in its own type. */
static void store_rows(const hd_matmul_desc *d, int64_t oc, const float *wc, int64_t r0, int64_t r1)
{
    int nb = d->nbatch;
    for (int64_t i = r0; i < r1; i++)
        for (int64_t j = 0; j < d->N; j++)
            st_elem(&d->c, oc + i * d->c.strides[nb] + j * d->c.strides[nb + 1], wc[i * d->N + j]);
}

/* Run CHAIN on rows [R0, R1) of batch BI (all columns). */
static void chain_rows(const hd_matmul_desc *d, const hd_pw_chain *chain, int64_t bi, int64_t r0, int64_t r1,
                       int nthreads)
{
    int nb = d->nbatch;
    int64_t lo[HD_PW_MAX_DIMS], cnt[HD_PW_MAX_DIMS];
    for (int k = nb - 1; k >= 0; k--) {
        lo[k] = bi % d->batch[k], cnt[k] = 1;
        bi /= d->batch[k];
    }
    lo[nb] = r0, cnt[nb] = r1 - r0;
    lo[nb + 1] = 0, cnt[nb + 1] = d->N;
    hd_pw_chain_run_box(chain, lo, cnt, nthreads);
}

/* One batch of the fused path: its operands and the row blocks of C. */
typedef struct {
    const hd_matmul_desc *d;
    const hd_pw_chain *chain;
    int64_t bi, oc, rows_per_task;
    const float *A;
    size_t lda;
    char ta;
    const hd_gemm_packed_b *pb;
    float *C;                        /* C itself (direct) or the float copy in the workspace */
    size_t ldc;
    int dc;
} rows_ctx;

static void rows_task(void *ctx, size_t task, int thread)
{
    (void)thread;
    const rows_ctx *x = ctx;
    const hd_matmul_desc *d = x->d;
    int64_t r0 = (int64_t)task * x->rows_per_task, r1 = r0 + x->rows_per_task;
    if (r1 > d->M)
        r1 = d->M;
    const float *A = x->A + (x->ta == 'N' ? (size_t)r0 * x->lda : (size_t)r0);
    hd_sgemm_pb(1, x->ta, (size_t)(r1 - r0), 1.0f, A, x->lda, x->pb, 0.0f, x->C + (size_t)r0 * x->ldc, x->ldc);
    if (!x->dc)
        store_rows(d, x->oc, x->C, r0, r1);
    chain_rows(d, x->chain, x->bi, r0, r1, 1);
}

void hd_matmul_run(const hd_matmul_desc *d, const hd_pw_chain *chain, void *ws, int nthreads)
{
    int nb = d->nbatch;
    int64_t nbatches = 1;
    for (int k = 0; k < nb; k++)
        nbatches *= d->batch[k];
    char ta = 'N', tb = 'N';
    size_t lda = (size_t)d->K, ldb = (size_t)d->N;
    int da = direct(&d->a, d->a.strides[nb], d->a.strides[nb + 1], d->M, d->K, &ta, &lda);
    int db = direct(&d->b, d->b.strides[nb], d->b.strides[nb + 1], d->K, d->N, &tb, &ldb);
    int dc = c_direct(d);
    float *wa = ws, *wb = wa + (da ? 0 : d->M * d->K), *wc = wb + (db ? 0 : d->K * d->N);
    if (!da)
        ta = 'N', lda = (size_t)d->K;
    if (!db)
        tb = 'N', ldb = (size_t)d->N;
    int threads = nthreads > 1 ? nthreads : 1;
    int fused = chain && d->M >= (int64_t)CHAIN_MIN_ROWS * threads && d->N > 0 && d->K > 0;
    hd_gemm_packed_b pb;
    int have_pb = 0;
    int64_t pb_off = -1;
    for (int64_t bi = 0; bi < nbatches; bi++) {
        int64_t oa = batch_offset(d, &d->a, bi), ob = batch_offset(d, &d->b, bi), oc = batch_offset(d, &d->c, bi);
        const float *A = da ? (const float *)d->a.ptr + oa : wa;
        const float *B = db ? (const float *)d->b.ptr + ob : wb;
        if (!da)
            pack(&d->a, oa, d->a.strides[nb], d->a.strides[nb + 1], d->M, d->K, wa);
        if (!db)
            pack(&d->b, ob, d->b.strides[nb], d->b.strides[nb + 1], d->K, d->N, wb);
        float *C = dc ? (float *)d->c.ptr + oc : wc;
        size_t ldc = dc ? (size_t)(d->M == 1 ? d->N : d->c.strides[nb]) : (size_t)d->N;
        if (fused) {
            /* B is packed again only when it changes (not for a B broadcast over the batch) */
            if (!have_pb || !db || ob != pb_off) {
                if (have_pb)
                    hd_gemm_pb_free(&pb);
                hd_sgemm_pack_b(&pb, nthreads, tb, (size_t)d->N, (size_t)d->K, B, ldb);
                have_pb = 1, pb_off = ob;
            }
            int64_t rows = CHAIN_BLOCK_FLOATS / d->N, per_thread = (d->M + threads - 1) / threads;
            rows = rows < CHAIN_MIN_ROWS ? CHAIN_MIN_ROWS : rows;
            rows = rows > per_thread ? per_thread : rows;
            rows_ctx x = { d, chain, bi, oc, rows, A, lda, ta, &pb, C, ldc, dc };
            hd_parallel_for((size_t)((d->M + rows - 1) / rows), nthreads, rows_task, &x);
            continue;
        }
        hd_sgemm(nthreads, ta, tb, (size_t)d->M, (size_t)d->N, (size_t)d->K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
        if (!dc)
            store_rows(d, oc, wc, 0, d->M);
        if (chain)
            chain_rows(d, chain, bi, 0, d->M, nthreads);
    }
    if (have_pb)
        hd_gemm_pb_free(&pb);
}
