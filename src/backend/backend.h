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

/* What a finalized execution plan runs (filled by finalize.c, used by execute.c). */
typedef struct hd_bplan {
    int kind;                        /* 10 forward, 12 backward data, 11 backward filter (descriptor types) */
    /* The problem as legacy descriptors, owned by the plan (never passed to hd_object_free). */
    struct cudnnTensorStruct x, y;   /* in the forward sense: x is dx, y is dy for the backward ops */
    struct cudnnFilterStruct w;      /* w, or dw */
    struct cudnnConvolutionStruct conv;
    int64_t uid_x, uid_w, uid_y;
    int algo;
    int double_scalars;              /* alpha/beta are double (DOUBLE data) */
    double alpha, beta;
    size_t workspace;
} hd_bplan;

struct hd_bdesc {
    hd_object obj;
    cudnnBackendDescriptorType_t type;
    int finalized;
    int nattr;
    hd_battr attr[HD_BACKEND_MAX_ATTRS];
    hd_bplan *plan;                  /* execution plans only, after finalize */
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
/* Does our engine run this finalized operation graph?  On no, *why says why. */
int hd_bgraph_supported(const hd_bdesc *graph, const char **why);

#endif
