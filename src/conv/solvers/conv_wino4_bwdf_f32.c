/*
 * Winograd F(4x4, 3x3) backward filter in fp32 (solver 307, conv/solvers/conv_wino4.h;
 * docs/algorithms.md, "Winograd F(4x4, 3x3) backward filter").
 *
 * The forward transform computes each 4x4 output tile as Y = A^T (U .* V) A with
 * U = G g G^T and V = B^T d B.  Y is linear in U, so the gradient of U summed over every
 * tile is
 *     dU = sum over tiles of (A dY A^T) .* V,      and then     dg = G^T dU G.
 * For each of the 36 positions that sum is a GEMM over the tiles:
 *     dU[pos] (K x C) += M[pos] (K x tiles) * V[pos]^T (tiles x C),
 * four times fewer multiply-adds than the direct reduction (36 per 4x4 tile instead of 144).
 *
 * Dilation d (per dimension) at unit stride: output row i*d + a reads only the input rows of
 * residue a - pad modulo d, so the convolution splits into d x d undilated ones ("phases"),
 * each the 3x3 convolution of an x sub-grid with the dy sub-grid of its residue, and dw is the
 * sum of their filter gradients.  The phases' tiles simply join the one reduction over tiles:
 * a tile row is (image, phase row a, tile row of the phase), holding the tiles of every phase
 * column b in turn (b, then tile column), so that an NCHW band copy of its x rows and dy rows
 * (every d-th row) serves all d column phases.  Each phase has the tile counts of the largest
 * (phase 0); the tiles a smaller phase lacks read no dy row or column (masked to zero) and add
 * nothing.  The windows step d rows and d columns through the tensors (or bands).  At d = 1
 * there is one phase and the tiles, their order and every sum are those of the undilated plan.
 *
 * Per call:
 *  - the tiles (raster order: image, phase row, tile row, phase column, tile column) are cut
 *    into blocks of whole tile rows, and the blocks into a fixed number of chunks (a function
 *    of the problem only);
 *  - a task takes one (group, chunk): per block it transforms x's 6x6 windows (V) and dy's
 *    4x4 tiles (M) straight into the packed B and A panels of the SGEMM micro-kernel (tiles
 *    are the reduction index, channels the panel lanes: the channels-contiguous transform
 *    kernels), then runs the 36 GEMMs into the chunk's own dU, overwriting it at the first
 *    block and adding at the next ones;
 *  - x and dy whose channels are not contiguous (NCHW) are first copied, the rows one tile
 *    row reads, into a channels-contiguous band (the transposes in registers of the forward
 *    solver's gathers);
 *  - a last pass sums the chunks in order (in double), applies G^T . G in double and
 *    writes dw = alpha dg + beta dw.
 * Whole mode (many channels, few tiles: ResNet's 14x14 and 7x7 layers, small batches), where
 * the chunks would read and write their large dU once per block and each of the 8 slots would
 * hold a block's transforms: every tile is transformed once, in parallel over tile rows, into
 * shared V and M, then one task per (group, position) runs that position's GEMM over all the
 * tiles (dU written once, one chunk), and the last pass as above.
 * Staged mode (problems whose chunk plan would pass the workspace cap, while whole mode's
 * transforms of every tile would too: the 512-channel VGG-16 layers and DeepLab-v3's dilated
 * 28x28 layers at batch 16): whole mode one block of tile rows at a time, each block's GEMMs
 * added into the one dU.
 * Every dU element is one chain of fused multiply-adds per chunk in tile order, and the
 * chunks are summed in a fixed order: the result does not depend on the thread count (the
 * plan is a function of the problem only).
 *
 * 5x5 filters (solver 310) in 3x3 pieces, as the forward solver 112 (conv_wino4_view.h): the
 * filter padded to 6x6 is four 3x3 pieces, piece q = (i, j) at taps (3i.., 3j..), and its
 * gradient is the 3x3 backward filter of x shifted by (3i, 3j) with dy.  V holds the pieces
 * side by side as more channels (piece q's channels at q * Cp.., Cp = Cg rounded up to the B
 * panel width, so that no panel mixes pieces), each piece's x windows 3i rows and 3j columns
 * further on; the GEMMs are unchanged, and the last pass writes each piece's 3x3 gradient
 * into its taps of the 5x5 (taps past the 5x5 dropped: each real tap is in one piece).
 */
#include "conv/solvers/conv_solvers.h"
#include "conv/solvers/conv_wino4.h"

#include "core/parallel.h"
#include "kernels/conv/im2col-ukernels.h"
#include "conv/conv_internal.h"
#include "kernels/gemm/gemm-ukernels.h"

#include <string.h>

