/*
 * rnn/rnn_problem.h -- the RNN problem: the descriptor layouts of cudnnRNNDescriptor_t and
 * cudnnRNNDataDescriptor_t, and the facts the engine and both adv libraries derive from them
 * (gate counts, widths, sequence addressing).
 *
 * A "complete view" is an RNN descriptor whose input_size and dtype are known: v8-set
 * descriptors are complete; the legacy calls complete a v6-set one from their xDesc.  The
 * engine entry points take complete views of data types FLOAT or DOUBLE (HALF is computed on
 * float copies, see rnn_engine.h).
 */
#ifndef HD_RNN_PROBLEM_H
#define HD_RNN_PROBLEM_H

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

/* Bytes of one element of the compute type (HALF computes in float). */
static inline size_t hd_rnn_compute_size(const struct cudnnRNNStruct *r)
{
    return r->dtype == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float);
}

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
void hd_rnn_packed_starts(const struct cudnnRNNDataStruct *d, size_t *packed_start);

/* Vectors stored in RNN data of D (padding rows included when unpacked). */
size_t hd_rnn_data_rows(const struct cudnnRNNDataStruct *d);

/* Rough byte count of the largest buffer this descriptor implies, in double, so callers
 * can refuse sizes whose size_t arithmetic would overflow. */
double hd_rnn_size_estimate(const struct cudnnRNNStruct *r, int input_size, int T, int B);

#define HD_RNN_MAX_BYTES 1e15   /* refuse anything larger: far beyond host memory anyway */

/* ---- the problems of the cuDNN 7-style calls ----
 * Both check what they read and log the reason under FN (BAD_PARAM, or ALLOC_FAILED). */

/* Legacy view: the RNN descriptor completed with the input size and data type of a legacy
 * call's xDesc (v6-set descriptors know neither; v8-set ones must agree). */
cudnnStatus_t hd_rnn_legacy_view(const char *fn, const struct cudnnRNNStruct *r, int input_size, cudnnDataType_t dtype,
                                 struct cudnnRNNStruct *out);

/* The legacy per-time-step descriptor array xDesc[seqLength] ({batch_t, vec, 1}, batch_t not
 * increasing) as a packed RNN data descriptor.  *LENS gets its sequence lengths (xDesc[0]'s
 * batch entries), which the caller frees.  VEC < 0 accepts any common width. */
cudnnStatus_t hd_rnn_legacy_data(const char *fn, const char *name, int seq_length, const cudnnTensorDescriptor_t *desc,
                                 int vec, struct cudnnRNNDataStruct *out, int **lens);

#endif /* HD_RNN_PROBLEM_H */
