/*
 * Random differential test of the descriptor setters and size queries against NVIDIA's cuDNN
 * (tests/oracle.h; a cuDNN 8 with tests/scripts/oracle_cudnn8.sh).  Each round draws one
 * call with arguments mixing valid values and bad ones (0, negatives, INT_MAX, sizes whose
 * products overflow, out-of-range enums, several at once), makes it on both libraries and
 * compares the status names; when both succeed, what reads back (dims, strides, sizes) is
 * compared too.  Prints the agreement per function and every distinct difference (first
 * few per function).  Against cuDNN 8 the agreement must be at least 99.5%; against cuDNN 9
 * (a newer contract) it is reported only.
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <limits.h>
#include <stdio.h>
#include "harness.h"
#include "oracle.h"

#define ROUNDS 2000   /* per function */

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* A size argument: usually small and valid, sometimes one of the awkward values. */
static int dim(void)
{
    static const int odd[] = { 0, -1, -7, INT_MAX, INT_MIN, 1 << 16, 46341, 1 << 30, 65535 };
    return rnd(6) ? (int)rnd(9) + 1 : odd[rnd(sizeof odd / sizeof *odd)];
}
static int small(void) { return rnd(5) ? (int)rnd(4) : dim(); }         /* pads: 0 is valid */
static int enum_of(int n) { return rnd(8) ? (int)rnd((unsigned)n) : (rnd(2) ? -1 : n + (int)rnd(90)); }
static int dtype(void) { return rnd(6) ? (int)rnd(3) : enum_of(15); }

typedef struct { const char *name; int calls, agree, documented; int shown; } tally;
static tally T[16];
static int nt;

static tally *fn(const char *name)
{
    for (int i = 0; i < nt; i++)
        if (strcmp(T[i].name, name) == 0) return &T[i];
    T[nt].name = name;
    return &T[nt++];
}

/* DOC: the arguments fall in a class where hostdnn differs on purpose (docs/descriptors.md,
 * "Differences from NVIDIA's cuDNN 8"); such a difference is counted apart, and only
 * against a cuDNN 8 oracle (cuDNN 9 has other answers). */
static int record_doc(const char *name, cudnnStatus_t ours, int theirs, const char *args, int doc)
{
    tally *t = fn(name);
    t->calls++;
    int same = strcmp(cudnnGetErrorString(ours), oracle_status(theirs)) == 0;
    if (same)
        t->agree++;
    else if (doc && oracle_major() == 8)
        t->documented++;
    else if (t->shown++ < 4)
        printf("  differs: %s(%s): hostdnn %s, NVIDIA %s\n", name, args, cudnnGetErrorString(ours), oracle_status(theirs));
    return same && ours == CUDNN_STATUS_SUCCESS;
}

static int record(const char *name, cudnnStatus_t ours, int theirs, const char *args)
{
    return record_doc(name, ours, theirs, args, 0);
}

/* Documented classes: a negative stride; more than 2^31-1 elements with positive dims. */
static int any_negative(const int *v, int n)
{
    for (int i = 0; i < n; i++)
        if (v[i] < 0) return 1;
    return 0;
}
static int over_count(const int *d, int n)
{
    long long e = 1;
    for (int i = 0; i < n; i++) {
        if (d[i] <= 0) return 0;
        e *= d[i];
        if (e > INT_MAX) return 1;
    }
    return 0;
}

static void readback_doc(const char *name, int ok, const char *args, int doc)
{
    if (!ok) {
        tally *t = fn(name);
        t->agree--;
        if (doc && oracle_major() == 8)
            t->documented++;
        else if (t->shown++ < 4)
            printf("  differs: %s(%s): what reads back\n", name, args);
    }
}

static void readback(const char *name, int ok, const char *args) { readback_doc(name, ok, args, 0); }

