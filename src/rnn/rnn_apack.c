/* rnn/rnn_apack.c -- pieces of a packed GEMM A operand (see rnn_apack.h). */
#include "rnn/rnn_apack.h"

#include "kernels/gemm/gemm-ukernels.h"

int hd_rnn_apack_init(hd_rnn_apack *lay, const hd_gemm_packed_b *pb, size_t m)
{
    const hd_gemm_kernel *kern = pb->kern;
    lay->mr = kern->mr;
    lay->k = pb->k;
    lay->mpanels = (m + kern->mr - 1) / kern->mr;
    return kern->mr <= HD_RNN_APACK_MAX_MR;
}

/* Rows [ROW0, ROW0 + CNT) of one row panel (CNT <= MR - ROW0 % MR), columns [K0, K0 + N). */
static void put_panel(const hd_rnn_apack *lay, size_t row0, size_t cnt, size_t k0, size_t n,
                      const float *const *src, float *ap)
{
    static const float zeros[HD_GEMM_KC];
    const size_t MR = lay->mr, KC = HD_GEMM_KC, q = row0 / MR, i0 = row0 - q * MR;
    size_t c = 0;
    while (c < n) {
        /* the part of [k0 + c, k0 + n) inside one k block (at most KC long) */
        const size_t k = k0 + c, blk = k / KC, p0 = blk * KC;
        const size_t kc = lay->k - p0 < KC ? lay->k - p0 : KC;
        size_t len = p0 + kc - k;
        if (len > n - c)
            len = n - c;
        const float *s[HD_RNN_APACK_MAX_MR];
        for (size_t i = 0; i < cnt; i++)
            s[i] = src[i] ? src[i] + c : zeros;
        float *dst = ap + blk * KC * lay->mpanels * MR + q * kc * MR + (k - p0) * MR + i0;
        for (size_t p = 0; p < len; p++, dst += MR)
            for (size_t i = 0; i < cnt; i++)
                dst[i] = s[i][p];
        c += len;
    }
}

void hd_rnn_apack_put_f32(const hd_rnn_apack *lay, size_t row0, size_t nrows, size_t k0, size_t n,
                          const float *const *src, float *ap)
{
    const size_t MR = lay->mr;
    for (size_t r = 0; r < nrows;) {
        const size_t row = row0 + r, room = MR - row % MR;
        const size_t cnt = nrows - r < room ? nrows - r : room;
        put_panel(lay, row, cnt, k0, n, src + r, ap);
        r += cnt;
    }
}

void hd_rnn_apack_put_ld_f32(const hd_rnn_apack *lay, size_t row0, size_t nrows, size_t k0, size_t n,
                             const float *src, size_t ld, float *ap)
{
    const size_t MR = lay->mr;
    const float *s[HD_RNN_APACK_MAX_MR];
    for (size_t r = 0; r < nrows;) {
        const size_t row = row0 + r, room = MR - row % MR;
        const size_t cnt = nrows - r < room ? nrows - r : room;
        for (size_t i = 0; i < cnt; i++)
            s[i] = src + (r + i) * ld;
        put_panel(lay, row, cnt, k0, n, s, ap);
        r += cnt;
    }
}