#define WB_TILES_MIN 64                      /* tiles per block: at least (GEMM depth) ... */
#define WB_BLOCK_BYTES ((int64_t)1536 << 10) /* ... and V + M of a block within this, if it can */
#define WB_CHUNKS 4                          /* chunks of blocks (tasks per group), at most */
#define WB_PART_BYTES ((int64_t)32 << 20)    /* bytes of all chunks' dU, at most (fewer chunks) */
#define WB_MAX_WS ((int64_t)64 << 20)
#define WB_WHOLE_BYTES ((int64_t)32 << 20)   /* whole mode: all tiles' V and M within this ... */
#define WB_WHOLE_TILES 1024                  /* ... and at most this many tiles (GEMM depth) */
#define WB_STAGE_BYTES ((int64_t)16 << 20)   /* staged mode: one block's V and M within this */

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

typedef struct {
    const hd_gemm_kernel *gk;
    hd_wino4_in_c_fn in_c;
    hd_wino4_dy_c_fn dy_c;
    hd_conv_cols_fn cols;
    int64_t MR, NR;
    int64_t TH, TP, TW, rows;    /* tile rows and columns of one phase, tiles per tile row (all
                                    dw phase columns, dw * TP); tile rows in all (N * dh * TH) */
    int64_t R, nb, TB;           /* tile rows per block, blocks, most tiles per block */
    int64_t nch;                 /* chunks of blocks */
    int64_t Kpad, Cpad;          /* Kg, Cg rounded up to the A and B panel widths (Cpad: nq * Cp) */
    int nq, nqw;                 /* 3x3 pieces of the filter, in all and per row (1, 1: 3x3) */
    int64_t Cp;                  /* one piece's channels, Cg rounded up to the B panel width */
    int64_t vps, mps;            /* floats between the positions of V and of M in a block */
    int xcopy, ycopy;            /* channels not contiguous: the rows are copied into a band */
    int64_t dus;                 /* floats of one dU: element (pos, k, c) at (k * 36 + pos) * Cpad + c,
                                    so that the last pass reads one filter's 36 x Cpad at once */
    int64_t v_at, m_at, xb_at, yb_at, slot;
    int whole;                   /* 1: every tile's V and M first (shared), then tasks per position */
    int staged;                  /* 1: as whole mode, one block of tiles at a time */
    hd_conv_layout W;            /* 0: the chunks' dU, 1: the slots, 2 and 3: whole mode's V and M */
} wb_plan;

/* A multiple of 16 floats, plus one cache line when a multiple of 4 KiB (the 36 positions
 * would share one L1 set). */
static int64_t spread(int64_t floats)
{
    floats = cdiv(floats, 16) * 16;
    return floats % 1024 ? floats : floats + 16;
}

static int wb_book(const hd_conv_problem *p, wb_plan *L);

static int wb_plan_make(const hd_conv_problem *p, wb_plan *L)
{
    memset(L, 0, sizeof *L);
    hd_isa_t isa = p->isa;
    size_t nk;
    const hd_wino4_kernels *tab = hd_wino4_kernel_table(&nk), *wk = &tab[0];
    for (size_t i = 0; i < nk; i++)
        if (tab[i].isa <= isa && tab[i].in_c && tab[i].dy_c)
            wk = &tab[i];
    L->in_c = wk->in_c;
    L->dy_c = wk->dy_c;
    L->gk = hd_gemm_kernel_for(sizeof(float), isa);
    L->MR = (int64_t)L->gk->mr;
    L->NR = (int64_t)L->gk->nr;
    L->TH = cdiv(cdiv(p->out[1], p->dil[1]), 4);       /* phase 0 is the largest */
    L->TP = cdiv(cdiv(p->out[2], p->dil[2]), 4);
    L->TW = p->dil[2] * L->TP;
    L->rows = p->N * p->dil[1] * L->TH;
    L->Kpad = cdiv(p->Kg, L->MR) * L->MR;
    L->nqw = (int)((p->flt[2] + 2) / 3);
    L->nq = (int)((p->flt[1] + 2) / 3) * L->nqw;
    L->Cp = cdiv(p->Cg, L->NR) * L->NR;
    L->Cpad = L->nq * L->Cp;
    L->xcopy = p->xs[1] != 1;
    L->ycopy = p->ys[1] != 1;
    int64_t per_tile = 36 * (L->Kpad + L->Cpad) * (int64_t)sizeof(float);
    L->R = imax(cdiv(WB_TILES_MIN, L->TW), WB_BLOCK_BYTES / (per_tile * L->TW));
    L->R = imax(1, imin(L->R, L->rows));
    L->nb = cdiv(L->rows, L->R);
    L->R = cdiv(L->rows, L->nb);            /* even blocks */
    L->TB = L->R * L->TW;
    L->dus = 36 * L->Kpad * L->Cpad;
    L->nch = imin(L->nb, WB_CHUNKS);
    while (L->nch > 1 && p->G * L->nch * L->dus * (int64_t)sizeof(float) > WB_PART_BYTES)
        L->nch--;
    /* Whole mode: when dU is large against the transforms (many channels, few tiles), the
     * chunks would read and write their dU once per block, and each of the HD_SCRATCH_SLOTS slots
     * would hold a block's transforms.  Instead every tile is transformed once into shared V
     * and M, and the 36 GEMMs run one task per position over all tiles (depth = all tiles,
     * dU written once).  Chosen when the transforms of all tiles are smaller than the dU
     * traffic the blocks would add, or there is a single block (one task in chunk mode). */
    int64_t tiles = L->rows * L->TW, all = 36 * (L->Kpad + L->Cpad) * tiles;
    L->whole = tiles <= WB_WHOLE_TILES && all * (int64_t)sizeof(float) <= WB_WHOLE_BYTES &&
               (L->nb == 1 || all < L->dus * (L->nb - 1));
    if (L->whole) {
        L->R = L->rows;
        L->nb = 1;
        L->TB = tiles;
        L->nch = 1;
    }
    if (!wb_book(p, L))
        return 0;
    /* Staged mode, for problems whose chunk plan passes the workspace cap (VGG-16's 256- and
     * 512-channel layers and DeepLab-v3's dilated 28x28 layers at batch 16: each chunk's dU is
     * 9 to 36 MiB and each of the slots a block of 64 tiles' transforms; without it those
     * layers fall back to F(2x2,3x3) or the GEMM solvers, both slower): whole mode one block
     * at a time -- the block's tiles transformed
     * in parallel into shared V and M, then one task per (group, position) adds the block
     * into the single dU.  Blocks of whole tile rows, their V and M within WB_STAGE_BYTES. */
    int64_t xbytes = p->N * p->C * p->Q * (int64_t)sizeof(float);
    if (!L->whole && L->W.total > (size_t)imax(xbytes, WB_MAX_WS)) {
        L->staged = 1;
        L->R = imax(cdiv(WB_TILES_MIN, L->TW), WB_STAGE_BYTES / (p->G * per_tile * L->TW));
        L->R = imax(1, imin(L->R, L->rows));
        L->nb = cdiv(L->rows, L->R);
        L->R = cdiv(L->rows, L->nb);
        L->TB = L->R * L->TW;
        L->nch = 1;
        return wb_book(p, L);
    }
    return 1;
}

