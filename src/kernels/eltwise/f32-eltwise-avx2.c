/* kernels/eltwise/f32-eltwise-avx2.c -- eltwise.h with 8-wide AVX2 vectors; tails scalar. */
#include "kernels/eltwise/eltwise.h"

#include <immintrin.h>

static void relu(size_t n, const float *x, float *y, float alpha, float beta)
{
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta), z = _mm256_setzero_ps();
    size_t i = 0;
    if (beta != 0.0f) {
        for (; i + 8 <= n; i += 8) {
            /* max(x, 0) returns the second operand (0) when x is NaN */
            __m256 v = _mm256_max_ps(_mm256_loadu_ps(x + i), z);
            _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_mul_ps(va, v), _mm256_mul_ps(vb, _mm256_loadu_ps(y + i))));
        }
    } else {
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(y + i, _mm256_mul_ps(va, _mm256_max_ps(_mm256_loadu_ps(x + i), z)));
    }
    hd_eltwise_scalar.relu(n - i, x + i, y + i, alpha, beta);
}

static void axpby(size_t n, const float *x, float *y, float alpha, float beta)
{
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    size_t i = 0;
    if (beta != 0.0f) {
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_mul_ps(va, _mm256_loadu_ps(x + i)),
                                                  _mm256_mul_ps(vb, _mm256_loadu_ps(y + i))));
    } else {
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(y + i, _mm256_mul_ps(va, _mm256_loadu_ps(x + i)));
    }
    hd_eltwise_scalar.axpby(n - i, x + i, y + i, alpha, beta);
}

static void add3(size_t n, const float *a, const float *b, float *c, float alpha1, float alpha2, float beta)
{
    const __m256 v1 = _mm256_set1_ps(alpha1), v2 = _mm256_set1_ps(alpha2), vb = _mm256_set1_ps(beta);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_add_ps(_mm256_mul_ps(v1, _mm256_loadu_ps(a + i)), _mm256_mul_ps(v2, _mm256_loadu_ps(b + i)));
        if (beta != 0.0f)
            v = _mm256_add_ps(v, _mm256_mul_ps(vb, _mm256_loadu_ps(c + i)));
        _mm256_storeu_ps(c + i, v);
    }
    hd_eltwise_scalar.add3(n - i, a + i, b + i, c + i, alpha1, alpha2, beta);
}

static void mul3(size_t n, const float *a, const float *b, float *c, float alpha1, float alpha2, float beta)
{
    const __m256 v1 = _mm256_set1_ps(alpha1), v2 = _mm256_set1_ps(alpha2), vb = _mm256_set1_ps(beta);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_mul_ps(_mm256_mul_ps(v1, _mm256_loadu_ps(a + i)), _mm256_mul_ps(v2, _mm256_loadu_ps(b + i)));
        if (beta != 0.0f)
            v = _mm256_add_ps(v, _mm256_mul_ps(vb, _mm256_loadu_ps(c + i)));
        _mm256_storeu_ps(c + i, v);
    }
    hd_eltwise_scalar.mul3(n - i, a + i, b + i, c + i, alpha1, alpha2, beta);
}

const hd_eltwise_table hd_eltwise_avx2 = { "avx2", relu, axpby, add3, mul3 };
