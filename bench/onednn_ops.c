/*
 * onednn_ops.c -- the oneDNN side of the memory-bound part of `make bench-compare`: the same
 * operations as hostdnn_ops.c on the same fp32 tensor, with oneDNN's C API (Debian's libdnnl-dev,
 * 2.6, built on OpenMP: the thread count is set with omp_set_num_threads before the primitives
 * are created).
 *
 *   onednn_ops [--reps R] [--threads 1,2] [--layout nchw|nhwc] [--n N --c C --h H --w W] [OP...]
 *   OP: as hostdnn_ops.c  (default: all)
 *
 * Each op runs on the user's layout (nchw or nhwc: what a cuDNN user hands over) and, from
 * nchw, also on oneDNN's preferred blocked layout nChw16c for reference (no reorders counted;
 * skipped for the transform and wherever oneDNN has no implementation for it).  Output:
 *   "<shape> <op>/<layout> onednn-<user|blocked>-t<threads> <median ms> <GB/s>"
 * with the byte counts of hostdnn_ops.c (minimum traffic; see the comment there).
 *
 * Mapping: relu relu6 sigmoid tanh = eltwise relu, clip [0, 6], logistic, tanh forward_inference;
 * relu_bwd = eltwise_relu backward from dst (diff_dst and dst in, as cuDNN's); add = binary_add
 * (dst separate); add_bias = binary_add in place with a broadcast 1 x C x 1 x 1 bias;
 * bn_fwd = batch_normalization forward_training with scale and shift (computes mean,
 * variance); bn_bwd = batch_normalization backward (diff data and diff scale/shift); bn_infer =
 * forward_inference with global statistics; pool_max = pooling_max 3x3 stride 2 pad 1,
 * pool_max_bwd = its backward from the workspace of a forward_training pass (oneDNN's way: dy
 * and the argmax indices are read instead of x, so it moves fewer bytes than the count),
 * pool_avg = pooling_avg 2x2 stride 2, pool_gap = pooling_avg over H x W, all forward_inference
 * (cuDNN's pooling forward keeps no workspace either), pool_avg_bwd and pool_gap_bwd their
 * backward (diff_dst in, diff_src out); softmax = softmax over axis 1;
 * softmax_inst = softmax over axis 1 of the N x CHW view (each image is contiguous in both
 * layouts); softmax_bwd = softmax backward over axis 1; nchw2nhwc = reorder to the other layout.
 */
#define _POSIX_C_SOURCE 200809L
#include <dnnl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_time.h"

#define CK(x) do { dnnl_status_t s_ = (x); if (s_ != dnnl_success) { \
    fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)s_); exit(1); } } while (0)

static const char *all_ops[] = {"relu", "relu6", "sigmoid", "tanh", "relu_bwd", "add", "add_bias", "bn_fwd",
                                "bn_bwd", "bn_infer", "pool_max", "pool_max_bwd", "pool_avg", "pool_gap", "softmax", "softmax_inst",
                                "softmax_bwd", "nchw2nhwc", "pool_avg_bwd", "pool_gap_bwd"};
#define NOPS (sizeof all_ops / sizeof all_ops[0])

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static dnnl_memory_t mem(const dnnl_memory_desc_t *md, unsigned seed)
{
    dnnl_memory_t m;
    CK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
    void *p;
    CK(dnnl_memory_get_data_handle(m, &p));
    size_t n = dnnl_memory_desc_get_size(md) / sizeof(float);
    float *f = p;
    for (size_t i = 0; i < n; i++)
        f[i] = (float)((i * 7 + seed) % 13) * 0.1f - 0.6f;
    return m;
}

typedef struct {
    int n, c, h, w, oh, ow;
    size_t e, eo;
} shape_t;

/* One op ready to run: its primitive and the arguments it executes with. */
typedef struct {
    dnnl_primitive_t prim;
    dnnl_exec_arg_t args[12];
    int nargs;
    dnnl_memory_t owned[12];
    int nowned;
} job;

static dnnl_memory_t own(job *j, const dnnl_memory_desc_t *md, unsigned seed)
{
    dnnl_memory_t m = mem(md, seed);
    j->owned[j->nowned++] = m;
    return m;
}