/* The workspace of plan L: the chunks' dU, the slots, and the shared V and M of whole and
 * staged modes (0 when too large). */
static int wb_book(const hd_conv_problem *p, wb_plan *L)
{
    int shared = L->whole || L->staged;
    L->vps = spread(L->Cpad * L->TB);
    L->mps = spread(L->Kpad * L->TB);
    L->v_at = 0;
    L->m_at = shared ? 0 : L->v_at + 36 * L->vps;
    L->xb_at = shared ? 0 : L->m_at + 36 * L->mps;
    L->yb_at = L->xb_at + (L->xcopy ? spread(6 * p->in[2] * p->Cg) : 0);
    L->slot = L->yb_at + (L->ycopy ? spread(4 * p->out[2] * p->Kg) : 0);
    hd_conv_layout W = {{0}, 0};
    hd_conv_book(&W, 0, p->G * L->nch, L->dus, sizeof(float));
    hd_conv_book(&W, 1, HD_SCRATCH_SLOTS, L->slot, sizeof(float));
    hd_conv_book(&W, 2, shared ? p->G : 0, 36 * L->vps, sizeof(float));
    hd_conv_book(&W, 3, shared ? p->G : 0, 36 * L->mps, sizeof(float));
    L->W = W;
    return W.total != SIZE_MAX;
}

/* ---------------- execution ---------------- */

typedef struct {
    const hd_conv_problem *p;
    const hd_conv_args *a;
    wb_plan L;
    const float *x, *dy;
    float *dw, *part, *slots;
    float *vall, *mall;           /* whole mode: every tile's V and M, per group (staged: a block's) */
    int64_t r0, nr;               /* whole and staged modes: the block's tile rows */
    float beta;                   /* ... and 0 for its first block, 1 for the next ones */
} wb_ctx;

static void cols_c(float *dst, int64_t ld, int64_t T, const float *const *src, int64_t cnt)
{
    for (int64_t i = 0; i < T; i++)
        for (int64_t k = 0; k < cnt; k++)
            dst[k * ld + i] = src[i][k];
}

/* Rows h0, h0 + step, ... (nrow of them) of image n, channels [c0, c0 + nc) of a
 * channel-strided tensor (w contiguous) into band[r * width * nc + w * nc + c] for row
 * h0 + r * step (rows outside the image are skipped: the transforms never read them). */