static void tensors(void)
{
    ORACLE_FN(cudnnCreateTensorDescriptor); ORACLE_FN(cudnnSetTensor4dDescriptor);
    ORACLE_FN(cudnnSetTensor4dDescriptorEx); ORACLE_FN(cudnnSetTensorNdDescriptor);
    ORACLE_FN(cudnnSetTensorNdDescriptorEx); ORACLE_FN(cudnnGetTensorNdDescriptor);
    ORACLE_FN(cudnnGetTensorSizeInBytes); ORACLE_FN(cudnnDestroyTensorDescriptor);
    cudnnTensorDescriptor_t a, b;
    cudnnCreateTensorDescriptor(&a);
    v9_cudnnCreateTensorDescriptor(&b);
    char args[256];
    for (int kind = 0; kind < 4; kind++)
        for (int r = 0; r < ROUNDS; r++) {
            int d[8], s[8], nb = kind < 2 ? 4 : (rnd(6) ? (int)rnd(6) + 3 : (int)rnd(12) - 1), fmt = enum_of(3), dt = dtype();
            for (int i = 0; i < 8; i++) d[i] = dim();
            int acc = 1;   /* packed strides, sometimes spoiled */
            for (int i = (nb > 0 && nb <= 8 ? nb : 8) - 1; i >= 0; i--) {
                s[i] = rnd(8) ? acc : dim();
                acc = d[i] > 0 && acc < INT_MAX / d[i] ? acc * d[i] : 1;
            }
            const char *name;
            cudnnStatus_t so;
            int st;
            switch (kind) {
            case 0:
                name = "cudnnSetTensor4dDescriptor";
                snprintf(args, sizeof args, "fmt %d dt %d %d %d %d %d", fmt, dt, d[0], d[1], d[2], d[3]);
                so = cudnnSetTensor4dDescriptor(a, fmt, dt, d[0], d[1], d[2], d[3]);
                st = v9_cudnnSetTensor4dDescriptor(b, fmt, dt, d[0], d[1], d[2], d[3]);
                break;
            case 1:
                name = "cudnnSetTensor4dDescriptorEx";
                snprintf(args, sizeof args, "dt %d %d %d %d %d / %d %d %d %d", dt, d[0], d[1], d[2], d[3], s[0], s[1], s[2], s[3]);
                so = cudnnSetTensor4dDescriptorEx(a, dt, d[0], d[1], d[2], d[3], s[0], s[1], s[2], s[3]);
                st = v9_cudnnSetTensor4dDescriptorEx(b, dt, d[0], d[1], d[2], d[3], s[0], s[1], s[2], s[3]);
                break;
            case 2:
                name = "cudnnSetTensorNdDescriptor";
                snprintf(args, sizeof args, "dt %d nb %d %d %d %d %d / %d %d %d %d", dt, nb, d[0], d[1], d[2], d[3], s[0], s[1],
                         s[2], s[3]);
                so = cudnnSetTensorNdDescriptor(a, dt, nb, d, s);
                st = v9_cudnnSetTensorNdDescriptor(b, dt, nb, d, s);
                break;
            default:
                name = "cudnnSetTensorNdDescriptorEx";
                snprintf(args, sizeof args, "fmt %d dt %d nb %d %d %d %d %d", fmt, dt, nb, d[0], d[1], d[2], d[3]);
                so = cudnnSetTensorNdDescriptorEx(a, fmt, dt, nb, d);
                st = v9_cudnnSetTensorNdDescriptorEx(b, fmt, dt, nb, d);
                break;
            }
            int nn = nb > 0 && nb <= 8 ? nb : 0;
            /* documented: negative strides, more than 2^31-1 elements in a strided tensor, and
             * NCHW_VECT_C with a type that is not a vector (cuDNN 8's NdEx stores it) */
            int doc = ((kind == 1 || kind == 2) && (any_negative(s, kind == 1 ? 4 : nn) || over_count(d, kind == 1 ? 4 : nn))) ||
                      (kind == 3 && fmt == 2 && dt != 5 && dt != 7 && dt != 8);
            if (record_doc(name, so, st, args, doc)) {
                int n1, n2, d1[8], d2[8], s1[8], s2[8];
                cudnnDataType_t t1, t2;
                size_t z1 = 0, z2 = 0;
                int ok = cudnnGetTensorNdDescriptor(a, 8, &t1, &n1, d1, s1) == 0 &&
                         v9_cudnnGetTensorNdDescriptor(b, 8, &t2, &n2, d2, s2) == 0 && t1 == t2 && n1 == n2 &&
                         memcmp(d1, d2, (size_t)n1 * sizeof(int)) == 0 && memcmp(s1, s2, (size_t)n1 * sizeof(int)) == 0;
                ok = ok && cudnnGetTensorSizeInBytes(a, &z1) == 0 && v9_cudnnGetTensorSizeInBytes(b, &z2) == 0 && z1 == z2;
                readback(name, ok, args);
            }
        }
    cudnnDestroyTensorDescriptor(a);
    v9_cudnnDestroyTensorDescriptor(b);
}

