/*
 * net_run.c -- one training step: forward through every layer, softmax and cross-entropy,
 * backward in reverse order, then plain SGD on every parameter.
 *
 * With HDNET_PROFILE set, every call is timed and the time summed by layer kind and direction.
 * The calls are synchronous on a host library; cudaDeviceSynchronize before each clock reading
 * keeps the profile right on an asynchronous one too.
 */
#include "net.h"

#include <math.h>
#include <stdio.h>

static const float one = 1.0f, zero = 0.0f;
static const double bn_eps = 1e-5, bn_momentum = 0.1;

static double tick(const net *m)
{
    if (!m->profile)
        return 0;
    CKCUDA(cudaDeviceSynchronize());
    return net_now();
}

static void tock(net *m, layer_kind kind, int dir, double t0)
{
    if (m->profile)
        m->prof[kind][dir] += tick(m) - t0;
}

static void layer_forward(net *m, layer *L)
{
    buffer *x = &m->bufs[L->in], *y = &m->bufs[L->out];
    double t0 = tick(m);
    switch (L->kind) {
    case L_CONV:
        CKDNN(cudnnConvolutionForward(m->dnn, &one, x->desc, x->data, L->wdesc, L->p[0].w, L->conv, L->fwd_algo,
                                      m->ws, m->ws_size, &zero, y->desc, y->data));
        break;
    case L_BN:
        CKDNN(cudnnBatchNormalizationForwardTraining(m->dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x->desc, x->data,
                                                     y->desc, y->data, L->bn_desc, L->p[0].w, L->p[1].w,
                                                     bn_momentum, L->run_mean, L->run_var, bn_eps, L->save_mean,
                                                     L->save_invvar));
        break;
    case L_ACT:
        CKDNN(cudnnActivationForward(m->dnn, L->act, &one, x->desc, x->data, &zero, y->desc, y->data));
        break;
    case L_MAXPOOL:
    case L_GAP:
        CKDNN(cudnnPoolingForward(m->dnn, L->pool, &one, x->desc, x->data, &zero, y->desc, y->data));
        break;
    case L_ADD: {
        buffer *b = &m->bufs[L->in2];
        CKDNN(cudnnOpTensor(m->dnn, m->add_op, &one, x->desc, x->data, &one, b->desc, b->data, &zero, y->desc,
                            y->data));
        break;
    }
    case L_FC:
        /* column-major view: y (k x n) = W^T (k x f) x (f x n), W stored as k rows of f */
        CKBLAS(cublasSgemm(m->blas, CUBLAS_OP_T, CUBLAS_OP_N, L->fc_out, x->n, L->fc_in, &one, L->p[0].w, L->fc_in,
                           x->data, L->fc_in, &zero, y->data, L->fc_out));
        CKDNN(cudnnAddTensor(m->dnn, &one, L->bias_desc, L->p[1].w, &one, y->desc, y->data));
        break;
    default:
        break;
    }
    tock(m, L->kind, PROF_FWD, t0);
}

double net_forward_loss(net *m, const int *labels)
{
    for (int i = 0; i < m->nlayers; i++)
        layer_forward(m, &m->layers[i]);
    buffer *logits = &m->bufs[m->nbufs - 1];
    CKDNN(cudnnSoftmaxForward(m->dnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, logits->desc,
                              logits->data, &zero, logits->desc, m->prob));
    /* Cross-entropy on the host (batch x classes floats); its gradient is (p - onehot) / batch. */
    int n = m->batch, k = m->classes;
    net_download(m->h_prob, m->prob, (size_t)n * (size_t)k);
    double loss = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < k; j++)
            m->h_dlogit[i * k + j] = (m->h_prob[i * k + j] - (j == labels[i] ? 1.0f : 0.0f)) / (float)n;
        loss -= log(fmax((double)m->h_prob[i * k + labels[i]], 1e-30));
    }
    return loss / n;
}

/* beta for a backward call writing x's gradient: the first writer sets it, later ones add. */
static const float *grad_beta(buffer *x)
{
    const float *beta = x->grad_set ? &one : &zero;
    x->grad_set = 1;
    return beta;
}

