/*
 * Backward filter in fp32 on the GEMM micro-kernels (conv/solvers/conv_bwdf.h, conv_bwdf_f32.h): solver 351 (the
 * row tiles, described first) and 352 (the k-major tiles, section "k-major tiles" below: dW's
 * rows are the tile rows, dy is packed once per wave into A panels, x gathered or read in place
 * as B; with one block of positions in all, the kernel writes dW itself).
 *
 * For one group, with the filter columns ordered (tap, channel) -- r = tap * Cg + c --
 *
 *     dWt[r][k] = sum over positions q of col[r][q] * dy[k][q]
 *
 * is a GEMM whose reduction runs over every output position of every image.  The micro-kernel
 * (gemm-ukernels.h) computes an MR x NR tile of dWt from an A panel (kc positions x MR filter
 * columns) and a B panel (kc positions x NR output channels): both operands are read position
 * by position with their channels side by side.
 *   - A panels are gathered from x: for a position, the MR filter columns of a panel are runs
 *     of consecutive channels of one tap, or of consecutive taps along w when a pixel's
 *     channels are exactly one dilation step apart (C = 3, 7x7: one run per filter row).  An
 *     x whose channels are not contiguous (NCHW) is first transposed, a cache-sized wave of
 *     images at a time, into a channel-contiguous copy (each element once).
 *   - B panels are dy itself, read in place with the position stride as b_stride when its
 *     channels are contiguous, else packed: transposed from NCHW straight into the panel, or
 *     copied where an image boundary or the tail of the channels gets in the way.
 * Result tiles -- all taps of a block of channels (rows) x up to 256 output channels -- stay in
 * cache while the reduction walks through blocks of BW_KC positions (beta = 1 after the first
 * block), and the task that completes a tile writes it to dW while it is still hot.
 *
 * Determinism (both solvers): the positions of each wave are cut into BW_KC blocks and the
 * blocks into a number of chunks that depends on the problem only; a task owns one (chunk,
 * group, tile) and accumulates its blocks in order into the chunk's own partial sums, wave
 * after wave; the final store adds the chunks in chunk order and applies alpha and beta.  Neither the thread
 * count nor the kernel's tile shape changes any sum, and AVX2 and AVX-512 kernels (one fused
 * multiply-add per position, in order) give the same bits.
 */
#include "conv/solvers/conv_bwdf_f32.h"

#include "conv/solvers/conv_solvers.h"

/* ---------------- the plan: a function of the problem only ---------------- */

/* The k-major tiles can take problems whose filter columns, in dW's memory order, are cheap
 * to gather from x: runs of channels of one tap (KRSC, or 1x1) from a channel-contiguous x,
 * or im2col rows of one channel and tap (KCRS, or 1x1) from any other x. */
static int km_mode(const hd_conv_problem *p)
{
    int xchan = p->xs[1] == 1 || p->C == 1;
    int krsc = p->wst[1] == 1 || p->TRS == 1, kcrs = (p->wst[4] == 1 && p->wst[1] == p->TRS) || p->TRS == 1;
    return xchan && krsc ? KM_RUNS : !xchan && kcrs ? KM_ROWS : 0;
}

/* Floats moved per output position besides the micro-kernel's own reads, for the row tiles
 * (x gathered into A panels once per column tile, NCHW x copied, NCHW dy transposed once per
 * row tile) and for the k-major tiles (dy packed once, x gathered once per tile of output
 * channels unless read in place, im2col rows of an NCHW x written then transposed, strided
 * ones element by element).  Measured on ResNet-50 layers (1 thread): the side that moves
 * less was the faster one, within the noise where the two are close. */
static double row_moves(const hd_conv_problem *p, int tx, int ty, int64_t nrb, int64_t ncb)
{
    return (double)(p->G * ncb) * (double)p->CRS + (tx ? (double)p->C * (double)p->Q / (double)p->P : 0.0) +
           (ty ? (double)nrb * (double)p->K : 0.0);
}

/* Whether x's positions SW floats apart may be read in place as the k-major B panel.  A stride
 * of a multiple of 4 KiB (NHWC x with C = 1024) puts every row of the panel in the same few
 * cache sets: on a 2 MiB 16-way L2 (Intel) the 512-row panel no longer stays in L2 between
 * the tiles that reuse it, and res4_reduce NHWC ran at half the speed of packing it. */
int hd_bw_km_inplace_stride(int64_t sw) { return sw <= KM_INPLACE_MAX && sw % 1024 != 0; }

