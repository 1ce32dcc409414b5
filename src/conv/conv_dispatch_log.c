/*
 * The dispatch record of a convolution (conv/conv_registry.h, hd_conv_run): at info level,
 * the solver that runs and the problem in hostdnn-bench's grammar, so that the line can be
 * pasted into hostdnn-bench to measure the same case.  The record's structured fields carry
 * the solver too (hostdnnDebugGetConvSolver in include/hostdnn.h).
 */
#include "conv/conv_registry.h"

#include <stdio.h>

static const char *const dir_flag[3] = {"fwd", "bwd_d", "bwd_w"};

/* The problem as hostdnn-bench --mode=conv takes it (tools/bench/problem.c), all fields
 * spelt out; NHWC when x's channels are contiguous.  Problems the bench cannot express
 * (3-d, types other than FLOAT or DOUBLE, mixed layouts) say so after the string. */
static void bench_repro(const hd_conv_problem *p, hd_conv_dir dir, int algo, char *buf, size_t size)
{
    int nhwc = p->xs[1] == 1 && p->C > 1;
    const char *dt = p->xdt == CUDNN_DATA_DOUBLE ? "f64" : "f32";
    int n = snprintf(buf, size,
                     "hostdnn-bench --mode=conv --dir=%s --layout=%s --dt=%s --algo=%d "
                     "g%lldn%lldc%lldh%lldw%lldk%lldr%llds%lldp%lldq%lldu%lldv%lldl%lldj%lld",
                     dir_flag[dir], nhwc ? "nhwc" : "nchw", dt, algo, (long long)p->G, (long long)p->N,
                     (long long)p->C, (long long)p->in[1], (long long)p->in[2], (long long)p->K,
                     (long long)p->flt[1], (long long)p->flt[2], (long long)p->pad[1], (long long)p->pad[2],
                     (long long)p->str[1], (long long)p->str[2], (long long)p->dil[1], (long long)p->dil[2]);
    if (n < 0 || (size_t)n >= size)
        return;
    const char *why = NULL;
    if (p->nsp != 2)
        why = "3-d; the bench takes 2-d problems";
    else if ((p->xdt != CUDNN_DATA_FLOAT && p->xdt != CUDNN_DATA_DOUBLE) || p->ydt != p->xdt || p->wdt != p->xdt)
        why = "its data types differ from the bench's";
    if (why)
        snprintf(buf + n, size - (size_t)n, " (approximate: %s)", why);
}

void hd_conv_log_dispatch(const hd_conv_plan *pl, const char *fn)
{
    if (!hd_log_enabled(CUDNN_SEV_INFO))
        return;
    const hd_conv_solver *s = pl->solver;
    char repro[320];
    bench_repro(pl->p, s->dir, s->algo, repro, sizeof repro);
    int tags[4] = {HD_DEBUG_TAG_CONV_DISPATCH, s->id, (int)s->dir, s->algo};
    hd_logf_tagged(CUDNN_SEV_INFO, fn, CUDNN_STATUS_SUCCESS, tags, 4, "dispatch: solver %s (id %d), workspace %zu; repro: %s",
                   s->name, s->id, hd_conv_ws_padded(pl->ws), repro);
}