static void arg(job *j, int a, dnnl_memory_t m)
{
    j->args[j->nargs].arg = a;
    j->args[j->nargs].memory = m;
    j->nargs++;
}

static void job_free(job *j)
{
    if (j->prim)
        dnnl_primitive_destroy(j->prim);
    for (int i = 0; i < j->nowned; i++)
        dnnl_memory_destroy(j->owned[i]);
    memset(j, 0, sizeof *j);
}

/* Builds OP on tensors of layout TAG; returns 0, or -1 where oneDNN has no implementation. */
static int build(job *j, const shape_t *s, const char *op, dnnl_format_tag_t tag)
{
    memset(j, 0, sizeof *j);
    dnnl_dims_t d = {s->n, s->c, s->h, s->w}, od = {s->n, s->c, s->oh, s->ow}, cd = {s->c}, ssd = {2, s->c};
    dnnl_memory_desc_t md, omd, cmd, ssmd;
    CK(dnnl_memory_desc_init_by_tag(&md, 4, d, dnnl_f32, tag));
    CK(dnnl_memory_desc_init_by_tag(&omd, 4, od, dnnl_f32, tag));
    CK(dnnl_memory_desc_init_by_tag(&cmd, 1, cd, dnnl_f32, dnnl_a));
    CK(dnnl_memory_desc_init_by_tag(&ssmd, 2, ssd, dnnl_f32, dnnl_ab));
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st;
    dnnl_alg_kind_t ealg = !strcmp(op, "relu") ? dnnl_eltwise_relu : !strcmp(op, "relu6") ? dnnl_eltwise_clip
                         : !strcmp(op, "sigmoid") ? dnnl_eltwise_logistic : !strcmp(op, "tanh") ? dnnl_eltwise_tanh
                         : dnnl_alg_kind_undef;
    if (ealg != dnnl_alg_kind_undef) {
        dnnl_eltwise_desc_t ed;
        CK(dnnl_eltwise_forward_desc_init(&ed, dnnl_forward_inference, ealg, &md, 0.f, ealg == dnnl_eltwise_clip ? 6.f : 0.f));
        st = dnnl_primitive_desc_create(&pd, &ed, NULL, eng, NULL);
        if (st == dnnl_success) {
            arg(j, DNNL_ARG_SRC, own(j, &md, 0));
            arg(j, DNNL_ARG_DST, own(j, &md, 5));
        }
    } else if (!strcmp(op, "relu_bwd")) {
        dnnl_eltwise_desc_t fd, bd;
        CK(dnnl_eltwise_forward_desc_init(&fd, dnnl_forward_training, dnnl_eltwise_relu_use_dst_for_bwd, &md, 0.f, 0.f));
        dnnl_primitive_desc_t hint = NULL;
        if (dnnl_primitive_desc_create(&hint, &fd, NULL, eng, NULL) != dnnl_success)
            return -1;
        CK(dnnl_eltwise_backward_desc_init(&bd, dnnl_eltwise_relu_use_dst_for_bwd, &md, &md, 0.f, 0.f));
        st = dnnl_primitive_desc_create(&pd, &bd, NULL, eng, hint);
        dnnl_primitive_desc_destroy(hint);
        if (st == dnnl_success) {
            arg(j, DNNL_ARG_DST, own(j, &md, 0));
            arg(j, DNNL_ARG_DIFF_DST, own(j, &md, 1));
            arg(j, DNNL_ARG_DIFF_SRC, own(j, &md, 2));
        }
    } else if (!strcmp(op, "add_bias")) {
        dnnl_dims_t bdims = {1, s->c, 1, 1};
        dnnl_memory_desc_t bmd;
        CK(dnnl_memory_desc_init_by_tag(&bmd, 4, bdims, dnnl_f32, dnnl_nchw));
        dnnl_binary_desc_t bd;
        CK(dnnl_binary_desc_init(&bd, dnnl_binary_add, &md, &bmd, &md));
        st = dnnl_primitive_desc_create(&pd, &bd, NULL, eng, NULL);
        if (st == dnnl_success) {
            dnnl_memory_t dst = own(j, &md, 5);
            arg(j, DNNL_ARG_SRC_0, dst);
            arg(j, DNNL_ARG_SRC_1, own(j, &bmd, 3));
            arg(j, DNNL_ARG_DST, dst);
        }
    } else if (!strcmp(op, "bn_infer")) {
        dnnl_batch_normalization_desc_t bd;
        CK(dnnl_batch_normalization_forward_desc_init(&bd, dnnl_forward_inference, &md, 1e-5f,
                                                      dnnl_use_scaleshift | dnnl_use_global_stats));
        st = dnnl_primitive_desc_create(&pd, &bd, NULL, eng, NULL);
        if (st == dnnl_success) {
            dnnl_memory_t var = own(j, &cmd, 2);
            void *p;
            CK(dnnl_memory_get_data_handle(var, &p));
            for (int i = 0; i < s->c; i++)
                ((float *)p)[i] = 1.0f;
            arg(j, DNNL_ARG_SRC, own(j, &md, 0));
            arg(j, DNNL_ARG_MEAN, own(j, &cmd, 1));
            arg(j, DNNL_ARG_VARIANCE, var);
            arg(j, DNNL_ARG_SCALE_SHIFT, own(j, &ssmd, 4));
            arg(j, DNNL_ARG_DST, own(j, &md, 5));
        }
    } else if (!strcmp(op, "pool_avg_bwd") || !strcmp(op, "pool_gap_bwd")) {
        int gap = !strcmp(op, "pool_gap_bwd");
        dnnl_dims_t ad = {s->n, s->c, gap ? 1 : s->h / 2, gap ? 1 : s->w / 2};
        dnnl_memory_desc_t amd;
        CK(dnnl_memory_desc_init_by_tag(&amd, 4, ad, dnnl_f32, tag));
        dnnl_pooling_desc_t fd, bd;
        dnnl_dims_t str = {gap ? 1 : 2, gap ? 1 : 2}, k = {gap ? s->h : 2, gap ? s->w : 2}, pad = {0, 0};
        CK(dnnl_pooling_forward_desc_init(&fd, dnnl_forward_training, dnnl_pooling_avg_exclude_padding, &md, &amd,
                                          str, k, pad, pad));
        dnnl_primitive_desc_t hint = NULL;
        if (dnnl_primitive_desc_create(&hint, &fd, NULL, eng, NULL) != dnnl_success)
            return -1;
        CK(dnnl_pooling_backward_desc_init(&bd, dnnl_pooling_avg_exclude_padding, &md, &amd, str, k, pad, pad));
        st = dnnl_primitive_desc_create(&pd, &bd, NULL, eng, hint);
        dnnl_primitive_desc_destroy(hint);
        if (st == dnnl_success) {
            arg(j, DNNL_ARG_DIFF_DST, own(j, &amd, 1));
            arg(j, DNNL_ARG_DIFF_SRC, own(j, &md, 2));
        }
    } else if (!strcmp(op, "pool_avg") || !strcmp(op, "pool_gap")) {
        int gap = !strcmp(op, "pool_gap");
        dnnl_dims_t ad = {s->n, s->c, gap ? 1 : s->h / 2, gap ? 1 : s->w / 2};
        dnnl_memory_desc_t amd;
        CK(dnnl_memory_desc_init_by_tag(&amd, 4, ad, dnnl_f32, tag));
        dnnl_pooling_desc_t pld;
        dnnl_dims_t str = {gap ? 1 : 2, gap ? 1 : 2}, k = {gap ? s->h : 2, gap ? s->w : 2}, pad = {0, 0};
        CK(dnnl_pooling_forward_desc_init(&pld, dnnl_forward_inference, dnnl_pooling_avg_exclude_padding, &md, &amd,
                                          str, k, pad, pad));
        st = dnnl_primitive_desc_create(&pd, &pld, NULL, eng, NULL);
        if (st == dnnl_success) {
            arg(j, DNNL_ARG_SRC, own(j, &md, 0));
            arg(j, DNNL_ARG_DST, own(j, &amd, 5));
        }
    } else if (!strcmp(op, "softmax_inst")) {
        if (tag == dnnl_nChw16c)
            return -1;
        dnnl_dims_t d2 = {s->n, (dnnl_dim_t)s->c * s->h * s->w};
        dnnl_memory_desc_t md2;
        CK(dnnl_memory_desc_init_by_tag(&md2, 2, d2, dnnl_f32, dnnl_ab));
        dnnl_softmax_desc_t sd;
        CK(dnnl_softmax_forward_desc_init(&sd, dnnl_forward_inference, &md2, 1));
        st = dnnl_primitive_desc_create(&pd, &sd, NULL, eng, NULL);
        if (st == dnnl_success) {
            arg(j, DNNL_ARG_SRC, own(j, &md2, 0));
            arg(j, DNNL_ARG_DST, own(j, &md2, 5));
        }
    } else if (!strcmp(op, "softmax_bwd")) {
        dnnl_softmax_desc_t fd, bd;
        CK(dnnl_softmax_forward_desc_init(&fd, dnnl_forward_training, &md, 1));
        dnnl_primitive_desc_t hint = NULL;
        if (dnnl_primitive_desc_create(&hint, &fd, NULL, eng, NULL) != dnnl_success)
            return -1;
        CK(dnnl_softmax_backward_desc_init(&bd, &md, &md, 1));
        st = dnnl_primitive_desc_create(&pd, &bd, NULL, eng, hint);
        dnnl_primitive_desc_destroy(hint);
        if (st == dnnl_success) {
            arg(j, DNNL_ARG_DST, own(j, &md, 0));
            arg(j, DNNL_ARG_DIFF_DST, own(j, &md, 1));
            arg(j, DNNL_ARG_DIFF_SRC, own(j, &md, 2));
        }
    } else if (!strcmp(op, "add")) {
        dnnl_binary_desc_t bd;
        CK(dnnl_binary_desc_init(&bd, dnnl_binary_add, &md, &md, &md));
        st = dnnl_primitive_desc_create(&pd, &bd, NULL, eng, NULL);
        if (st == dnnl_success) {
            arg(j, DNNL_ARG_SRC_0, own(j, &md, 0));
            arg(j, DNNL_ARG_SRC_1, own(j, &md, 3));
            arg(j, DNNL_ARG_DST, own(j, &md, 5));
        }
    } else if (!strcmp(op, "bn_fwd") || !strcmp(op, "bn_bwd")) {
        int fwd = !strcmp(op, "bn_fwd");
        dnnl_batch_normalization_desc_t bd;
        if (fwd)
            CK(dnnl_batch_normalization_forward_desc_init(&bd, dnnl_forward_training, &md, 1e-5f, dnnl_use_scaleshift));
        else
            CK(dnnl_batch_normalization_backward_desc_init(&bd, dnnl_backward, &md, &md, 1e-5f, dnnl_use_scaleshift));
        dnnl_primitive_desc_t hint = NULL;
        if (!fwd) {
            dnnl_batch_normalization_desc_t fd;
            CK(dnnl_batch_normalization_forward_desc_init(&fd, dnnl_forward_training, &md, 1e-5f, dnnl_use_scaleshift));
            if (dnnl_primitive_desc_create(&hint, &fd, NULL, eng, NULL) != dnnl_success)
                return -1;
        }
        st = dnnl_primitive_desc_create(&pd, &bd, NULL, eng, hint);
        if (hint)
            dnnl_primitive_desc_destroy(hint);
        if (st == dnnl_success) {
            dnnl_memory_t mean = own(j, &cmd, 1), var = own(j, &cmd, 2);
            void *p;
            CK(dnnl_memory_get_data_handle(var, &p));
            for (int i = 0; i < s->c; i++)
                ((float *)p)[i] = 1.0f;
            arg(j, DNNL_ARG_SRC, own(j, &md, 0));
            arg(j, DNNL_ARG_MEAN, mean);
            arg(j, DNNL_ARG_VARIANCE, var);
            arg(j, DNNL_ARG_SCALE_SHIFT, own(j, &ssmd, 4));
            if (fwd) {
                arg(j, DNNL_ARG_DST, own(j, &md, 5));
            } else {
                arg(j, DNNL_ARG_DIFF_DST, own(j, &md, 1));
                arg(j, DNNL_ARG_DIFF_SRC, own(j, &md, 2));
                arg(j, DNNL_ARG_DIFF_SCALE_SHIFT, own(j, &ssmd, 6));
            }
            const dnnl_memory_desc_t *ws = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
            if (ws && dnnl_memory_desc_get_size(ws))
                arg(j, DNNL_ARG_WORKSPACE, own(j, ws, 0));
        }
    } else if (!strcmp(op, "pool_max")) {
        dnnl_pooling_desc_t pld;
        dnnl_dims_t str = {2, 2}, k = {3, 3}, pad = {1, 1};
        CK(dnnl_pooling_forward_desc_init(&pld, dnnl_forward_inference, dnnl_pooling_max, &md, &omd, str, k, pad, pad));
        st = dnnl_primitive_desc_create(&pd, &pld, NULL, eng, NULL);
        if (st == dnnl_success) {
            arg(j, DNNL_ARG_SRC, own(j, &md, 0));
            arg(j, DNNL_ARG_DST, own(j, &omd, 5));
        }
    } else if (!strcmp(op, "pool_max_bwd")) {
        dnnl_pooling_desc_t fd, bd;
        dnnl_dims_t str = {2, 2}, k = {3, 3}, pad = {1, 1};
        CK(dnnl_pooling_forward_desc_init(&fd, dnnl_forward_training, dnnl_pooling_max, &md, &omd, str, k, pad, pad));
        dnnl_primitive_desc_t hint = NULL;
        if (dnnl_primitive_desc_create(&hint, &fd, NULL, eng, NULL) != dnnl_success)
            return -1;
        CK(dnnl_pooling_backward_desc_init(&bd, dnnl_pooling_max, &md, &omd, str, k, pad, pad));
        st = dnnl_primitive_desc_create(&pd, &bd, NULL, eng, hint);
        if (st == dnnl_success) {
            arg(j, DNNL_ARG_DIFF_DST, own(j, &omd, 1));
            arg(j, DNNL_ARG_DIFF_SRC, own(j, &md, 2));
            const dnnl_memory_desc_t *ws = dnnl_primitive_desc_query_md(hint, dnnl_query_workspace_md, 0);
            if (ws && dnnl_memory_desc_get_size(ws))
                arg(j, DNNL_ARG_WORKSPACE, own(j, ws, 0));
        }
        dnnl_primitive_desc_destroy(hint);
    } else if (!strcmp(op, "softmax")) {
        dnnl_softmax_desc_t sd;
        CK(dnnl_softmax_forward_desc_init(&sd, dnnl_forward_inference, &md, 1));
        st = dnnl_primitive_desc_create(&pd, &sd, NULL, eng, NULL);
        if (st == dnnl_success) {
            arg(j, DNNL_ARG_SRC, own(j, &md, 0));
            arg(j, DNNL_ARG_DST, own(j, &md, 5));
        }
    } else { /* nchw2nhwc: to the other plain layout */
        if (tag == dnnl_nChw16c)
            return -1;
        dnnl_memory_desc_t nhwc;
        CK(dnnl_memory_desc_init_by_tag(&nhwc, 4, d, dnnl_f32, tag == dnnl_nchw ? dnnl_nhwc : dnnl_nchw));
        st = dnnl_reorder_primitive_desc_create(&pd, &md, eng, &nhwc, eng, NULL);
        if (st == dnnl_success) {
            arg(j, DNNL_ARG_FROM, own(j, &md, 0));
            arg(j, DNNL_ARG_TO, own(j, &nhwc, 5));
        }
    }
    if (st != dnnl_success) {
        job_free(j);
        return -1;
    }
    CK(dnnl_primitive_create(&j->prim, pd));
    dnnl_primitive_desc_destroy(pd);
    return 0;
}