static double km_moves(const hd_conv_problem *p, int mode, int xdirect, int64_t nkt)
{
    int inplace = mode == KM_RUNS && p->TRS == 1 && p->xs[1] == 1 && hd_bw_km_inplace_stride(p->xs[4]);
    for (int j = 0; j < 3; j++)
        inplace = inplace && p->str[j] == 1 && p->pad[j] == 0;
    /* strided im2col rows go element by element (AVX-512 gathers measured slower still); for
       1x1 layers the row tiles' copy of x is then the cheaper way (res4a_proj NCHW) */
    double w = inplace ? 0.0 : mode == KM_RUNS || xdirect ? 1.0 : p->str[2] == 1 ? 1.5 : p->TRS > 1 ? 3.0 : 8.0;
    /* an NCHW dy is transposed into the A panels: counted twice (the transpose costs about as
       much again as the copy the plain count assumes) */
    double pack = p->ys[1] != 1 && p->K > 1 ? 2.0 : 1.0;
    return pack * (double)p->K + (double)(p->G * nkt) * w * (double)p->CRS;
}

static bw_plan plan_bw(const hd_conv_problem *p, int kmajor)
{
    bw_plan L;
    L.tx = p->xs[1] != 1 && p->C > 1;
    L.xdirect = 0;
    if (L.tx && p->TRS == 1 && p->xs[4] == 1 && p->pad[0] == 0 && p->pad[1] == 0 && p->pad[2] == 0) {
        /* unit strides: positions are x's own (contiguous rows); 2-d strides (w: 1 or 2): each
           output row is every s-th column of one x row, transposed from x (a copy of x in
           channel-contiguous order would move all of x, s^2 times the positions used) */
        int unit = p->str[0] == 1 && p->str[1] == 1 && p->str[2] == 1;
        L.xdirect = unit ? (p->in[1] == 1 || p->xs[3] == p->in[2]) && (p->in[0] == 1 || p->xs[2] == p->in[1] * p->in[2])
                         : p->in[0] == 1 && p->str[2] <= 2;
        L.tx = !L.xdirect;
    }
    L.ty = p->ys[1] != 1 && p->K > 1;
    L.R = p->CRS;
    int64_t per_img = L.tx ? p->C * p->Q : 0;
    L.wave = p->N;
    if (per_img > 0) {
        L.wave = BW_WAVE_BYTES / 4 / per_img;
        L.wave = L.wave < 1 ? 1 : L.wave > p->N ? p->N : L.wave;
    }
    L.nwave = cdiv(p->N, L.wave);
    L.wave = cdiv(p->N, L.nwave);             /* balanced waves */
    L.nrb = cdiv(p->Cg, BW_ROWS / p->TRS > 1 ? BW_ROWS / p->TRS : 1);
    L.CB = cdiv(p->Cg, L.nrb);
    L.rows = p->TRS * L.CB;
    L.ncb = cdiv(p->Kg, BW_COLS);
    L.ncols = cdiv(p->Kg, L.ncb);
    int64_t last = p->N - (L.nwave - 1) * L.wave;   /* images of the smallest (last) wave */
    int64_t blocks = cdiv(last * p->P, BW_KC);
    int64_t tiles = p->G * L.nrb * L.ncb;
    int64_t part = p->K * L.R * 4;
    L.nchunk = 1;
    while (tiles * L.nchunk < BW_MIN_TASKS && L.nchunk * 2 <= blocks && part * L.nchunk * 2 <= BW_PART_BYTES)
        L.nchunk *= 2;
    L.local = L.nwave == 1 && L.nchunk == 1;
    L.km = kmajor ? km_mode(p) : 0;
    /* one block in all: k-major (the kernel then writes dW itself); else the side moving less */
    if (L.km && p->N * p->P > BW_KC &&
        !(km_moves(p, L.km, L.km == KM_ROWS && L.xdirect, cdiv(p->Kg, 512)) < row_moves(p, L.tx, L.ty, L.nrb, L.ncb)))
        L.km = 0;
    /* A short reduction in one wave (at most BW_SHORT blocks: batch-1 56x56 and 28x28 layers)
       with one or two tiles: row tiles halved (to 4 tiles where that adds no A panels, else 2),
       without chunks -- no partial sums, no separate store pass, each tile stored while hot.
       Four dealt tasks rather than two: a thread slowed by another process on its core then
       leaves its next task to the other.  The sums do not change with the row tiles, only with the chunks, and neither depends on the
       thread count.  (Four or more tiles -- batch-16 14x14 layers -- keep their chunks.)  An
       NCHW dy is transposed into the B panels once per row tile: there the row tiles are not
       split (each half would transpose dy again). */
    if (!L.km && L.nwave == 1 && L.nchunk > 1 && blocks <= BW_SHORT && tiles <= 2) {
        int64_t nrb = L.nrb;
        while (!L.ty && tiles * (nrb * 2 / L.nrb) <= 4 && p->TRS * cdiv(p->Cg, nrb * 2) >= BW_SPLIT_ROWS &&
               (tiles * (nrb / L.nrb) < 2 ||
                nrb * 2 * cdiv(p->TRS * cdiv(p->Cg, nrb * 2), BW_MR_MAX) <= nrb * cdiv(p->TRS * cdiv(p->Cg, nrb), BW_MR_MAX)))
            nrb *= 2;
        tiles = tiles * (nrb / L.nrb);
        if (tiles == 2 || tiles == 4) {
            L.nrb = nrb;
            L.CB = cdiv(p->Cg, nrb);
            L.rows = p->TRS * L.CB;
            L.nchunk = 1;
            L.local = 1;
        }
    }
    L.npos = p->N * p->P;
    L.nkt = L.nmt = 1;
    if (L.km) {
        L.tx = 0;
        L.xdirect = L.km == KM_ROWS && L.xdirect;
        /* waves: dy of a wave packed into A panels, about BW_WAVE_BYTES */
        int64_t per_img = p->G * (p->Kg + BW_MR_MAX - 1) * p->P * 4;
        L.wave = BW_WAVE_BYTES / per_img;
        L.wave = L.wave < 1 ? 1 : L.wave > p->N ? p->N : L.wave;
        L.nwave = cdiv(p->N, L.wave);
        L.wave = cdiv(p->N, L.nwave);
        L.npos = L.wave * p->P;
        L.kcmax = min64(L.npos, BW_KC);
        L.single = L.nwave == 1 && L.npos <= BW_KC;
        L.nkt = cdiv(p->Kg, 512);    /* the packed dy is shared: only B is gathered per task */
        L.nchunk = 1;
        if (L.single) {
            /* up to 512 filter columns, cut finer until there are 16 tasks */
            L.nmt = cdiv(p->CRS, 512);
            while (p->G * L.nkt * L.nmt < 2 * BW_MIN_TASKS && p->CRS / (L.nmt * 2) >= 64)
                L.nmt *= 2;
            while (p->G * L.nkt * L.nmt < 2 * BW_MIN_TASKS && p->Kg / (L.nkt * 2) >= 28)
                L.nkt *= 2;
        } else {
            /* B panels of one tile (kc x 256 columns, 512 KiB) stay in L2 across the tile's A panels */
            L.nmt = cdiv(p->CRS, 256);
            int64_t lastw = p->N - (L.nwave - 1) * L.wave;
            int64_t blocks = cdiv(lastw * p->P, BW_KC), tiles = p->G * L.nkt * L.nmt;
            while (tiles * L.nchunk < BW_MIN_TASKS && L.nchunk * 2 <= blocks && part * L.nchunk * 2 <= BW_PART_BYTES)
                L.nchunk *= 2;
        }
        L.local = !L.single && L.nwave == 1 && L.nchunk == 1;
    }
    return L;
}