static void copy_band(const wb_ctx *c, const float *t, const int64_t *st, int64_t n, int64_t c0, int64_t nc,
                      int64_t h0, int64_t step, int64_t nrow, int64_t height, int64_t width, float *band)
{
    for (int64_t r = 0; r < nrow; r++) {
        int64_t h = h0 + r * step;
        if (h < 0 || h >= height)
            continue;
        const float *row = t + n * st[0] + c0 * st[1] + h * st[3];
        float *d = band + r * width * nc;
        for (int64_t ch = 0; ch < nc; ch += 16) {
            const float *src[16];
            int64_t n16 = imin(16, nc - ch);
            for (int64_t i = 0; i < n16; i++)
                src[i] = row + (ch + i) * st[1];
            if (st[4] == 1) {
                c->L.cols(d + ch, nc, n16, src, width);
            } else {
                for (int64_t i = 0; i < n16; i++)
                    for (int64_t w = 0; w < width; w++)
                        d[w * nc + ch + i] = src[i][w * st[4]];
            }
        }
    }
}

/* Where the transforms read rows h0, h0 + step, ... (nrow of them) of channels [c0, c0 + nc)
 * of image n of tensor t (strides st): in place when its channels are contiguous, else from
 * a band they are copied into first. */
typedef struct {
    const float *base;           /* row h0, channel c0 */
    int64_t hs, ws;              /* strides of the window rows (step rows apart) and of pixels */
} rows_at;

static rows_at tile_rows(const wb_ctx *c, int copy, const float *t, const int64_t *st, int64_t n, int64_t c0,
                         int64_t nc, int64_t h0, int64_t step, int64_t nrow, int64_t height, int64_t width,
                         float *band)
{
    rows_at r;
    if (copy) {
        copy_band(c, t, st, n, c0, nc, h0, step, nrow, height, width, band);
        r.base = band, r.hs = width * nc, r.ws = nc;
    } else {
        r.base = t + n * st[0] + c0 * st[1] + h0 * st[3];
        r.hs = step * st[3], r.ws = st[4];
    }
    return r;
}

/* Bit j set for each of the n indices start + j * step that lie in [0, limit): the rows or
 * columns of a tile window inside the tensor. */
static unsigned inside(int64_t start, int64_t step, int n, int64_t limit)
{
    unsigned m = 0;
    for (int j = 0; j < n; j++)
        if (start + j * step >= 0 && start + j * step < limit)
            m |= 1u << j;
    return m;
}

/* The tiles of one tile row (rows at XR and YR, row masks XRM and YRM): x's windows for
 * piece q (shifted 3 (q % nqw) columns) into V, dy's into M, as SIDES says. */
static void transform_piece(const wb_ctx *c, const rows_at *xr, unsigned xrm, const rows_at *yr, unsigned yrm, float *V,
                            float *M, int64_t t0, int q, int sides)
{
    const hd_conv_problem *p = c->p;
    const wb_plan *L = &c->L;
    int64_t dw = p->dil[2], W = p->in[2], OW = p->out[2], sh = 3 * (q % L->nqw);
    float *Vq = V + q * L->Cp * L->TB;
    for (int64_t tx0 = 0; tx0 < L->TW; tx0 += HD_WINO4_LANES) {
        hd_wino4_in_tiles tx, tyd;
        int lanes = (int)imin(HD_WINO4_LANES, L->TW - tx0);
        tx.lanes = tyd.lanes = lanes;
        tx.hs = (int32_t)xr->hs, tx.ws = (int32_t)(dw * xr->ws);
        tyd.hs = (int32_t)yr->hs, tyd.ws = (int32_t)(dw * yr->ws);
        for (int i = 0; i < lanes; i++) {
            int64_t b = (tx0 + i) / L->TP, tj = (tx0 + i) % L->TP;
            int64_t ow0 = b + tj * 4 * dw, w0 = ow0 - p->pad[2] + sh;
            unsigned cm = inside(w0, dw, 6, W), ycm = inside(ow0, dw, 4, OW);
            tx.off[i] = (int32_t)(w0 * xr->ws);
            tx.rmask[i] = (uint8_t)xrm;
            tx.cmask[i] = (uint8_t)cm;
            tyd.off[i] = (int32_t)(ow0 * yr->ws);
            tyd.rmask[i] = (uint8_t)yrm;
            tyd.cmask[i] = (uint8_t)ycm;
        }
        int64_t t = t0 + tx0;
        for (int64_t cq = 0; cq < (sides & 1 ? L->Cp / L->NR : 0); cq++)
            L->in_c(xr->base + cq * L->NR, imin(L->NR, p->Cg - cq * L->NR), &tx, Vq + cq * L->TB * L->NR + t * L->NR,
                    (size_t)L->vps, (size_t)L->NR);
        for (int64_t kq = 0; kq < (sides & 2 ? L->Kpad / L->MR : 0); kq++)
            L->dy_c(yr->base + kq * L->MR, imin(L->MR, p->Kg - kq * L->MR), &tyd, M + kq * L->TB * L->MR + t * L->MR,
                    (size_t)L->mps, (size_t)L->MR);
    }
}

