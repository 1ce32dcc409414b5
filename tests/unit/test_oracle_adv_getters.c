/*
 * NULL outputs of the adv descriptor getters against NVIDIA's cuDNN 8.5 (docs/rnn.md, "NULL
 * outputs"): each getter with each output NULL in turn, the status compared with NVIDIA's.
 * Only the getters that need no handle run here (cuDNN 8 creates no handle without a GPU);
 * test_adv_getters checks the handle-taking ones against the table.
 *
 * Runs when HD_ORACLE_LIB names NVIDIA's libcudnn.so.8 (tests/scripts/oracle_cudnn8.sh);
 * skipped otherwise and under the sanitizers.  NVIDIA's libraries carry our sub-libraries'
 * sonames, so they are loaded in a forked child that never calls hostdnn: its ops_infer first
 * (by path, so that adv_infer's NEEDED entry finds it and not ours), then adv_infer and
 * adv_train.  The child writes one status per case into a pipe; a crash ends the list there.
 */
#define _GNU_SOURCE
#include <cudnn.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

/* The functions a case calls, from one library or the other. */
struct api {
    __typeof__(&cudnnCreateRNNDescriptor) cr_rnn;
    __typeof__(&cudnnSetRNNDescriptor_v8) set_rnn;
    __typeof__(&cudnnGetRNNDescriptor_v8) get_rnn;
    __typeof__(&cudnnGetRNNMatrixMathType) get_mt;
    __typeof__(&cudnnGetRNNBiasMode) get_bias;
    __typeof__(&cudnnGetRNNPaddingMode) get_pad;
    __typeof__(&cudnnRNNGetClip_v8) get_clip;
    __typeof__(&cudnnCreateRNNDataDescriptor) cr_data;
    __typeof__(&cudnnSetRNNDataDescriptor) set_data;
    __typeof__(&cudnnGetRNNDataDescriptor) get_data;
    __typeof__(&cudnnCreateSeqDataDescriptor) cr_seq;
    __typeof__(&cudnnSetSeqDataDescriptor) set_seq;
    __typeof__(&cudnnGetSeqDataDescriptor) get_seq;
    __typeof__(&cudnnCreateAttnDescriptor) cr_attn;
    __typeof__(&cudnnSetAttnDescriptor) set_attn;
    __typeof__(&cudnnGetAttnDescriptor) get_attn;
    __typeof__(&cudnnCreateCTCLossDescriptor) cr_ctc;
    __typeof__(&cudnnSetCTCLossDescriptor_v8) set_ctc;
    __typeof__(&cudnnGetCTCLossDescriptor) get_ctc;
    __typeof__(&cudnnGetCTCLossDescriptorEx) get_ctc_ex;
    __typeof__(&cudnnGetCTCLossDescriptor_v8) get_ctc_v8;
};

/* The cases: a getter and the output left NULL (-1: none; 99: all). */
enum { G_RNN, G_MT, G_BIAS, G_PAD, G_CLIP, G_DATA, G_DATA0, G_SEQ, G_SEQ_SAMPLE, G_SEQ_NEG, G_ATTN, G_CTC, G_CTC_EX,
       G_CTC_V8, G_COUNT };
static const char *const gname[G_COUNT] = {
    "GetRNNDescriptor_v8", "GetRNNMatrixMathType", "GetRNNBiasMode", "GetRNNPaddingMode", "RNNGetClip_v8",
    "GetRNNDataDescriptor(requested 3)", "GetRNNDataDescriptor(requested 0)", "GetSeqDataDescriptor",
    "GetSeqDataDescriptor(multiHeadAttention sample call)", "GetSeqDataDescriptor(nbDimsRequested -1)",
    "GetAttnDescriptor", "GetCTCLossDescriptor", "GetCTCLossDescriptorEx", "GetCTCLossDescriptor_v8",
};
static const int nouts[G_COUNT] = { 14, 1, 1, 1, 4, 7, 7, 7, 0, 0, 19, 1, 3, 4 };

