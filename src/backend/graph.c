/*
 * The shape of an operation graph, as our engines see it: one head operation (convolution
 * forward, backward data or backward filter, or matmul; or none) whose output feeds a chain
 * of pointwise operations, each reading the previous result and, for binary and backward
 * modes, one tensor of the user's.  Anything else -- two heads, branches, an operation our
 * engines do not compute, a virtual tensor nothing produces -- is refused with the node and
 * the attribute at fault, so that a user can see what to change.
 */
#include "core/api.h"
#include "backend/backend.h"
#include "fusion/fusion.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define B(x) CUDNN_BACKEND_##x##_DESCRIPTOR
#define A(x) CUDNN_ATTR_##x

int hd_btensor_dims(const hd_bdesc *t, int64_t *dims, int64_t *strides)
{
    const hd_battr *a = hd_bdesc_find(t, A(TENSOR_DIMENSIONS)), *s = hd_bdesc_find(t, A(TENSOR_STRIDES));
    memcpy(dims, a->data, (size_t)a->count * sizeof *dims);
    if (strides)
        memcpy(strides, s->data, (size_t)s->count * sizeof *strides);
    return (int)a->count;
}

int hd_btensor_virtual(const hd_bdesc *t)
{
    const hd_battr *a = hd_bdesc_find(t, A(TENSOR_IS_VIRTUAL));
    return a && a->count == 1 && ((const unsigned char *)a->data)[0];
}

int64_t hd_btensor_uid(const hd_bdesc *t)
{
    int64_t u = -1;
    hd_bget_i64(t, A(TENSOR_UNIQUE_ID), &u);
    return u;
}

int hd_btensor_dtype(const hd_bdesc *t)
{
    int dt = CUDNN_DATA_FLOAT;
    hd_bget_int(t, A(TENSOR_DATA_TYPE), &dt);
    return dt;
}

static int pw_mode(const hd_bdesc *op)
{
    int mode = -1;
    hd_bget_int(hd_bget_desc(op, A(OPERATION_POINTWISE_PW_DESCRIPTOR), 0), A(POINTWISE_MODE), &mode);
    return mode;
}

static int pw_backward(int mode) { return mode >= CUDNN_POINTWISE_RELU_BWD; }

void hd_bpw_tensors(const hd_bdesc *op, int swapped, const hd_bdesc **in, const hd_bdesc **other,
                    const hd_bdesc **out)
{
    int mode = pw_mode(op);
    if (pw_backward(mode)) {
        *in = hd_bget_desc(op, A(OPERATION_POINTWISE_DYDESC), 0);
        *other = hd_bget_desc(op, A(OPERATION_POINTWISE_XDESC), 0);
        *out = hd_bget_desc(op, A(OPERATION_POINTWISE_DXDESC), 0);
        return;
    }
    const hd_bdesc *x = hd_bget_desc(op, A(OPERATION_POINTWISE_XDESC), 0);
    const hd_bdesc *b = hd_pw_mode_has_other(mode) ? hd_bget_desc(op, A(OPERATION_POINTWISE_BDESC), 0) : NULL;
    *in = swapped ? b : x;
    *other = swapped ? x : b;
    *out = hd_bget_desc(op, A(OPERATION_POINTWISE_YDESC), 0);
}

/* The output tensor of a head operation. */
static const hd_bdesc *head_output(const hd_bdesc *op)
{
    switch ((int)op->type) {
    case B(OPERATION_CONVOLUTION_FORWARD): return hd_bget_desc(op, A(OPERATION_CONVOLUTION_FORWARD_Y), 0);
    case B(OPERATION_CONVOLUTION_BACKWARD_DATA): return hd_bget_desc(op, A(OPERATION_CONVOLUTION_BWD_DATA_DX), 0);
    case B(OPERATION_CONVOLUTION_BACKWARD_FILTER): return hd_bget_desc(op, A(OPERATION_CONVOLUTION_BWD_FILTER_DW), 0);
    case B(OPERATION_MATMUL): return hd_bget_desc(op, A(OPERATION_MATMUL_CDESC), 0);
    default: return NULL;
    }
}

static int say(char *why, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return 0;
}

static const char *short_type(const hd_bdesc *op)
{
    const char *n = hd_bdesc_type_name((int)op->type);
    return strncmp(n, "CUDNN_BACKEND_", 14) == 0 ? n + 14 : n;
}

static int same_dims(const hd_bdesc *a, const hd_bdesc *b)
{
    int64_t da[CUDNN_DIM_MAX], db[CUDNN_DIM_MAX];
    int na = hd_btensor_dims(a, da, NULL), nb = hd_btensor_dims(b, db, NULL);
    return na == nb && memcmp(da, db, (size_t)na * sizeof *da) == 0;
}

