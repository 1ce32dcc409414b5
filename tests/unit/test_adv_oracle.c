/*
 * Differential check of the RNN / RNN data / sequence data / attention descriptor setters
 * against NVIDIA's cuDNN 9 (dlopen'd when present; skipped otherwise and under sanitizers).
 * Only calls whose cuDNN 8.1 meaning cuDNN 9 kept are compared; the deliberate differences are
 * listed in docs/rnn.md.  cuDNN 9 statuses are mapped to their cuDNN 8 class
 * (2xxx -> BAD_PARAM, 3xxx -> NOT_SUPPORTED).
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

typedef int (*cr_fn)(void **);
typedef int (*rnn_set_fn)(void *, int, int, int, int, int, int, int, int, int32_t, int32_t, int32_t, int32_t, void *, uint32_t);
typedef int (*clip_fn)(void *, int, int, double, double);
typedef int (*data_set_fn)(void *, int, int, int, int, int, const int *, void *);
typedef int (*seq_set_fn)(void *, int, int, const int *, const int *, size_t, const int *, void *);
typedef int (*attn_set_fn)(void *, unsigned, int, double, int, int, int, void *, void *, int, int, int, int, int, int,
                           int, int, int, int, int);

static int norm(int s9)
{
    if (s9 == 0) return CUDNN_STATUS_SUCCESS;
    if (s9 >= 2000 && s9 < 3000) return CUDNN_STATUS_BAD_PARAM;
    if (s9 >= 3000 && s9 < 4000) return CUDNN_STATUS_NOT_SUPPORTED;
    return -1;
}

#define SAME(ours, theirs, what) do { int o_ = (int)(ours), t_ = norm(theirs); \
    CHECK_MSG(o_ == t_, "%s: hostdnn %s, cuDNN 9 %s", what, cudnnGetErrorString((cudnnStatus_t)o_), \
              t_ < 0 ? "other" : cudnnGetErrorString((cudnnStatus_t)t_)); } while (0)

int main(void)
{
    const char *mode = getenv("HD_MODE");
    if (mode && strstr(mode, "sanitized")) {
        SKIP("cuDNN 9 oracle: not loaded under the sanitizers");
        return hd_test_finish();
    }
    const char *path = getenv("HD_CUDNN9_ADV");
    void *lib = dlopen(path ? path : "/usr/local/cuda/lib64/libcudnn_adv.so.9", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!lib) {
        SKIP("cuDNN 9 oracle not found (%s)", dlerror());
        return hd_test_finish();
    }
    cr_fn t_cr_rnn = (cr_fn)dlsym(lib, "cudnnCreateRNNDescriptor");
    rnn_set_fn t_set = (rnn_set_fn)dlsym(lib, "cudnnSetRNNDescriptor_v8");
    clip_fn t_clip = (clip_fn)dlsym(lib, "cudnnRNNSetClip_v8");
    cr_fn t_cr_data = (cr_fn)dlsym(lib, "cudnnCreateRNNDataDescriptor");
    data_set_fn t_data = (data_set_fn)dlsym(lib, "cudnnSetRNNDataDescriptor");
    cr_fn t_cr_seq = (cr_fn)dlsym(lib, "cudnnCreateSeqDataDescriptor");
    seq_set_fn t_seq = (seq_set_fn)dlsym(lib, "cudnnSetSeqDataDescriptor");
    cr_fn t_cr_attn = (cr_fn)dlsym(lib, "cudnnCreateAttnDescriptor");
    attn_set_fn t_attn = (attn_set_fn)dlsym(lib, "cudnnSetAttnDescriptor");
    if (!t_cr_rnn || !t_set || !t_clip || !t_cr_data || !t_data || !t_cr_seq || !t_seq || !t_cr_attn || !t_attn) {
        SKIP("cuDNN 9 oracle lacks a descriptor function");
        return hd_test_finish();
    }

    SECTION("RNN descriptor v8");
    void *tr = NULL;
    cudnnRNNDescriptor_t r;
    CHECK(t_cr_rnn(&tr) == 0);
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    /* algo, cell, bias, dir, inputMode, dataType, mathPrec, mathType, in, hid, proj, layers, aux */
    static const int rnn_cases[][13] = {
        { 0, 2, 2, 0, 0, 0, 0, 0, 4, 8, 8, 1, 0 },  { 0, 2, 2, 0, 0, 0, 0, 0, 4, 8, 5, 1, 0 },
        { 0, 3, 2, 0, 0, 0, 0, 0, 4, 8, 5, 1, 0 },  { 0, 0, 2, 0, 0, 0, 0, 0, 4, 8, 5, 1, 0 },
        { 0, 2, 2, 0, 0, 0, 0, 0, 4, 8, 9, 1, 0 },  { 0, 2, 2, 0, 0, 0, 0, 0, 4, 8, 0, 1, 0 },
        { 0, 2, 2, 0, 0, 0, 1, 0, 4, 8, 8, 1, 0 },  { 0, 2, 2, 0, 0, 1, 0, 0, 4, 8, 8, 1, 0 },
        { 0, 2, 2, 0, 0, 1, 1, 0, 4, 8, 8, 1, 0 },  { 0, 2, 2, 0, 0, 2, 0, 0, 4, 8, 8, 1, 0 },
        { 0, 2, 2, 0, 0, 2, 2, 0, 4, 8, 8, 1, 0 },  { 0, 2, 2, 0, 0, 3, 3, 0, 4, 8, 8, 1, 0 },
        { 0, 2, 2, 0, 1, 0, 0, 0, 4, 8, 8, 1, 0 },  { 0, 2, 2, 0, 1, 0, 0, 0, 8, 8, 8, 1, 0 },
        { 0, 2, 2, 0, 0, 0, 0, 0, 0, 8, 8, 1, 0 },  { 0, 2, 2, 0, 0, 0, 0, 0, -2, 8, 8, 1, 0 },
        { 0, 2, 2, 0, 0, 0, 0, 0, 4, 0, 0, 1, 0 },  { 0, 2, 2, 0, 0, 0, 0, 0, 4, 8, 8, 0, 0 },
        { 0, 2, 2, 0, 0, 0, 0, 0, 4, 8, 8, -3, 0 }, { 0, 2, 2, 0, 0, 0, 0, 0, 4, 8, 8, 1, 1 },
        { 0, 2, 2, 0, 0, 0, 0, 0, 4, 8, 8, 1, 2 },  { 0, 2, 2, 0, 0, 0, 0, 0, 4, 8, 8, 1, 0x10 },
        { 4, 2, 2, 0, 0, 0, 0, 0, 4, 8, 8, 1, 0 },  { 99, 2, 2, 0, 0, 0, 0, 0, 4, 8, 8, 1, 0 },
        { 1, 2, 0, 0, 0, 0, 0, 0, 4, 8, 8, 1, 0 },  { 1, 2, 2, 0, 0, 0, 0, 0, 4, 8, 5, 1, 0 },
        { 2, 2, 0, 0, 0, 0, 0, 0, 4, 8, 8, 1, 0 },  { 3, 2, 3, 0, 0, 0, 0, 0, 4, 8, 8, 1, 0 },
        { 2, 3, 2, 1, 0, 0, 0, 0, 4, 8, 8, 2, 0 },  { 0, 2, 2, 0, 0, 0, 0, 4, 4, 8, 8, 1, 0 },
        { 0, 2, 2, 0, 0, 1, 1, 1, 4, 8, 8, 1, 0 },  { 0, 2, 2, 0, 0, 0, 0, 3, 4, 8, 8, 1, 0 },
        { 0, 2, 99, 0, 0, 0, 0, 0, 4, 8, 8, 1, 0 }, { 0, 2, 2, 2, 0, 0, 0, 0, 4, 8, 8, 1, 0 },
        { 0, 99, 2, 0, 0, 0, 0, 0, 4, 8, 8, 1, 0 }, { 0, 2, 2, 0, 99, 0, 0, 0, 4, 8, 8, 1, 0 },
        { 0, 1, 1, 1, 0, 0, 0, 0, 3, 5, 5, 3, 0 },  { 0, 0, 3, 0, 0, 2, 0, 0, 3, 5, 5, 3, 1 },
    };
    for (size_t i = 0; i < sizeof rnn_cases / sizeof rnn_cases[0]; i++) {
        const int *c = rnn_cases[i];
        char what[64];
        snprintf(what, sizeof what, "SetRNNDescriptor_v8 case %zu", i);
        int theirs = t_set(tr, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], NULL, (uint32_t)c[12]);
        cudnnStatus_t ours = cudnnSetRNNDescriptor_v8(r, (cudnnRNNAlgo_t)c[0], (cudnnRNNMode_t)c[1], (cudnnRNNBiasMode_t)c[2],
            (cudnnDirectionMode_t)c[3], (cudnnRNNInputMode_t)c[4], (cudnnDataType_t)c[5], (cudnnDataType_t)c[6],
            (cudnnMathType_t)c[7], c[8], c[9], c[10], c[11], NULL, (uint32_t)c[12]);
        SAME(ours, theirs, what);
    }

    SECTION("RNN clip");
    static const double clips[][2] = { { -1, 1 }, { 1, -1 }, { 0.5, 0.5 }, { 0, 1e300 }, { -1e300, 0 } };
    for (int m = 0; m <= 1; m++)
        for (size_t i = 0; i < sizeof clips / sizeof clips[0]; i++) {
            char what[64];
            snprintf(what, sizeof what, "RNNSetClip_v8 mode %d case %zu", m, i);
            SAME(cudnnRNNSetClip_v8(r, (cudnnRNNClipMode_t)m, CUDNN_PROPAGATE_NAN, clips[i][0], clips[i][1]),
                 t_clip(tr, m, 1, clips[i][0], clips[i][1]), what);
        }

    SECTION("RNN data descriptor");
    void *td = NULL;
    cudnnRNNDataDescriptor_t d;
    CHECK(t_cr_data(&td) == 0);
    CHECK_OK(cudnnCreateRNNDataDescriptor(&d));
    static const int lens_unsorted[3] = { 2, 4, 1 }, lens_sorted[3] = { 4, 2, 1 }, lens_zero[3] = { 4, 0, 1 };
    static const int lens_neg[3] = { 4, -1, 1 };
    struct { int dt, layout, T, B, V; const int *lens; } dc[] = {
        { 0, 0, 4, 3, 5, lens_unsorted }, { 0, 1, 4, 3, 5, lens_unsorted }, { 0, 1, 4, 3, 5, lens_sorted },
        { 0, 2, 4, 3, 5, lens_unsorted }, { 1, 0, 4, 3, 5, lens_zero },     { 2, 2, 4, 3, 5, lens_sorted },
        { 0, 0, 3, 3, 5, lens_unsorted }, { 0, 0, 4, 3, 5, lens_neg },      { 3, 0, 4, 3, 5, lens_sorted },
        { 0, 3, 4, 3, 5, lens_sorted },   { 0, 99, 4, 3, 5, lens_sorted },  { 0, 0, 0, 3, 5, lens_sorted },
        { 0, 0, 4, 0, 5, lens_sorted },   { 0, 0, 4, 3, 0, lens_sorted },   { 0, 0, 4, 3, -5, lens_sorted },
        { 0, 0, 4, 3, 5, NULL },
    };
    float fill = 1.0f;
    for (size_t i = 0; i < sizeof dc / sizeof dc[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "SetRNNDataDescriptor case %zu", i);
        SAME(cudnnSetRNNDataDescriptor(d, (cudnnDataType_t)dc[i].dt, (cudnnRNNDataLayout_t)dc[i].layout, dc[i].T, dc[i].B,
                                       dc[i].V, dc[i].lens, &fill),
             t_data(td, dc[i].dt, dc[i].layout, dc[i].T, dc[i].B, dc[i].V, dc[i].lens, &fill), what);
    }

    SECTION("sequence data descriptor");
    void *ts = NULL;
    cudnnSeqDataDescriptor_t s;
    CHECK(t_cr_seq(&ts) == 0);
    CHECK_OK(cudnnCreateSeqDataDescriptor(&s));
    static const int dims[4] = { 5, 3, 2, 8 }, dims0[4] = { 5, 3, 0, 8 };
    static const int ax_ok[4] = { 1, 2, 0, 3 }, ax_tbb[4] = { 0, 1, 2, 3 }, ax_beam[4] = { 2, 1, 0, 3 };
    static const int ax_vfirst[4] = { 3, 1, 2, 0 }, ax_dup[4] = { 1, 1, 0, 3 };
    static const int sl[6] = { 5, 4, 3, 2, 1, 1 }, sl0[6] = { 5, 4, 3, 2, 1, 0 }, sllong[6] = { 6, 1, 1, 1, 1, 1 };
    struct { int dt, nb; const int *dims, *axes; size_t n; const int *lens; } sc[] = {
        { 0, 4, dims, ax_ok, 6, sl },     { 0, 4, dims, ax_tbb, 6, sl },   { 0, 4, dims, ax_beam, 6, sl },
        { 1, 4, dims, ax_ok, 6, sl },     { 2, 4, dims, ax_ok, 6, sl },    { 0, 4, dims, ax_vfirst, 6, sl },
        { 0, 4, dims, ax_dup, 6, sl },    { 0, 4, dims, ax_ok, 6, sl0 },   { 0, 4, dims, ax_ok, 6, sllong },
        { 0, 4, dims, ax_ok, 5, sl },     { 0, 3, dims, ax_ok, 6, sl },    { 0, 5, dims, ax_ok, 6, sl },
        { 0, 4, dims0, ax_ok, 0, sl },    { 99, 4, dims, ax_ok, 6, sl },
    };
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "SetSeqDataDescriptor case %zu", i);
        SAME(cudnnSetSeqDataDescriptor(s, (cudnnDataType_t)sc[i].dt, sc[i].nb, sc[i].dims,
                                       (const cudnnSeqDataAxis_t *)sc[i].axes, sc[i].n, sc[i].lens, NULL),
             t_seq(ts, sc[i].dt, sc[i].nb, sc[i].dims, sc[i].axes, sc[i].n, sc[i].lens, NULL), what);
    }

    SECTION("attention descriptor");
    void *ta = NULL;
    cudnnAttnDescriptor_t a;
    CHECK(t_cr_attn(&ta) == 0);
    CHECK_OK(cudnnCreateAttnDescriptor(&a));
    /* mode, heads, scaler*8, dt, cp, mt, q, k, v, qp, kp, vp, op, qo, kv, batch, beam */
    static const int ac[][17] = {
        { 0, 2, 8, 0, 0, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 },  { 3, 2, 8, 0, 0, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 },
        { 4, 2, 8, 0, 0, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 },  { 0, 0, 8, 0, 0, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 },
        { 0, 2, -8, 0, 0, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 }, { 0, 2, 0, 0, 0, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 },
        { 0, 2, 8, 1, 1, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 },  { 0, 2, 8, 0, 1, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 },
        { 0, 2, 8, 2, 0, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 },  { 0, 2, 8, 2, 2, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 },
        { 0, 2, 8, 3, 3, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 },  { 0, 2, 8, 99, 0, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 },
        { 0, 2, 8, 0, 0, 9, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 },  { 0, 2, 8, 0, 0, 0, 0, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1 },
        { 0, 2, 8, 0, 0, 0, 4, 4, 0, 2, 2, 2, 4, 4, 5, 2, 1 },  { 0, 2, 8, 0, 0, 0, 4, 5, 4, 0, 0, 0, 0, 4, 5, 2, 1 },
        { 0, 2, 8, 0, 0, 0, 4, 5, 4, 2, 3, 2, 4, 4, 5, 2, 1 },  { 0, 2, 8, 0, 0, 0, 4, 4, 4, -1, -1, 2, 4, 4, 5, 2, 1 },
        { 0, 2, 8, 0, 0, 0, 4, 4, 4, 2, 2, -2, 4, 4, 5, 2, 1 }, { 0, 2, 8, 0, 0, 0, 4, 4, 4, 2, 2, 2, -4, 4, 5, 2, 1 },
        { 0, 2, 8, 0, 0, 0, 4, 4, 4, 2, 2, 2, 4, 0, 5, 2, 1 },  { 0, 2, 8, 0, 0, 0, 4, 4, 4, 2, 2, 2, 4, 4, 0, 2, 1 },
        { 0, 2, 8, 0, 0, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 0, 1 },  { 0, 2, 8, 0, 0, 0, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 0 },
        { 0, 2, 8, 0, 0, 0, 4, 4, 4, 2, 2, 0, 0, 4, 5, 2, 1 },  { 0, 2, 8, 0, 0, 0, 4, 4, 4, 0, 0, 2, 4, 4, 5, 2, 1 },
    };
    for (size_t i = 0; i < sizeof ac / sizeof ac[0]; i++) {
        const int *c = ac[i];
        char what[64];
        snprintf(what, sizeof what, "SetAttnDescriptor case %zu", i);
        SAME(cudnnSetAttnDescriptor(a, (unsigned)c[0], c[1], c[2] / 8.0, (cudnnDataType_t)c[3], (cudnnDataType_t)c[4],
                                    (cudnnMathType_t)c[5], NULL, NULL, c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13],
                                    c[14], c[15], c[16]),
             t_attn(ta, (unsigned)c[0], c[1], c[2] / 8.0, c[3], c[4], c[5], NULL, NULL, c[6], c[7], c[8], c[9], c[10],
                    c[11], c[12], c[13], c[14], c[15], c[16]), what);
    }

    cudnnDestroyRNNDescriptor(r);
    cudnnDestroyRNNDataDescriptor(d);
    cudnnDestroySeqDataDescriptor(s);
    cudnnDestroyAttnDescriptor(a);
    /* the oracle's objects are left to process exit: its destroy calls are not part of the check */
    return hd_test_finish();
}
