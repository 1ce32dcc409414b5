/*
 * The misuse harness: every cuDNN 8.1 function (misuse_table.h, generated from the API
 * inventory by tools/gen/gen_misuse.py into the build's gen/ folder) called first with valid arguments built from small
 * fixtures (misuse_fixtures.h, misuse_args.h), then with one argument at a time replaced by a
 * bad value of its class:
 *   handle           NULL, destroyed, an object of another kind
 *   descriptor       NULL, destroyed, another kind, never set
 *   descriptor array NULL, one destroyed entry
 *   pointer          NULL (data, output scalars, int arrays), unless the table below lists it
 *                    as documented-optional
 *   workspace/size   one byte short of the least size the valid call accepts, NULL with its size
 *   int              0, -1, INT_MAX, INT_MIN (unsigned: 0, UINT_MAX; 64-bit: the extremes)
 *   size_t           0, SIZE_MAX
 *   real             -1, NaN, 1e300
 *   enum             one below and one above its range, INT_MAX
 *   int array        every entry 0, -1, INT_MAX, 65536
 * Each function runs in a forked child, each call under an alarm, so a crash or hang is
 * counted and named (the child announces each call before making it).  The child fills every output buffer,
 * output scalar and output array with a canary before the call and checks it after a failing
 * one, and every descriptor it writes (read back through the getters) unchanged.  A mutation
 * that is invalid whatever the other arguments ("definite": NULL, destroyed,
 * wrong-kind or never-set objects where the function reads them, enums out of range, a short
 * workspace) must not answer SUCCESS, nor INTERNAL_ERROR; no call may answer a status outside
 * cuDNN's list; and a failing call must log its reason at error level (a callback counts the
 * lines).  Totals per class: tried / crashed / wrong status / written on failure / unlogged.
 *
 *   test_misuse_all                    every function
 *   test_misuse_all cudnnAddTensor -v  one function, each call printed
 *   test_misuse_all -b                 also list the functions whose valid call fails
 * One worker thread unless HOSTDNN_NUM_THREADS is set.
 */
#define _GNU_SOURCE   /* strsignal, strncasecmp, fork */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"
#include "misuse_args.h"
#include "misuse_state.h"

#define OUT_BYTES (32 << 10)    /* output data buffers, checked whole */
#define WS_BYTES (4 << 20)      /* workspace, reserve and weight buffers */
#define IN_BYTES (64 << 10)     /* input data buffers, zeros */
#define SLOT_BYTES 512          /* output scalars and arrays */
#define CANARY 0xA5
#define MAX_MUT 400
#define CALL_SECONDS 30         /* a call still running after this counts as hung */

/* Arguments cuDNN lets the caller leave out, or whose value it cannot check:
 *   X_NULL    NULL is a valid call (documented optional)
 *   X_UNUSED  the fixture's configuration does not use the argument, so NULL, destroyed,
 *             other-kind and never-set objects there are not errors cuDNN reports
 *   X_COUNT   the length of an array the caller owns: a larger value than the array is the
 *             caller's overflow, which no library can see, so it gets no huge values
 *   X_NEG     a signed int for which negative values mean something (otherwise a negative
 *             count, size, index, stride or padding is a definite error)
 *   X_UNSET   a never-set object is valid there (cuDNN answers for its empty state) */
enum { X_NULL = 1, X_UNUSED = 2, X_COUNT = 4, X_NEG = 8, X_UNSET = 16 };
static const struct { const char *func, *param; int how; const char *why; } ms_exempt[] = {
#include "misuse_exempt.inc"
    {NULL, NULL, 0, NULL},
};

enum { M_NULL, M_DEAD, M_KIND, M_UNSET, M_SHAPE, M_TYPE, M_ARR_DEAD, M_SHORT, M_NULL_WS, M_INT, M_SIZE, M_REAL,
       M_ENUM, M_ARRAY, M_COUNT };