/* Does some operation of the graph other than SKIP write the tensor with uid U? */
static int produced(const hd_bdesc *const *ops, int n, int64_t u)
{
    for (int i = 0; i < n; i++) {
        const hd_bdesc *o = NULL;
        if ((int)ops[i]->type == B(OPERATION_POINTWISE)) {
            const hd_bdesc *in, *other;
            hd_bpw_tensors(ops[i], 0, &in, &other, &o);
        } else {
            o = head_output(ops[i]);
        }
        if (o && hd_btensor_uid(o) == u)
            return 1;
    }
    return 0;
}

/* Check one pointwise node on its own (mode, precision, NaN handling, dtypes). */
static int check_pointwise(const hd_bdesc *op, int node, char *why, size_t size)
{
    const hd_bdesc *pw = hd_bget_desc(op, A(OPERATION_POINTWISE_PW_DESCRIPTOR), 0);
    int mode = pw_mode(op), prec = CUDNN_DATA_FLOAT, nan = CUDNN_NOT_PROPAGATE_NAN;
    hd_bget_int(pw, A(POINTWISE_MATH_PREC), &prec);
    hd_bget_int(pw, A(POINTWISE_NAN_PROPAGATION), &nan);
    if (!hd_pw_mode_known(mode))
        return say(why, size, "node %d (OPERATION_POINTWISE): POINTWISE_MODE %d is not a mode hostdnn computes", node, mode);
    if (prec != CUDNN_DATA_FLOAT && prec != CUDNN_DATA_HALF && prec != CUDNN_DATA_BFLOAT16)
        return say(why, size, "node %d (OPERATION_POINTWISE): POINTWISE_MATH_PREC %s is not computed (float, half and "
                   "bfloat16 precisions run, in float)", node, hd_dtype_name((cudnnDataType_t)prec));
    if (nan == CUDNN_PROPAGATE_NAN && (mode == CUDNN_POINTWISE_MIN || mode == CUDNN_POINTWISE_MAX))
        return say(why, size, "node %d (OPERATION_POINTWISE): POINTWISE_NAN_PROPAGATION PROPAGATE_NAN is not honoured "
                   "by MIN / MAX", node);
    const hd_bdesc *in, *other, *out;
    hd_bpw_tensors(op, 0, &in, &other, &out);
    const hd_bdesc *ts[3] = {in, other, out};
    for (int i = 0; i < 3; i++) {
        if (!ts[i])
            continue;
        int dt = hd_btensor_dtype(ts[i]);
        int64_t vc = 1;
        hd_bget_i64(ts[i], A(TENSOR_VECTOR_COUNT), &vc);
        if ((dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16 && dt != CUDNN_DATA_DOUBLE) ||
            vc != 1)
            return say(why, size, "node %d (OPERATION_POINTWISE): tensor uid %lld is %s%s; pointwise operations run on "
                       "float, half, bfloat16 and double tensors", node, (long long)hd_btensor_uid(ts[i]),
                       hd_dtype_name((cudnnDataType_t)dt), vc != 1 ? " (vectorized)" : "");
        if (hd_btensor_dims(ts[i], (int64_t[CUDNN_DIM_MAX]){0}, NULL) > HD_PW_MAX_DIMS)
            return say(why, size, "node %d (OPERATION_POINTWISE): more than %d dimensions", node, HD_PW_MAX_DIMS);
    }
    return 1;
}