/* Transforms of tile row gr (image n, phase row a, tile row ty of the phase) of group g into
 * the panels V and M (a block's, or whole mode's), its tiles (phase column b, tile column tj)
 * at t0, t0 + 1, ...; bands in SLOT.  SIDES: 1 x into V, 2 dy into M, 3 both.  Phase (a, b)'s
 * tile (ty, tj) has its dy window at row a + 4 ty dh, column b + 4 tj dw, its x window pad
 * before, both stepping by the dilation. */
static void transform_row(const wb_ctx *c, float *slot, float *V, float *M, int64_t g, int64_t gr, int64_t t0,
                          int sides)
{
    const hd_conv_problem *p = c->p;
    const wb_plan *L = &c->L;
    int64_t dh = p->dil[1];
    int64_t n = gr / (dh * L->TH), a = gr / L->TH % dh, ty = gr % L->TH;
    int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2];
    int64_t oh0 = a + ty * 4 * dh, h0 = oh0 - p->pad[1];
    rows_at yr = {0};
    if (sides & 2)
        yr = tile_rows(c, L->ycopy, c->dy, p->ys, n, g * p->Kg, p->Kg, oh0, dh, 4, OH, OW, slot + L->yb_at);
    unsigned yrm = inside(oh0, dh, 4, OH);
    /* x per piece row (one band copy each: 3x3 filters have one piece), dy with the first */
    for (int qi = 0; qi < L->nq / L->nqw; qi++) {
        rows_at xr = {0};
        int64_t hq = h0 + 3 * qi;
        if (sides & 1)
            xr = tile_rows(c, L->xcopy, c->x, p->xs, n, g * p->Cg, p->Cg, hq, dh, 6, H, W, slot + L->xb_at);
        unsigned xrm = inside(hq, dh, 6, H);
        for (int qj = 0; qj < L->nqw; qj++)
            transform_piece(c, &xr, xrm, &yr, yrm, V, M, t0, qi * L->nqw + qj, (sides & 1) | (qi + qj ? 0 : sides & 2));
    }
}

/* Lanes past Cg and Kg (in the last B panel of V and the last A panel of M, at each position)
 * are never written by the transforms and feed only results that are never stored; they are
 * zeroed so that no stale value (a denormal) slows the kernel.  Only those panels: the rest
 * is written by the transforms, and whole mode's V and M are megabytes. */
static void zero_pad_lanes(const wb_ctx *c, float *V, float *M)
{
    const hd_conv_problem *p = c->p;
    const wb_plan *L = &c->L;
    size_t vlast = (size_t)(L->TB * L->NR), mlast = (size_t)(L->TB * L->MR);
    for (int64_t pos = 0; pos < 36; pos++) {
        for (int q = 0; q < L->nq && L->Cp != p->Cg; q++)   /* each piece's last panel */
            memset(V + pos * L->vps + ((q + 1) * L->Cp - L->NR) * L->TB, 0, sizeof(float) * vlast);
        if (L->Kpad != p->Kg)
            memset(M + pos * L->mps + (L->Kpad - L->MR) * L->TB, 0, sizeof(float) * mlast);
    }
}

/* The GEMM of position pos: dU[pos] (+)= M[pos] (K x nt tiles) * V[pos]^T, M and V the panels
 * of a block (or of every tile), one micro-kernel call per MR x NR tile of dU, depth nt. */
static void gemm_pos(const wb_ctx *c, const float *M, const float *V, float *dU, int64_t pos, size_t nt, float beta)
{
    const hd_conv_problem *p = c->p;
    const wb_plan *L = &c->L;
    hd_f32_gemm_ukernel_fn uk = L->gk->f32;
    const float *Mp = M + pos * L->mps, *Vp = V + pos * L->vps;
    float *Cp = dU + pos * L->Cpad;
    for (int64_t kq = 0; kq < L->Kpad / L->MR; kq++) {
        size_t mr = (size_t)imin(L->MR, p->Kg - kq * L->MR);
        for (int64_t cq = 0; cq < L->Cpad / L->NR; cq++) {
            size_t nr = (size_t)imin(L->NR, p->Cg - cq % (L->Cp / L->NR) * L->NR);
            uk(mr, nr, nt, Mp + kq * L->TB * L->MR, Vp + cq * L->TB * L->NR, (size_t)L->NR,
               Cp + kq * L->MR * 36 * L->Cpad + cq * L->NR, (size_t)(36 * L->Cpad), 1.0f, beta);
        }
    }
}