struct kase { int g, k; };
static struct kase cases[256];
static int ncases;

static void list_cases(void)
{
    for (int g = 0; g < G_COUNT; g++) {
        for (int k = -1; k < nouts[g]; k++)
            cases[ncases++] = (struct kase){ g, k };
        if (nouts[g] > 1)
            cases[ncases++] = (struct kase){ g, 99 };
    }
}

#define P(i, p) ((k) == (i) || (k) == 99 ? NULL : (p))

static int run_case(const struct api *A, int g, int k)
{
    static cudnnRNNDescriptor_t r;
    static cudnnRNNDataDescriptor_t rd;
    static cudnnSeqDataDescriptor_t sd;
    static cudnnAttnDescriptor_t at;
    static cudnnCTCLossDescriptor_t ct;
    if (!r) {   /* one set of descriptors per library, set once */
        int lens[3] = { 4, 2, 1 }, dims[4] = { 5, 3, 2, 8 }, sl[6] = { 5, 4, 3, 2, 1, 1 };
        cudnnSeqDataAxis_t ax[4] = { CUDNN_SEQDATA_BATCH_DIM, CUDNN_SEQDATA_BEAM_DIM, CUDNN_SEQDATA_TIME_DIM,
                                     CUDNN_SEQDATA_VECT_DIM };
        float fill = 2.5f;
        if (A->cr_rnn(&r) || A->cr_data(&rd) || A->cr_seq(&sd) || A->cr_attn(&at) || A->cr_ctc(&ct) ||
            A->set_rnn(r, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, CUDNN_UNIDIRECTIONAL,
                       CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, 4, 8, 6, 2, NULL, 0) ||
            A->set_data(rd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 4, 3, 4, lens, &fill) ||
            A->set_seq(sd, CUDNN_DATA_FLOAT, 4, dims, ax, 6, sl, &fill) ||
            A->set_attn(at, CUDNN_ATTN_QUERYMAP_ALL_TO_ONE, 2, 0.5, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                        CUDNN_DEFAULT_MATH, NULL, NULL, 4, 4, 4, 2, 2, 2, 4, 4, 5, 2, 1) ||
            A->set_ctc(ct, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_SOFTMAX, CUDNN_PROPAGATE_NAN, 7))
            return -1;
    }
    union { int i[32]; double d[8]; void *p[8]; } o;
    int32_t *v = o.i;
    double *dv = o.d;
    void **pv = o.p;
    int sl[8], dims[4];
    cudnnSeqDataAxis_t ax[4];
    size_t n;
    float f;
    switch (g) {
    case G_RNN:
        return A->get_rnn(r, P(0, (void *)&v[0]), P(1, (void *)&v[1]), P(2, (void *)&v[2]), P(3, (void *)&v[3]),
                          P(4, (void *)&v[4]), P(5, (void *)&v[5]), P(6, (void *)&v[6]), P(7, (void *)&v[7]),
                          P(8, &v[8]), P(9, &v[9]), P(10, &v[10]), P(11, &v[11]), P(12, (void *)&pv[7]),
                          P(13, (uint32_t *)&v[12]));
    case G_MT: return A->get_mt(r, P(0, (void *)&v[0]));
    case G_BIAS: return A->get_bias(r, P(0, (void *)&v[0]));
    case G_PAD: return A->get_pad(r, P(0, (unsigned *)&v[0]));
    case G_CLIP: return A->get_clip(r, P(0, (void *)&v[0]), P(1, (void *)&v[1]), P(2, &dv[2]), P(3, &dv[3]));
    case G_DATA:
    case G_DATA0:
        return A->get_data(rd, P(0, (void *)&v[0]), P(1, (void *)&v[1]), P(2, &v[2]), P(3, &v[3]), P(4, &v[4]),
                           g == G_DATA ? 3 : 0, P(5, sl), P(6, &f));
    case G_SEQ:
        return A->get_seq(sd, P(0, (void *)&v[0]), P(1, &v[1]), 4, P(2, dims), P(3, ax), P(4, &n), 6, P(5, sl),
                          P(6, &f));
    case G_SEQ_SAMPLE: return A->get_seq(sd, NULL, &v[0], 4, dims, ax, NULL, 0, NULL, NULL);
    case G_SEQ_NEG: return A->get_seq(sd, NULL, &v[0], -1, dims, ax, NULL, 0, NULL, NULL);
    case G_ATTN:
        return A->get_attn(at, P(0, (unsigned *)&v[0]), P(1, &v[1]), P(2, &dv[1]), P(3, (void *)&v[4]),
                           P(4, (void *)&v[5]), P(5, (void *)&v[6]), P(6, (void *)&pv[4]), P(7, (void *)&pv[5]),
                           P(8, &v[7]), P(9, &v[8]), P(10, &v[9]), P(11, &v[12]), P(12, &v[13]), P(13, &v[14]),
                           P(14, &v[15]), P(15, &v[16]), P(16, &v[17]), P(17, &v[18]), P(18, &v[19]));
    case G_CTC: return A->get_ctc(ct, P(0, (void *)&v[0]));
    case G_CTC_EX: return A->get_ctc_ex(ct, P(0, (void *)&v[0]), P(1, (void *)&v[1]), P(2, (void *)&v[2]));
    case G_CTC_V8:
        return A->get_ctc_v8(ct, P(0, (void *)&v[0]), P(1, (void *)&v[1]), P(2, (void *)&v[2]), P(3, &v[3]));
    }
    return -1;
}

