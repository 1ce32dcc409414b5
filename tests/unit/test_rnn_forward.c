/* RNN weight layout queries and cudnnRNNForward against the float64 reference
 * (tests/ref/rnn_ref.c): every cell, both directions, several layers, every data layout,
 * bias modes, projection, clipping, skip input, FLOAT and DOUBLE; then bad input. */
#include <cudnn.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "rnn_test_util.h"
#include "ref/rnn_ref.h"

static cudnnHandle_t h;

typedef struct {
    cudnnRNNMode_t cell;
    int dirs, layers, in, hid, proj;
    cudnnRNNBiasMode_t bias;
    int skip, clip;
    cudnnDataType_t dt;
    cudnnRNNDataLayout_t layout;
    int T, B;
    int lens[17];
    int use_hx, use_hy;
} fcase;

static size_t esize(cudnnDataType_t dt) { return dt == CUDNN_DATA_DOUBLE ? 8 : dt == CUDNN_DATA_HALF ? 2 : 4; }
static double get(const void *p, cudnnDataType_t dt, size_t i)
{
    if (dt == CUDNN_DATA_HALF) return rtu_from_half(((const uint16_t *)p)[i]);
    return dt == CUDNN_DATA_DOUBLE ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
static void put(void *p, cudnnDataType_t dt, size_t i, double v)
{
    if (dt == CUDNN_DATA_HALF) ((uint16_t *)p)[i] = rtu_to_half(v);
    else if (dt == CUDNN_DATA_DOUBLE) ((double *)p)[i] = v; else ((float *)p)[i] = (float)v;
}
/* V as representable in DT. */
static double repr(cudnnDataType_t dt, double v)
{
    return dt == CUDNN_DATA_FLOAT ? (double)(float)v : dt == CUDNN_DATA_HALF ? rtu_from_half(rtu_to_half(v)) : v;
}

/* Row of vector (t, b) in a layout, computed here independently of src/. */
static size_t row_of(cudnnRNNDataLayout_t lay, int T, int B, const int *lens, int t, int b)
{
    if (lay == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED) return (size_t)t * B + b;
    if (lay == CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED) return (size_t)b * T + t;
    size_t r = 0;
    for (int tt = 0; tt < t; tt++)
        for (int bb = 0; bb < B; bb++) r += lens[bb] > tt;
    return r + (size_t)b;
}

static size_t rows_total(cudnnRNNDataLayout_t lay, int T, int B, const int *lens)
{
    if (lay != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) return (size_t)T * B;
    size_t n = 0;
    for (int b = 0; b < B; b++) n += (size_t)lens[b];
    return n;
}

static int gates_of(cudnnRNNMode_t c) { return c == CUDNN_LSTM ? 4 : c == CUDNN_GRU ? 3 : 1; }

/* Fill the weight space through cudnnGetRNNWeightParams, mirroring values into CFG, and
 * check every piece's shape and that the pieces tile the space exactly. */
static void fill_weights(const fcase *fc, cudnnRNNDescriptor_t r, void *w, size_t wsize, rnn_ref_cfg *cfg, unsigned *seed)
{
    const int G = gates_of(fc->cell), D = fc->dirs, H = fc->hid, P = fc->proj;
    const size_t es = esize(fc->dt);
    unsigned char *cover = calloc(wsize, 1);
    cudnnTensorDescriptor_t md = rtu_tensor_empty(), bd = rtu_tensor_empty();
    int nid = 2 * G + (P < H ? 1 : 0);
    int has_bw = fc->bias == CUDNN_RNN_DOUBLE_BIAS || fc->bias == CUDNN_RNN_SINGLE_INP_BIAS;
    int has_br = fc->bias == CUDNN_RNN_DOUBLE_BIAS || fc->bias == CUDNN_RNN_SINGLE_REC_BIAS;
    for (int pl = 0; pl < fc->layers * D; pl++) {
        int layer = pl / D;
        for (int id = 0; id < nid; id++) {
            void *ma = (void *)1, *ba = (void *)1;
            CHECK_OK(cudnnGetRNNWeightParams(h, r, pl, wsize, w, id, md, &ma, bd, &ba));
            int rows, cols;
            if (id < G) { rows = H; cols = layer == 0 ? fc->in : D * P; }
            else if (id < 2 * G) { rows = H; cols = P; }
            else { rows = P; cols = H; }
            int want_m = !(id < G && layer == 0 && fc->skip);
            int want_b = id < G ? has_bw : id < 2 * G ? has_br : 0;
            CHECK_MSG((ma != NULL) == want_m, "pl %d id %d matrix presence", pl, id);
            CHECK_MSG((ba != NULL) == want_b, "pl %d id %d bias presence", pl, id);
            cudnnDataType_t dt; int nb = 0, dims[8], str[8];
            if (ma) {
                CHECK(rtu_tensor_get(md, &dt, &nb, dims, str) == 0);
                CHECK_MSG(nb == 3 && dims[0] == 1 && dims[1] == rows && dims[2] == cols && dt == fc->dt,
                          "pl %d id %d: matrix dims %d {%d,%d,%d}, want {1,%d,%d}", pl, id, nb, dims[0], dims[1],
                          dims[2], rows, cols);
                size_t off = (size_t)((char *)ma - (char *)w);
                size_t n = (size_t)rows * cols;
                CHECK(off % es == 0 && off + n * es <= wsize);
                double *m = malloc(n * sizeof(double));
                for (size_t i = 0; i < n; i++) {
                    double v = rtu_rand(seed, 0.5);
                    v = repr(fc->dt, v);
                    m[i] = v;
                    put(ma, fc->dt, i, v);
                }
                for (size_t i = 0; i < n * es && off + i < wsize; i++) cover[off + i]++;
                cfg->mat[pl][id] = m;
            }
            if (ba) {
                CHECK(rtu_tensor_get(bd, &dt, &nb, dims, str) == 0);
                CHECK_MSG(nb == 3 && dims[0] == 1 && dims[1] == rows && dims[2] == 1, "pl %d id %d bias dims", pl, id);
                size_t off = (size_t)((char *)ba - (char *)w);
                CHECK(off + (size_t)rows * es <= wsize);
                double *bv = malloc((size_t)rows * sizeof(double));
                for (int i = 0; i < rows; i++) {
                    double v = rtu_rand(seed, 0.5);
                    v = repr(fc->dt, v);
                    bv[i] = v;
                    put(ba, fc->dt, (size_t)i, v);
                }
                for (size_t i = 0; i < (size_t)rows * es && off + i < wsize; i++) cover[off + i]++;
                cfg->bias[pl][id] = bv;
            }
        }
    }
    size_t bad = 0;
    for (size_t i = 0; i < wsize; i++) bad += cover[i] != 1;
    CHECK_MSG(bad == 0, "weight pieces do not tile the weight space (%zu bytes covered %s)", bad, "!= once");
    free(cover);
    rtu_tensor_free(md);
    rtu_tensor_free(bd);
}

static void run_case(const fcase *fc, unsigned seed)
{
    const int D = fc->dirs, P = fc->proj, H = fc->hid, T = fc->T, B = fc->B, IN = fc->in;
    const cudnnDataType_t dt = fc->dt;
    const size_t es = esize(dt);
    cudnnRNNDescriptor_t r;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    CHECK_OK(cudnnSetRNNDescriptor_v8(r, CUDNN_RNN_ALGO_STANDARD, fc->cell, fc->bias,
                                      D == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL,
                                      fc->skip ? CUDNN_SKIP_INPUT : CUDNN_LINEAR_INPUT, dt, dt, CUDNN_DEFAULT_MATH, IN,
                                      H, P, fc->layers, NULL, CUDNN_RNN_PADDED_IO_ENABLED));
    rnn_ref_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.cell = (int)fc->cell; cfg.dirs = D; cfg.layers = fc->layers; cfg.in = IN; cfg.hid = H; cfg.proj = P;
    cfg.skip_input = fc->skip;
    if (fc->clip) {
        CHECK_OK(cudnnRNNSetClip_v8(r, CUDNN_RNN_CLIP_MINMAX, CUDNN_NOT_PROPAGATE_NAN, -0.3, 0.4));
        cfg.clip = 1; cfg.lclip = -0.3; cfg.rclip = 0.4;
    }
    size_t wsize = 0;
    CHECK_OK(cudnnGetRNNWeightSpaceSize(h, r, &wsize));
    void *w = calloc(wsize ? wsize : 1, 1);
    fill_weights(fc, r, w, wsize, &cfg, &seed);

    /* data */
    cudnnRNNDataDescriptor_t xd, yd;
    CHECK_OK(cudnnCreateRNNDataDescriptor(&xd));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&yd));
    double fillv = -77.0;
    float fillf = -77.0f;
    void *fill = dt == CUDNN_DATA_DOUBLE ? (void *)&fillv : (void *)&fillf;   /* float for HALF data too */
    CHECK_OK(cudnnSetRNNDataDescriptor(xd, dt, fc->layout, T, B, IN, fc->lens, NULL));
    CHECK_OK(cudnnSetRNNDataDescriptor(yd, dt, fc->layout, T, B, D * P, fc->lens, fill));
    size_t xrows = rows_total(fc->layout, T, B, fc->lens);
    double *xr = calloc((size_t)B * T * IN, sizeof(double));
    void *x = calloc(xrows * IN, es);
    for (int b = 0; b < B; b++)
        for (int t = 0; t < fc->lens[b]; t++)
            for (int j = 0; j < IN; j++) {
                double v = rtu_rand(&seed, 1.0);
                v = repr(dt, v);
                xr[((size_t)b * T + t) * IN + j] = v;
                put(x, dt, row_of(fc->layout, T, B, fc->lens, t, b) * IN + j, v);
            }
    const int NPL = fc->layers * D;
    double *hxr = NULL, *cxr = NULL;
    void *hx = NULL, *cx = NULL;
    if (fc->use_hx) {
        hxr = malloc((size_t)NPL * B * P * sizeof(double));
        cxr = malloc((size_t)NPL * B * H * sizeof(double));
        hx = malloc((size_t)NPL * B * P * es);
        cx = malloc((size_t)NPL * B * H * es);
        for (size_t i = 0; i < (size_t)NPL * B * P; i++) {
            double v = rtu_rand(&seed, 0.8); v = repr(dt, v);
            hxr[i] = v; put(hx, dt, i, v);
        }
        for (size_t i = 0; i < (size_t)NPL * B * H; i++) {
            double v = rtu_rand(&seed, 0.8); v = repr(dt, v);
            cxr[i] = v; put(cx, dt, i, v);
        }
    }
    int hdims[3] = { NPL, B, P }, cdims[3] = { NPL, B, H };
    cudnnTensorDescriptor_t hdesc = rtu_tensor(dt, 3, hdims), cdesc = rtu_tensor(dt, 3, cdims);

    /* reference */
    double *yr = calloc((size_t)B * T * D * P, sizeof(double));
    double *hyr = calloc((size_t)NPL * B * P, sizeof(double));
    double *cyr = calloc((size_t)NPL * B * H, sizeof(double));
    rnn_ref_forward(&cfg, T, B, fc->lens, xr, hxr, fc->cell == CUDNN_LSTM ? cxr : NULL, yr, hyr, cyr);

    const double tol = dt == CUDNN_DATA_DOUBLE ? 1e-11 : dt == CUDNN_DATA_HALF ? 2e-3 : 2e-5;
    size_t yrows = rows_total(fc->layout, T, B, fc->lens);
    void *y_inf = NULL;
    for (int mode = 0; mode < 2; mode++) {
        size_t wss = 0, rss = 1;
        CHECK_OK(cudnnGetRNNTempSpaceSizes(h, r, (cudnnForwardMode_t)mode, xd, &wss, &rss));
        if (mode == 0) CHECK_EQ_INT(rss, 0);
        void *ws = malloc(wss ? wss : 1), *rs = mode ? malloc(rss ? rss : 1) : NULL;
        void *y = malloc(yrows * D * P * es);
        for (size_t i = 0; i < yrows * D * P; i++) put(y, dt, i, 12345.0);
        void *hy = fc->use_hy ? malloc((size_t)NPL * B * P * es) : NULL;
        void *cy = fc->use_hy ? malloc((size_t)NPL * B * H * es) : NULL;
        CHECK_OK(cudnnRNNForward(h, r, (cudnnForwardMode_t)mode, fc->lens, xd, x, yd, y, hdesc, hx, hy, cdesc, cx, cy,
                                 wsize, w, wss, ws, rss, rs));
        double maxerr = 0;
        int fill_ok = 1;
        for (int b = 0; b < B; b++)
            for (int t = 0; t < T; t++) {
                if (t >= fc->lens[b]) {
                    if (fc->layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED)
                        for (int j = 0; j < D * P; j++)
                            fill_ok &= get(y, dt, row_of(fc->layout, T, B, fc->lens, t, b) * D * P + j) == -77.0;
                    continue;
                }
                for (int j = 0; j < D * P; j++) {
                    double e = fabs(get(y, dt, row_of(fc->layout, T, B, fc->lens, t, b) * D * P + j) -
                                    yr[((size_t)b * T + t) * D * P + j]);
                    if (!(e <= maxerr)) maxerr = e;
                }
            }
        CHECK_MSG(maxerr <= tol, "cell %d dirs %d layers %d dt %d layout %d mode %d: max |y - ref| = %g",
                  fc->cell, D, fc->layers, dt, fc->layout, mode, maxerr);
        CHECK_MSG(fill_ok, "padding of y holds paddingFill (layout %d)", fc->layout);
        if (hy) {
            double eh = 0, ec = 0;
            for (size_t i = 0; i < (size_t)NPL * B * P; i++) { double e = fabs(get(hy, dt, i) - hyr[i]); if (!(e <= eh)) eh = e; }
            if (fc->cell == CUDNN_LSTM)
                for (size_t i = 0; i < (size_t)NPL * B * H; i++) { double e = fabs(get(cy, dt, i) - cyr[i]); if (!(e <= ec)) ec = e; }
            CHECK_MSG(eh <= tol && ec <= tol, "cell %d: hy err %g, cy err %g", fc->cell, eh, ec);
        }
        if (mode == 0) {
            y_inf = y;
        } else {
            CHECK_MSG(memcmp(y, y_inf, yrows * D * P * es) == 0, "training and inference y are bitwise equal");
            free(y);
        }
        free(ws); free(rs); free(hy); free(cy);
    }
    free(y_inf);
    for (int pl = 0; pl < 16; pl++) {
        for (int i = 0; i < 9; i++) free(cfg.mat[pl][i]);
        for (int i = 0; i < 8; i++) free(cfg.bias[pl][i]);
    }
    rtu_tensor_free(hdesc); rtu_tensor_free(cdesc);
    free(xr); free(x); free(hxr); free(cxr); free(hx); free(cx); free(yr); free(hyr); free(cyr); free(w);
    cudnnDestroyRNNDataDescriptor(xd);
    cudnnDestroyRNNDataDescriptor(yd);
    cudnnDestroyRNNDescriptor(r);
}