/* One task: group g, chunk ch -- its blocks in order into its dU. */
static void wb_task(void *vctx, size_t task, int thread)
{
    wb_ctx *c = vctx;
    const wb_plan *L = &c->L;
    int64_t g = (int64_t)task / L->nch, ch = (int64_t)task % L->nch;
    int64_t b0 = ch * L->nb / L->nch, b1 = (ch + 1) * L->nb / L->nch;
    float *slot = c->slots + (size_t)thread * (size_t)L->slot;
    float *V = slot + L->v_at, *M = slot + L->m_at;
    float *dU = c->part + (size_t)task * (size_t)L->dus;
    zero_pad_lanes(c, V, M);
    for (int64_t b = b0; b < b1; b++) {
        int64_t r0 = b * L->R, r1 = imin(L->rows, r0 + L->R);
        for (int64_t gr = r0; gr < r1; gr++)
            transform_row(c, slot, V, M, g, gr, (gr - r0) * L->TW, 3);
        size_t nt = (size_t)((r1 - r0) * L->TW);
        float beta = b == b0 ? 0.0f : 1.0f;
        for (int64_t pos = 0; pos < 36; pos++)
            gemm_pos(c, M, V, dU, pos, nt, beta);
    }
}

/* Whole mode, first pass: tile row gr of group g into the shared V (even tasks) or M (odd
 * ones): two tasks per row, so that a few rows (7 at batch 1 for 28x28) still share out.
 * Staged mode: the same over the block's rows. */
static void wb_transform_task(void *vctx, size_t task, int thread)
{
    wb_ctx *c = vctx;
    const wb_plan *L = &c->L;
    int64_t row = (int64_t)task / 2, g = row / c->nr, gr = c->r0 + row % c->nr;
    float *slot = c->slots + (size_t)thread * (size_t)L->slot;
    transform_row(c, slot, c->vall + (size_t)(g * 36 * L->vps), c->mall + (size_t)(g * 36 * L->mps), g, gr,
                  (gr - c->r0) * L->TW, 1 + (int)(task % 2));
}

/* Whole mode, second pass: position pos of group g, all tiles in one reduction (staged: the
 * block's tiles, added to dU after the first block). */
static void wb_pos_task(void *vctx, size_t task, int thread)
{
    (void)thread;
    wb_ctx *c = vctx;
    const wb_plan *L = &c->L;
    int64_t g = (int64_t)task / 36, pos = (int64_t)task % 36;
    gemm_pos(c, c->mall + (size_t)(g * 36 * L->mps), c->vall + (size_t)(g * 36 * L->vps),
             c->part + (size_t)(g * L->dus), pos, (size_t)(c->nr * L->TW), c->beta);
}

/* dg = G^T u G (6 -> 3 each way), in double, for FB filters at a time (lane j of each
 * array): the inner loops run over the lanes, so that the compiler can vectorise them. */
#define FB 16

static inline __attribute__((always_inline)) void grad_filter_1d(const double u[6][FB], double g[3][FB])
{
    const double q = 0.25, s6 = 1.0 / 6, s12 = 1.0 / 12, s24 = 1.0 / 24;
    for (int j = 0; j < FB; j++) {
        double a = u[1][j] + u[2][j], b = u[3][j] + u[4][j];
        g[0][j] = u[0][j] * q - a * s6 + b * s24;
        g[1][j] = (u[2][j] - u[1][j]) * s6 + (u[3][j] - u[4][j]) * s12;
        g[2][j] = (b - a) * s6 + u[5][j];
    }
}

/* One task of the last pass: output channel k of group g, every input channel. */
static void wb_finish(void *vctx, size_t task, int thread)
{
    (void)thread;
    wb_ctx *c = vctx;
    const hd_conv_problem *p = c->p;
    const wb_plan *L = &c->L;
    int64_t g = (int64_t)task / p->Kg, k = (int64_t)task % p->Kg;
    double alpha = c->a->epi.alpha, beta = c->a->epi.beta;
    const int64_t nblk = cdiv(p->Cg, FB);
    for (int64_t qc = 0; qc < L->nq * nblk; qc++) {
        /* piece q's 3x3 gradient goes to taps (3i + r, 3j + s) of the filter, those inside */
        int64_t q = qc / nblk, c0 = qc % nblk * FB, r0 = 3 * (q / L->nqw), s0 = 3 * (q % L->nqw);
        int64_t nc = imin(FB, p->Cg - c0);
        const float *base = c->part + (size_t)(g * L->nch * L->dus + k * 36 * L->Cpad + q * L->Cp);
        double u[36][FB], t[6][3][FB], row[6][FB], col[3][FB];
        for (int pos = 0; pos < 36; pos++) {
            const float *src = base + pos * L->Cpad + c0;
            if (nc == FB) {               /* fixed trip counts: vectorised */
                for (int j = 0; j < FB; j++)
                    u[pos][j] = (double)src[j];
                for (int64_t ch = 1; ch < L->nch; ch++)
                    for (int j = 0; j < FB; j++)
                        u[pos][j] += (double)src[ch * L->dus + j];
            } else {
                for (int j = 0; j < FB; j++)
                    u[pos][j] = 0;
                for (int64_t ch = 0; ch < L->nch; ch++)
                    for (int64_t j = 0; j < nc; j++)
                        u[pos][j] += (double)src[ch * L->dus + j];
            }
        }
        for (int i = 0; i < 6; i++)               /* t = u G: each row of u, 6 x 3 */
            grad_filter_1d((const double(*)[FB])u[6 * i], t[i]);
        for (int s = 0; s < 3; s++) {             /* G^T t: each column of t */
            for (int i = 0; i < 6; i++)
                memcpy(row[i], t[i][s], sizeof row[i]);
            grad_filter_1d((const double(*)[FB])row, col);
            /* FLOAT filters have no vectorised channels (the solver refuses them), so the
               channels of one tap are wst[1] apart: one base per tap, no offset per value */
            for (int r = 0; r < 3; r++) {
                if (r0 + r >= p->flt[1] || s0 + s >= p->flt[2])
                    continue;
                float *o = c->dw + hd_conv_w_off(p, g * p->Kg + k, c0, 0, r0 + r, s0 + s);
                int64_t cs = p->wst[1];
                if (beta == 0)
                    for (int64_t j = 0; j < nc; j++)
                        o[j * cs] = (float)(alpha * col[r][j]);
                else
                    for (int64_t j = 0; j < nc; j++)
                        o[j * cs] = (float)(alpha * col[r][j] + beta * (double)o[j * cs]);
            }
        }
    }
}