static const char *const mut_name[M_COUNT] = {"NULL", "destroyed", "wrong kind", "never set", "other shape",
                                              "other data type", "array entry destroyed", "one byte short",
                                              "NULL workspace", "int", "size_t", "real", "enum out of range",
                                              "int array entries"};

/* Int arrays whose every entry is 0, -1, INT_MAX or 65536 (products of two overflow an int),
 * long enough for any count the API takes. */
static int arr_fill[4][256];

typedef struct mutation { int param, kind, definite; ms_val v; char what[64]; } mutation;

/* One report from the child: phase 0 announces call IDX, phase 1 gives its outcome. */
typedef struct report { int idx, phase, status, written, kind, param; char what[64], reason[120]; } report;

static int verbose, list_base;

/* The X_ flags of FN's parameter PARAM (the table's names are shell patterns). */
static int exempt(const char *fn, const char *param)
{
    int how = 0;
    for (int i = 0; ms_exempt[i].func; i++) {
        if (fnmatch(ms_exempt[i].func, fn, 0) == 0 && fnmatch(ms_exempt[i].param, param, 0) == 0)
            how |= ms_exempt[i].how;
    }
    return how;
}

/* Reals with a documented range: NaN or a value outside it is a definite error. */
static const struct { const char *param; double lo, hi; } ms_real_range[] = {
    {"epsilon", 0.0, INFINITY},              /* CUDNN_BN_MIN_EPSILON */
    {"dropout", 0.0, 1.0},
    {"lrnK", 1e-5, INFINITY},                /* CUDNN_LRN_MIN_K */
    {"lrnBeta", 0.01, INFINITY},             /* CUDNN_LRN_MIN_BETA */
    {NULL, 0, 0},
};

static int real_out_of_range(const char *param, double v)
{
    for (int i = 0; ms_real_range[i].param; i++)
        if (strcmp(ms_real_range[i].param, param) == 0)
            return !(v >= ms_real_range[i].lo && v <= ms_real_range[i].hi);
    return 0;
}

/* An array of cudnnAlgorithmPerformance_t the caller made (not a plain output buffer). */
static int perf_array(const ms_func *f, int i)
{
    return strcmp(f->p[i].ctype, "cudnnAlgorithmPerformance_t *") == 0 &&
           strcmp(f->name, "cudnnCreateAlgorithmPerformance") != 0;
}

/* The size_t partner of pointer parameter I (workspace, reserve, weights, states...), or -1. */
static int ws_partner(const ms_func *f, int i)
{
    for (int d = -1; d <= 1; d += 2) {
        int j = i + d;
        if (j < 0 || j >= f->np || f->p[j].cls != MS_SIZE)
            continue;
        const char *ptr = f->p[i].name, *size = f->p[j].name;
        if (ptr[0] == 'd' && isupper((unsigned char)ptr[1]) == 0 && strncasecmp(ptr + 1, size, 4) == 0)
            ptr++;   /* dweightSpace pairs with weightSpaceSize */
        if (strncasecmp(ptr, size, 4) == 0 && strstr(size, "Size"))
            return j;
    }
    return -1;
}

static int is_ws_ptr(const ms_func *f, int i)
{
    return (f->p[i].cls == MS_OUT || f->p[i].cls == MS_IN) && ws_partner(f, i) >= 0;
}

/* Buffers of one child: one per parameter, so no two arguments alias. */
static unsigned char *buf[40];
static size_t buf_len[40];
static int canaried[40];
static unsigned char canary_ref[OUT_BYTES];

static void cb_fn(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)udata, (void)dbg, (void)msg;
}

/* Error-level log lines seen during the call under test: every failure must log its reason
 * (the first one's reason is reported, and printed with -v). */
static int errors_logged;
static char first_reason[120];

static void count_errors(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)udata, (void)dbg;
    if (sev != CUDNN_SEV_ERROR)
        return;
    if (errors_logged++ == 0) {
        const char *r = strstr(msg, "Reason: ");
        r = r ? r + 8 : msg;
        snprintf(first_reason, sizeof first_reason, "%.*s", (int)strcspn(r, "\n"), r);
    }
}