static int nvidia_api(struct api *a, const char *ops_path)
{
    char p[4096];
    size_t len = strlen(ops_path);
    const char *tail = strstr(ops_path, "ops_infer");
    if (!tail || len + 8 >= sizeof p || !dlopen(ops_path, RTLD_NOW | RTLD_GLOBAL))
        return 0;
    size_t head = (size_t)(tail - ops_path);
    snprintf(p, sizeof p, "%.*sadv_infer%s", (int)head, ops_path, tail + strlen("ops_infer"));
    void *in = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    snprintf(p, sizeof p, "%.*sops_train%s", (int)head, ops_path, tail + strlen("ops_infer"));
    (void)dlopen(p, RTLD_NOW | RTLD_GLOBAL);   /* adv_train needs it */
    snprintf(p, sizeof p, "%.*sadv_train%s", (int)head, ops_path, tail + strlen("ops_infer"));
    void *tr = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    if (!in || !tr)
        return 0;
    void **fp = (void **)a;
    static const char *const names[] = {
        "cudnnCreateRNNDescriptor", "cudnnSetRNNDescriptor_v8", "cudnnGetRNNDescriptor_v8", "cudnnGetRNNMatrixMathType",
        "cudnnGetRNNBiasMode", "cudnnGetRNNPaddingMode", "cudnnRNNGetClip_v8", "cudnnCreateRNNDataDescriptor",
        "cudnnSetRNNDataDescriptor", "cudnnGetRNNDataDescriptor", "cudnnCreateSeqDataDescriptor",
        "cudnnSetSeqDataDescriptor", "cudnnGetSeqDataDescriptor", "cudnnCreateAttnDescriptor", "cudnnSetAttnDescriptor",
        "cudnnGetAttnDescriptor", "cudnnCreateCTCLossDescriptor", "cudnnSetCTCLossDescriptor_v8",
        "cudnnGetCTCLossDescriptor", "cudnnGetCTCLossDescriptorEx", "cudnnGetCTCLossDescriptor_v8",
    };
    _Static_assert(sizeof names / sizeof *names == sizeof(struct api) / sizeof(void *), "one name per entry");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        fp[i] = dlsym(strstr(names[i], "CTC") ? tr : in, names[i]);
        if (!fp[i])
            return 0;
    }
    return 1;
}

