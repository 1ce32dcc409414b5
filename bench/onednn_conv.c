/*
 * onednn_conv.c -- the oneDNN side of `make bench-compare`: times convolutions with oneDNN
 * (Debian's libdnnl-dev, 2.6) on the same problem strings hostdnn-bench takes.
 *
 *   onednn_conv [--reps N] [--dir fwd|bwd_d|bwd_w] PROBLEM...
 *
 * For each problem it prints one line per way of running it:
 *   blocked  oneDNN's own preferred layouts (format "any"), reorders not counted: its best case;
 *   nchw     user tensors in NCHW given straight to the primitive (oneDNN's native NCHW path);
 *   nchw_r   user tensors in NCHW, reordered to the preferred layout and back, reorders counted;
 *   nhwc     user tensors in NHWC given straight to the primitive.
 * Output: "<problem> <dir> onednn-<way> <median ms> <GFLOP/s>".  Weights are reordered once,
 * outside the timing (a framework does that once per model).
 *
 * Problem strings: g1n16c64h56w56k64r3s3p1u1[d1] -- groups, batch, input channels, height,
 * width, output channels, filter height, filter width, padding, stride, dilation.
 */
#define _POSIX_C_SOURCE 200809L
#include <dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_time.h"

#define WARM_MS 20.0   /* untimed calls before the timed ones (see bench()) */

typedef struct {
    long g, n, c, h, w, k, r, s, p, u, d;
    long oh, ow;
} prob;

static int parse(const char *str, prob *pb)
{
    memset(pb, 0, sizeof *pb);
    pb->g = 1, pb->d = 1, pb->u = 1;
    const char *q = str;
    while (*q) {
        char key = *q++;
        char *end;
        long v = strtol(q, &end, 10);
        if (end == q)
            return -1;
        q = end;
        switch (key) {
        case 'g': pb->g = v; break;
        case 'n': pb->n = v; break;
        case 'c': pb->c = v; break;
        case 'h': pb->h = v; break;
        case 'w': pb->w = v; break;
        case 'k': pb->k = v; break;
        case 'r': pb->r = v; break;
        case 's': pb->s = v; break;
        case 'p': pb->p = v; break;
        case 'u': pb->u = v; break;
        case 'd': pb->d = v; break;
        default: return -1;
        }
        if (*q == '_')
            break;
    }
    if (!pb->n || !pb->c || !pb->h || !pb->w || !pb->k || !pb->r || !pb->s)
        return -1;
    pb->oh = (pb->h + 2 * pb->p - (pb->d * (pb->r - 1) + 1)) / pb->u + 1;
    pb->ow = (pb->w + 2 * pb->p - (pb->d * (pb->s - 1) + 1)) / pb->u + 1;
    return 0;
}

#define CK(x) do { dnnl_status_t s_ = (x); if (s_ != dnnl_success) { \
    fprintf(stderr, "%s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)s_); exit(1); } } while (0)

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static dnnl_memory_t mem(const dnnl_memory_desc_t *md)
{
    dnnl_memory_t m;
    CK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
    void *p;
    CK(dnnl_memory_get_data_handle(m, &p));
    size_t bytes = dnnl_memory_desc_get_size(md);
    float *f = p;
    for (size_t i = 0; i < bytes / 4; i++)
        f[i] = (float)((i * 7) % 13) * 0.1f - 0.6f;
    return m;
}

/* Reorder SRC into a new memory of MD, executed now; returns the new memory. */
static dnnl_primitive_t make_reorder(const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to)
{
    dnnl_primitive_desc_t rpd;
    CK(dnnl_reorder_primitive_desc_create(&rpd, from, eng, to, eng, NULL));
    dnnl_primitive_t r;
    CK(dnnl_primitive_create(&r, rpd));
    dnnl_primitive_desc_destroy(rpd);
    return r;
}

static void run_reorder(dnnl_primitive_t r, dnnl_memory_t a, dnnl_memory_t b)
{
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, a}, {DNNL_ARG_TO, b}};
    CK(dnnl_primitive_execute(r, strm, 2, args));
}

static int same_md(const dnnl_memory_desc_t *a, const dnnl_memory_desc_t *b) { return dnnl_memory_desc_equal(a, b); }