static void test_forward_cases(void)
{
    SECTION("forward vs reference");
    static const cudnnRNNMode_t cells[4] = { CUDNN_RNN_RELU, CUDNN_RNN_TANH, CUDNN_LSTM, CUDNN_GRU };
    static const cudnnRNNDataLayout_t lays[3] = { CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
                                                  CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED,
                                                  CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED };
    unsigned seed = 1;
    int n = 0;
    for (int c = 0; c < 4; c++)
        for (int d = 1; d <= 2; d++)
            for (int li = 0; li < 3; li++)
                for (int ti = 0; ti < 2; ti++) {
                    fcase fc;
                    memset(&fc, 0, sizeof fc);
                    fc.cell = cells[c]; fc.dirs = d; fc.layers = 1 + (li + c) % 2 + (ti == 1); fc.in = 5; fc.hid = 4;
                    fc.proj = 4; fc.bias = (cudnnRNNBiasMode_t)((c + d + li) % 4);
                    fc.dt = ti ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
                    fc.layout = lays[li];
                    fc.T = 4; fc.B = 3;
                    if (fc.layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) {
                        fc.lens[0] = 4; fc.lens[1] = 3; fc.lens[2] = 1;
                    } else {
                        fc.lens[0] = 2; fc.lens[1] = 4; fc.lens[2] = (li == 0) ? 0 : 3;
                    }
                    fc.use_hx = (c + li) % 2 == 0; fc.use_hy = 1;
                    run_case(&fc, seed++);
                    n++;
                }
    /* LSTM specials: projection, clipping, skip input, N = 1, odd sizes */
    fcase fc;
    memset(&fc, 0, sizeof fc);
    fc.cell = CUDNN_LSTM; fc.dirs = 2; fc.layers = 2; fc.in = 3; fc.hid = 6; fc.proj = 3;
    fc.bias = CUDNN_RNN_DOUBLE_BIAS; fc.dt = CUDNN_DATA_DOUBLE; fc.layout = CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED;
    fc.T = 5; fc.B = 2; fc.lens[0] = 5; fc.lens[1] = 3; fc.use_hx = 1; fc.use_hy = 1;
    run_case(&fc, seed++);
    fc.dt = CUDNN_DATA_FLOAT; fc.layout = CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED;
    run_case(&fc, seed++);
    fc.proj = 6; fc.clip = 1; fc.dirs = 1;
    run_case(&fc, seed++);
    fc.clip = 0; fc.skip = 1; fc.in = 6; fc.cell = CUDNN_GRU; fc.dt = CUDNN_DATA_DOUBLE;
    run_case(&fc, seed++);
    fc.cell = CUDNN_RNN_TANH; fc.T = 1; fc.B = 1; fc.lens[0] = 1; fc.hid = 1; fc.proj = 1; fc.in = 1; fc.layers = 3;
    run_case(&fc, seed++);
    fc.cell = CUDNN_LSTM; fc.skip = 0; fc.T = 7; fc.B = 5; fc.hid = 9; fc.proj = 9; fc.in = 11; fc.layers = 2; fc.dirs = 2;
    fc.layout = CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED; fc.dt = CUDNN_DATA_FLOAT;
    int l5[5] = { 7, 6, 6, 2, 1 };
    memcpy(fc.lens, l5, sizeof l5);
    run_case(&fc, seed++);
    fc.use_hx = 0; fc.use_hy = 0; fc.bias = CUDNN_RNN_NO_BIAS;
    run_case(&fc, seed++);

    /* float LSTM / GRU without a projection take the column-block steps (rnn_fwd.inc): hidden
       sizes over one block (32 units) with a partial last block, lengths with a 0 */
    static const int hids[3] = { 33, 75, 64 };
    for (int c = 0; c < 2; c++)
        for (int hi = 0; hi < 3; hi++) {
            memset(&fc, 0, sizeof fc);
            fc.cell = c ? CUDNN_GRU : CUDNN_LSTM; fc.dirs = 1 + hi % 2; fc.layers = 1 + (hi + c) % 2;
            fc.in = 7; fc.hid = hids[hi]; fc.proj = hids[hi];
            fc.bias = (cudnnRNNBiasMode_t)((c + hi) % 4); fc.dt = CUDNN_DATA_FLOAT;
            fc.layout = lays[hi]; fc.T = 5; fc.B = 6;
            int lb[6] = { 5, 5, 4, 3, 1, 1 }, lu[6] = { 2, 5, 0, 4, 1, 3 };
            memcpy(fc.lens, fc.layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED ? lb : lu, sizeof lb);
            fc.use_hx = hi != 1; fc.use_hy = 1;
            run_case(&fc, seed++);
        }

    /* every sequence of full length in a sequence-major layout: the first layer reads x and
       inference's last layer writes y in place (rnn_fwd.inc); batch 17 takes W x inside the
       steps; two layers: a middle layer's output still in the reserve or work space */
    for (int c = 0; c < 2; c++)
        for (int li = 0; li < 2; li++) {
            memset(&fc, 0, sizeof fc);
            fc.cell = c ? CUDNN_GRU : CUDNN_LSTM; fc.dirs = 1; fc.layers = 1 + li;
            fc.in = 7; fc.hid = 33; fc.proj = 33;
            fc.bias = (cudnnRNNBiasMode_t)((c + li) % 4); fc.dt = CUDNN_DATA_FLOAT;
            fc.layout = lays[li]; fc.T = 5; fc.B = 17;
            for (int b = 0; b < fc.B; b++) fc.lens[b] = fc.T;
            fc.use_hx = li == 0; fc.use_hy = 1;
            run_case(&fc, seed++);
        }

    SECTION("forward HALF (float compute)");
    for (int c = 0; c < 4; c++) {
        memset(&fc, 0, sizeof fc);
        fc.cell = cells[c]; fc.dirs = 1 + c % 2; fc.layers = 2; fc.in = 5; fc.hid = 4; fc.proj = c == 2 ? 3 : 4;
        fc.bias = CUDNN_RNN_DOUBLE_BIAS; fc.dt = CUDNN_DATA_HALF; fc.layout = lays[c % 3]; fc.T = 3; fc.B = 2;
        fc.lens[0] = 3; fc.lens[1] = 2; fc.use_hx = 1; fc.use_hy = 1;
        run_case(&fc, seed++);
    }
}