static void run(job *j)
{
    CK(dnnl_primitive_execute(j->prim, strm, j->nargs, j->args));
    CK(dnnl_stream_wait(strm));
}

static double op_bytes(const shape_t *s, const char *op)
{
    double e = (double)s->e * 4.0;
    if (!strcmp(op, "add") || !strcmp(op, "bn_fwd") || !strcmp(op, "relu_bwd") || !strcmp(op, "softmax_bwd"))
        return 3 * e;
    if (!strcmp(op, "bn_bwd"))
        return 5 * e;
    if (!strcmp(op, "pool_max") || !strcmp(op, "pool_avg"))
        return e + (double)s->eo * 4.0;
    if (!strcmp(op, "pool_gap") || !strcmp(op, "pool_gap_bwd"))
        return e;
    if (!strcmp(op, "pool_avg_bwd"))
        return e + (double)s->n * s->c * (s->h / 2) * (s->w / 2) * 4.0;
    if (!strcmp(op, "pool_max_bwd"))
        return 2 * e + (double)s->eo * 4.0;
    return 2 * e;
}

int main(int argc, char **argv)
{
    int reps = 5;
    const char *threads = "1,2";
    int nhwc = 0;
    shape_t s = {32, 64, 112, 112, 0, 0, 0, 0};
    const char *ops[NOPS];
    size_t nops = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int *dim = !strcmp(a, "--n") ? &s.n : !strcmp(a, "--c") ? &s.c : !strcmp(a, "--h") ? &s.h
                 : !strcmp(a, "--w") ? &s.w : NULL;
        if (dim && i + 1 < argc) {
            *dim = atoi(argv[++i]);
        } else if (!strcmp(a, "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(a, "--threads") && i + 1 < argc) {
            threads = argv[++i];
        } else if (!strcmp(a, "--layout") && i + 1 < argc) {
            nhwc = !strcmp(argv[++i], "nhwc");
        } else {
            size_t k = 0;
            while (k < NOPS && strcmp(all_ops[k], a))
                k++;
            if (k == NOPS || nops == NOPS) {
                fprintf(stderr, "usage: onednn_ops [--reps R] [--threads 1,2] [--layout nchw|nhwc] [--n N --c C --h H --w W] [op...]\n");
                return 2;
            }
            ops[nops++] = all_ops[k];
        }
    }
    if (reps < 1 || reps > 1000 || s.n < 1 || s.c < 1 || s.h < 3 || s.w < 3) {
        fprintf(stderr, "onednn_ops: bad --reps or size\n");
        return 2;
    }
    if (!nops)
        for (; nops < NOPS; nops++)
            ops[nops] = all_ops[nops];
    s.e = (size_t)s.n * s.c * s.h * s.w;
    s.oh = (s.h + 2 - 3) / 2 + 1;
    s.ow = (s.w + 2 - 3) / 2 + 1;
    s.eo = (size_t)s.n * s.c * s.oh * s.ow;
    CK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    char shape[64];
    snprintf(shape, sizeof shape, "n%dc%dh%dw%d", s.n, s.c, s.h, s.w);
    double *t = malloc((size_t)reps * sizeof *t);
    char tl[64];
    snprintf(tl, sizeof tl, "%s", threads);
    for (char *save = NULL, *tok = strtok_r(tl, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int th = atoi(tok);
        if (th < 1)
            continue;
        omp_set_num_threads(th);
        for (size_t k = 0; k < nops; k++) {
            for (int way = 0; way < 2 - nhwc; way++) {
                job j;
                if (build(&j, &s, ops[k], way ? dnnl_nChw16c : nhwc ? dnnl_nhwc : dnnl_nchw))
                    continue;
                run(&j); /* warm-up: page faults, thread start, statistics for bn_bwd's inputs */
                int done = 0; /* a very slow path stops after 3 s of repetitions (at least 1) */
                for (double spent = 0; done < reps && (done == 0 || spent < 3000); done++) {
                    double t0 = now_ms();
                    run(&j);
                    t[done] = now_ms() - t0;
                    spent += t[done];
                }
                job_free(&j);
                qsort(t, (size_t)done, sizeof *t, cmp_d);
                double med = done % 2 ? t[done / 2] : 0.5 * (t[done / 2 - 1] + t[done / 2]);
                printf("%s %s/%s onednn-%s-t%d %.3f %.2f\n", shape, ops[k], nhwc ? "nhwc" : "nchw",
                       way ? "blocked" : "user", th, med,
                       op_bytes(&s, ops[k]) / (med * 1e6));
                fflush(stdout);
            }
        }
    }
    free(t);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