typedef enum { WAY_BLOCKED, WAY_NCHW, WAY_NCHW_R, WAY_NHWC } way_t;
static const char *way_name[] = {"blocked", "nchw", "nchw_r", "nhwc"};

/* Time one way of running the problem; returns the median in ms. */
static double bench(const prob *pb, const char *dir, way_t way, int reps)
{
    dnnl_dims_t src_d = {pb->n, pb->c, pb->h, pb->w};
    dnnl_dims_t dst_d = {pb->n, pb->k, pb->oh, pb->ow};
    dnnl_dims_t wei_d4 = {pb->k, pb->c / pb->g, pb->r, pb->s};
    dnnl_dims_t wei_d5 = {pb->g, pb->k / pb->g, pb->c / pb->g, pb->r, pb->s};
    int grouped = pb->g > 1;
    dnnl_dims_t strides = {pb->u, pb->u}, dil = {pb->d - 1, pb->d - 1}, pad = {pb->p, pb->p};
    dnnl_format_tag_t act = way == WAY_NHWC ? dnnl_nhwc : way == WAY_BLOCKED ? dnnl_format_tag_any : dnnl_nchw;
    if (way == WAY_NCHW_R)
        act = dnnl_format_tag_any;
    dnnl_memory_desc_t src_md, dst_md, wei_md, user_src, user_dst, user_wei;
    CK(dnnl_memory_desc_init_by_tag(&src_md, 4, src_d, dnnl_f32, act));
    CK(dnnl_memory_desc_init_by_tag(&dst_md, 4, dst_d, dnnl_f32, act));
    CK(dnnl_memory_desc_init_by_tag(&wei_md, grouped ? 5 : 4, grouped ? wei_d5 : wei_d4, dnnl_f32, dnnl_format_tag_any));
    CK(dnnl_memory_desc_init_by_tag(&user_src, 4, src_d, dnnl_f32, way == WAY_NHWC ? dnnl_nhwc : dnnl_nchw));
    CK(dnnl_memory_desc_init_by_tag(&user_dst, 4, dst_d, dnnl_f32, way == WAY_NHWC ? dnnl_nhwc : dnnl_nchw));
    CK(dnnl_memory_desc_init_by_tag(&user_wei, grouped ? 5 : 4, grouped ? wei_d5 : wei_d4, dnnl_f32,
                                    grouped ? dnnl_goihw : dnnl_oihw));

    dnnl_convolution_desc_t fwd_cd, cd;
    CK(dnnl_dilated_convolution_forward_desc_init(&fwd_cd, strcmp(dir, "fwd") ? dnnl_forward_training : dnnl_forward_inference,
                                                  dnnl_convolution_direct, &src_md, &wei_md, NULL, &dst_md, strides, dil,
                                                  pad, pad));
    dnnl_primitive_desc_t fwd_pd, pd;
    CK(dnnl_primitive_desc_create(&fwd_pd, &fwd_cd, NULL, eng, NULL));
    if (!strcmp(dir, "fwd")) {
        pd = fwd_pd;
    } else if (!strcmp(dir, "bwd_d")) {
        CK(dnnl_dilated_convolution_backward_data_desc_init(&cd, dnnl_convolution_direct, &src_md, &wei_md, &dst_md, strides,
                                                            dil, pad, pad));
        CK(dnnl_primitive_desc_create(&pd, &cd, NULL, eng, fwd_pd));
    } else {
        CK(dnnl_dilated_convolution_backward_weights_desc_init(&cd, dnnl_convolution_direct, &src_md, &wei_md, NULL, &dst_md,
                                                               strides, dil, pad, pad));
        CK(dnnl_primitive_desc_create(&pd, &cd, NULL, eng, fwd_pd));
    }
    /* The layouts the primitive chose. */
    int is_bwd_d = !strcmp(dir, "bwd_d"), is_bwd_w = !strcmp(dir, "bwd_w");
    const dnnl_memory_desc_t *p_src = dnnl_primitive_desc_query_md(pd, is_bwd_d ? dnnl_query_diff_src_md : dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *p_wei = dnnl_primitive_desc_query_md(pd, is_bwd_w ? dnnl_query_diff_weights_md : dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *p_dst = dnnl_primitive_desc_query_md(pd, (is_bwd_d || is_bwd_w) ? dnnl_query_diff_dst_md : dnnl_query_dst_md, 0);
    dnnl_memory_t m_src = mem(p_src), m_wei = mem(p_wei), m_dst = mem(p_dst);
    dnnl_memory_t u_src = mem(&user_src), u_dst = mem(&user_dst);
    dnnl_primitive_t conv;
    CK(dnnl_primitive_create(&conv, pd));

    /* With user tensors (nchw_r), the activations cross a reorder on the way in and out. */
    dnnl_primitive_t r_in = NULL, r_out = NULL;
    dnnl_memory_t in_user = NULL, in_prim = NULL, out_prim = NULL, out_user = NULL;
    if (way == WAY_NCHW_R) {
        if (!strcmp(dir, "fwd") || is_bwd_w) {      /* src comes from the user */
            if (!same_md(&user_src, p_src))
                r_in = make_reorder(&user_src, p_src), in_user = u_src, in_prim = m_src;
        }
        if (!strcmp(dir, "fwd")) {                   /* dst goes back to the user */
            if (!same_md(p_dst, &user_dst))
                r_out = make_reorder(p_dst, &user_dst), out_prim = m_dst, out_user = u_dst;
        } else {                                     /* diff_dst comes from the user */
            dnnl_primitive_t r2 = same_md(&user_dst, p_dst) ? NULL : make_reorder(&user_dst, p_dst);
            if (is_bwd_d) {
                r_in = r2, in_user = u_dst, in_prim = m_dst;
                if (!same_md(p_src, &user_src))     /* diff_src goes back */
                    r_out = make_reorder(p_src, &user_src), out_prim = m_src, out_user = u_src;
            } else if (r2) {
                /* bwd_w: both src and diff_dst come in; count the second reorder as "out" */
                r_out = r2, out_prim = u_dst, out_user = m_dst;
            }
        }
    }
    dnnl_exec_arg_t args[3];
    if (!strcmp(dir, "fwd")) {
        args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, m_src};
        args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, m_wei};
        args[2] = (dnnl_exec_arg_t){DNNL_ARG_DST, m_dst};
    } else if (is_bwd_d) {
        args[0] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC, m_src};
        args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, m_wei};
        args[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, m_dst};
    } else {
        args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, m_src};
        args[1] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_WEIGHTS, m_wei};
        args[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, m_dst};
    }
    double *t = malloc(sizeof(double) * (size_t)reps);
    /* Untimed warm-up calls for at least WARM_MS (and two calls), as in hostdnn_conv.c. */
    double warm_end = now_ms() + WARM_MS;
    for (int i = -2; i < reps; i++) {
        if (i == -1 && now_ms() < warm_end)
            i = -2;                                 /* stay in the warm-up */
        double t0 = now_ms();
        if (r_in)
            run_reorder(r_in, in_user, in_prim);
        CK(dnnl_primitive_execute(conv, strm, 3, args));
        if (r_out)
            run_reorder(r_out, out_prim, out_user);
        CK(dnnl_stream_wait(strm));
        if (i >= 0)
            t[i] = now_ms() - t0;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_d);
    double med = t[reps / 2];
    free(t);
    if (r_in) dnnl_primitive_destroy(r_in);
    if (r_out) dnnl_primitive_destroy(r_out);
    dnnl_primitive_destroy(conv);
    dnnl_memory_destroy(m_src), dnnl_memory_destroy(m_wei), dnnl_memory_destroy(m_dst);
    dnnl_memory_destroy(u_src), dnnl_memory_destroy(u_dst);
    if (pd != fwd_pd)
        dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(fwd_pd);
    return med;
}

int main(int argc, char **argv)
{
    int reps = 11;
    const char *dir = "fwd";
    CK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
            continue;
        }
        if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
            dir = argv[++i];
            continue;
        }
        prob pb;
        if (parse(argv[i], &pb) != 0) {
            fprintf(stderr, "bad problem string: %s\n", argv[i]);
            return 2;
        }
        double flops = 2.0 * pb.n * pb.k * pb.oh * pb.ow * (pb.c / pb.g) * pb.r * pb.s;
        for (int w = 0; w < 4; w++) {
            double ms = bench(&pb, dir, (way_t)w, reps);
            printf("%s %s onednn-%s %.4f %.2f\n", argv[i], dir, way_name[w], ms, flops / (ms * 1e6));
            fflush(stdout);
        }
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