static void alloc_buffers(const ms_func *f)
{
    memset(canary_ref, CANARY, sizeof canary_ref);
    for (int i = 0; i < f->np; i++) {
        const ms_param *p = &f->p[i];
        size_t len = SLOT_BYTES;
        canaried[i] = 0;
        if (is_ws_ptr(f, i))
            len = WS_BYTES;
        else if (p->cls == MS_IN || p->cls == MS_IARR_IN)
            len = IN_BYTES;
        else if (perf_array(f, i))
            len = SLOT_BYTES;
        else if (p->cls == MS_OUT)
            len = OUT_BYTES, canaried[i] = 1;
        else if (p->cls == MS_SCALAR_OUT || p->cls == MS_IARR_OUT)
            canaried[i] = 1;
        buf[i] = calloc(1, len);
        buf_len[i] = len;
    }
}

/* The valid arguments of F over fixtures X. */
static void baseline(const ms_func *f, fx *x, ms_val *v)
{
    const ms_override *o = ms_find_override(f->name);
    int rnn = strstr(f->name, "RNN") != NULL, ctc = strstr(f->name, "CTC") != NULL;
    int dyn = strstr(f->name, "Persistent") || strstr(f->name, "RNNDynamic");
    for (int i = 0; i < f->np; i++) {
        const ms_param *p = &f->p[i];
        const char *ov = ms_override_value(o, p->name);
        memset(&v[i], 0, sizeof v[i]);
        switch (p->cls) {
        case MS_HANDLE: v[i].p = x->h; break;
        case MS_DESC:
            v[i].p = x->live[p->sub];
            if (p->sub == MS_K_TENSOR && ctc)
                v[i].p = x->t_ctc;
            else if (p->sub == MS_K_RNN && dyn)
                v[i].p = x->rnn_dyn;
            else if (p->sub == MS_K_TENSOR && ms_small_tensor(f->name, p->name))
                v[i].p = x->t_small;
            else if (p->sub == MS_K_TENSOR && rnn && ms_state_tensor(p->name))
                v[i].p = x->t_h;
            else if (p->sub == MS_K_FILTER && rnn)
                v[i].p = x->f_rnn;
            break;
        case MS_DESC_ARR: v[i].p = x->t_seq; break;
        case MS_IN:
        case MS_OUT:
        case MS_SCALAR_OUT:
        case MS_IARR_OUT:
            v[i].p = buf[i];
            if (perf_array(f, i)) {   /* every entry a live object, as cuDNN requires */
                void **a = (void **)buf[i];
                for (size_t k = 0; k < buf_len[i] / sizeof(void *); k++)
                    a[k] = x->live[MS_K_ALGO_PERF];
            }
            break;
        case MS_IARR_IN: {
            int *a = (int *)buf[i];
            int n = (int)(buf_len[i] / sizeof(int));
            if (ov && ov[0] == '@')
                ms_parse_list(ov, a, n);
            else
                ms_iarr_default(p->name, a, n);
            v[i].p = a;
            break;
        }
        case MS_INT: v[i].i = ov ? strtoll(ov, NULL, 10) : ms_int_default(f->name, p->name); break;
        case MS_SIZE: {
            int j = i > 0 && is_ws_ptr(f, i - 1) && ws_partner(f, i - 1) == i ? i - 1
                  : i + 1 < f->np && is_ws_ptr(f, i + 1) && ws_partner(f, i + 1) == i ? i + 1 : -1;
            v[i].i = j >= 0 ? (long long)buf_len[j] : ov ? strtoll(ov, NULL, 10) : 1;
            break;
        }
        case MS_REAL: v[i].d = ov ? strtod(ov, NULL) : ms_has(p->name, "dropout") ? 0.5 : 1.0; break;
        case MS_ENUM: v[i].i = ov ? strtoll(ov, NULL, 10) : ms_enums[p->sub].values[0]; break;
        case MS_OTHER:
            if (p->sub == MS_O_ALGO) {
                static cudnnAlgorithm_t algo;
                v[i].p = &algo;
            } else if (p->sub == MS_O_CALLBACK)
                v[i].fp = (void (*)(void))cb_fn;
            break;
        }
        if (ov && strncmp(ov, "null", 4) == 0)
            v[i].p = NULL;
        else if (ov && strncmp(ov, "tensor", 6) == 0)
            v[i].p = x->live[MS_K_TENSOR];
        /* attributes are read from a finalized backend descriptor */
        if (strcmp(f->name, "cudnnBackendGetAttribute") == 0 && p->cls == MS_DESC && i == 0)
            cudnnBackendFinalize(v[i].p);
        /* a states buffer to restore from: the one the fixture's dropout descriptor initialised */
        if (strcmp(f->name, "cudnnRestoreDropoutDescriptor") == 0 && strcmp(p->name, "states") == 0)
            memcpy(buf[i], fx_states, fx_states_size < buf_len[i] ? fx_states_size : buf_len[i]);
    }
}

