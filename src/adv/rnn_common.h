/*
 * adv/rnn_common.h -- the RNN descriptors and the facts both adv libraries derive from them:
 * gate counts, the weight-space layout and the reserve-space layout.
 *
 * Header-only on purpose: libcudnn_adv_infer and libcudnn_adv_train are separate shared
 * objects with hidden internals, so anything both must agree on (where a matrix lives in
 * the weight space, where the forward pass leaves its activations for the backward pass)
 * is written once here as static inline code and compiled into each.
 *
 * Weight space (see docs/rnn.md): pseudo-layers in order (layer * dirs + dir); inside one,
 * first every matrix in linLayerID order, then every bias vector in linLayerID order.
 * A matrix of linLayerID i < G (G = gates) multiplies the layer input ("W"), G <= i < 2G
 * multiplies the recurrent state ("R"), and for LSTM with projSize < hiddenSize id 2G is
 * the projection matrix.  Matrices are row-major [rows = hiddenSize][cols = input width].
 */
#ifndef HD_ADV_RNN_COMMON_H
#define HD_ADV_RNN_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "core/api.h"
#include "core/object.h"

struct cudnnRNNStruct {
    hd_object obj;
    int is_set;                        /* 0 until a v6/v8 setter succeeded */
    cudnnRNNAlgo_t algo;
    cudnnRNNMode_t cell;
    cudnnRNNBiasMode_t bias;
    cudnnDirectionMode_t dir;
    cudnnRNNInputMode_t input_mode;
    cudnnDataType_t dtype;
    cudnnDataType_t math_prec;
    cudnnMathType_t math_type;
    int input_size;                    /* 0 after the v6 setter: taken from xDesc by legacy calls */
    int hidden_size;
    int proj_size;                     /* == hidden_size when there is no projection */
    int num_layers;
    cudnnDropoutDescriptor_t dropout;  /* stored as given (may be NULL) */
    uint32_t aux_flags;
    cudnnRNNClipMode_t clip_mode;
    cudnnNanPropagation_t clip_nan;
    double lclip, rclip;
    struct cudnnPersistentRNNPlan *plan;
};

struct cudnnPersistentRNNPlan {
    hd_object obj;
    int minibatch;
    cudnnDataType_t dtype;
};

struct cudnnRNNDataStruct {
    hd_object obj;
    int is_set;
    cudnnDataType_t dtype;
    cudnnRNNDataLayout_t layout;
    int max_seq;
    int batch;
    int vec;
    int *seq_len;                      /* batch entries, owned */
    int has_fill;
    double fill;                       /* paddingFill as given (float or double by dtype) */
};

/* Gates per cell: W/R matrices per pseudo-layer. */
static inline int hd_rnn_gates(cudnnRNNMode_t cell)
{
    return cell == CUDNN_LSTM ? 4 : cell == CUDNN_GRU ? 3 : 1;
}

static inline int hd_rnn_dirs(const struct cudnnRNNStruct *r)
{
    return r->dir == CUDNN_BIDIRECTIONAL ? 2 : 1;
}

static inline int hd_rnn_has_proj(const struct cudnnRNNStruct *r)
{
    return r->cell == CUDNN_LSTM && r->proj_size < r->hidden_size;
}

/* Width of the input of LAYER (INPUT_SIZE for layer 0). */
static inline int hd_rnn_layer_in(const struct cudnnRNNStruct *r, int input_size, int layer)
{
    return layer == 0 ? input_size : r->proj_size * hd_rnn_dirs(r);
}

/* Does layer LAYER have input matrices?  Not layer 0 with CUDNN_SKIP_INPUT. */
static inline int hd_rnn_has_w(const struct cudnnRNNStruct *r, int layer)
{
    return !(layer == 0 && r->input_mode == CUDNN_SKIP_INPUT);
}

static inline int hd_rnn_has_bw(const struct cudnnRNNStruct *r)
{
    return r->bias == CUDNN_RNN_DOUBLE_BIAS || r->bias == CUDNN_RNN_SINGLE_INP_BIAS;
}

static inline int hd_rnn_has_br(const struct cudnnRNNStruct *r)
{
    return r->bias == CUDNN_RNN_DOUBLE_BIAS || r->bias == CUDNN_RNN_SINGLE_REC_BIAS;
}

/* Where one linLayerID of one pseudo-layer lives, in elements from the weight-space start.
 * Absent pieces have rows == 0 (and offset (size_t)-1). */
typedef struct {
    size_t m_off; int m_rows, m_cols;
    size_t b_off; int b_rows;
} hd_rnn_piece;

/* Elements of one pseudo-layer of LAYER. */
static inline size_t hd_rnn_pl_elems(const struct cudnnRNNStruct *r, int input_size, int layer)
{
    size_t G = (size_t)hd_rnn_gates(r->cell), H = (size_t)r->hidden_size, P = (size_t)r->proj_size;
    size_t in = (size_t)hd_rnn_layer_in(r, input_size, layer);
    size_t n = 0;
    if (hd_rnn_has_w(r, layer))
        n += G * H * in;
    n += G * H * P;
    if (hd_rnn_has_proj(r))
        n += P * H;
    n += ((size_t)hd_rnn_has_bw(r) + (size_t)hd_rnn_has_br(r)) * G * H;
    return n;
}

