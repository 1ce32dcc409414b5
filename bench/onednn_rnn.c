/*
 * onednn_rnn.c -- the oneDNN side of bench/compare_rnn.sh: times fp32 LSTM and GRU primitives
 * of oneDNN (Debian's libdnnl-dev, 2.6) on the problems hostdnn_rnn takes.
 *
 *   onednn_rnn [--reps R] PROBLEM...      PROBLEM as in hostdnn_rnn.c (lstm-i512h512t50n32l1d1)
 *
 * GRU is oneDNN's linear-before-reset GRU, the cell cuDNN computes.  Every layer is its own
 * primitive (a oneDNN multi-layer primitive needs every layer's input as wide as the
 * hidden state, which a bidirectional stack is not); weights use oneDNN's preferred layout
 * ("any"), reordered once outside the timing, as a framework does once per model.
 * oneDNN has one backward primitive for data and weights, so passes are:
 *   inf (forward_inference), fwd (forward_training), train (forward_training + backward).
 * Output: "<problem> <pass> onednn <median ms> <GFLOP/s>", FLOPs counted as in hostdnn_rnn.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_time.h"

#define CK(x) do { dnnl_status_t s_ = (x); if (s_ != dnnl_success) { \
    fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)s_); exit(1); } } while (0)

#define WARM_MS 30.0
#define MAXL 8

static dnnl_engine_t eng;
static dnnl_stream_t strm;

typedef struct { int lstm, in, hid, t, n, l, d; } prob;

static int parse(const char *s, prob *p)
{
    memset(p, 0, sizeof *p);
    if (!strncmp(s, "lstm-", 5)) p->lstm = 1;
    else if (strncmp(s, "gru-", 4)) return -1;
    const char *q = strchr(s, '-') + 1;
    while (*q) {
        char key = *q++;
        char *end;
        long v = strtol(q, &end, 10);
        if (end == q || v <= 0) return -1;
        q = end;
        switch (key) {
        case 'i': p->in = (int)v; break;
        case 'h': p->hid = (int)v; break;
        case 't': p->t = (int)v; break;
        case 'n': p->n = (int)v; break;
        case 'l': p->l = (int)v; break;
        case 'd': p->d = (int)v; break;
        default: return -1;
        }
    }
    return p->in && p->hid && p->t && p->n && p->l <= MAXL && p->l && (p->d == 1 || p->d == 2) ? 0 : -1;
}

static double pass_gflop(const prob *p)
{
    double G = p->lstm ? 4 : 3, f = 0;
    for (int l = 0; l < p->l; l++) {
        double in = l == 0 ? p->in : (double)p->d * p->hid;
        f += 2.0 * G * p->hid * (in + p->hid) * p->n * p->t * p->d;
    }
    return f * 1e-9;
}

static dnnl_memory_t mem(const dnnl_memory_desc_t *md)
{
    dnnl_memory_t m;
    CK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
    void *ptr;
    CK(dnnl_memory_get_data_handle(m, &ptr));
    size_t n = dnnl_memory_desc_get_size(md) / 4;
    for (size_t i = 0; i < n; i++) ((float *)ptr)[i] = (float)((i * 7) % 13) * 0.02f - 0.12f;
    return m;
}

/* One layer: the forward primitive of KIND and, for training, the backward one and buffers. */
typedef struct {
    dnnl_primitive_t fwd, bwd;
    dnnl_memory_t src, dst, wl, wi, bias, ws, dsrc, ddst, dwl, dwi, dbias;
} layer;