/* Fill the canaried buffers, call, and tell whether a failing call wrote any of them. */
static cudnnStatus_t call_once(const ms_func *f, const ms_val *v, int *written)
{
    for (int i = 0; i < f->np; i++)
        if (canaried[i])
            memset(buf[i], CANARY, buf_len[i]);
    /* a descriptor the function writes is an output too: read it before and after */
    static ms_state before[40], after;
    for (int i = 0; i < f->np; i++)
        if (f->p[i].cls == MS_DESC && !f->p[i].size)
            ms_read_state(f->p[i].sub, v[i].p, &before[i]);
    cudnnSetCallback(CUDNN_SEV_ERROR_EN, NULL, count_errors);
    errors_logged = 0;
    first_reason[0] = 0;
    cudnnStatus_t st = f->call(v);
    int logged = errors_logged;
    cudnnSetCallback(CUDNN_SEV_ERROR_EN, NULL, count_errors);   /* the call may have replaced it */
    if (st != CUDNN_STATUS_SUCCESS)
        for (int i = 0; i < f->np; i++)
            if (f->p[i].cls == MS_DESC && !f->p[i].size) {
                ms_read_state(f->p[i].sub, v[i].p, &after);
                if (after.n != before[i].n || memcmp(after.bytes, before[i].bytes, after.n) != 0)
                    snprintf(first_reason, sizeof first_reason, "changed %s", f->p[i].name), logged |= 1 << 30;
            }
    *written = st != CUDNN_STATUS_SUCCESS && f->status && logged == 0 ? 4 : 0;
    if (logged & (1 << 30))
        *written |= 1;
    if (st != CUDNN_STATUS_SUCCESS)
        for (int i = 0; i < f->np; i++)
            if (canaried[i] && memcmp(buf[i], canary_ref, buf_len[i]) != 0)
                *written |= 1;
    return st;
}

/* Build fixtures and arguments, apply M (NULL for the valid call), call, tear down. */
static cudnnStatus_t run_one(const ms_func *f, const mutation *m, const size_t *ws_size, int *written)
{
    fx x;
    ms_val v[40];
    fx_build(&x);
    baseline(f, &x, v);
    for (int i = 0; i < f->np; i++)
        if (f->p[i].cls == MS_SIZE && ws_size[i] != (size_t)-1)
            v[i].i = (long long)ws_size[i];
    if (m) {
        if (m->kind == M_DEAD && f->p[m->param].cls == MS_HANDLE)
            v[m->param].p = x.h_dead;
        else if (m->kind == M_DEAD)
            v[m->param].p = x.dead[f->p[m->param].sub];
        else if (m->kind == M_KIND)
            v[m->param].p = f->p[m->param].sub == MS_K_TENSOR && f->p[m->param].cls == MS_DESC
                                ? x.live[MS_K_FILTER] : x.live[MS_K_TENSOR];
        else if (m->kind == M_UNSET)
            v[m->param].p = x.unset[f->p[m->param].sub];
        else if (m->kind == M_SHAPE && f->p[m->param].sub == MS_K_TENSOR)
            v[m->param].p = v[m->param].p == x.t_small ? x.live[MS_K_TENSOR] : x.t_wide;
        else if (m->kind == M_SHAPE)
            v[m->param].p = x.f_1x1;
        else if (m->kind == M_TYPE)
            v[m->param].p = f->p[m->param].sub == MS_K_TENSOR ? (void *)x.t_double : (void *)x.f_double;
        else if (m->kind == M_ARR_DEAD)
            v[m->param].p = x.t_seq_bad;
        else
            v[m->param] = m->v;
    }
    cudnnStatus_t st = call_once(f, v, written);
    fx_teardown(&x);
    return st;
}

