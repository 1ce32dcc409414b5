/* Pooling backward where each dx value takes one output's value, AVX2 (see pool-ukernels.h):
 * the AVX-512 variant's shapes with 8 lanes (a value repeated twice: a lane permute; repeated
 * at least 8 times: each store holds at most two runs; channel vectors).  Stores are plain
 * (the stream hint is ignored: the AVX2 stream fence is the scalar no-op). */
#include <immintrin.h>
#include "kernels/pool/pool-ukernels.h"
#include "kernels/pool/f32-pool-lanes-avx2.h"

/* The first n (<= 8) lanes of x to p: a plain store for a whole vector, the mask only for a
 * part (a masked store is microcoded on AMD cores, several times a plain one's cost). */
static inline void store_n(float *p, size_t n, __m256 x)
{
    if (n >= 8)
        _mm256_storeu_ps(p, x);
    else
        _mm256_maskstore_ps(p, lanes(n), x);
}

static inline __m256 load_n(const float *p, size_t n)
{
    return n >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, lanes(n));
}

void hd_f32_pool_ukernel_share__avx2(float *v, const float *g, size_t n, float div)
{
    const __m256 d = _mm256_set1_ps(div), z = _mm256_setzero_ps();
    for (size_t i = 0; i < n; i += 8)
        store_n(v + i, n - i, _mm256_add_ps(_mm256_div_ps(load_n(g + i, n - i), d), z));
}

void hd_f32_pool_ukernel_broadcast__avx2(float *dx, const float *v, size_t n, size_t rep, size_t c, int stream)
{
    if (c == 1 && rep == 2) {
        const __m256i lo = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3), hi = _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7);
        for (size_t j = 0; j < n; j += 8) {
            size_t m = n - j < 8 ? n - j : 8;
            __m256 x = load_n(v + j, m);
            store_n(dx + 2 * j, 2 * m, _mm256_permutevar8x32_ps(x, lo));
            if (m > 4)
                store_n(dx + 2 * j + 8, 2 * m - 8, _mm256_permutevar8x32_ps(x, hi));
        }
        return;
    }
    if (c == 1 && rep >= 8) {
        /* j is the run at the start of the next store and b how many of its positions are left */
        size_t total = n * rep, p = 0, j = 0, b = rep;
        while (p < total) {
            size_t len = total - p < 8 ? total - p : 8;
            __m256 x = _mm256_set1_ps(v[j]);
            if (b < len)
                x = _mm256_blendv_ps(_mm256_set1_ps(v[j + 1]), x, _mm256_castsi256_ps(lanes(b)));
            store_n(dx + p, len, x);
            p += len;
            while (b <= len && j < n) {       /* runs are at least 8 long: at most one step */
                len -= b;
                b = rep;
                j++;
            }
            b -= len;
        }
        return;
    }
    if (c >= 8) {
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < c; i += 8) {
                __m256 x = load_n(v + j * c + i, c - i);
                for (size_t q = 0; q < rep; q++)
                    store_n(dx + (j * rep + q) * c + i, c - i, x);
            }
        return;
    }
    hd_f32_pool_ukernel_broadcast__scalar(dx, v, n, rep, c, stream);
}