/* Partial sums (nchunk x G x R x Kg; none when local), the channel-contiguous copy of x for
 * one wave, then HD_SCRATCH_SLOTS scratch areas (A panels of one tile, its B panels, its sums when
 * local). */
size_t hd_bw_slot_floats(const bw_plan *L)
{
    int64_t cols = L->ncols + BW_NR_MAX - 1;
    return (size_t)(BW_MR_MAX * BW_KC + cols * BW_KC + (L->local ? L->rows * cols : 0));
}

/* k-major: B panels of one tile (the largest, kernel-independent bound), the im2col rows of
 * one panel before their transpose, the tile's sums when local. */
size_t hd_bw_km_slot_floats(const bw_plan *L, const hd_conv_problem *p)
{
    int64_t mt = cdiv(p->CRS, L->nmt) + BW_NR_MAX - 1, kt = cdiv(p->Kg, L->nkt) + BW_MR_MAX - 1;
    return (size_t)(mt * L->kcmax + BW_NR_MAX * L->kcmax + (L->local ? kt * mt : 0));
}

static hd_conv_layout layout_bw(const hd_conv_problem *p, int kmajor)
{
    hd_conv_layout W = {{0}, 0};
    if (!kmajor && hd_bw_dot_fits(p))
        return W;
    bw_plan L = plan_bw(p, kmajor);
    if (L.km) {            /* dy of a wave packed into A panels (any kernel's MR), partial sums, the slots */
        hd_conv_book(&W, 0, p->G * (p->Kg + BW_MR_MAX - 1), L.npos, sizeof(float));
        hd_conv_book(&W, 1, L.single || L.local ? 0 : L.nchunk * p->K, p->CRS, sizeof(float));
        hd_conv_book(&W, 2, HD_SCRATCH_SLOTS, (int64_t)hd_bw_km_slot_floats(&L, p), sizeof(float));
        return W;
    }
    hd_conv_book(&W, 0, L.local ? 0 : L.nchunk * p->K, L.R, sizeof(float));
    hd_conv_book(&W, 1, L.tx ? L.wave * p->Q : 0, p->C, sizeof(float));
    hd_conv_book(&W, 2, HD_SCRATCH_SLOTS, (int64_t)hd_bw_slot_floats(&L), sizeof(float));
    return W;
}