/* The least size each workspace-like size argument accepts, the others kept at their buffer's
 * length; (size_t)-1 for arguments that are no such size, or when the valid call fails. */
static void find_ws_min(const ms_func *f, size_t *ws_size, int base_ok)
{
    for (int i = 0; i < f->np; i++)
        ws_size[i] = (size_t)-1;
    if (!base_ok)
        return;
    for (int i = 0; i < f->np; i++) {
        if (!is_ws_ptr(f, i))
            continue;
        int j = ws_partner(f, i), w;
        size_t lo = 0, hi = buf_len[i];   /* hi is known to pass */
        ws_size[j] = 0;
        alarm(CALL_SECONDS);
        if (run_one(f, NULL, ws_size, &w) == CUDNN_STATUS_SUCCESS)
            hi = 0;
        while (hi > 0 && lo + 1 < hi) {
            size_t mid = lo + (hi - lo) / 2;
            alarm(CALL_SECONDS);
            ws_size[j] = mid;
            if (run_one(f, NULL, ws_size, &w) == CUDNN_STATUS_SUCCESS)
                hi = mid;
            else
                lo = mid;
        }
        ws_size[j] = (size_t)-1;
        /* remember the least size in the pointer's slot for the mutations */
        ws_size[i] = hi;
    }
}

static void add(mutation *ms, int *n, int param, int kind, int definite, ms_val v, const char *what)
{
    if (*n >= MAX_MUT)
        return;
    mutation *m = &ms[(*n)++];
    m->param = param, m->kind = kind, m->definite = definite, m->v = v;
    snprintf(m->what, sizeof m->what, "%s", what);
}