static void filters(void)
{
    ORACLE_FN(cudnnCreateFilterDescriptor); ORACLE_FN(cudnnSetFilter4dDescriptor);
    ORACLE_FN(cudnnSetFilterNdDescriptor); ORACLE_FN(cudnnGetFilterNdDescriptor);
    ORACLE_FN(cudnnGetFilterSizeInBytes); ORACLE_FN(cudnnDestroyFilterDescriptor);
    cudnnFilterDescriptor_t a, b;
    cudnnCreateFilterDescriptor(&a);
    v9_cudnnCreateFilterDescriptor(&b);
    char args[256];
    for (int kind = 0; kind < 2; kind++)
        for (int r = 0; r < ROUNDS; r++) {
            int d[8], nb = kind == 0 ? 4 : (rnd(6) ? (int)rnd(6) + 3 : (int)rnd(12) - 1), fmt = enum_of(3), dt = dtype();
            for (int i = 0; i < 8; i++) d[i] = dim();
            const char *name = kind == 0 ? "cudnnSetFilter4dDescriptor" : "cudnnSetFilterNdDescriptor";
            snprintf(args, sizeof args, "dt %d fmt %d nb %d %d %d %d %d", dt, fmt, nb, d[0], d[1], d[2], d[3]);
            cudnnStatus_t so = kind == 0 ? cudnnSetFilter4dDescriptor(a, dt, fmt, d[0], d[1], d[2], d[3])
                                         : cudnnSetFilterNdDescriptor(a, dt, fmt, nb, d);
            int st = kind == 0 ? v9_cudnnSetFilter4dDescriptor(b, dt, fmt, d[0], d[1], d[2], d[3])
                               : v9_cudnnSetFilterNdDescriptor(b, dt, fmt, nb, d);
            int doc = over_count(d, kind == 0 ? 4 : (nb > 0 && nb <= 8 ? nb : 0));
            if (record_doc(name, so, st, args, doc)) {
                int n1, n2, d1[8], d2[8];
                cudnnDataType_t t1, t2;
                cudnnTensorFormat_t f1, f2;
                size_t z1 = 0, z2 = 0;
                int ok = cudnnGetFilterNdDescriptor(a, 8, &t1, &f1, &n1, d1) == 0 &&
                         v9_cudnnGetFilterNdDescriptor(b, 8, &t2, &f2, &n2, d2) == 0 && t1 == t2 && f1 == f2 && n1 == n2 &&
                         memcmp(d1, d2, (size_t)n1 * sizeof(int)) == 0;
                ok = ok && cudnnGetFilterSizeInBytes(a, &z1) == 0 && v9_cudnnGetFilterSizeInBytes(b, &z2) == 0 && z1 == z2;
                /* documented: NCHW_VECT_C with C not a multiple of the vector width, rounded up
                 * to whole vectors (as cuDNN 9); cuDNN 8 rounds down, to 0 channels at worst */
                readback_doc(name, ok, args, fmt == 2);
            }
        }
    cudnnDestroyFilterDescriptor(a);
    v9_cudnnDestroyFilterDescriptor(b);
}

