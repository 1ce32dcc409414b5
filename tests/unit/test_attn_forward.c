/* Multi-head attention: buffer sizes, weight lookup and cudnnMultiHeadAttnForward against the
 * float64 reference (tests/ref/attn_ref.c): projections on/off, biases, query maps, axis
 * orders, windows, currIdx, residuals, FLOAT/DOUBLE/HALF; bad input. */
#include <cudnn.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "rnn_test_util.h"
#include "ref/attn_ref.h"

static cudnnHandle_t h;

typedef struct {
    int heads, qs, ks, vs, qp, kp, vp, op;
    unsigned mode;
    cudnnDataType_t dt;
    int QT, KT, B, QB;
    int axes_kind;         /* 0: T,B,beam,V  1: B,beam,T,V */
    int curr;              /* currIdx */
    int residual;
    double scaler;
} acase;

static size_t esz(cudnnDataType_t dt) { return dt == CUDNN_DATA_DOUBLE ? 8 : dt == CUDNN_DATA_HALF ? 2 : 4; }
static double get(const void *p, cudnnDataType_t dt, size_t i)
{
    if (dt == CUDNN_DATA_HALF) return rtu_from_half(((const uint16_t *)p)[i]);
    return dt == CUDNN_DATA_DOUBLE ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
static void put(void *p, cudnnDataType_t dt, size_t i, double v)
{
    if (dt == CUDNN_DATA_HALF) ((uint16_t *)p)[i] = rtu_to_half(v);
    else if (dt == CUDNN_DATA_DOUBLE) ((double *)p)[i] = v; else ((float *)p)[i] = (float)v;
}

/* Offset of (t, b, beam, x) in sequence data stored with AXES (outermost first). */
static size_t seq_off(const int dims[4], const cudnnSeqDataAxis_t axes[4], int t, int b, int beam, int x)
{
    int idx[4];
    idx[CUDNN_SEQDATA_TIME_DIM] = t; idx[CUDNN_SEQDATA_BATCH_DIM] = b;
    idx[CUDNN_SEQDATA_BEAM_DIM] = beam; idx[CUDNN_SEQDATA_VECT_DIM] = x;
    size_t off = 0;
    for (int i = 0; i < 4; i++)
        off = off * (size_t)dims[axes[i]] + (size_t)idx[axes[i]];
    return off;
}

static void run(const acase *c, unsigned seed)
{
    const cudnnDataType_t dt = c->dt;
    const size_t es = esz(dt);
    cudnnAttnDescriptor_t a;
    CHECK_OK(cudnnCreateAttnDescriptor(&a));
    CHECK_OK(cudnnSetAttnDescriptor(a, c->mode, c->heads, c->scaler, dt, dt == CUDNN_DATA_HALF ? CUDNN_DATA_FLOAT : dt,
                                    CUDNN_DEFAULT_MATH, NULL, NULL, c->qs, c->ks, c->vs, c->qp, c->kp, c->vp, c->op,
                                    c->QT, c->KT, c->B, c->QB));
    size_t wsize = 0, wks = 0, rss = 7;
    CHECK_OK(cudnnGetMultiHeadAttnBuffers(h, a, &wsize, &wks, &rss));
    const int dv = c->vp ? c->vp : c->vs, dout = c->op ? c->op : c->heads * dv;
    const int bias = (c->mode & CUDNN_ATTN_ENABLE_PROJ_BIASES) != 0;
    unsigned char *w = calloc(wsize ? wsize : 1, 1);
    unsigned char *cover = calloc(wsize ? wsize : 1, 1);
    double *ref[8] = { 0 };
    const int prj[4] = { c->qp, c->kp, c->vp, c->op }, in[4] = { c->qs, c->ks, c->vs, dv };
    cudnnTensorDescriptor_t wd = rtu_tensor_empty();
    for (int k = 0; k < 8; k++) {
        void *addr = (void *)1;
        CHECK_OK(cudnnGetMultiHeadAttnWeights(h, a, (cudnnMultiHeadAttnWeightKind_t)k, wsize, w, wd, &addr));
        int p = prj[k % 4];
        int present = p && (k < 4 || bias);
        CHECK_MSG((addr != NULL) == present, "weight kind %d presence", k);
        if (!addr) continue;
        cudnnDataType_t tdt; int nb, dims[8], str[8];
        CHECK(rtu_tensor_get(wd, &tdt, &nb, dims, str) == 0);
        int heads = k == 7 ? 1 : c->heads, cols = k < 4 ? in[k] : 1;
        CHECK_MSG(nb == 3 && dims[0] == heads && dims[1] == p && dims[2] == cols && tdt == dt,
                  "kind %d dims {%d,%d,%d}, want {%d,%d,%d}", k, dims[0], dims[1], dims[2], heads, p, cols);
        size_t n = (size_t)heads * p * cols, off = (size_t)((unsigned char *)addr - w);
        CHECK(off + n * es <= wsize);
        ref[k] = malloc(n * sizeof(double));
        for (size_t i = 0; i < n; i++) {
            double v = rtu_rand(&seed, 0.6);
            put(addr, dt, i, v);
            ref[k][i] = get(addr, dt, i);
        }
        for (size_t i = 0; i < n * es && off + i < wsize; i++) cover[off + i]++;
    }
    size_t bad = 0;
    for (size_t i = 0; i < wsize; i++) bad += cover[i] != 1;
    CHECK_MSG(bad == 0, "weight kinds tile the weight buffer (%zu bytes off)", bad);

    /* sequence data */
    const int one = (c->mode & CUDNN_ATTN_QUERYMAP_ONE_TO_ONE) != 0, KB = one ? c->QB : 1;
    cudnnSeqDataAxis_t ax[4];
    if (c->axes_kind == 0) { ax[0] = CUDNN_SEQDATA_TIME_DIM; ax[1] = CUDNN_SEQDATA_BATCH_DIM; ax[2] = CUDNN_SEQDATA_BEAM_DIM; }
    else { ax[0] = CUDNN_SEQDATA_BATCH_DIM; ax[1] = CUDNN_SEQDATA_BEAM_DIM; ax[2] = CUDNN_SEQDATA_TIME_DIM; }
    ax[3] = CUDNN_SEQDATA_VECT_DIM;
    int qdim[4], kdim[4], vdim[4], odim[4];
    qdim[CUDNN_SEQDATA_TIME_DIM] = c->QT; qdim[CUDNN_SEQDATA_BATCH_DIM] = c->B; qdim[CUDNN_SEQDATA_BEAM_DIM] = c->QB;
    memcpy(kdim, qdim, sizeof kdim); memcpy(odim, qdim, sizeof odim);
    kdim[CUDNN_SEQDATA_TIME_DIM] = c->KT; kdim[CUDNN_SEQDATA_BEAM_DIM] = KB;
    memcpy(vdim, kdim, sizeof vdim);
    qdim[CUDNN_SEQDATA_VECT_DIM] = c->qs; kdim[CUDNN_SEQDATA_VECT_DIM] = c->ks; vdim[CUDNN_SEQDATA_VECT_DIM] = c->vs;
    odim[CUDNN_SEQDATA_VECT_DIM] = dout;
    int qlen[16], klen[16];
    for (int i = 0; i < c->B * c->QB; i++) qlen[i] = c->QT - (i % 2) * (c->QT > 1);
    for (int i = 0; i < c->B * KB; i++) klen[i] = c->KT - (i % 3 == 1) * (c->KT - 1);
    cudnnSeqDataDescriptor_t qd, kd, vd, od;
    CHECK_OK(cudnnCreateSeqDataDescriptor(&qd)); CHECK_OK(cudnnCreateSeqDataDescriptor(&kd));
    CHECK_OK(cudnnCreateSeqDataDescriptor(&vd)); CHECK_OK(cudnnCreateSeqDataDescriptor(&od));
    CHECK_OK(cudnnSetSeqDataDescriptor(qd, dt, 4, qdim, ax, (size_t)c->B * c->QB, qlen, NULL));
    CHECK_OK(cudnnSetSeqDataDescriptor(kd, dt, 4, kdim, ax, (size_t)c->B * KB, klen, NULL));
    CHECK_OK(cudnnSetSeqDataDescriptor(vd, dt, 4, vdim, ax, (size_t)c->B * KB, klen, NULL));
    CHECK_OK(cudnnSetSeqDataDescriptor(od, dt, 4, odim, ax, (size_t)c->B * c->QB, qlen, NULL));
    size_t nq = (size_t)c->QT * c->B * c->QB * c->qs, nk = (size_t)c->KT * c->B * KB * c->ks;
    size_t nv = (size_t)c->KT * c->B * KB * c->vs, no = (size_t)c->QT * c->B * c->QB * dout;
    void *q = malloc(nq * es), *k = malloc(nk * es), *v = malloc(nv * es), *o = malloc(no * es);
    void *res = c->residual ? malloc(nq * es) : NULL;
    for (size_t i = 0; i < nq; i++) put(q, dt, i, rtu_rand(&seed, 1.0));
    for (size_t i = 0; i < nk; i++) put(k, dt, i, rtu_rand(&seed, 1.0));
    for (size_t i = 0; i < nv; i++) put(v, dt, i, rtu_rand(&seed, 1.0));
    if (res) for (size_t i = 0; i < nq; i++) put(res, dt, i, rtu_rand(&seed, 1.0));
    for (size_t i = 0; i < no; i++) put(o, dt, i, 321.0);
    int lo[16], hi[16];
    for (int t = 0; t < c->QT; t++) { lo[t] = t % 3 == 2 ? 1 : 0; hi[t] = t % 2 ? c->KT : t + 1; }
    void *ws = malloc(wks ? wks : 1);
    CHECK_OK(cudnnMultiHeadAttnForward(h, a, c->curr, lo, hi, qlen, klen, qd, q, res, kd, k, vd, v, od, o, wsize, w,
                                       wks, ws, 0, NULL));

    attn_ref_cfg rc;
    memset(&rc, 0, sizeof rc);
    rc.heads = c->heads; rc.scaler = c->scaler; rc.qsize = c->qs; rc.ksize = c->ks; rc.vsize = c->vs;
    rc.qproj = c->qp; rc.kproj = c->kp; rc.vproj = c->vp; rc.oproj = c->op;
    rc.wq = ref[0]; rc.wk = ref[1]; rc.wv = ref[2]; rc.wo = ref[3];
    rc.bq = ref[4]; rc.bk = ref[5]; rc.bv = ref[6]; rc.bo = ref[7];
    double *qv = malloc((size_t)c->qs * sizeof(double)), *kk = malloc((size_t)c->KT * c->ks * sizeof(double));
    double *vv = malloc((size_t)c->KT * c->vs * sizeof(double)), *ov = malloc((size_t)dout * sizeof(double));
    const double tol = dt == CUDNN_DATA_DOUBLE ? 1e-12 : dt == CUDNN_DATA_HALF ? 4e-3 : 2e-6;
    double worst = 0;
    int untouched_ok = 1;
    for (int b = 0; b < c->B; b++)
        for (int beam = 0; beam < c->QB; beam++) {
            int kb = one ? beam : 0, ql = qlen[b * c->QB + beam], kl = klen[b * KB + kb];
            for (int j = 0; j < kl; j++) {
                for (int x = 0; x < c->ks; x++) kk[(size_t)j * c->ks + x] = get(k, dt, seq_off(kdim, ax, j, b, kb, x));
                for (int x = 0; x < c->vs; x++) vv[(size_t)j * c->vs + x] = get(v, dt, seq_off(vdim, ax, j, b, kb, x));
            }
            for (int t = 0; t < c->QT; t++) {
                int computed = t < ql && (c->curr < 0 || c->curr == t);
                if (!computed) {
                    for (int x = 0; x < dout; x++)
                        untouched_ok &= get(o, dt, seq_off(odim, ax, t, b, beam, x)) == 321.0;
                    continue;
                }
                for (int x = 0; x < c->qs; x++) qv[x] = get(q, dt, seq_off(qdim, ax, t, b, beam, x));
                int l0 = lo[t] > 0 ? lo[t] : 0, h0 = hi[t] < kl ? hi[t] : kl;
                attn_ref_query(&rc, qv, kk, vv, l0, h0, ov);
                for (int x = 0; x < dout; x++) {
                    double want = ov[x] + (res ? get(res, dt, seq_off(qdim, ax, t, b, beam, x)) : 0.0);
                    double e = fabs(get(o, dt, seq_off(odim, ax, t, b, beam, x)) - want) / (1.0 + fabs(want));
                    if (!(e <= worst)) worst = e;
                }
            }
        }
    CHECK_MSG(worst <= tol, "heads %d proj %d/%d/%d/%d mode %u dt %d axes %d curr %d: worst error %g", c->heads, c->qp,
              c->kp, c->vp, c->op, c->mode, dt, c->axes_kind, c->curr, worst);
    CHECK_MSG(untouched_ok, "positions not computed are left alone");

    if (c->dt == CUDNN_DATA_FLOAT && c->op && c->residual == 0 && c->curr < 0) {
        SECTION("attention bad input");
        void *sv = malloc(no * es);
        memcpy(sv, o, no * es);
        CHECK_STATUS(cudnnMultiHeadAttnForward(NULL, a, -1, lo, hi, qlen, klen, qd, q, NULL, kd, k, vd, v, od, o, wsize, w,
                                               wks, ws, 0, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnForward(h, NULL, -1, lo, hi, qlen, klen, qd, q, NULL, kd, k, vd, v, od, o, wsize, w,
                                               wks, ws, 0, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnForward(h, a, c->QT, lo, hi, qlen, klen, qd, q, NULL, kd, k, vd, v, od, o, wsize, w,
                                               wks, ws, 0, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnForward(h, a, -1, NULL, hi, qlen, klen, qd, q, NULL, kd, k, vd, v, od, o, wsize, w,
                                               wks, ws, 0, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnForward(h, a, -1, lo, hi, NULL, klen, qd, q, NULL, kd, k, vd, v, od, o, wsize, w,
                                               wks, ws, 0, NULL), CUDNN_STATUS_BAD_PARAM);
        int wrong[16];
        memcpy(wrong, klen, sizeof wrong);
        wrong[0]++;
        CHECK_STATUS(cudnnMultiHeadAttnForward(h, a, -1, lo, hi, qlen, wrong, qd, q, NULL, kd, k, vd, v, od, o, wsize, w,
                                               wks, ws, 0, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnForward(h, a, -1, lo, hi, qlen, klen, kd, q, NULL, kd, k, vd, v, od, o, wsize, w,
                                               wks, ws, 0, NULL), c->qs == c->ks && c->QT == c->KT ? CUDNN_STATUS_SUCCESS
                                                                                                  : CUDNN_STATUS_BAD_PARAM);
        memcpy(o, sv, no * es);
        CHECK_STATUS(cudnnMultiHeadAttnForward(h, a, -1, lo, hi, qlen, klen, qd, q, NULL, kd, k, vd, v, vd, o, wsize, w,
                                               wks, ws, 0, NULL), CUDNN_STATUS_BAD_PARAM);   /* o width */
        CHECK_STATUS(cudnnMultiHeadAttnForward(h, a, -1, lo, hi, qlen, klen, qd, q, q, kd, k, vd, v, od, o, wsize, w,
                                               wks, ws, 0, NULL), c->op == c->qs ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM);
        memcpy(o, sv, no * es);
        CHECK_STATUS(cudnnMultiHeadAttnForward(h, a, -1, lo, hi, qlen, klen, qd, q, NULL, kd, k, vd, v, od, o, wsize - 1, w,
                                               wks, ws, 0, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnForward(h, a, -1, lo, hi, qlen, klen, qd, q, NULL, kd, k, vd, v, od, o, wsize, w,
                                               wks - 1, ws, 0, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnMultiHeadAttnForward(h, a, -1, lo, hi, qlen, klen, qd, NULL, NULL, kd, k, vd, v, od, o, wsize, w,
                                               wks, ws, 0, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK(memcmp(o, sv, no * es) == 0);
        free(sv);
        void *addr = (void *)5;
        CHECK_STATUS(cudnnGetMultiHeadAttnWeights(h, a, (cudnnMultiHeadAttnWeightKind_t)8, wsize, w, wd, &addr), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetMultiHeadAttnWeights(h, a, CUDNN_MH_ATTN_Q_WEIGHTS, wsize - 1, w, wd, &addr), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetMultiHeadAttnWeights(h, a, CUDNN_MH_ATTN_Q_WEIGHTS, wsize, NULL, wd, &addr), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetMultiHeadAttnWeights(h, a, CUDNN_MH_ATTN_Q_WEIGHTS, wsize, w, NULL, &addr), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetMultiHeadAttnWeights(h, a, CUDNN_MH_ATTN_Q_WEIGHTS, wsize, w, wd, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK(addr == (void *)5);
        size_t s1;
        CHECK_STATUS(cudnnGetMultiHeadAttnBuffers(h, a, NULL, &s1, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetMultiHeadAttnBuffers(h, a, &s1, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK_STATUS(cudnnGetMultiHeadAttnBuffers(NULL, a, &s1, &s1, NULL), CUDNN_STATUS_BAD_PARAM);
        cudnnAttnDescriptor_t un;
        CHECK_OK(cudnnCreateAttnDescriptor(&un));
        CHECK_STATUS(cudnnGetMultiHeadAttnBuffers(h, un, &s1, &s1, NULL), CUDNN_STATUS_BAD_PARAM);
        CHECK_OK(cudnnDestroyAttnDescriptor(un));
    }

    for (int i = 0; i < 8; i++) free(ref[i]);
    free(w); free(cover); free(q); free(k); free(v); free(o); free(res); free(ws);
    free(qv); free(kk); free(vv); free(ov);
    rtu_tensor_free(wd);
    cudnnDestroySeqDataDescriptor(qd); cudnnDestroySeqDataDescriptor(kd);
    cudnnDestroySeqDataDescriptor(vd); cudnnDestroySeqDataDescriptor(od);
    cudnnDestroyAttnDescriptor(a);
}

int main(void)
{
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return 1;
    SECTION("attention forward vs reference");
    unsigned seed = 3;
    const cudnnDataType_t dts[3] = { CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF };
    for (int di = 0; di < 3; di++)
        for (int variant = 0; variant < 6; variant++) {
            acase c;
            memset(&c, 0, sizeof c);
            c.dt = dts[di]; c.heads = 1 + variant % 3; c.qs = 6; c.ks = 5; c.vs = 4;
            c.qp = 3; c.kp = 3; c.vp = 2; c.op = 6;
            c.mode = (variant & 1 ? CUDNN_ATTN_QUERYMAP_ONE_TO_ONE : 0) | (variant & 2 ? CUDNN_ATTN_ENABLE_PROJ_BIASES : 0);
            c.QT = 4; c.KT = 5; c.B = 2; c.QB = 2; c.axes_kind = variant % 2; c.curr = -1; c.scaler = 0.7;
            if (variant == 3) { c.qp = c.kp = 0; c.ks = 6; c.vp = 0; c.op = 0; }   /* no projections at all */
            if (variant == 4) { c.curr = 2; c.residual = 1; }
            if (variant == 5) { c.op = 0; c.B = 1; c.QB = 1; c.QT = 1; c.KT = 1; }
            run(&c, seed++);
        }
    cudnnDestroy(h);
    return hd_test_finish();
}