/* Every mutation of F's arguments, in a fixed order (the parent and its children agree). */
static int mutations(const ms_func *f, const size_t *ws_min, mutation *ms)
{
    int n = 0;
    ms_val z;
    memset(&z, 0, sizeof z);
    int reads_desc = strcmp(f->direction, "desc") != 0;
    for (int i = 0; i < f->np; i++) {
        const ms_param *p = &f->p[i];
        int ex = exempt(f->name, p->name), need = !(ex & (X_NULL | X_UNUSED)), used = !(ex & X_UNUSED);
        ms_val v = z;
        char what[64];
        switch (p->cls) {
        case MS_HANDLE:
            add(ms, &n, i, M_NULL, 1, z, "NULL");
            add(ms, &n, i, M_DEAD, 1, z, "destroyed");
            add(ms, &n, i, M_KIND, 1, z, "a tensor descriptor");
            break;
        case MS_DESC:
            add(ms, &n, i, M_NULL, need, z, "NULL");
            add(ms, &n, i, M_DEAD, used, z, "destroyed");
            add(ms, &n, i, M_KIND, used, z, p->sub == MS_K_TENSOR ? "a filter descriptor" : "a tensor descriptor");
            if (p->sub != MS_K_PERSIST_PLAN)
                add(ms, &n, i, M_UNSET, used && reads_desc && p->size && !(ex & X_UNSET), z, "never set");
            if (p->sub == MS_K_TENSOR || p->sub == MS_K_FILTER) {
                /* valid objects that do not fit the others: refused or run, never a crash or a
                 * write on failure (every buffer holds a 2x4x8x8 DOUBLE tensor) */
                add(ms, &n, i, M_SHAPE, 0, z, p->sub == MS_K_TENSOR ? "2x8x8x4 or 2x4x8x8" : "4x4x1x1");
                add(ms, &n, i, M_TYPE, 0, z, "DOUBLE");
            }
            break;
        case MS_DESC_ARR:
            add(ms, &n, i, M_NULL, 1, z, "NULL");
            add(ms, &n, i, M_ARR_DEAD, 1, z, "entry 1 destroyed");
            break;
        case MS_IN:
        case MS_OUT:
        case MS_SCALAR_OUT:
        case MS_IARR_IN:
        case MS_IARR_OUT:
            if (is_ws_ptr(f, i)) {
                int j = ws_partner(f, i);
                if (ws_min[i] != (size_t)-1 && ws_min[i] > 0) {
                    v.i = (long long)ws_min[i] - 1;
                    snprintf(what, sizeof what, "%zu (least %zu)", ws_min[i] - 1, ws_min[i]);
                    add(ms, &n, j, M_SHORT, 1, v, what);
                }
                add(ms, &n, i, M_NULL_WS, need && ws_min[i] != (size_t)-1 && ws_min[i] > 0, z, "NULL");
            } else
                add(ms, &n, i, M_NULL, need, z, "NULL");
            if (p->cls == MS_IARR_IN && p->size == 4) {
                static const char *const names[4] = {"all 0", "all -1", "all INT_MAX", "all 65536"};
                for (int k = 0; k < 4; k++) {
                    v.p = arr_fill[k];
                    add(ms, &n, i, M_ARRAY, 0, v, names[k]);
                }
            }
            break;
        case MS_INT: {
            static const long long s32[] = {0, -1, INT_MAX, INT_MIN}, u32[] = {0, UINT_MAX},
                                   s64[] = {0, -1, LLONG_MAX, LLONG_MIN};
            const long long *vals = p->size == 8 ? s64 : p->sub ? s32 : u32;
            int cnt = p->size == 8 || p->sub ? 4 : 2;
            if (p->size == 8 && !p->sub)
                vals = s64, cnt = 2;  /* unsigned 64-bit: 0 and all ones (-1) */
            for (int k = 0; k < cnt; k++) {
                if ((ex & X_COUNT) && (vals[k] == INT_MAX || vals[k] == LLONG_MAX || vals[k] == UINT_MAX ||
                                       (!p->sub && vals[k] == -1)))
                    continue;
                v.i = vals[k];
                snprintf(what, sizeof what, "%lld", vals[k]);
                add(ms, &n, i, M_INT, p->sub && p->size == 4 && vals[k] < 0 && !(ex & X_NEG), v, what);
            }
            break;
        }
        case MS_SIZE:
            if (i > 0 && is_ws_ptr(f, i - 1) && ws_partner(f, i - 1) == i)
                break;  /* covered with its pointer */
            if (i + 1 < f->np && is_ws_ptr(f, i + 1) && ws_partner(f, i + 1) == i)
                break;
            v.i = 0;
            add(ms, &n, i, M_SIZE, 0, v, "0");
            v.i = -1;
            add(ms, &n, i, M_SIZE, 0, v, "SIZE_MAX");
            break;
        case MS_REAL: {
            const double vals[3] = {-1.0, NAN, 1e300};
            const char *names[3] = {"-1", "NaN", "1e300"};
            for (int k = 0; k < 3; k++) {
                v.d = vals[k];
                add(ms, &n, i, M_REAL, real_out_of_range(p->name, vals[k]), v, names[k]);
            }
            break;
        }
        case MS_ENUM: {
            const ms_enum *e = &ms_enums[p->sub];
            long long lo = e->values[0] - 1, hi = e->values[e->count - 1] + 1;
            v.i = lo;
            snprintf(what, sizeof what, "%lld", lo);
            add(ms, &n, i, M_ENUM, f->status, v, what);
            v.i = hi;
            snprintf(what, sizeof what, "%lld", hi);
            add(ms, &n, i, M_ENUM, f->status, v, what);
            v.i = INT_MAX;
            add(ms, &n, i, M_ENUM, f->status, v, "INT_MAX");
            break;
        }
        default:
            break;
        }
    }
    return n;
}