static void rnn_desc(const prob *p, int fwd, dnnl_prop_kind_t kind, int in, dnnl_rnn_desc_t *rd)
{
    const int G = p->lstm ? 4 : 3, D = p->d, H = p->hid;
    dnnl_rnn_direction_t dir = D == 2 ? dnnl_bidirectional_concat : dnnl_unidirectional;
    dnnl_dims_t sd = { p->t, p->n, in }, dd = { p->t, p->n, D * H };
    dnnl_dims_t wl = { 1, D, in, G, H }, wi = { 1, D, H, G, H }, bd = { 1, D, G + (p->lstm ? 0 : 1), H };
    dnnl_memory_desc_t src, dst, mwl, mwi, mb;
    CK(dnnl_memory_desc_init_by_tag(&src, 3, sd, dnnl_f32, dnnl_tnc));
    CK(dnnl_memory_desc_init_by_tag(&dst, 3, dd, dnnl_f32, dnnl_tnc));
    CK(dnnl_memory_desc_init_by_tag(&mwl, 5, wl, dnnl_f32, dnnl_format_tag_any));
    CK(dnnl_memory_desc_init_by_tag(&mwi, 5, wi, dnnl_f32, dnnl_format_tag_any));
    CK(dnnl_memory_desc_init_by_tag(&mb, 4, bd, dnnl_f32, dnnl_ldgo));
    if (fwd) {
        if (p->lstm)
            CK(dnnl_lstm_forward_desc_init(rd, kind, dir, &src, NULL, NULL, &mwl, &mwi, &mb, &dst, NULL, NULL, 0));
        else
            CK(dnnl_lbr_gru_forward_desc_init(rd, kind, dir, &src, NULL, &mwl, &mwi, &mb, &dst, NULL, 0));
        return;
    }
    if (p->lstm)
        CK(dnnl_lstm_backward_desc_init(rd, dnnl_backward, dir, &src, NULL, NULL, &mwl, &mwi, &mb, &dst, NULL, NULL,
                                        &src, NULL, NULL, &mwl, &mwi, &mb, &dst, NULL, NULL, 0));
    else
        CK(dnnl_lbr_gru_backward_desc_init(rd, dnnl_backward, dir, &src, NULL, &mwl, &mwi, &mb, &dst, NULL, &src,
                                           NULL, &mwl, &mwi, &mb, &dst, NULL, 0));
}

/* A weights buffer in the primitive's layout MD: filled in the plain ldigo layout DIMS and
 * reordered, since oneDNN's packed layouts hold more than the values. */
static dnnl_memory_t weights(const dnnl_memory_desc_t *md, const dnnl_dims_t dims)
{
    dnnl_memory_desc_t plain;
    CK(dnnl_memory_desc_init_by_tag(&plain, 5, dims, dnnl_f32, dnnl_ldigo));
    dnnl_memory_t src = mem(&plain), dst;
    CK(dnnl_memory_create(&dst, md, eng, DNNL_MEMORY_ALLOCATE));
    dnnl_primitive_desc_t rpd;
    CK(dnnl_reorder_primitive_desc_create(&rpd, &plain, eng, md, eng, NULL));
    dnnl_primitive_t r;
    CK(dnnl_primitive_create(&r, rpd));
    dnnl_exec_arg_t args[2] = { { DNNL_ARG_FROM, src }, { DNNL_ARG_TO, dst } };
    CK(dnnl_primitive_execute(r, strm, 2, args));
    CK(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(src);
    return dst;
}

static const dnnl_memory_desc_t *q(dnnl_primitive_desc_t pd, dnnl_query_t what)
{
    return dnnl_primitive_desc_query_md(pd, what, 0);
}

static void make_layer(const prob *p, int training, int in, dnnl_memory_t src, layer *ly)
{
    memset(ly, 0, sizeof *ly);
    dnnl_rnn_desc_t fd, bd;
    dnnl_primitive_desc_t fpd, bpd = NULL;
    rnn_desc(p, 1, training ? dnnl_forward_training : dnnl_forward_inference, in, &fd);
    CK(dnnl_primitive_desc_create(&fpd, &fd, NULL, eng, NULL));
    CK(dnnl_primitive_create(&ly->fwd, fpd));
    ly->src = src;
    ly->dst = mem(q(fpd, dnnl_query_dst_md));
    const int G = p->lstm ? 4 : 3;
    dnnl_dims_t wl = { 1, p->d, in, G, p->hid }, wi = { 1, p->d, p->hid, G, p->hid };
    ly->wl = weights(q(fpd, dnnl_query_weights_md), wl);
    ly->wi = weights(dnnl_primitive_desc_query_md(fpd, dnnl_query_weights_md, 1), wi);
    ly->bias = mem(dnnl_primitive_desc_query_md(fpd, dnnl_query_weights_md, 2));
    if (training) {
        ly->ws = mem(q(fpd, dnnl_query_workspace_md));
        rnn_desc(p, 0, dnnl_backward, in, &bd);
        CK(dnnl_primitive_desc_create(&bpd, &bd, NULL, eng, fpd));
        CK(dnnl_primitive_create(&ly->bwd, bpd));
        ly->dsrc = mem(q(bpd, dnnl_query_diff_src_md));
        ly->ddst = mem(q(bpd, dnnl_query_diff_dst_md));
        ly->dwl = mem(q(bpd, dnnl_query_diff_weights_md));
        ly->dwi = mem(dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_weights_md, 1));
        ly->dbias = mem(dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_weights_md, 2));
        dnnl_primitive_desc_destroy(bpd);
    }
    dnnl_primitive_desc_destroy(fpd);
}