/* ---------------- the solver ---------------- */

/* The two solvers share the plan: 351 takes the row tiles (or, for one NCHW image of a 1x1
 * layer, the dot tiles of conv_bwdf_dot_f32.c, which need no workspace), 352 the k-major
 * tiles where the plan picks them (and refuses the rest). */
static void exec_bw(const hd_conv_problem *p, const hd_conv_args *a, int kmajor)
{
    if (!kmajor && hd_bw_dot_fits(p)) {
        hd_bw_dot_exec(p, a, a->nthreads);
        return;
    }
    hd_conv_layout W = layout_bw(p, kmajor);
    bw_ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.L = plan_bw(p, kmajor);
    c.kern = hd_gemm_kernel_for(sizeof(float), p->isa);
    c.isa = p->isa;
    c.MR = (int64_t)c.kern->mr;
    c.NR = (int64_t)c.kern->nr;
    c.cb = cdiv(c.L.ncols, c.NR) * c.NR;
    c.ncb = cdiv(p->Kg, c.cb);
    c.part = (float *)((char *)a->ws + W.off[0]);
    c.slots = (float *)((char *)a->ws + W.off[2]);
    c.hd_bw_slot_floats = hd_bw_slot_floats(&c.L);
    c.a = a;
    c.fuse_store = c.L.nchunk == 1;
    c.copy = p->isa >= HD_ISA_AVX512 ? hd_f32_bwdf_ukernel_runs__avx512
           : p->isa >= HD_ISA_AVX2   ? hd_f32_bwdf_ukernel_runs__avx2
                                           : hd_bw_copy_runs_scalar;
    float *xt = (float *)((char *)a->ws + W.off[1]);
    int nt = a->nthreads < HD_SCRATCH_SLOTS ? a->nthreads : HD_SCRATCH_SLOTS;
    if (c.L.km) {
        hd_bw_km_exec(&c, p, a, W, nt);
        return;
    }
    for (int64_t w = 0; w < c.L.nwave; w++) {
        int64_t img0 = w * c.L.wave, nimg = min64(c.L.wave, p->N - img0);
        if (c.L.tx)
            hd_bw_transpose_wave(p, a->x, p->xs, p->in, p->C, img0, nimg, xt, nt);
        c.X = c.L.tx ? src_copy(xt, p->C, p->in) : src_user(a->x, p->xs, img0);
        c.Y = src_user(a->y, p->ys, img0);
        c.merge = p->dil[2] * c.X.sw == p->Cg;
        c.ylin = (p->out[1] == 1 || c.Y.sh == p->out[2] * c.Y.sw) &&
                 (p->out[0] == 1 || c.Y.sd == p->out[1] * p->out[2] * c.Y.sw);
        if (c.ylin && (nimg == 1 || c.Y.sn == p->P * c.Y.sw))
            c.ylin = 2;
        /* A panels in place: a 1x1, unit-stride, unpadded problem whose x (or its copy) has its
           channels contiguous and its positions one stride apart, not a multiple of 4 KiB (all
           steps would share an L1 set and evict each other), with a
           kernel that takes A in place (its reads stay inside x: whole panels only).  Used by
           tiles of at most BW_AIN_PANELS B panels: each re-reads the A panel, from L1 when
           packed, from L2 in place (with more panels the copy to L1 pays for itself). */
        c.ain = 0;
        if (c.kern->f32_sa && p->TRS == 1 && !c.L.xdirect && (c.L.tx || p->xs[1] == 1) && c.X.sw % 1024 != 0) {
            c.ain = (p->in[1] == 1 || c.X.sh == p->in[2] * c.X.sw) && (p->in[0] == 1 || c.X.sd == p->in[1] * p->in[2] * c.X.sw);
            for (int j = 0; j < 3; j++)
                c.ain = c.ain && p->str[j] == 1 && p->pad[j] == 0;
            if (c.ain && (nimg == 1 || c.X.sn == p->Q * c.X.sw))
                c.ain = 2;
        }
        c.wave = w;
        c.nimg = nimg;
        c.npos = nimg * p->P;
        c.nblk = cdiv(c.npos, BW_KC);
        hd_parallel_deal((size_t)(c.L.nchunk * p->G * c.L.nrb * c.ncb), nt, hd_bw_task, &c);
    }
    if (!c.fuse_store) {
        st_ctx sc = {p, a, &c.L, c.part};
        hd_parallel_deal((size_t)(p->G * c.L.nrb * cdiv(p->Kg, ST_K)), nt, hd_bw_st_task, &sc);
    }
}