/* ---------------- the solver ---------------- */

/* Both solvers' checks past the filter's shape. */
static int wb_app(const hd_conv_problem *p, const char **reason)
{
    /* the tile transforms take 32-bit offsets within one image row band (windows reach 6
       rows and 8 columns of the dilation past the image, 3 more for a piece's shift) */
    int64_t dh = p->dil[1], dw = p->dil[2];
    int64_t xr = (p->in[2] + p->pad[2] + 8 * dw + 3) * (p->xs[1] == 1 ? p->xs[4] : p->Cg) +
                 (6 * dh + 3) * (p->xs[1] == 1 ? p->xs[3] : 0);
    int64_t yr = (p->out[2] + 8 * dw) * (p->ys[1] == 1 ? p->ys[4] : p->Kg) +
                 4 * dh * (p->ys[1] == 1 ? p->ys[3] : 0);
    if (p->xs[3] < 0 || p->xs[4] < 0 || p->ys[3] < 0 || p->ys[4] < 0 || xr >= INT32_MAX / 2 ||
        yr >= INT32_MAX / 2) {
        *reason = "the rows are too long (or reversed) for the 32-bit offsets of the Winograd F(4x4,3x3) transforms";
        return 0;
    }
    wb_plan L;
    size_t xbytes = (size_t)(p->N * p->C) * (size_t)p->Q * sizeof(float);
    if (!wb_plan_make(p, &L) || L.W.total > (xbytes > (size_t)WB_MAX_WS ? xbytes : (size_t)WB_MAX_WS)) {
        *reason = "the Winograd F(4x4,3x3) backward-filter workspace would exceed max(x, 64 MiB)";
        return 0;
    }
    return 1;
}

int hd_conv_wino4_bwdf_app(const hd_conv_problem *p, const char **reason)
{
    return hd_conv_wino4_shape_ok(p, reason) && wb_app(p, reason);
}

static int wb_split_app(const hd_conv_problem *p, const char **reason)
{
    return hd_conv_wino4_split_shape_ok(p, reason) && wb_app(p, reason);
}

size_t hd_conv_wino4_bwdf_ws(const hd_conv_problem *p)
{
    wb_plan L;
    return wb_plan_make(p, &L) ? L.W.total : SIZE_MAX;
}

/* Estimated time per direct multiply-add, in the unit of the solvers' cost factors (the
 * micro-kernel backward-filter solvers are 0.3).  Per GEMM multiply-add 0.4 (Kg and Cg padded
 * to the panels, the tiles to whole 4x4 tiles); per transformed value of a tile 30 (per
 * channel of x and of dy); per value copied into a band 4 (NCHW-like tensors); per dU value
 * 20 for each block (written or updated) and 5 for each chunk (read by the last pass); per
 * (k, c) filter pair 1500 (the last pass: 36 values summed and transformed in double).  With
 * many filters and few tiles the last two dominate.  The constants are fitted to measurements
 * on the ResNet-50 and VGG-16 3x3 layers against solvers 351/352, so that the ranking puts
 * Winograd first where it is the faster one (large images with few filters) and not on the
 * deep, small layers.  Whole mode writes dU once and reads it once (10 per value), and its last
 * pass takes a base pointer per tap instead of an offset per value (600 per pair). */