static void run_fwd(layer *ly, int training)
{
    dnnl_exec_arg_t a[6] = { { DNNL_ARG_SRC_LAYER, ly->src }, { DNNL_ARG_WEIGHTS_LAYER, ly->wl },
                             { DNNL_ARG_WEIGHTS_ITER, ly->wi }, { DNNL_ARG_BIAS, ly->bias },
                             { DNNL_ARG_DST_LAYER, ly->dst }, { DNNL_ARG_WORKSPACE, ly->ws } };
    CK(dnnl_primitive_execute(ly->fwd, strm, training ? 6 : 5, a));
}

static void run_bwd(layer *ly)
{
    dnnl_exec_arg_t a[12] = { { DNNL_ARG_SRC_LAYER, ly->src }, { DNNL_ARG_WEIGHTS_LAYER, ly->wl },
                              { DNNL_ARG_WEIGHTS_ITER, ly->wi }, { DNNL_ARG_BIAS, ly->bias },
                              { DNNL_ARG_DST_LAYER, ly->dst }, { DNNL_ARG_WORKSPACE, ly->ws },
                              { DNNL_ARG_DIFF_SRC_LAYER, ly->dsrc }, { DNNL_ARG_DIFF_DST_LAYER, ly->ddst },
                              { DNNL_ARG_DIFF_WEIGHTS_LAYER, ly->dwl }, { DNNL_ARG_DIFF_WEIGHTS_ITER, ly->dwi },
                              { DNNL_ARG_DIFF_BIAS, ly->dbias } };
    CK(dnnl_primitive_execute(ly->bwd, strm, 11, a));
}

static void run(const char *name, const prob *p, int reps)
{
    static const char *passes[] = { "inf", "fwd", "train" };
    const double gf = pass_gflop(p);
    double *t = malloc((size_t)reps * sizeof *t);
    for (int k = 0; k < 3; k++) {
        int training = k > 0;
        layer ly[MAXL];
        dnnl_dims_t sd = { p->t, p->n, p->in };
        dnnl_memory_desc_t smd;
        CK(dnnl_memory_desc_init_by_tag(&smd, 3, sd, dnnl_f32, dnnl_tnc));
        dnnl_memory_t src = mem(&smd);
        for (int l = 0; l < p->l; l++) {
            make_layer(p, training, l == 0 ? p->in : p->d * p->hid, l == 0 ? src : ly[l - 1].dst, &ly[l]);
            /* the layer below's diff_src is this layer's diff_dst: one buffer for both */
            if (training && l > 0) {
                dnnl_memory_destroy(ly[l - 1].ddst);
                ly[l - 1].ddst = ly[l].dsrc;
            }
        }
        double t0 = now_ms();
        for (int it = -1; it < reps; it++) {
            double a = now_ms();
            for (int l = 0; l < p->l; l++) run_fwd(&ly[l], training);
            if (k == 2)
                for (int l = p->l - 1; l >= 0; l--) run_bwd(&ly[l]);
            CK(dnnl_stream_wait(strm));
            if (it < 0) {   /* warm-up: repeat until WARM_MS have passed */
                if (now_ms() - t0 < WARM_MS) it--;
                continue;
            }
            t[it] = now_ms() - a;
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_d);
        double med = t[reps / 2], flop = k == 2 ? 3 * gf : gf;
        printf("%s %s onednn %.3f %.2f\n", name, passes[k], med, flop / (med * 1e-3));
        fflush(stdout);
        for (int l = 0; l < p->l; l++) {
            dnnl_primitive_destroy(ly[l].fwd);
            if (ly[l].bwd) dnnl_primitive_destroy(ly[l].bwd);
            dnnl_memory_t ms[] = { ly[l].dst, ly[l].wl, ly[l].wi, ly[l].bias, ly[l].ws, ly[l].dsrc, ly[l].dwl,
                                   ly[l].dwi, ly[l].dbias };
            for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
                if (ms[i]) dnnl_memory_destroy(ms[i]);
        }
        if (training) dnnl_memory_destroy(ly[p->l - 1].ddst);
        dnnl_memory_destroy(src);
    }
    free(t);
}

int main(int argc, char **argv)
{
    int reps = 5, i = 1;
    if (i + 1 < argc && !strcmp(argv[i], "--reps")) { reps = atoi(argv[i + 1]); i += 2; }
    if (reps < 1 || i >= argc) {
        fprintf(stderr, "usage: onednn_rnn [--reps R] PROBLEM...   (e.g. lstm-i512h512t50n32l1d1)\n");
        return 2;
    }
    CK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    for (; i < argc; i++) {
        prob p;
        if (parse(argv[i], &p)) { fprintf(stderr, "bad problem %s\n", argv[i]); return 2; }
        run(argv[i], &p, reps);
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
