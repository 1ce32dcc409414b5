/*
 * net_build.c -- adding layers to a network: descriptors, the algorithm choices, parameters.
 *
 * Each constructor creates the layer's output buffer and returns its index.  Convolutions take
 * the library's first choice from the cudnnGet*Algorithm_v7 heuristics for all three directions
 * and grow the one shared workspace to the largest size any of them asks for.
 */
#include "net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned weight_seed = 2024u;

static void *grow(void *p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return p;
    int c = *cap ? *cap * 2 : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(p, (size_t)c * elem);
    if (!q)
        net_fail(__FILE__, __LINE__, "realloc", "out of memory");
    memset((char *)q + (size_t)*cap * elem, 0, (size_t)(c - *cap) * elem);
    *cap = c;
    return q;
}

static int add_buffer(net *m, int n, int c, int h, int w, int needs_grad)
{
    m->bufs = grow(m->bufs, &m->cap_bufs, m->nbufs + 1, sizeof(buffer));
    buffer *b = &m->bufs[m->nbufs];
    b->n = n, b->c = c, b->h = h, b->w = w;
    net_tensor(&b->desc, m->format, n, c, h, w);
    size_t count = (size_t)n * c * h * w;
    b->data = net_alloc(count);
    b->grad = needs_grad ? net_alloc(count) : NULL;
    b->needs_grad = needs_grad;
    return m->nbufs++;
}

static layer *add_layer(net *m, layer_kind kind, int in)
{
    m->layers = grow(m->layers, &m->cap_layers, m->nlayers + 1, sizeof(layer));
    layer *L = &m->layers[m->nlayers++];
    L->kind = kind, L->in = in, L->in2 = -1;
    return L;
}

/* A parameter tensor of `count` floats, filled with init_std * N(0,1) + init_mean. */
static void add_param(layer *L, size_t count, float init_mean, float init_std)
{
    param *p = &L->p[L->nparams++];
    p->count = count;
    p->w = net_alloc(count), p->dw = net_alloc(count);
    net_tensor(&p->flat, CUDNN_TENSOR_NCHW, 1, (int)count, 1, 1);
    float *h = malloc(count * sizeof(float));
    if (!h)
        net_fail(__FILE__, __LINE__, "malloc", "out of memory");
    for (size_t i = 0; i < count; i++)
        h[i] = init_mean + (init_std ? init_std * net_randn(&weight_seed) : 0.0f);
    net_upload(p->w, h, count);
    free(h);
}

