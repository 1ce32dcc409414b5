/*
 * net.h -- a small layer toolkit for training convolutional networks through the public cuDNN,
 * cuBLAS and CUDA runtime API, as a cuDNN user writes it.
 *
 * A network is a list of layers over a list of buffers.  Each buffer is one activation tensor
 * (a cuDNN tensor descriptor, its data and its gradient); each layer reads one or two buffers
 * and writes a new one, so every activation a backward call needs is still there.  A buffer
 * read by several layers (a residual block's input) sums the gradients they send back: the
 * first backward call to reach it writes (beta = 0), the later ones add (beta = 1).
 *
 * Layout: every activation and filter is NCHW or NHWC, chosen once for the whole network.
 */
#ifndef HDNET_NET_H
#define HDNET_NET_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <stddef.h>

/* Abort with the failing call's name: these are example programs, not a library. */
void net_fail(const char *file, int line, const char *call, const char *why);
#define CKDNN(call) do { cudnnStatus_t s_ = (call); \
    if (s_ != CUDNN_STATUS_SUCCESS) net_fail(__FILE__, __LINE__, #call, cudnnGetErrorString(s_)); } while (0)
#define CKCUDA(call) do { cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) net_fail(__FILE__, __LINE__, #call, cudaGetErrorString(e_)); } while (0)
#define CKBLAS(call) do { cublasStatus_t b_ = (call); \
    if (b_ != CUBLAS_STATUS_SUCCESS) net_fail(__FILE__, __LINE__, #call, "cuBLAS error"); } while (0)

typedef enum { L_CONV, L_BN, L_ACT, L_MAXPOOL, L_GAP, L_ADD, L_FC, LAYER_KINDS } layer_kind;

/* Time is also kept per direction for the profile (HDNET_PROFILE=1). */
enum { PROF_FWD, PROF_BWD, PROF_BWD_DATA, PROF_BWD_FILTER, PROF_SGD, PROF_DIRS };

typedef struct {
    int n, c, h, w;
    cudnnTensorDescriptor_t desc;
    float *data, *grad;
    int grad_set;               /* the gradient holds this step's sum so far */
    int needs_grad;             /* some backward call reads its gradient (not the input image) */
} buffer;

/* A trainable tensor: values, gradient, and a flat descriptor for the SGD update. */
typedef struct {
    size_t count;
    float *w, *dw;
    cudnnTensorDescriptor_t flat;
} param;

typedef struct {
    layer_kind kind;
    int in, in2, out;           /* buffer indices (in2: the second addend of L_ADD) */
    /* L_CONV */
    cudnnFilterDescriptor_t wdesc;
    cudnnConvolutionDescriptor_t conv;
    cudnnConvolutionFwdAlgo_t fwd_algo;
    cudnnConvolutionBwdDataAlgo_t bwd_data_algo;
    cudnnConvolutionBwdFilterAlgo_t bwd_filter_algo;
    /* L_BN */
    cudnnTensorDescriptor_t bn_desc;
    float *run_mean, *run_var, *save_mean, *save_invvar;
    /* L_ACT */
    cudnnActivationDescriptor_t act;
    /* L_MAXPOOL, L_GAP */
    cudnnPoolingDescriptor_t pool;
    /* L_FC: y[n x k] = x[n x c] W^T + b */
    cudnnTensorDescriptor_t bias_desc;
    int fc_in, fc_out;
    /* parameters: conv and FC weights in p[0]; BN scale/FC bias in p[1]... */
    param p[2];
    int nparams;
} layer;

typedef struct {
    cudnnHandle_t dnn;
    cublasHandle_t blas;
    cudnnTensorFormat_t format;
    int batch, classes;
    buffer *bufs;
    int nbufs, cap_bufs;
    layer *layers;
    int nlayers, cap_layers;
    void *ws;                   /* one workspace shared by every convolution */
    size_t ws_size;
    cudnnOpTensorDescriptor_t add_op;   /* the residual sum */
    float *prob;                /* softmax output, batch x classes */
    float *h_prob, *h_dlogit;
    int profile;                /* HDNET_PROFILE set: time every call by layer kind */
    int smooth;                 /* every activation is tanh: a smooth loss for finite differences */
    double prof[LAYER_KINDS][PROF_DIRS];
} net;

/* Building (net_build.c). */
void net_init(net *m, cudnnHandle_t dnn, cublasHandle_t blas, cudnnTensorFormat_t format, int batch, int c,
              int h, int w);
int net_conv(net *m, int in, int k, int r, int stride, int pad, int groups);
int net_bn(net *m, int in);
int net_act(net *m, int in, cudnnActivationMode_t mode, double clip);
int net_maxpool(net *m, int in, int win, int stride, int pad);
int net_gap(net *m, int in);
int net_add(net *m, int a, int b);
int net_fc(net *m, int in, int classes);
void net_finish(net *m);        /* the workspace and the loss buffers */
void net_free(net *m);
size_t net_param_count(const net *m);

/* Reusable blocks and whole networks (net_models.c). */
int net_conv_bn(net *m, int in, int k, int r, int stride, int groups, int relu, double clip);
int net_resnet50(net *m, int in, double width, int max_blocks, int classes);
int net_mobilenet_v2(net *m, int in, double width, int max_blocks, int classes);

/* Running (net_run.c).  The input image sits in buffer 0. */
double net_forward_loss(net *m, const int *labels);   /* forward + softmax + cross-entropy */
void net_backward(net *m);                             /* after net_forward_loss */
void net_sgd(net *m, float lr);
double net_step(net *m, const int *labels, float lr); /* all three; returns the loss */
void net_profile_print(const net *m, int steps);

/* Helpers (net_util.c). */
float *net_alloc(size_t n);     /* zeroed device floats */
void net_upload(float *dst, const float *src, size_t n);
void net_download(float *dst, const float *src, size_t n);
void net_tensor(cudnnTensorDescriptor_t *d, cudnnTensorFormat_t f, int n, int c, int h, int w);
float net_rand(unsigned *state);                      /* uniform in [0, 1) */
float net_randn(unsigned *state);                     /* standard normal */
double net_now(void);                                 /* seconds, monotonic */
double net_cpu_now(void);                             /* CPU seconds of the process, all threads */

#endif