/* Total elements of the weight space; 0 when it would overflow (callers check sizes first). */
static inline size_t hd_rnn_weight_elems(const struct cudnnRNNStruct *r, int input_size)
{
    size_t n = 0;
    for (int l = 0; l < r->num_layers; l++)
        n += hd_rnn_pl_elems(r, input_size, l) * (size_t)hd_rnn_dirs(r);
    return n;
}

/* Locate linLayerID ID of pseudo-layer PL (0 <= id < 2G, or 2G for a projection). */
static inline hd_rnn_piece hd_rnn_locate(const struct cudnnRNNStruct *r, int input_size, int pl, int id)
{
    int G = hd_rnn_gates(r->cell), H = r->hidden_size, P = r->proj_size;
    int dirs = hd_rnn_dirs(r), layer = pl / dirs;
    int in = hd_rnn_layer_in(r, input_size, layer);
    size_t base = 0;
    for (int p = 0; p < pl; p++)
        base += hd_rnn_pl_elems(r, input_size, p / dirs);
    hd_rnn_piece pc = { (size_t)-1, 0, 0, (size_t)-1, 0 };
    size_t wsz = hd_rnn_has_w(r, layer) ? (size_t)H * (size_t)in : 0;
    size_t mats = (size_t)G * wsz + (size_t)G * H * P + (hd_rnn_has_proj(r) ? (size_t)P * H : 0);
    if (id < G) {
        if (wsz) { pc.m_off = base + (size_t)id * wsz; pc.m_rows = H; pc.m_cols = in; }
        if (hd_rnn_has_bw(r)) { pc.b_off = base + mats + (size_t)id * H; pc.b_rows = H; }
    } else if (id < 2 * G) {
        pc.m_off = base + (size_t)G * wsz + (size_t)(id - G) * H * P;
        pc.m_rows = H; pc.m_cols = P;
        if (hd_rnn_has_br(r)) {
            size_t bo = hd_rnn_has_bw(r) ? (size_t)G * H : 0;
            pc.b_off = base + mats + bo + (size_t)(id - G) * H; pc.b_rows = H;
        }
    } else if (id == 2 * G && hd_rnn_has_proj(r)) {
        pc.m_off = base + (size_t)G * wsz + (size_t)G * H * P;
        pc.m_rows = P; pc.m_cols = H;
    }
    return pc;
}

/* ---- reserve space (training forward -> backward data -> backward weights) ----
 * In elements of the compute type.  Per pseudo-layer, for every (time, batch) slot of the
 * padded T x B grid (padding slots hold zeros):
 *   gates  [T][B][G*H]  post-activation gate values (LSTM i,f,g,o; GRU r,z,n)
 *   cell   [T][B][H]    LSTM: c_t (after clipping); GRU: R_n h + b_Rn (needed by dr)
 *   hid    [T][B][H]    h_t before the projection
 *   dpx    [T][B][G*H]  backward data: gradient w.r.t. W x + b_W
 *   dph    [T][B][G*H]  backward data: gradient w.r.t. R h + b_R
 *   dproj  [T][B][P]    backward data: gradient w.r.t. the projected state (LSTM + projection)
 * then, per layer, that layer's output [T][B][dirs*P] (the next layer's input). */
typedef struct {
    size_t pl_stride;                        /* elements per pseudo-layer block */
    size_t gates, cell, hid, dpx, dph, dproj; /* offsets inside a pseudo-layer block */
    size_t out_base;                         /* start of the per-layer outputs */
    size_t out_stride;                       /* elements per layer output */
    size_t total;
} hd_rnn_reserve;

/* GRADS == 0 leaves out dpx/dph/dproj: the inference forward pass keeps its scratch copy of
 * this layout in the work space and never needs them. */
static inline hd_rnn_reserve hd_rnn_reserve_layout_ex(const struct cudnnRNNStruct *r, int T, int B, int grads)
{
    size_t G = (size_t)hd_rnn_gates(r->cell), H = (size_t)r->hidden_size, P = (size_t)r->proj_size;
    size_t TB = (size_t)T * (size_t)B, npl = (size_t)r->num_layers * (size_t)hd_rnn_dirs(r);
    size_t g = grads ? 1 : 0;
    hd_rnn_reserve v;
    v.gates = 0;
    v.cell = TB * G * H;
    v.hid = v.cell + TB * H;
    v.dpx = v.hid + TB * H;
    v.dph = v.dpx + g * TB * G * H;
    v.dproj = v.dph + g * TB * G * H;
    v.pl_stride = v.dproj + g * TB * P;
    v.out_base = npl * v.pl_stride;
    v.out_stride = TB * (size_t)hd_rnn_dirs(r) * P;
    v.total = v.out_base + (size_t)r->num_layers * v.out_stride;
    return v;
}