void net_init(net *m, cudnnHandle_t dnn, cublasHandle_t blas, cudnnTensorFormat_t format, int batch, int c,
              int h, int w)
{
    memset(m, 0, sizeof *m);
    m->dnn = dnn, m->blas = blas, m->format = format, m->batch = batch;
    const char *prof = getenv("HDNET_PROFILE");
    m->profile = prof && *prof && *prof != '0';
    add_buffer(m, batch, c, h, w, 0);   /* buffer 0: the input images */
    CKDNN(cudnnCreateOpTensorDescriptor(&m->add_op));
    CKDNN(cudnnSetOpTensorDescriptor(m->add_op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
}

static void need_workspace(net *m, size_t s)
{
    if (s > m->ws_size)
        m->ws_size = s;
}

int net_conv(net *m, int in, int k, int r, int stride, int pad, int groups)
{
    buffer x = m->bufs[in];
    layer *L = add_layer(m, L_CONV, in);
    CKDNN(cudnnCreateFilterDescriptor(&L->wdesc));
    CKDNN(cudnnSetFilter4dDescriptor(L->wdesc, CUDNN_DATA_FLOAT, m->format, k, x.c / groups, r, r));
    CKDNN(cudnnCreateConvolutionDescriptor(&L->conv));
    CKDNN(cudnnSetConvolution2dDescriptor(L->conv, pad, pad, stride, stride, 1, 1, CUDNN_CROSS_CORRELATION,
                                          CUDNN_DATA_FLOAT));
    if (groups > 1)
        CKDNN(cudnnSetConvolutionGroupCount(L->conv, groups));
    int n, c, h, w;
    CKDNN(cudnnGetConvolution2dForwardOutputDim(L->conv, x.desc, L->wdesc, &n, &c, &h, &w));
    int out = add_buffer(m, n, c, h, w, 1);
    L->out = out;
    cudnnTensorDescriptor_t yd = m->bufs[out].desc;

    int got = 0;
    cudnnConvolutionFwdAlgoPerf_t fp[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    CKDNN(cudnnGetConvolutionForwardAlgorithm_v7(m->dnn, x.desc, L->wdesc, L->conv, yd,
                                                 CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, fp));
    L->fwd_algo = fp[0].algo;
    cudnnConvolutionBwdDataAlgoPerf_t dp[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    CKDNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(m->dnn, L->wdesc, yd, L->conv, x.desc,
                                                      CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, dp));
    L->bwd_data_algo = dp[0].algo;
    cudnnConvolutionBwdFilterAlgoPerf_t bp[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    CKDNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(m->dnn, x.desc, yd, L->conv, L->wdesc,
                                                        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, bp));
    L->bwd_filter_algo = bp[0].algo;
    size_t s = 0;
    CKDNN(cudnnGetConvolutionForwardWorkspaceSize(m->dnn, x.desc, L->wdesc, L->conv, yd, L->fwd_algo, &s));
    need_workspace(m, s);
    if (x.needs_grad) {
        CKDNN(cudnnGetConvolutionBackwardDataWorkspaceSize(m->dnn, L->wdesc, yd, L->conv, x.desc, L->bwd_data_algo,
                                                           &s));
        need_workspace(m, s);
    }
    CKDNN(cudnnGetConvolutionBackwardFilterWorkspaceSize(m->dnn, x.desc, yd, L->conv, L->wdesc,
                                                         L->bwd_filter_algo, &s));
    need_workspace(m, s);
    int fan_in = x.c / groups * r * r;
    add_param(L, (size_t)k * (size_t)fan_in, 0.0f, sqrtf(2.0f / (float)fan_in));   /* He initialisation */
    return out;
}

int net_bn(net *m, int in)
{
    buffer x = m->bufs[in];
    int out = add_buffer(m, x.n, x.c, x.h, x.w, 1);
    layer *L = add_layer(m, L_BN, in);
    L->out = out;
    CKDNN(cudnnCreateTensorDescriptor(&L->bn_desc));
    CKDNN(cudnnDeriveBNTensorDescriptor(L->bn_desc, x.desc, CUDNN_BATCHNORM_SPATIAL));
    L->run_mean = net_alloc((size_t)x.c), L->run_var = net_alloc((size_t)x.c);
    L->save_mean = net_alloc((size_t)x.c), L->save_invvar = net_alloc((size_t)x.c);
    float *ones = malloc((size_t)x.c * sizeof(float));
    if (!ones)
        net_fail(__FILE__, __LINE__, "malloc", "out of memory");
    for (int i = 0; i < x.c; i++)
        ones[i] = 1.0f;
    net_upload(L->run_var, ones, (size_t)x.c);
    free(ones);
    add_param(L, (size_t)x.c, 1.0f, 0.0f);   /* scale */
    add_param(L, (size_t)x.c, 0.0f, 0.0f);   /* bias */
    return out;
}

int net_act(net *m, int in, cudnnActivationMode_t mode, double clip)
{
    buffer x = m->bufs[in];
    int out = add_buffer(m, x.n, x.c, x.h, x.w, 1);
    layer *L = add_layer(m, L_ACT, in);
    L->out = out;
    CKDNN(cudnnCreateActivationDescriptor(&L->act));
    if (m->smooth)
        mode = CUDNN_ACTIVATION_TANH;
    CKDNN(cudnnSetActivationDescriptor(L->act, mode, CUDNN_NOT_PROPAGATE_NAN, clip));
    return out;
}

static int pool_layer(net *m, int in, layer_kind kind, cudnnPoolingMode_t mode, int win_h, int win_w, int stride,
                      int pad)
{
    buffer x = m->bufs[in];
    cudnnPoolingDescriptor_t pd;
    CKDNN(cudnnCreatePoolingDescriptor(&pd));
    CKDNN(cudnnSetPooling2dDescriptor(pd, mode, CUDNN_NOT_PROPAGATE_NAN, win_h, win_w, pad, pad, stride, stride));
    int n, c, h, w;
    CKDNN(cudnnGetPooling2dForwardOutputDim(pd, x.desc, &n, &c, &h, &w));
    int out = add_buffer(m, n, c, h, w, 1);
    layer *L = add_layer(m, kind, in);
    L->out = out, L->pool = pd;
    return out;
}

int net_maxpool(net *m, int in, int win, int stride, int pad)
{
    return pool_layer(m, in, L_MAXPOOL, CUDNN_POOLING_MAX, win, win, stride, pad);
}

/* Global average pooling: one window over the whole image. */
int net_gap(net *m, int in)
{
    buffer x = m->bufs[in];
    return pool_layer(m, in, L_GAP, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, x.h, x.w, 1, 0);
}

int net_add(net *m, int a, int b)
{
    buffer x = m->bufs[a];
    int out = add_buffer(m, x.n, x.c, x.h, x.w, 1);
    layer *L = add_layer(m, L_ADD, a);
    L->in2 = b, L->out = out;
    return out;
}

int net_fc(net *m, int in, int classes)
{
    buffer x = m->bufs[in];
    int features = x.c * x.h * x.w;
    int out = add_buffer(m, x.n, classes, 1, 1, 1);
    layer *L = add_layer(m, L_FC, in);
    L->out = out, L->fc_in = features, L->fc_out = classes;
    net_tensor(&L->bias_desc, m->format, 1, classes, 1, 1);
    add_param(L, (size_t)classes * (size_t)features, 0.0f, 1.0f / sqrtf((float)features));
    add_param(L, (size_t)classes, 0.0f, 0.0f);
    m->classes = classes;
    return out;
}

void net_finish(net *m)
{
    if (m->ws_size)
        CKCUDA(cudaMalloc(&m->ws, m->ws_size));
    size_t n = (size_t)m->batch * (size_t)m->classes;
    m->prob = net_alloc(n);
    m->h_prob = malloc(n * sizeof(float)), m->h_dlogit = malloc(n * sizeof(float));
    if (!m->h_prob || !m->h_dlogit)
        net_fail(__FILE__, __LINE__, "malloc", "out of memory");
}

size_t net_param_count(const net *m)
{
    size_t total = 0;
    for (int i = 0; i < m->nlayers; i++)
        for (int j = 0; j < m->layers[i].nparams; j++)
            total += m->layers[i].p[j].count;
    return total;
}

void net_free(net *m)
{
    for (int i = 0; i < m->nlayers; i++) {
        layer *L = &m->layers[i];
        for (int j = 0; j < L->nparams; j++) {
            cudaFree(L->p[j].w), cudaFree(L->p[j].dw);
            cudnnDestroyTensorDescriptor(L->p[j].flat);
        }
        switch (L->kind) {
        case L_CONV:
            cudnnDestroyFilterDescriptor(L->wdesc), cudnnDestroyConvolutionDescriptor(L->conv);
            break;
        case L_BN:
            cudnnDestroyTensorDescriptor(L->bn_desc);
            cudaFree(L->run_mean), cudaFree(L->run_var), cudaFree(L->save_mean), cudaFree(L->save_invvar);
            break;
        case L_ACT: cudnnDestroyActivationDescriptor(L->act); break;
        case L_MAXPOOL:
        case L_GAP: cudnnDestroyPoolingDescriptor(L->pool); break;
        case L_FC: cudnnDestroyTensorDescriptor(L->bias_desc); break;
        default: break;
        }
    }
    for (int i = 0; i < m->nbufs; i++) {
        cudnnDestroyTensorDescriptor(m->bufs[i].desc);
        cudaFree(m->bufs[i].data), cudaFree(m->bufs[i].grad);
    }
    cudnnDestroyOpTensorDescriptor(m->add_op);
    cudaFree(m->ws), cudaFree(m->prob);
    free(m->h_prob), free(m->h_dlogit), free(m->layers), free(m->bufs);
    memset(m, 0, sizeof *m);
}