static void send(int fd, const report *r)
{
    ssize_t k = write(fd, r, sizeof *r);
    (void)k;
}

/* The child: the valid call (index 0), then mutations FIRST.. of F, reported on FD. */
static void child(const ms_func *f, int first, int base_crashed, int fd)
{
    static mutation ms[MAX_MUT];
    size_t ws_min[40];
    int written;
    alloc_buffers(f);
    alarm(CALL_SECONDS);
    report r;
    memset(&r, 0, sizeof r);
    size_t none[40];
    for (int i = 0; i < 40; i++)
        none[i] = (size_t)-1;
    r.idx = 0, r.phase = 0, r.param = -1;
    snprintf(r.what, sizeof r.what, "valid call");
    if (first == 0)
        send(fd, &r);
    cudnnStatus_t base = base_crashed ? CUDNN_STATUS_INTERNAL_ERROR : run_one(f, NULL, none, &written);
    if (first == 0) {
        r.phase = 1, r.status = (int)base, r.written = written;   /* bits: 1 wrote, 4 unlogged */
        snprintf(r.reason, sizeof r.reason, "%s", first_reason);
        send(fd, &r);
    }
    find_ws_min(f, ws_min, base == CUDNN_STATUS_SUCCESS);
    int n = mutations(f, ws_min, ms);
    for (int k = first > 0 ? first : 1; k <= n; k++) {
        const mutation *m = &ms[k - 1];
        r.idx = k, r.phase = 0, r.kind = m->kind, r.param = m->param, r.status = 0, r.written = 0, r.reason[0] = 0;
        snprintf(r.what, sizeof r.what, "%s", m->what);
        send(fd, &r);
        alarm(CALL_SECONDS);
        cudnnStatus_t st = run_one(f, m, none, &written);
        r.phase = 1, r.status = (int)st, r.written = written | (m->definite << 1);
        snprintf(r.reason, sizeof r.reason, "%s", first_reason);
        send(fd, &r);
    }
    r.idx = -1, r.phase = 2;
    send(fd, &r);
    _exit(0);
}

/* Totals per mutation kind. */
static int tried[M_COUNT + 1], crashed[M_COUNT + 1], wrong[M_COUNT + 1], wrote[M_COUNT + 1], unlogged[M_COUNT + 1];
static int base_ok, base_total;

static int status_known(int st)
{
    return st >= CUDNN_STATUS_SUCCESS && st <= CUDNN_STATUS_VERSION_MISMATCH;
}

static void judge(const ms_func *f, const report *r)
{
    int kind = r->idx == 0 ? M_COUNT : r->kind;
    const char *pname = r->param >= 0 ? f->p[r->param].name : "-";
    int definite = (r->written >> 1) & 1, written = r->written & 1, silent = (r->written >> 2) & 1;
    tried[kind]++;
    if (r->idx == 0) {
        base_total++;
        base_ok += r->status == CUDNN_STATUS_SUCCESS;
        if (list_base && r->status != CUDNN_STATUS_SUCCESS)
            printf("valid call of %s answers %s: %s\n", f->name, cudnnGetErrorString((cudnnStatus_t)r->status),
                   r->reason);
    }
    if (verbose)
        printf("  %-28s %-22s %-26s -> %s%s%s%s\n", pname, r->idx ? mut_name[kind] : "", r->what,
               cudnnGetErrorString((cudnnStatus_t)r->status), written ? " (wrote outputs)" : "",
               r->reason[0] ? ": " : "", r->reason);
    int bad_status = !status_known(r->status) ||
                     (definite && (r->status == CUDNN_STATUS_SUCCESS || r->status == CUDNN_STATUS_INTERNAL_ERROR));
    if (bad_status) {
        wrong[kind]++;
        CHECK_MSG(0, "%s(%s = %s [%s]) answered %s (%d)", f->name, pname, r->what, r->idx ? mut_name[kind] : "",
                  cudnnGetErrorString((cudnnStatus_t)r->status), r->status);
    } else if (written) {
        wrote[kind]++;
        CHECK_MSG(0, "%s(%s = %s [%s]) failed with %s but wrote an output", f->name, pname, r->what,
                  mut_name[kind], cudnnGetErrorString((cudnnStatus_t)r->status));
    } else if (silent) {
        unlogged[kind]++;
        CHECK_MSG(0, "%s(%s = %s [%s]) failed with %s and logged no error", f->name, pname, r->what,
                  r->idx ? mut_name[kind] : "valid call", cudnnGetErrorString((cudnnStatus_t)r->status));
    } else
        CHECK(1);
}

