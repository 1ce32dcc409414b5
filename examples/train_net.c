/*
 * train_net.c -- train ResNet-50 or MobileNet-v2 through the cuDNN API (examples/net/), on a
 * synthetic set, and time the steps.
 *
 *   train_net [--net resnet50|mobilenet_v2] [--batch 16] [--image 224] [--width 1] [--blocks 0]
 *             [--layout nchw|nhwc] [--steps 3] [--classes 1000] [--samples N] [--lr 0.05]
 *             [--gradcheck] [--smooth]
 *
 * Every step is forward, softmax cross-entropy, backward and an SGD update of every weight.
 * The first step is a warm-up (plans are built, pages touched); the timed steps after it give
 * the median.  The data: `samples` images of class i % classes, each its class's pattern (a
 * plane wave whose direction, frequency and phase per channel come from the class number) plus
 * Gaussian noise, so the classes are separable and nothing is downloaded.
 *
 * --blocks N caps every stage at N blocks and --width scales the channels: small versions of
 * the same graphs that tests/scripts/train_nets.sh trains in seconds.  --gradcheck compares,
 * for every parameter tensor, the gradient from one backward pass with a central finite
 * difference of the loss along a direction, and prints "gradcheck: N passed, N failed".
 * --smooth makes every activation tanh: ReLU's kinks make finite differences unreliable where
 * small batches leave many values near zero, while a smooth loss lets them check the chain
 * of backward calls tightly.
 * HDNET_PROFILE=1 prints the time per layer kind.
 */
#include "net/net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *net, *layout;
    int batch, image, blocks, steps, classes, samples, gradcheck, smooth;
    double width, lr;
} options;

static void usage(void)
{
    fprintf(stderr, "usage: train_net [--net resnet50|mobilenet_v2] [--batch N] [--image N] [--width F] "
                    "[--blocks N] [--layout nchw|nhwc] [--steps N] [--classes N] [--samples N] [--lr F] "
                    "[--gradcheck] [--smooth]\n");
    exit(2);
}

static options parse(int argc, char **argv)
{
    options o = {"resnet50", "nchw", 16, 224, 0, 3, 1000, 0, 0, 0, 1.0, 0.05};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--gradcheck")) {
            o.gradcheck = 1;
            continue;
        }
        if (!strcmp(a, "--smooth")) {
            o.smooth = 1;
            continue;
        }
        if (!v)
            usage();
        i++;
        if (!strcmp(a, "--net")) o.net = v;
        else if (!strcmp(a, "--layout")) o.layout = v;
        else if (!strcmp(a, "--batch")) o.batch = atoi(v);
        else if (!strcmp(a, "--image")) o.image = atoi(v);
        else if (!strcmp(a, "--blocks")) o.blocks = atoi(v);
        else if (!strcmp(a, "--steps")) o.steps = atoi(v);
        else if (!strcmp(a, "--classes")) o.classes = atoi(v);
        else if (!strcmp(a, "--samples")) o.samples = atoi(v);
        else if (!strcmp(a, "--width")) o.width = atof(v);
        else if (!strcmp(a, "--lr")) o.lr = atof(v);
        else usage();
    }
    if (o.batch < 1 || o.image < 8 || o.steps < 1 || o.classes < 2 || o.width <= 0 ||
        (strcmp(o.layout, "nchw") && strcmp(o.layout, "nhwc")) ||
        (strcmp(o.net, "resnet50") && strcmp(o.net, "mobilenet_v2")))
        usage();
    if (o.samples < o.batch)
        o.samples = o.batch;
    return o;
}

/* Image `i` of the synthetic set, in the network's layout. */
static void draw(float *img, int i, int label, int c, int hw, int nhwc)
{
    unsigned cls = 77u + 131u * (unsigned)label, noise = 9001u + 7919u * (unsigned)i;
    for (int ch = 0; ch < c; ch++) {
        float fx = 0.6f * net_rand(&cls) - 0.3f, fy = 0.6f * net_rand(&cls) - 0.3f, ph = 6.3f * net_rand(&cls);
        for (int y = 0; y < hw; y++)
            for (int x = 0; x < hw; x++) {
                float v = sinf(fx * (float)x + fy * (float)y + ph) + 0.5f * net_randn(&noise);
                img[nhwc ? ((size_t)y * hw + x) * c + ch : ((size_t)ch * hw + y) * hw + x] = v;
            }
    }
}