int main(void)
{
    const char *mode = getenv("HD_MODE"), *lib = getenv("HD_ORACLE_LIB");
    if (mode && strstr(mode, "sanitized")) {
        SKIP("cuDNN 8 oracle: not loaded under the sanitizers");
        return hd_test_finish();
    }
    /* HD_ORACLE_LIB names NVIDIA's libcudnn.so.8 or its libcudnn_ops_infer.so.8: the
     * sub-libraries are beside it */
    static char ops[4096];
    const char *base = lib ? strrchr(lib, '/') : NULL;
    if (lib && base && (strcmp(base + 1, "libcudnn.so.8") == 0 || strcmp(base + 1, "libcudnn_ops_infer.so.8") == 0))
        snprintf(ops, sizeof ops, "%.*s/libcudnn_ops_infer.so.8", (int)(base - lib), lib);
    if (!ops[0]) {
        SKIP("cuDNN 8 oracle: HD_ORACLE_LIB does not name NVIDIA's libcudnn.so.8 (tests/scripts/oracle_cudnn8.sh)");
        return hd_test_finish();
    }
    lib = ops;
    list_cases();
    int fd[2];
    if (pipe(fd) != 0)
        return 1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        struct api a;
        int ready = nvidia_api(&a, lib);
        if (write(fd[1], &ready, sizeof ready) != sizeof ready || !ready)
            _exit(1);
        for (int i = 0; i < ncases; i++) {
            int st = run_case(&a, cases[i].g, cases[i].k);
            if (write(fd[1], &st, sizeof st) != sizeof st)
                _exit(1);
        }
        _exit(0);
    }
    close(fd[1]);
    int ready = 0;
    if (read(fd[0], &ready, sizeof ready) != sizeof ready || !ready) {
        waitpid(pid, NULL, 0);
        SKIP("cuDNN 8 oracle: NVIDIA's adv libraries beside %s could not be loaded", lib);
        return hd_test_finish();
    }
    struct api ours = {
        cudnnCreateRNNDescriptor, cudnnSetRNNDescriptor_v8, cudnnGetRNNDescriptor_v8, cudnnGetRNNMatrixMathType,
        cudnnGetRNNBiasMode, cudnnGetRNNPaddingMode, cudnnRNNGetClip_v8, cudnnCreateRNNDataDescriptor,
        cudnnSetRNNDataDescriptor, cudnnGetRNNDataDescriptor, cudnnCreateSeqDataDescriptor, cudnnSetSeqDataDescriptor,
        cudnnGetSeqDataDescriptor, cudnnCreateAttnDescriptor, cudnnSetAttnDescriptor, cudnnGetAttnDescriptor,
        cudnnCreateCTCLossDescriptor, cudnnSetCTCLossDescriptor_v8, cudnnGetCTCLossDescriptor,
        cudnnGetCTCLossDescriptorEx, cudnnGetCTCLossDescriptor_v8,
    };
    SECTION("adv getters, NULL outputs");
    int compared = 0, refused = 0;
    for (int i = 0; i < ncases; i++) {
        int theirs;
        if (read(fd[0], &theirs, sizeof theirs) != sizeof theirs) {
            CHECK_MSG(0, "%s, output %d NULL: NVIDIA's call crashed", gname[cases[i].g], cases[i].k);
            break;
        }
        int mine = run_case(&ours, cases[i].g, cases[i].k);
        CHECK_MSG(mine == theirs, "%s, output %d NULL: hostdnn %s, cuDNN 8 %s", gname[cases[i].g], cases[i].k,
                  cudnnGetErrorString((cudnnStatus_t)mine), cudnnGetErrorString((cudnnStatus_t)theirs));
        compared++;
        refused += theirs != CUDNN_STATUS_SUCCESS;
    }
    close(fd[0]);
    waitpid(pid, NULL, 0);
    printf("%d cases compared with NVIDIA cuDNN 8 (%d of them refused there)\n", compared, refused);
    return hd_test_finish();
}