static void convolutions(void)
{
    ORACLE_FN(cudnnCreateConvolutionDescriptor); ORACLE_FN(cudnnSetConvolution2dDescriptor);
    ORACLE_FN(cudnnSetConvolutionNdDescriptor); ORACLE_FN(cudnnGetConvolutionNdDescriptor);
    ORACLE_FN(cudnnDestroyConvolutionDescriptor);
    cudnnConvolutionDescriptor_t a, b;
    cudnnCreateConvolutionDescriptor(&a);
    v9_cudnnCreateConvolutionDescriptor(&b);
    char args[256];
    for (int kind = 0; kind < 2; kind++)
        for (int r = 0; r < ROUNDS; r++) {
            int p[8], u[8], dl[8], nb = kind == 0 ? 2 : (rnd(6) ? (int)rnd(3) + 1 : (int)rnd(10) - 1);
            int mode = enum_of(2), ct = dtype();
            for (int i = 0; i < 8; i++) { p[i] = small(); u[i] = dim(); dl[i] = rnd(4) ? 1 : dim(); }
            const char *name = kind == 0 ? "cudnnSetConvolution2dDescriptor" : "cudnnSetConvolutionNdDescriptor";
            snprintf(args, sizeof args, "nb %d pad %d %d stride %d %d dil %d %d mode %d ct %d", nb, p[0], p[1], u[0], u[1],
                     dl[0], dl[1], mode, ct);
            cudnnStatus_t so = kind == 0 ? cudnnSetConvolution2dDescriptor(a, p[0], p[1], u[0], u[1], dl[0], dl[1], mode, ct)
                                         : cudnnSetConvolutionNdDescriptor(a, nb, p, u, dl, mode, ct);
            int st = kind == 0 ? v9_cudnnSetConvolution2dDescriptor(b, p[0], p[1], u[0], u[1], dl[0], dl[1], mode, ct)
                               : v9_cudnnSetConvolutionNdDescriptor(b, nb, p, u, dl, mode, ct);
            if (record(name, so, st, args)) {
                int n1, n2, p1[8], p2[8], u1[8], u2[8], l1[8], l2[8];
                cudnnConvolutionMode_t m1, m2;
                cudnnDataType_t c1, c2;
                int want = kind == 0 ? 2 : nb;   /* both refuse a request longer than what was set */
                int ok = cudnnGetConvolutionNdDescriptor(a, want, &n1, p1, u1, l1, &m1, &c1) == 0 &&
                         v9_cudnnGetConvolutionNdDescriptor(b, want, &n2, p2, u2, l2, &m2, &c2) == 0 && n1 == n2 &&
                         m1 == m2 && c1 == c2 && memcmp(p1, p2, (size_t)n1 * sizeof(int)) == 0 &&
                         memcmp(u1, u2, (size_t)n1 * sizeof(int)) == 0 && memcmp(l1, l2, (size_t)n1 * sizeof(int)) == 0;
                readback(name, ok, args);
            }
        }
    cudnnDestroyConvolutionDescriptor(a);
    v9_cudnnDestroyConvolutionDescriptor(b);
}