double hd_conv_wino4_bwdf_cost(const hd_conv_problem *p)
{
    wb_plan L;
    if (!wb_plan_make(p, &L))
        return 1e9;
    double tiles = (double)(L.rows * L.TW) * (double)p->G;
    double gemm = 0.4 * 36.0 * (double)(L.Kpad * L.Cpad) * tiles;
    double tr = 30.0 * tiles * (double)(L.nq * p->Cg + p->Kg);
    double copy = 4.0 * (double)p->G *
                  ((L.xcopy ? (double)(L.rows * 6 * p->in[2] * p->Cg) : 0) +
                   (L.ycopy ? (double)(L.rows * 4 * p->out[2] * p->Kg) : 0));
    double du = (L.whole ? 10.0 : 20.0 * (double)L.nb + 5.0 * (double)L.nch) * (double)p->G * (double)L.dus;
    double fin = (L.whole || L.staged ? 600.0 : 1500.0) * (double)(p->G * p->Kg) * (double)(L.nq * p->Cg);
    double macs = (double)(p->N * p->P) * (double)(p->G * p->Kg) * (double)p->Cg * (double)(p->flt[1] * p->flt[2]);
    /* 5x5 in pieces: the terms above, fitted on 3x3 layers, overestimate the pieces' time
     * against solver 351 by 1.3-2.3x (one-thread times of AlexNet conv2 at batch 1 and 16 and
     * of two other 5x5 layers, interleaved: time ratios 0.42-0.95 where these costs gave
     * 0.72-1.26); 0.6 puts the ranking in the measured order. */
    return (gemm + tr + copy + du + fin) / macs * (L.nq > 1 ? 0.6 : 1.0);
}

void hd_conv_wino4_bwdf_exec(const hd_conv_problem *p, const hd_conv_args *a)
{
    wb_ctx c;
    c.p = p;
    c.a = a;
    wb_plan_make(p, &c.L);
    c.L.cols = hd_f32_im2col_cols_kernel(p->isa);
    if (!c.L.cols)
        c.L.cols = cols_c;
    c.x = a->x;
    c.dy = a->y;
    c.dw = a->out;
    c.part = (float *)((char *)a->ws + c.L.W.off[0]);
    c.slots = (float *)((char *)a->ws + c.L.W.off[1]);
    c.vall = (float *)((char *)a->ws + c.L.W.off[2]);
    c.mall = (float *)((char *)a->ws + c.L.W.off[3]);
    int nt = a->nthreads < HD_SCRATCH_SLOTS ? a->nthreads : HD_SCRATCH_SLOTS;
    if (hd_log_enabled(CUDNN_SEV_INFO))
        hd_logf(CUDNN_SEV_INFO, c.L.nq > 1 ? "bwd_filter.winograd_f4x3_split_f32" : "bwd_filter.winograd_f4x3_f32",
                CUDNN_STATUS_SUCCESS,
                "plan: %lld tiles, %s", (long long)(c.L.rows * c.L.TW),
                c.L.whole    ? "whole (every tile transformed first, one task per position)"
                : c.L.staged ? "staged (per block of tiles: transformed first, one task per position)"
                             : "chunks of blocks");
    if (c.L.whole || c.L.staged) {
        for (int64_t g = 0; g < p->G; g++)
            zero_pad_lanes(&c, c.vall + (size_t)(g * 36 * c.L.vps), c.mall + (size_t)(g * 36 * c.L.mps));
        for (int64_t b = 0; b < c.L.nb; b++) {   /* whole mode: one block of every row */
            c.r0 = b * c.L.R;
            c.nr = imin(c.L.rows, c.r0 + c.L.R) - c.r0;
            c.beta = b == 0 ? 0.0f : 1.0f;
            hd_parallel_deal((size_t)(2 * p->G * c.nr), nt, wb_transform_task, &c);
            hd_parallel_deal((size_t)(p->G * 36), nt, wb_pos_task, &c);
        }
    } else {
        hd_parallel_deal((size_t)(p->G * c.L.nch), nt, wb_task, &c);
    }
    hd_parallel_deal((size_t)(p->G * p->Kg), nt, wb_finish, &c);
}

const hd_conv_solver hd_solver_bwdf_wino4 = {
    .id = 307, .name = "bwd_filter.winograd_f4x3_f32", .dir = HD_CONV_BWD_FILTER, .algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, .deterministic = 1,
    .applicable = hd_conv_wino4_bwdf_app, .workspace = hd_conv_wino4_bwdf_ws, .run = hd_conv_wino4_bwdf_exec, .cost_factor = 0.3, .cost = hd_conv_wino4_bwdf_cost};

/* 5x5 filters in 3x3 pieces (the plan's nq pieces; see the top of this file). */
const hd_conv_solver hd_solver_bwdf_wino4_split = {
    .id = 310, .name = "bwd_filter.winograd_f4x3_split_f32", .dir = HD_CONV_BWD_FILTER, .algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, .deterministic = 1,
    .applicable = wb_split_app, .workspace = hd_conv_wino4_bwdf_ws, .run = hd_conv_wino4_bwdf_exec, .cost_factor = 0.3, .cost = hd_conv_wino4_bwdf_cost};
