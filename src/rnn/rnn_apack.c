/* rnn/rnn_apack.c -- pieces of a packed GEMM A operand (see rnn_apack.h). */
#include "rnn/rnn_apack.h"

#include "kernels/gemm/gemm-ukernels.h"

void hd_rnn_apack_init(hd_rnn_apack *lay, const hd_gemm_packed_b *pb, size_t m)
{
    const hd_gemm_kernel *kern = pb->kern;
    lay->mr = kern->mr;
    lay->k = pb->k;
    lay->mpanels = (m + kern->mr - 1) / kern->mr;
}

void hd_rnn_apack_put_f32(const hd_rnn_apack *lay, size_t row, size_t k0, size_t n, const float *src, float *ap)
{
    const size_t MR = lay->mr, KC = HD_GEMM_KC, q = row / MR, i = row - q * MR;
    size_t c = 0;
    while (c < n) {
        /* the part of [k0 + c, k0 + n) inside one k block */
        const size_t k = k0 + c, blk = k / KC, p0 = blk * KC;
        const size_t kc = lay->k - p0 < KC ? lay->k - p0 : KC;
        size_t len = p0 + kc - k;
        if (len > n - c)
            len = n - c;
        float *dst = ap + blk * KC * lay->mpanels * MR + q * kc * MR + (k - p0) * MR + i;
        if (src)
            for (size_t p = 0; p < len; p++)
                dst[p * MR] = src[c + p];
        else
            for (size_t p = 0; p < len; p++)
                dst[p * MR] = 0;
        c += len;
    }
}