void hd_conv_bwdf_uk_exec(const hd_conv_problem *p, const hd_conv_args *a) { exec_bw(p, a, 0); }
void hd_conv_bwdf_km_exec(const hd_conv_problem *p, const hd_conv_args *a) { exec_bw(p, a, 1); }
size_t hd_conv_bwdf_uk_ws(const hd_conv_problem *p) { return layout_bw(p, 0).total; }
size_t hd_conv_bwdf_km_ws(const hd_conv_problem *p) { return layout_bw(p, 1).total; }

static int app_bw(const hd_conv_problem *p, const char **reason, int kmajor)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT || p->dbl ||
        p->int8 || p->xv != 1 || p->yv != 1 || p->wv != 1) {
        *reason = "the micro-kernel backward filter takes FLOAT x, dy and dw only";
        return 0;
    }
    if (p->Kg < 8 || p->CRS < 8) {
        *reason = "too few output channels or filter columns per group for the micro-kernel tiles";
        return 0;
    }
    if (kmajor && hd_bw_dot_fits(p)) {
        *reason = "one NCHW image of a 1x1 layer: the dot tiles of 351 read x and dy in place";
        return 0;
    }
    if (kmajor && !plan_bw(p, 1).km) {
        *reason = "the row tiles (351) move less data for this problem (or its filter order does not suit the "
                  "k-major gathers)";
        return 0;
    }
    size_t ws = layout_bw(p, kmajor).total;
    size_t xbytes = (size_t)(p->N * p->C) * (size_t)p->Q * sizeof(float);
    if (ws == SIZE_MAX || ws > (xbytes > BW_MAX_WS ? xbytes : BW_MAX_WS)) {
        *reason = "its workspace would pass max(x, 64 MiB)";
        return 0;
    }
    return 1;
}

int hd_conv_bwdf_uk_app(const hd_conv_problem *p, const char **reason) { return app_bw(p, reason, 0); }
int hd_conv_bwdf_km_app(const hd_conv_problem *p, const char **reason) { return app_bw(p, reason, 1); }

double hd_conv_bwdf_uk_cost(const hd_conv_problem *p)
{
    (void)p;
    return 0.3;
}

/* 352, then 351, are listed before the blocked-GEMM solver of ALGO_1 (350), which takes what
 * they refuse.  Both names keep "blocked_gemm_f32": it is the same method, blocked for the
 * micro-kernels. */
const hd_conv_solver hd_solver_bwdf_kmajor = {
    .id = 352, .name = "bwd_filter.ukernel_kmajor_blocked_gemm_f32", .dir = HD_CONV_BWD_FILTER, .algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, .deterministic = 1,
    .applicable = hd_conv_bwdf_km_app, .workspace = hd_conv_bwdf_km_ws, .run = hd_conv_bwdf_km_exec, .cost_factor = 0.3, .cost = hd_conv_bwdf_uk_cost};

const hd_conv_solver hd_solver_bwdf_ukernel = {
    .id = 351, .name = "bwd_filter.ukernel_blocked_gemm_f32", .dir = HD_CONV_BWD_FILTER, .algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, .deterministic = 1,
    .applicable = hd_conv_bwdf_uk_app, .workspace = hd_conv_bwdf_uk_ws, .run = hd_conv_bwdf_uk_exec, .cost_factor = 0.3, .cost = hd_conv_bwdf_uk_cost};