int hd_bgraph_analyze(const hd_bdesc *graph, hd_bgraph *g, char *why, size_t size)
{
    memset(g, 0, sizeof *g);
    int n = (int)hd_bcount(graph, A(OPERATIONGRAPH_OPS));
    const hd_bdesc *ops[HD_BGRAPH_MAX_CHAIN + 1];
    if (n < 1 || n > HD_BGRAPH_MAX_CHAIN + 1)
        return say(why, size, "the graph has %d operations; hostdnn's engines run 1 to %d", n, HD_BGRAPH_MAX_CHAIN + 1);
    int head = -1;
    for (int i = 0; i < n; i++) {
        ops[i] = hd_bget_desc(graph, A(OPERATIONGRAPH_OPS), i);
        int t = (int)ops[i]->type;
        if (t == B(OPERATION_POINTWISE)) {
            if (!check_pointwise(ops[i], i, why, size))
                return 0;
        } else if (head_output(ops[i])) {
            if (head >= 0)
                return say(why, size, "node %d (%s): a second convolution or matmul (node %d is one); engines fuse one "
                           "such operation with pointwise operations after it", i, short_type(ops[i]), head);
            head = i;
        } else {
            return say(why, size, "node %d (%s): no hostdnn engine computes this operation", i, short_type(ops[i]));
        }
    }
    const hd_bdesc *cur;
    int used[HD_BGRAPH_MAX_CHAIN + 1] = {0};
    if (head >= 0) {
        g->head = ops[head];
        g->head_type = (int)ops[head]->type;
        cur = head_output(ops[head]);
        used[head] = 1;
    } else {
        /* No head: the chain starts at the one pointwise operation whose input nothing produces. */
        int start = -1;
        for (int i = 0; i < n; i++) {
            const hd_bdesc *in, *other, *out;
            hd_bpw_tensors(ops[i], 0, &in, &other, &out);
            if (!produced(ops, n, hd_btensor_uid(in))) {
                if (start >= 0)
                    return say(why, size, "node %d (OPERATION_POINTWISE): a second chain starts here (node %d starts "
                               "one); engines run one chain", i, start);
                start = i;
            }
        }
        if (start < 0)
            return say(why, size, "the pointwise operations form a cycle");
        const hd_bdesc *in, *other, *out;
        hd_bpw_tensors(ops[start], 0, &in, &other, &out);
        cur = in;
    }
    g->head_out = cur;
    /* Follow the chain: each step is the one operation reading the current tensor. */
    for (int done = head >= 0 ? 1 : 0; done < n; done++) {
        int64_t u = hd_btensor_uid(cur);
        int next = -1, sw = 0;
        for (int i = 0; i < n; i++) {
            if (used[i])
                continue;
            const hd_bdesc *in, *other, *out;
            hd_bpw_tensors(ops[i], 0, &in, &other, &out);
            int as_in = hd_btensor_uid(in) == u, as_other = other && hd_btensor_uid(other) == u;
            if (!as_in && !as_other)
                continue;
            if (next >= 0)
                return say(why, size, "node %d (OPERATION_POINTWISE): tensor uid %lld is read by node %d too; engines run "
                           "a chain, not a branching graph", i, (long long)u, next);
            if (as_in && as_other)
                return say(why, size, "node %d (OPERATION_POINTWISE): reads uid %lld as both of its inputs", i, (long long)u);
            if (as_other && pw_backward(pw_mode(ops[i])))
                return say(why, size, "node %d (OPERATION_POINTWISE): OPERATION_POINTWISE_XDESC is uid %lld, the result "
                           "of the previous operation; it must be a tensor of the user's (the chain flows through DYDESC)",
                           i, (long long)u);
            next = i;
            sw = as_other;
        }
        if (next < 0) {
            for (int i = 0; i < n; i++)
                if (!used[i])
                    return say(why, size, "node %d (%s): does not read the result of the chain before it (uid %lld); "
                               "engines run one chain", i, short_type(ops[i]), (long long)u);
        }
        const hd_bdesc *in, *other, *out;
        hd_bpw_tensors(ops[next], sw, &in, &other, &out);
        if (!same_dims(out, g->head_out) || !same_dims(in, g->head_out))
            return say(why, size, "node %d (OPERATION_POINTWISE): its output must have the dimensions of the chain's "
                       "input (uid %lld); only the other operand broadcasts", next, (long long)hd_btensor_uid(g->head_out));
        if (other && hd_btensor_virtual(other))
            return say(why, size, "node %d (OPERATION_POINTWISE): uid %lld is virtual but is not the result of the "
                       "operation before", next, (long long)hd_btensor_uid(other));
        used[next] = 1;
        g->chain[g->nchain] = ops[next];
        g->swapped[g->nchain] = sw;
        g->nchain++;
        cur = out;
    }
    g->out = cur;
    if (hd_btensor_virtual(cur))
        return say(why, size, "the last tensor of the chain (uid %lld) is virtual: nothing would be written",
                   (long long)hd_btensor_uid(cur));
    if (g->head) {
        static const int names[4][2] = {
            {A(OPERATION_CONVOLUTION_FORWARD_X), A(OPERATION_CONVOLUTION_FORWARD_W)},
            {A(OPERATION_CONVOLUTION_BWD_DATA_W), A(OPERATION_CONVOLUTION_BWD_DATA_DY)},
            {A(OPERATION_CONVOLUTION_BWD_FILTER_X), A(OPERATION_CONVOLUTION_BWD_FILTER_DY)},
            {A(OPERATION_MATMUL_ADESC), A(OPERATION_MATMUL_BDESC)}};
        int k = g->head_type == B(OPERATION_CONVOLUTION_FORWARD) ? 0
                : g->head_type == B(OPERATION_CONVOLUTION_BACKWARD_DATA) ? 1
                : g->head_type == B(OPERATION_CONVOLUTION_BACKWARD_FILTER) ? 2 : 3;
        for (int j = 0; j < 2; j++)
            if (hd_btensor_virtual(hd_bget_desc(g->head, (cudnnBackendAttributeName_t)names[k][j], 0)))
                return say(why, size, "node %d (%s): %s is virtual; the first operation reads the user's tensors", head,
                           short_type(g->head), hd_battr_name((cudnnBackendAttributeName_t)names[k][j]));
    } else if (hd_btensor_virtual(g->head_out)) {
        return say(why, size, "the chain's input (uid %lld) is virtual", (long long)hd_btensor_uid(g->head_out));
    }
    return 1;
}