/* Output sizes of a random convolution and pooling over a random input. */
static void output_dims(void)
{
    ORACLE_FN(cudnnCreateTensorDescriptor); ORACLE_FN(cudnnSetTensor4dDescriptor);
    ORACLE_FN(cudnnCreateFilterDescriptor); ORACLE_FN(cudnnSetFilter4dDescriptor);
    ORACLE_FN(cudnnCreateConvolutionDescriptor); ORACLE_FN(cudnnSetConvolution2dDescriptor);
    ORACLE_FN(cudnnGetConvolution2dForwardOutputDim); ORACLE_FN(cudnnCreatePoolingDescriptor);
    ORACLE_FN(cudnnSetPooling2dDescriptor); ORACLE_FN(cudnnGetPooling2dForwardOutputDim);
    cudnnTensorDescriptor_t xa, xb;
    cudnnFilterDescriptor_t wa, wb;
    cudnnConvolutionDescriptor_t ca, cb;
    cudnnPoolingDescriptor_t pa, pb;
    cudnnCreateTensorDescriptor(&xa); v9_cudnnCreateTensorDescriptor(&xb);
    cudnnCreateFilterDescriptor(&wa); v9_cudnnCreateFilterDescriptor(&wb);
    cudnnCreateConvolutionDescriptor(&ca); v9_cudnnCreateConvolutionDescriptor(&cb);
    cudnnCreatePoolingDescriptor(&pa); v9_cudnnCreatePoolingDescriptor(&pb);
    char args[256];
    for (int r = 0; r < ROUNDS; r++) {
        int n = (int)rnd(4) + 1, c = (int)rnd(8) + 1, h = (int)rnd(30) + 1, w = (int)rnd(30) + 1, k = (int)rnd(8) + 1;
        int fh = rnd(5) ? (int)rnd(7) + 1 : dim(), fw = (int)rnd(7) + 1, ph = small(), pw = small(), u = rnd(5) ? (int)rnd(3) + 1 : dim();
        int dil = rnd(5) ? 1 : (int)rnd(3) + 2, fc = rnd(6) ? c : c + 1;
        cudnnSetTensor4dDescriptor(xa, 0, 0, n, c, h, w); v9_cudnnSetTensor4dDescriptor(xb, 0, 0, n, c, h, w);
        int s1 = cudnnSetFilter4dDescriptor(wa, 0, 0, k, fc, fh, fw), s2 = v9_cudnnSetFilter4dDescriptor(wb, 0, 0, k, fc, fh, fw);
        int s3 = cudnnSetConvolution2dDescriptor(ca, ph, pw, u, u, dil, dil, 0, 0);
        int s4 = v9_cudnnSetConvolution2dDescriptor(cb, ph, pw, u, u, dil, dil, 0, 0);
        if (s1 == 0 && s2 == 0 && s3 == 0 && s4 == 0) {
            int o1[4] = { 0 }, o2[4] = { 0 };
            snprintf(args, sizeof args, "x %d %d %d %d w %d %d %d %d pad %d %d stride %d dil %d", n, c, h, w, k, fc, fh, fw,
                     ph, pw, u, dil);
            cudnnStatus_t so = cudnnGetConvolution2dForwardOutputDim(ca, xa, wa, &o1[0], &o1[1], &o1[2], &o1[3]);
            int st = v9_cudnnGetConvolution2dForwardOutputDim(cb, xb, wb, &o2[0], &o2[1], &o2[2], &o2[3]);
            /* cuDNN 8 adds the padding in 32 bits and answers from the wrapped sum; hostdnn
             * computes exactly and refuses what does not fit */
            long long hh = h + 2LL * ph, ww2 = w + 2LL * pw;
            int doc = hh > INT_MAX || ww2 > INT_MAX || hh < INT_MIN || ww2 < INT_MIN;
            if (record_doc("cudnnGetConvolution2dForwardOutputDim", so, st, args, doc))
                readback_doc("cudnnGetConvolution2dForwardOutputDim", memcmp(o1, o2, sizeof o1) == 0, args, doc);
        }
        int mode = enum_of(4), nan = enum_of(2), wh = rnd(5) ? (int)rnd(4) + 1 : dim(), ww = (int)rnd(4) + 1;
        int vp = small(), hp = small(), vs = rnd(5) ? (int)rnd(3) + 1 : dim(), hs = (int)rnd(3) + 1;
        snprintf(args, sizeof args, "mode %d nan %d win %d %d pad %d %d stride %d %d", mode, nan, wh, ww, vp, hp, vs, hs);
        cudnnStatus_t so = cudnnSetPooling2dDescriptor(pa, mode, nan, wh, ww, vp, hp, vs, hs);
        int st = v9_cudnnSetPooling2dDescriptor(pb, mode, nan, wh, ww, vp, hp, vs, hs);
        if (record("cudnnSetPooling2dDescriptor", so, st, args)) {
            int o1[4] = { 0 }, o2[4] = { 0 };
            char a2[400];   /* args (256) and four ints always fit */
            snprintf(a2, sizeof a2, "%s on %d %d %d %d", args, n, c, h, w);
            so = cudnnGetPooling2dForwardOutputDim(pa, xa, &o1[0], &o1[1], &o1[2], &o1[3]);
            st = v9_cudnnGetPooling2dForwardOutputDim(pb, xb, &o2[0], &o2[1], &o2[2], &o2[3]);
            long long hh = h + 2LL * vp, ww2 = w + 2LL * hp;
            int doc = hh > INT_MAX || ww2 > INT_MAX || hh < INT_MIN || ww2 < INT_MIN;
            if (record_doc("cudnnGetPooling2dForwardOutputDim", so, st, a2, doc))
                readback_doc("cudnnGetPooling2dForwardOutputDim", memcmp(o1, o2, sizeof o1) == 0, a2, doc);
        }
    }
}