static void test_forward_errors(void)
{
    SECTION("forward bad input");
    const int IN = 3, H = 4, T = 3, B = 2;
    int lens[2] = { 3, 2 };
    cudnnRNNDescriptor_t r;
    CHECK_OK(cudnnCreateRNNDescriptor(&r));
    CHECK_OK(cudnnSetRNNDescriptor_v8(r, 0, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 0, 0, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                      0, IN, H, H, 1, NULL, 0));
    cudnnRNNDataDescriptor_t xd, yd, bad;
    CHECK_OK(cudnnCreateRNNDataDescriptor(&xd));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&yd));
    CHECK_OK(cudnnCreateRNNDataDescriptor(&bad));
    CHECK_OK(cudnnSetRNNDataDescriptor(xd, CUDNN_DATA_FLOAT, 0, T, B, IN, lens, NULL));
    CHECK_OK(cudnnSetRNNDataDescriptor(yd, CUDNN_DATA_FLOAT, 0, T, B, H, lens, NULL));
    size_t wsize, wss, rss;
    CHECK_OK(cudnnGetRNNWeightSpaceSize(h, r, &wsize));
    CHECK_EQ_INT(wsize, 4 * (4 * H * IN + 4 * H * H + 8 * H));
    CHECK_OK(cudnnGetRNNTempSpaceSizes(h, r, CUDNN_FWD_MODE_TRAINING, xd, &wss, &rss));
    float *w = calloc(wsize, 1), *ws = calloc(wss, 1), *rs = calloc(rss, 1);
    float x[T * B * IN], y[T * B * H], hy[B * H], cy[B * H];
    for (int i = 0; i < T * B * IN; i++) x[i] = 0.1f * (float)i;
    for (int i = 0; i < T * B * H; i++) y[i] = 99.0f;
    for (int i = 0; i < B * H; i++) hy[i] = cy[i] = 99.0f;
    int sd[3] = { 1, B, H };
    cudnnTensorDescriptor_t hd = rtu_tensor(CUDNN_DATA_FLOAT, 3, sd);
    int sd2[3] = { 2, B, H };
    cudnnTensorDescriptor_t hd2 = rtu_tensor(CUDNN_DATA_FLOAT, 3, sd2);
    cudnnTensorDescriptor_t hdd = rtu_tensor(CUDNN_DATA_DOUBLE, 3, sd);
    const cudnnForwardMode_t TR = CUDNN_FWD_MODE_TRAINING;
