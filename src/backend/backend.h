/*
 * backend/backend.h -- cudnnBackend* descriptors (see docs/backend.md).
 *
 * Every backend descriptor is one generic object: its cudnnBackendDescriptorType_t, a
 * finalized flag and a small store of typed attributes.  attr_table.c says which
 * attributes each type takes, with which cudnnBackendAttributeType_t and how many
 * elements; finalize.c validates per type and adds the attributes cuDNN computes
 * (defaults, heuristic results, workspace size); execute.c runs a plan on the convolution
 * engine (src/conv), the one the legacy convolution functions run on.
 *
 * Descriptor-valued attributes hold private deep copies (the caller may destroy theirs
 * after Set), owned by the descriptor and freed with it.
 */
#ifndef HD_BACKEND_H
#define HD_BACKEND_H

#include "core/desc.h"

#define HD_BACKEND_MAX_ATTRS 24
#define HD_BACKEND_NUM_TYPES 23

typedef struct {
    cudnnBackendAttributeName_t name;
    cudnnBackendAttributeType_t type;
    int64_t count;
    void *data;                      /* count elements of the type's size; malloc'd */
} hd_battr;

typedef struct hd_bdesc hd_bdesc;

/* ---- graph.c: the shape of an operation graph our engines run ---- */

#define HD_BGRAPH_MAX_CHAIN 16

/* A graph as a head operation (a convolution, a matmul, or none) followed by a chain of
 * pointwise operations, each consuming the previous one's output. */
typedef struct hd_bgraph {
    int head_type;                   /* descriptor type of the head; 0 when the chain starts from a tensor */
    const hd_bdesc *head;
    const hd_bdesc *head_out;        /* the head's output tensor (y, dx, dw or c); the chain's input */
    int nchain;
    const hd_bdesc *chain[HD_BGRAPH_MAX_CHAIN];   /* pointwise operations in execution order */
    int swapped[HD_BGRAPH_MAX_CHAIN];             /* the running value enters as b, not x */
    const hd_bdesc *out;             /* the last tensor written */
} hd_bgraph;

/* Analyse a finalized graph.  0 when no engine of ours runs its shape, with WHY naming the
 * node (index in OPERATIONGRAPH_OPS and type) and the attribute that prevents it. */
int hd_bgraph_analyze(const hd_bdesc *graph, hd_bgraph *g, char *why, size_t why_size);
/* Tensor helpers shared by the backend files. */
int hd_btensor_dims(const hd_bdesc *t, int64_t *dims, int64_t *strides);
int hd_btensor_virtual(const hd_bdesc *t);
int64_t hd_btensor_uid(const hd_bdesc *t);
int hd_btensor_dtype(const hd_bdesc *t);
/* The pointwise operation's running input, other input and output tensors. */
void hd_bpw_tensors(const hd_bdesc *op, int swapped, const hd_bdesc **in, const hd_bdesc **other,
                    const hd_bdesc **out);

/* ---- engines.c: the engines, their global indices, plans ---- */

typedef struct hd_bplan hd_bplan;
/* Number of engines (global indices 0..n-1) for a graph of this shape. */
int64_t hd_bengine_count(const hd_bgraph *g);
/* Does engine INDEX run graph G?  On no, WHY says why (error level is the caller's choice). */
int hd_bengine_applies(const hd_bgraph *g, int64_t index, char *why, size_t why_size);
/* The engines that run G, best first (the legacy ranking for convolutions); returns how
 * many were written to OUT (at most MAX). */
int hd_bengine_rank(const hd_bgraph *g, int64_t *out, int max);
/* Build the plan of engine INDEX for G (kept by the plan descriptor). */
cudnnStatus_t hd_bplan_create(const hd_bgraph *g, int64_t index, hd_bplan **out);
size_t hd_bplan_workspace(const hd_bplan *p);
/* Why hd_bplan_create refused (the plan it returned then holds only that). */
const char *hd_bplan_why(const hd_bplan *p);

struct hd_bdesc {
    hd_object obj;
    cudnnBackendDescriptorType_t type;
    int finalized;
    int nattr;
    hd_battr attr[HD_BACKEND_MAX_ATTRS];
    hd_bplan *plan;                  /* execution plans only, after finalize (engines.c) */
};

/* ---- attr_table.c ---- */
typedef struct {
    cudnnBackendAttributeName_t name;
    cudnnBackendDescriptorType_t owner;
    unsigned types;                  /* bit mask of accepted cudnnBackendAttributeType_t */
    int64_t min_count, max_count;
    int ref_type;                    /* BACKEND_DESCRIPTOR attributes: required descriptor type, -1 any operation */
    int settable;                    /* 0: computed by finalize, get only */
} hd_battr_info;

const hd_battr_info *hd_battr_lookup(cudnnBackendAttributeName_t name);
size_t hd_btype_size(cudnnBackendAttributeType_t type);
/* Is V a valid value of the enum that attribute type T carries?  (Non-enum types: 1.) */
int hd_btype_enum_valid(cudnnBackendAttributeType_t t, int v);
int hd_bdesc_type_is_operation(int type);
const char *hd_battr_name(cudnnBackendAttributeName_t name);
const char *hd_bdesc_type_name(int type);

/* ---- backend_api.c ---- */
int hd_bdesc_is(const void *p);
hd_battr *hd_bdesc_find(const hd_bdesc *d, cudnnBackendAttributeName_t name);
/* Store COUNT elements (deep-copying descriptors) as attribute NAME; replaces any old value.
 * Returns CUDNN_STATUS_ALLOC_FAILED or SUCCESS. */
cudnnStatus_t hd_bdesc_store(hd_bdesc *d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                             int64_t count, const void *elems);
/* Deep copy / free. */
hd_bdesc *hd_bdesc_clone(const hd_bdesc *src);
void hd_bdesc_clear(hd_bdesc *d);
/* Copy SRC's contents into the existing descriptor DST (same type). */
cudnnStatus_t hd_bdesc_copy_into(hd_bdesc *dst, const hd_bdesc *src);
/* Allocate a fresh descriptor of TYPE (not through the API). */
hd_bdesc *hd_bdesc_new(cudnnBackendDescriptorType_t type);

/* Convenience readers for finalize.c (return 0 when the attribute is absent). */
int hd_bget_i64(const hd_bdesc *d, cudnnBackendAttributeName_t name, int64_t *out);
int hd_bget_int(const hd_bdesc *d, cudnnBackendAttributeName_t name, int *out);
int hd_bget_double(const hd_bdesc *d, cudnnBackendAttributeName_t name, double *out);
const hd_bdesc *hd_bget_desc(const hd_bdesc *d, cudnnBackendAttributeName_t name, int index);
int64_t hd_bcount(const hd_bdesc *d, cudnnBackendAttributeName_t name);

/* ---- finalize.c ---- */
cudnnStatus_t hd_bdesc_finalize(hd_bdesc *d);
void hd_bplan_free(hd_bplan *p);
/* The parts of a finalized convolution operation, x/w/y in the forward sense; 0 if OP is
 * not a convolution operation. */
int hd_bconv_parts(const hd_bdesc *op, const hd_bdesc **conv, const hd_bdesc **x, const hd_bdesc **w,
                   const hd_bdesc **y, double *alpha, double *beta);

#endif