static inline hd_rnn_reserve hd_rnn_reserve_layout(const struct cudnnRNNStruct *r, int T, int B)
{
    return hd_rnn_reserve_layout_ex(r, T, B, 1);
}

/* ---- work space, in elements of the compute type ----
 * Forward:  [reserve-shaped scratch (inference only)] xin[T*B*IN] pre[T*B*G*H] rec[B*G*H]
 *           hprev[B*P] cprev[B*H] hnew[B*H] hproj[B*P]
 * Backward: din[T*B*W] dout[T*B*W] (W = max(IN, dirs*P)) hseq[T*B*P] dh[B*P] dc[B*H]
 *           dhn[B*H] drec[B*G*H] tmp[B*H]
 * One size covers both, as cuDNN's single workspace query does. */
typedef struct {
    size_t xin, pre, rec, hprev, cprev, hnew, hproj, fwd_end;
    size_t din, dout, hseq, dh, dc, dhn, drec, tmp, bwd_end;
    size_t total;
} hd_rnn_work;

static inline hd_rnn_work hd_rnn_work_layout(const struct cudnnRNNStruct *r, int input_size, int T, int B,
                                             int inference)
{
    size_t G = (size_t)hd_rnn_gates(r->cell), H = (size_t)r->hidden_size, P = (size_t)r->proj_size;
    size_t TB = (size_t)T * (size_t)B, IN = (size_t)input_size, DP = (size_t)hd_rnn_dirs(r) * P;
    size_t W = IN > DP ? IN : DP;
    hd_rnn_work w;
    w.xin = inference ? hd_rnn_reserve_layout_ex(r, T, B, 0).total : 0;
    w.pre = w.xin + TB * IN;
    w.rec = w.pre + TB * G * H;
    w.hprev = w.rec + (size_t)B * G * H;
    w.cprev = w.hprev + (size_t)B * P;
    w.hnew = w.cprev + (size_t)B * H;
    w.hproj = w.hnew + (size_t)B * H;
    w.fwd_end = w.hproj + (size_t)B * P;
    w.din = 0;
    w.dout = w.din + TB * W;
    w.hseq = w.dout + TB * W;
    w.dh = w.hseq + TB * P;
    w.dc = w.dh + (size_t)B * P;
    w.dhn = w.dc + (size_t)B * H;
    w.drec = w.dhn + (size_t)B * H;
    w.tmp = w.drec + (size_t)B * G * H;
    w.bwd_end = w.tmp + (size_t)B * H;
    w.total = w.fwd_end > w.bwd_end ? w.fwd_end : w.bwd_end;
    return w;
}

/* Rough element count of the largest buffer this descriptor implies, in double, so callers
 * can refuse sizes whose size_t arithmetic would overflow. */
static inline double hd_rnn_size_estimate(const struct cudnnRNNStruct *r, int input_size, int T, int B)
{
    double G = hd_rnn_gates(r->cell), H = r->hidden_size, P = r->proj_size, L = r->num_layers;
    double D = hd_rnn_dirs(r), IN = input_size > 0 ? input_size : 1;
    double wts = L * D * (G * H * (IN + D * P + P + 2.0) + P * H);
    double tb = (double)T * (double)B;
    double res = L * D * tb * (3.0 * G * H + 2.0 * H + P) + L * tb * D * P;
    double wk = res + tb * (IN + G * H + 2.0 * (IN + D * P) + P) + (double)B * (G * H + 4.0 * H + 2.0 * P);
    double m = wts > wk ? wts : wk;
    return m * 8.0;
}

#define HD_RNN_MAX_BYTES 1e15   /* refuse anything larger: far beyond host memory anyway */

/* Offset of vector (t, b) in RNN data of DESC, given per-time start rows for the packed
 * layout (PACKED_START[t] = number of vectors before time t). */
static inline size_t hd_rnn_data_row(const struct cudnnRNNDataStruct *d, const size_t *packed_start, int t, int b)
{
    switch (d->layout) {
    case CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED: return (size_t)t * (size_t)d->batch + (size_t)b;
    case CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED: return (size_t)b * (size_t)d->max_seq + (size_t)t;
    default: return packed_start[t] + (size_t)b;
    }
}

/* Fill PACKED_START (max_seq + 1 entries) for a packed descriptor (lengths sorted descending). */
static inline void hd_rnn_packed_starts(const struct cudnnRNNDataStruct *d, size_t *packed_start)
{
    size_t acc = 0;
    for (int t = 0; t < d->max_seq; t++) {
        packed_start[t] = acc;
        for (int b = 0; b < d->batch; b++)
            acc += d->seq_len[b] > t;
    }
    packed_start[d->max_seq] = acc;
}

#endif /* HD_ADV_RNN_COMMON_H */