#define FWD(hh, rr, mode, dl, xx, xdd, ydd, hdesc, cdesc, wsz, wss_, rss_) \
    cudnnRNNForward(hh, rr, mode, dl, xdd, xx, ydd, y, hdesc, NULL, hy, cdesc, NULL, cy, wsz, w, wss_, ws, rss_, rs)
    CHECK_STATUS(FWD(NULL, r, TR, lens, x, xd, yd, hd, hd, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(h, NULL, TR, lens, x, xd, yd, hd, hd, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(h, r, (cudnnForwardMode_t)99, lens, x, xd, yd, hd, hd, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(h, r, TR, NULL, x, xd, yd, hd, hd, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM);
    int wrong[2] = { 3, 1 };
    CHECK_STATUS(FWD(h, r, TR, wrong, x, xd, yd, hd, hd, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(h, r, TR, lens, NULL, xd, yd, hd, hd, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(h, r, TR, lens, x, yd, yd, hd, hd, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM);   /* x width */
    CHECK_STATUS(FWD(h, r, TR, lens, x, xd, xd, hd, hd, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM);   /* y width */
    CHECK_STATUS(FWD(h, r, TR, lens, x, xd, bad, hd, hd, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM);  /* unset */
    CHECK_STATUS(FWD(h, r, TR, lens, x, NULL, yd, hd, hd, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(h, r, TR, lens, x, xd, yd, hd2, hd, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM);  /* h dims */
    CHECK_STATUS(FWD(h, r, TR, lens, x, xd, yd, hd, NULL, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM); /* LSTM needs c */
    CHECK_STATUS(FWD(h, r, TR, lens, x, xd, yd, hdd, hd, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM);  /* h type */
    CHECK_STATUS(FWD(h, r, TR, lens, x, xd, yd, (cudnnTensorDescriptor_t)(void *)xd, hd, wsize, wss, rss),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(h, r, TR, lens, x, xd, yd, hd, hd, wsize - 1, wss, rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(h, r, TR, lens, x, xd, yd, hd, hd, wsize, wss - 1, rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(FWD(h, r, TR, lens, x, xd, yd, hd, hd, wsize, wss, rss - 1), CUDNN_STATUS_BAD_PARAM);
    int shorter[2] = { 3, 1 };
    CHECK_OK(cudnnSetRNNDataDescriptor(bad, CUDNN_DATA_FLOAT, 0, T, B, H, shorter, NULL));
    CHECK_STATUS(FWD(h, r, TR, lens, x, xd, bad, hd, hd, wsize, wss, rss), CUDNN_STATUS_BAD_PARAM);  /* lengths differ */
    int ok = 1;
    for (int i = 0; i < T * B * H; i++) ok &= y[i] == 99.0f;
    for (int i = 0; i < B * H; i++) ok &= hy[i] == 99.0f && cy[i] == 99.0f;
    CHECK_MSG(ok, "outputs untouched after refused calls");
    CHECK_OK(FWD(h, r, TR, lens, x, xd, yd, hd, hd, wsize, wss, rss));
    /* determinism: the same call twice gives the same bits */
    float y1[T * B * H];
    memcpy(y1, y, sizeof y1);
    CHECK_OK(FWD(h, r, TR, lens, x, xd, yd, hd, hd, wsize, wss, rss));
    CHECK(memcmp(y1, y, sizeof y1) == 0);
#undef FWD
    /* v6-set descriptors have no input size for the v8 calls */
    CHECK_OK(cudnnSetRNNDescriptor_v6(h, r, H, 1, NULL, 0, 0, CUDNN_LSTM, 0, CUDNN_DATA_FLOAT));
    CHECK_STATUS(cudnnGetRNNWeightSpaceSize(h, r, &wsize), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNTempSpaceSizes(h, r, TR, xd, &wss, &rss), CUDNN_STATUS_BAD_PARAM);
    SECTION("size queries bad input");
    CHECK_OK(cudnnSetRNNDescriptor_v8(r, 0, CUDNN_GRU, CUDNN_RNN_DOUBLE_BIAS, 0, 0, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                      0, IN, H, H, 1, NULL, 0));
    CHECK_OK(cudnnGetRNNWeightSpaceSize(h, r, &wsize));
    CHECK_EQ_INT(wsize, 4 * (3 * H * IN + 3 * H * H + 6 * H));
    CHECK_STATUS(cudnnGetRNNWeightSpaceSize(NULL, r, &wsize), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightSpaceSize(h, NULL, &wsize), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightSpaceSize(h, r, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNTempSpaceSizes(h, r, (cudnnForwardMode_t)99, xd, &wss, &rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNTempSpaceSizes(h, r, TR, yd, &wss, &rss), CUDNN_STATUS_BAD_PARAM);
    CHECK_OK(cudnnGetRNNTempSpaceSizes(h, r, TR, xd, NULL, NULL));   /* nothing wanted: SUCCESS, as cuDNN 8.5 */
    cudnnTensorDescriptor_t md = rtu_tensor_empty();
    void *ma = (void *)7, *ba = (void *)7;
    CHECK_STATUS(cudnnGetRNNWeightParams(h, r, 1, wsize, w, 0, md, &ma, md, &ba), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightParams(h, r, -1, wsize, w, 0, md, &ma, md, &ba), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightParams(h, r, 0, wsize, w, 6, md, &ma, md, &ba), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightParams(h, r, 0, wsize, w, -1, md, &ma, md, &ba), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightParams(h, r, 0, wsize - 1, w, 0, md, &ma, md, &ba), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightParams(h, r, 0, wsize, NULL, 0, md, &ma, md, &ba), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightParams(h, r, 0, wsize, w, 0, md, NULL, md, NULL), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightParams(h, r, 0, wsize, w, 0, (cudnnTensorDescriptor_t)(void *)r, &ma, md, &ba),
                 CUDNN_STATUS_BAD_PARAM);
    CHECK(ma == (void *)7 && ba == (void *)7);
    /* cuDNN 8.5 needs all four outputs */
    CHECK_STATUS(cudnnGetRNNWeightParams(h, r, 0, wsize, w, 5, NULL, &ma, md, &ba), CUDNN_STATUS_BAD_PARAM);
    CHECK_STATUS(cudnnGetRNNWeightParams(h, r, 0, wsize, w, 5, md, &ma, NULL, &ba), CUDNN_STATUS_BAD_PARAM);
    CHECK(ma == (void *)7 && ba == (void *)7);
    CHECK_OK(cudnnGetRNNWeightParams(h, r, 0, wsize, w, 5, md, &ma, md, &ba));
    CHECK(ma != NULL && ba != NULL);
    /* huge sizes are refused, not overflowed */
    CHECK_OK(cudnnSetRNNDescriptor_v8(r, 0, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, 1, 0, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE,
                                      0, 2000000000, 2000000000, 2000000000, 2000000000, NULL, 0));
    CHECK_STATUS(cudnnGetRNNWeightSpaceSize(h, r, &wsize), CUDNN_STATUS_BAD_PARAM);
    rtu_tensor_free(md);
    rtu_tensor_free(hd); rtu_tensor_free(hd2); rtu_tensor_free(hdd);
    free(w); free(ws); free(rs);
    cudnnDestroyRNNDataDescriptor(xd); cudnnDestroyRNNDataDescriptor(yd); cudnnDestroyRNNDataDescriptor(bad);
    cudnnDestroyRNNDescriptor(r);
}

int main(void)
{
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return 1;
    test_forward_cases();
    test_forward_errors();
    printf("tensor descriptors: %s\n", rtu_fake_tensors == 1 ? "test fallback (setters not implemented yet)" : "library");
    cudnnDestroy(h);
    return hd_test_finish();
}