static void small_setters(void)
{
    ORACLE_FN(cudnnCreateActivationDescriptor); ORACLE_FN(cudnnSetActivationDescriptor);
    ORACLE_FN(cudnnCreateLRNDescriptor); ORACLE_FN(cudnnSetLRNDescriptor);
    ORACLE_FN(cudnnCreateOpTensorDescriptor); ORACLE_FN(cudnnSetOpTensorDescriptor);
    cudnnActivationDescriptor_t aa, ab;
    cudnnLRNDescriptor_t la, lb;
    cudnnOpTensorDescriptor_t oa, ob;
    cudnnCreateActivationDescriptor(&aa); v9_cudnnCreateActivationDescriptor(&ab);
    cudnnCreateLRNDescriptor(&la); v9_cudnnCreateLRNDescriptor(&lb);
    cudnnCreateOpTensorDescriptor(&oa); v9_cudnnCreateOpTensorDescriptor(&ob);
    static const double coefs[] = { 0.0, 1.0, -1.0, 6.0, 1e300, -0.0, 0.5 };
    char args[256];
    for (int r = 0; r < ROUNDS; r++) {
        int mode = enum_of(7), nan = enum_of(2);
        double coef = coefs[rnd(sizeof coefs / sizeof *coefs)];
        snprintf(args, sizeof args, "mode %d nan %d coef %g", mode, nan, coef);
        /* CUDNN_ACTIVATION_SWISH (6) came with cuDNN 8.2; 8.1 has no such mode */
        record_doc("cudnnSetActivationDescriptor", cudnnSetActivationDescriptor(aa, mode, nan, coef),
                   v9_cudnnSetActivationDescriptor(ab, mode, nan, coef), args, mode == 6);
        unsigned n = rnd(4) ? rnd(18) : (unsigned)dim();
        double alpha = rnd(5) ? 1e-4 : -1.0, beta = rnd(5) ? 0.75 : coefs[rnd(7)], k = rnd(5) ? 2.0 : coefs[rnd(7)];
        snprintf(args, sizeof args, "n %u alpha %g beta %g k %g", n, alpha, beta, k);
        record("cudnnSetLRNDescriptor", cudnnSetLRNDescriptor(la, n, alpha, beta, k), v9_cudnnSetLRNDescriptor(lb, n, alpha, beta, k),
               args);
        int op = enum_of(6), ct = dtype();
        snprintf(args, sizeof args, "op %d comp %d nan %d", op, ct, nan);
        record("cudnnSetOpTensorDescriptor", cudnnSetOpTensorDescriptor(oa, op, ct, nan),
               v9_cudnnSetOpTensorDescriptor(ob, op, ct, nan), args);
    }
}

int main(void)
{
    if (!oracle_open()) {
        SKIP("random oracle calls: %s", oracle_skip_reason);
        return hd_test_finish();
    }
    tensors();
    filters();
    convolutions();
    output_dims();
    small_setters();
    int calls = 0, agree = 0, documented = 0;
    for (int i = 0; i < nt; i++) {
        printf("%-42s %5d calls, %5.1f%% agree, %4d documented differences\n", T[i].name, T[i].calls,
               100.0 * T[i].agree / T[i].calls, T[i].documented);
        calls += T[i].calls;
        agree += T[i].agree;
        documented += T[i].documented;
    }
    double pct = 100.0 * agree / (calls - documented), raw = 100.0 * agree / calls;
    printf("%d random calls compared with NVIDIA cuDNN %d: %.2f%% agree (%.2f%% of all calls; %d documented "
           "differences)\n", calls, oracle_major(), pct, raw, documented);
    if (oracle_major() == 8)
        CHECK_MSG(pct >= 99.5, "agreement with cuDNN 8 is %.2f%%, below 99.5%%", pct);
    else
        CHECK(calls > 0);
    return hd_test_finish();
}