static void layer_backward(net *m, layer *L)
{
    buffer *x = &m->bufs[L->in], *y = &m->bufs[L->out];
    double t0 = tick(m);
    switch (L->kind) {
    case L_CONV:
        CKDNN(cudnnConvolutionBackwardFilter(m->dnn, &one, x->desc, x->data, y->desc, y->grad, L->conv,
                                             L->bwd_filter_algo, m->ws, m->ws_size, &zero, L->wdesc, L->p[0].dw));
        tock(m, L->kind, PROF_BWD_FILTER, t0);
        if (x->needs_grad) {
            t0 = tick(m);
            CKDNN(cudnnConvolutionBackwardData(m->dnn, &one, L->wdesc, L->p[0].w, y->desc, y->grad, L->conv,
                                               L->bwd_data_algo, m->ws, m->ws_size, grad_beta(x), x->desc, x->grad));
            tock(m, L->kind, PROF_BWD_DATA, t0);
        }
        return;
    case L_BN:
        CKDNN(cudnnBatchNormalizationBackward(m->dnn, CUDNN_BATCHNORM_SPATIAL, &one, grad_beta(x), &one, &zero,
                                              x->desc, x->data, y->desc, y->grad, x->desc, x->grad, L->bn_desc,
                                              L->p[0].w, L->p[0].dw, L->p[1].dw, bn_eps, L->save_mean,
                                              L->save_invvar));
        break;
    case L_ACT:
        CKDNN(cudnnActivationBackward(m->dnn, L->act, &one, y->desc, y->data, y->desc, y->grad, x->desc, x->data,
                                      grad_beta(x), x->desc, x->grad));
        break;
    case L_MAXPOOL:
    case L_GAP:
        CKDNN(cudnnPoolingBackward(m->dnn, L->pool, &one, y->desc, y->data, y->desc, y->grad, x->desc, x->data,
                                   grad_beta(x), x->desc, x->grad));
        break;
    case L_ADD: {
        buffer *b = &m->bufs[L->in2];
        CKDNN(cudnnAddTensor(m->dnn, &one, y->desc, y->grad, grad_beta(x), x->desc, x->grad));
        CKDNN(cudnnAddTensor(m->dnn, &one, y->desc, y->grad, grad_beta(b), b->desc, b->grad));
        break;
    }
    case L_FC:
        /* dW (f x k) = x (f x n) dy^T;  db = sum over the batch;  dx (f x n) = W (f x k) dy */
        CKBLAS(cublasSgemm(m->blas, CUBLAS_OP_N, CUBLAS_OP_T, L->fc_in, L->fc_out, x->n, &one, x->data, L->fc_in,
                           y->grad, L->fc_out, &zero, L->p[0].dw, L->fc_in));
        CKDNN(cudnnConvolutionBackwardBias(m->dnn, &one, y->desc, y->grad, &zero, L->bias_desc, L->p[1].dw));
        CKBLAS(cublasSgemm(m->blas, CUBLAS_OP_N, CUBLAS_OP_N, L->fc_in, x->n, L->fc_out, &one, L->p[0].w, L->fc_in,
                           y->grad, L->fc_out, grad_beta(x), x->grad, L->fc_in));
        break;
    default:
        break;
    }
    tock(m, L->kind, PROF_BWD, t0);
}

void net_backward(net *m)
{
    for (int i = 0; i < m->nbufs; i++)
        m->bufs[i].grad_set = 0;
    buffer *logits = &m->bufs[m->nbufs - 1];
    net_upload(logits->grad, m->h_dlogit, (size_t)m->batch * (size_t)m->classes);
    logits->grad_set = 1;
    for (int i = m->nlayers - 1; i >= 0; i--)
        layer_backward(m, &m->layers[i]);
}

/* w -= lr * dw: cuBLAS for the fully connected layer, cudnnAddTensor for the rest. */
void net_sgd(net *m, float lr)
{
    const float mlr = -lr;
    double t0 = tick(m);
    for (int i = 0; i < m->nlayers; i++) {
        layer *L = &m->layers[i];
        for (int j = 0; j < L->nparams; j++) {
            param *p = &L->p[j];
            if (L->kind == L_FC)
                CKBLAS(cublasSaxpy(m->blas, (int)p->count, &mlr, p->dw, 1, p->w, 1));
            else
                CKDNN(cudnnAddTensor(m->dnn, &mlr, p->flat, p->dw, &one, p->flat, p->w));
        }
    }
    if (m->profile)
        m->prof[L_CONV][PROF_SGD] += tick(m) - t0;
}

double net_step(net *m, const int *labels, float lr)
{
    double loss = net_forward_loss(m, labels);
    net_backward(m);
    net_sgd(m, lr);
    return loss;
}

void net_profile_print(const net *m, int steps)
{
    static const char *names[LAYER_KINDS] = {"conv", "batchnorm", "activation", "maxpool", "avgpool", "add", "fc"};
    double total = 0;
    for (int k = 0; k < LAYER_KINDS; k++)
        for (int d = 0; d < PROF_DIRS; d++)
            total += m->prof[k][d];
    if (!m->profile || steps <= 0 || total <= 0)
        return;
    printf("profile (ms per step; share of the timed calls)\n");
    printf("  %-11s %9s %9s %9s %9s %6s\n", "layer", "forward", "backward", "bwd-data", "bwd-filt", "share");
    for (int k = 0; k < LAYER_KINDS; k++) {
        const double *p = m->prof[k];
        double sum = p[PROF_FWD] + p[PROF_BWD] + p[PROF_BWD_DATA] + p[PROF_BWD_FILTER];
        printf("  %-11s %9.1f %9.1f %9.1f %9.1f %5.1f%%\n", names[k], 1e3 * p[PROF_FWD] / steps,
               1e3 * p[PROF_BWD] / steps, 1e3 * p[PROF_BWD_DATA] / steps, 1e3 * p[PROF_BWD_FILTER] / steps,
               100 * sum / total);
    }
    printf("  %-11s %9.1f %46.1f%%\n", "sgd", 1e3 * m->prof[L_CONV][PROF_SGD] / steps,
           100 * m->prof[L_CONV][PROF_SGD] / total);
}