/* Run F's calls in children; a child that dies names the call it announced last. */
static void run_function(const ms_func *f)
{
    int first = 0, base_crashed = 0;
    for (;;) {
        int fds[2];
        if (pipe(fds) != 0)
            return;
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            child(f, first, base_crashed, fds[1]);
        }
        close(fds[1]);
        report r, pending;
        int have_pending = 0, done = 0;
        while (read(fds[0], &r, sizeof r) == (ssize_t)sizeof r) {
            if (r.phase == 0)
                pending = r, have_pending = 1;
            else if (r.phase == 1)
                judge(f, &r), have_pending = 0;
            else
                done = 1;
        }
        close(fds[0]);
        int ws = 0;
        waitpid(pid, &ws, 0);
        if (done && WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
            return;
        if (!have_pending) {
            /* died outside a call: in the valid call's setup or the workspace search */
            CHECK_MSG(0, "%s: child died outside an announced call (status 0x%x)", f->name, ws);
            return;
        }
        int kind = pending.idx == 0 ? M_COUNT : pending.kind;
        tried[kind]++;
        crashed[kind]++;
        CHECK_MSG(0, "%s(%s = %s [%s]) %s", f->name, pending.param >= 0 ? f->p[pending.param].name : "-",
                  pending.what, pending.idx ? mut_name[kind] : "valid call",
                  WIFSIGNALED(ws) && WTERMSIG(ws) == SIGALRM ? "hung"
                  : WIFSIGNALED(ws) ? strsignal(WTERMSIG(ws)) : "exited (sanitizer report?)");
        base_crashed |= pending.idx == 0;
        first = pending.idx + 1;
    }
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0)
            verbose = 1;
        else if (strcmp(argv[i], "-b") == 0)
            list_base = 1;
        else
            only = argv[i];
    }
    setenv("HOSTDNN_NUM_THREADS", "1", 0);   /* one worker unless the caller says otherwise */
    for (int k = 0; k < 256; k++)
        arr_fill[0][k] = 0, arr_fill[1][k] = -1, arr_fill[2][k] = INT_MAX, arr_fill[3][k] = 65536;
    int nf = 0;
    for (int i = 0; i < MS_NFUNCS; i++) {
        if (only && strcmp(only, ms_funcs[i].name) != 0)
            continue;
        if (verbose)
            printf("%s\n", ms_funcs[i].name);
        run_function(&ms_funcs[i]);
        nf++;
    }
    printf("%d functions; valid calls that succeed: %d of %d\n", nf, base_ok, base_total);
    printf("%-24s %7s %7s %7s %7s %8s\n", "mutation", "tried", "crashed", "wrong", "written", "unlogged");
    int t[5] = {0, 0, 0, 0, 0};
    for (int k = 0; k <= M_COUNT; k++) {
        printf("%-24s %7d %7d %7d %7d %8d\n", k == M_COUNT ? "valid call" : mut_name[k], tried[k], crashed[k],
               wrong[k], wrote[k], unlogged[k]);
        t[0] += tried[k], t[1] += crashed[k], t[2] += wrong[k], t[3] += wrote[k], t[4] += unlogged[k];
    }
    printf("%-24s %7d %7d %7d %7d %8d\n", "total", t[0], t[1], t[2], t[3], t[4]);
    return hd_test_finish();
}