static void load_batch(net *m, float *host, int *labels, int step, const options *o, int nhwc)
{
    size_t per = (size_t)3 * o->image * o->image;
    for (int b = 0; b < o->batch; b++) {
        int i = (step * o->batch + b) % o->samples;
        labels[b] = i % o->classes;
        draw(host + b * per, i, labels[b], 3, o->image, nhwc);
    }
    net_upload(m->bufs[0].data, host, per * (size_t)o->batch);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* For every parameter tensor: the loss's central difference along d against g . d. */
static int gradcheck(net *m, const int *labels)
{
    net_forward_loss(m, labels);
    net_backward(m);
    int pass = 0, fail = 0;
    unsigned seed = 4242u;
    for (int li = 0; li < m->nlayers; li++)
        for (int pi = 0; pi < m->layers[li].nparams; pi++) {
            param *p = &m->layers[li].p[pi];
            size_t n = p->count;
            float *w = malloc(n * sizeof(float)), *g = malloc(n * sizeof(float));
            float *d = malloc(n * sizeof(float)), *t = malloc(n * sizeof(float));
            if (!w || !g || !d || !t)
                net_fail(__FILE__, __LINE__, "malloc", "out of memory");
            net_download(w, p->w, n), net_download(g, p->dw, n);
            /* d: the gradient's direction mixed with noise of the same size, as a unit vector */
            double gn = 0, dn = 0, gd = 0;
            for (size_t i = 0; i < n; i++)
                gn += (double)g[i] * g[i];
            gn = sqrt(gn);
            for (size_t i = 0; i < n; i++) {
                d[i] = (float)(g[i] / (gn + 1e-30) + net_randn(&seed) / sqrt((double)n));
                dn += (double)d[i] * d[i];
            }
            dn = sqrt(dn);
            for (size_t i = 0; i < n; i++) {
                d[i] = (float)(d[i] / dn);
                gd += (double)g[i] * d[i];
            }
            /* Central differences at steps h and h/2, combined by Richardson extrapolation,
             * which cancels the h^2 term: the networks' loss is strongly curved at the random
             * initial weights.  h changes the loss by about 1e-3, well above float rounding. */
            double h = fmin(1e-3 / (fabs(gd) + 1e-6), 5e-2), fdh[2];
            for (int k = 0; k < 2; k++) {
                double e = k ? h / 2 : h, l[2];
                for (int sgn = 0; sgn < 2; sgn++) {
                    for (size_t i = 0; i < n; i++)
                        t[i] = (float)(w[i] + (sgn ? -e : e) * d[i]);
                    net_upload(p->w, t, n);
                    l[sgn] = net_forward_loss(m, labels);
                }
                fdh[k] = (l[0] - l[1]) / (2 * e);
            }
            net_upload(p->w, w, n);
            double fd = (4 * fdh[1] - fdh[0]) / 3;
            /* The two steps' disagreement bounds the difference's own error.  It matters only
             * where the loss barely depends on the tensor (a batch norm's shift followed by
             * another batch norm, whose true gradient is 0): the difference is then the loss's
             * rounding noise over the step, which no step size removes, while a wrong backward
             * still shows against two agreeing steps. */
            int ok = fabs(fd - gd) <= 0.03 * fabs(gd) + 2e-4 + fabs(fdh[0] - fdh[1]);
            if (ok)
                pass++;
            else
                fail++;
            printf("%s layer %3d param %d (%7zu): backward %+.6e  finite difference %+.6e\n", ok ? "ok  " : "FAIL",
                   li, pi, n, gd, fd);
            free(w), free(g), free(d), free(t);
        }
    printf("gradcheck: %d passed, %d failed\n", pass, fail);
    return fail == 0;
}

int main(int argc, char **argv)
{
    options o = parse(argc, argv);
    int nhwc = !strcmp(o.layout, "nhwc");
    cudnnHandle_t dnn;
    cublasHandle_t blas;
    CKDNN(cudnnCreate(&dnn));
    CKBLAS(cublasCreate(&blas));
    net m;
    net_init(&m, dnn, blas, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, o.batch, 3, o.image, o.image);
    m.smooth = o.smooth;
    if (!strcmp(o.net, "resnet50"))
        net_resnet50(&m, 0, o.width, o.blocks, o.classes);
    else
        net_mobilenet_v2(&m, 0, o.width, o.blocks, o.classes);
    net_finish(&m);
    printf("%s %s batch %d image %d width %g blocks per stage %d (0: all): %d layers, %.2fM parameters, "
           "workspace %.1f MiB\n", o.net, o.layout, o.batch, o.image, o.width, o.blocks, m.nlayers, (double)net_param_count(&m) / 1e6, (double)m.ws_size / 1048576.0);

    float *host = malloc((size_t)o.batch * 3 * o.image * o.image * sizeof(float));
    int *labels = malloc((size_t)o.batch * sizeof(int));
    if (!host || !labels)
        net_fail(__FILE__, __LINE__, "malloc", "out of memory");
    int ok = 1;
    if (o.gradcheck) {
        load_batch(&m, host, labels, 0, &o, nhwc);
        ok = gradcheck(&m, labels);
    } else {
        double *times = malloc((size_t)o.steps * sizeof(double)), *cpu = malloc((size_t)o.steps * sizeof(double));
        if (!times || !cpu)
            net_fail(__FILE__, __LINE__, "malloc", "out of memory");
        for (int s = 0; s <= o.steps; s++) {
            if (s == 1)
                memset(m.prof, 0, sizeof m.prof);   /* the profile leaves the warm-up out */
            load_batch(&m, host, labels, s, &o, nhwc);
            double t0 = net_now(), c0 = net_cpu_now();
            double loss = net_step(&m, labels, (float)o.lr);
            double t = net_now() - t0;
            if (s > 0)
                times[s - 1] = t, cpu[s - 1] = net_cpu_now() - c0;
            printf("step %3d  loss %.4f  %8.1f ms%s\n", s, loss, 1e3 * t, s == 0 ? "  (warm-up)" : "");
            if (!isfinite(loss))
                ok = 0;
        }
        double med = median(times, o.steps), cmed = median(cpu, o.steps);
        /* CPU time counts every thread's cycles: on a shared machine it moves less than the
         * wall clock when other processes take the cores */
        printf("median step: %.1f ms (%d steps, %.1f images/s), CPU time %.1f ms\n", 1e3 * med, o.steps,
               o.batch / med, 1e3 * cmed);
        net_profile_print(&m, o.steps);
        free(times), free(cpu);
    }
    free(host), free(labels);
    net_free(&m);
    CKBLAS(cublasDestroy(blas));
    CKDNN(cudnnDestroy(dnn));
    return ok ? 0 : 1;
}
