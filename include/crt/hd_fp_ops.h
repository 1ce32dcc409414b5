/*
 * crt/hd_fp_ops.h -- C++ arithmetic and comparison operators for hostdnn's 16-bit float
 * types (__half, __nv_bfloat16), used by cuda_fp16.h and cuda_bf16.h.  C++ only.
 *
 * Every operation converts its operands to float, computes there and rounds once to the
 * 16-bit type (to nearest even).  That double rounding is harmless: float carries at least
 * 2p+2 significant bits for both types (p = 11 for half, 8 for bfloat16), so +, -, *, / come
 * out correctly rounded, as CUDA's device instructions give them.
 *
 * The binary operators are templates that only match when both operands have the type
 * itself: `h + h` uses them, while `h + 1.0f` still goes through the type's conversion to
 * float (a plain overload would make that call ambiguous with the built-in float operator).
 * Compound assignments are plain overloads: they take a float on the right as CUDA's do.
 */
#ifndef HD_CRT_FP_OPS_H
#define HD_CRT_FP_OPS_H

#if defined(__cplusplus)

/* Enable only when both operand types are exactly T. */
template <class A, class B, class R> struct __hd_same_enable {};
template <class A, class R> struct __hd_same_enable<A, A, R> { typedef R type; };

#define __HD_FP_BINARY(T, TOF, FROMF, OP)                                                      \
    template <class U>                                                                         \
    __host__ __device__ inline typename __hd_same_enable<U, T, T>::type operator OP(const U &a, const U &b) \
    {                                                                                          \
        return FROMF(TOF(a) OP TOF(b));                                                        \
    }                                                                                          \
    __host__ __device__ inline T &operator OP##=(T &a, const T &b)                              \
    {                                                                                          \
        a = FROMF(TOF(a) OP TOF(b));                                                           \
        return a;                                                                              \
    }

#define __HD_FP_COMPARE(T, TOF, OP)                                                            \
    template <class U>                                                                         \
    __host__ __device__ inline typename __hd_same_enable<U, T, bool>::type operator OP(const U &a, const U &b) \
    {                                                                                          \
        return TOF(a) OP TOF(b);                                                               \
    }

/* All operators of the scalar type T (TOF: T -> float, FROMF: float -> T, rounded). */
#define __HD_FP_SCALAR_OPS(T, TOF, FROMF)                                                      \
    __HD_FP_BINARY(T, TOF, FROMF, +)                                                           \
    __HD_FP_BINARY(T, TOF, FROMF, -)                                                           \
    __HD_FP_BINARY(T, TOF, FROMF, *)                                                           \
    __HD_FP_BINARY(T, TOF, FROMF, /)                                                           \
    __HD_FP_COMPARE(T, TOF, ==)                                                                \
    __HD_FP_COMPARE(T, TOF, !=)                                                                \
    __HD_FP_COMPARE(T, TOF, <)                                                                 \
    __HD_FP_COMPARE(T, TOF, >)                                                                 \
    __HD_FP_COMPARE(T, TOF, <=)                                                                \
    __HD_FP_COMPARE(T, TOF, >=)                                                                \
    template <class U>                                                                         \
    __host__ __device__ inline typename __hd_same_enable<U, T, T>::type operator-(const U &a)  \
    {                                                                                          \
        /* negation flips the sign bit only, NaN payloads included */                         \
        T r = a;                                                                               \
        r.__x = (unsigned short)(r.__x ^ 0x8000u);                                             \
        return r;                                                                              \
    }                                                                                          \
    template <class U>                                                                         \
    __host__ __device__ inline typename __hd_same_enable<U, T, T>::type operator+(const U &a)  \
    {                                                                                          \
        return a;                                                                              \
    }                                                                                          \
    __host__ __device__ inline T &operator++(T &a) { a = FROMF(TOF(a) + 1.0f); return a; }     \
    __host__ __device__ inline T &operator--(T &a) { a = FROMF(TOF(a) - 1.0f); return a; }     \
    __host__ __device__ inline T operator++(T &a, int) { T o = a; ++a; return o; }             \
    __host__ __device__ inline T operator--(T &a, int) { T o = a; --a; return o; }

/* Lane-wise operators of the pair type T2 whose lanes are x and y of the scalar type T. */
#define __HD_FP_PAIR_BINARY(T2, T, OP)                                                         \
    template <class U>                                                                         \
    __host__ __device__ inline typename __hd_same_enable<U, T2, T2>::type operator OP(const U &a, const U &b) \
    {                                                                                          \
        T2 r;                                                                                  \
        r.x = a.x OP b.x;                                                                      \
        r.y = a.y OP b.y;                                                                      \
        return r;                                                                              \
    }                                                                                          \
    __host__ __device__ inline T2 &operator OP##=(T2 &a, const T2 &b)                           \
    {                                                                                          \
        a.x OP##= b.x;                                                                         \
        a.y OP##= b.y;                                                                         \
        return a;                                                                              \
    }

/* Pair comparisons: == is true when both lanes compare equal (CUDA's __hbeq2 sense). */
#define __HD_FP_PAIR_OPS(T2, T)                                                                \
    __HD_FP_PAIR_BINARY(T2, T, +)                                                              \
    __HD_FP_PAIR_BINARY(T2, T, -)                                                              \
    __HD_FP_PAIR_BINARY(T2, T, *)                                                              \
    __HD_FP_PAIR_BINARY(T2, T, /)                                                              \
    template <class U>                                                                         \
    __host__ __device__ inline typename __hd_same_enable<U, T2, T2>::type operator-(const U &a) \
    {                                                                                          \
        T2 r;                                                                                  \
        r.x = -a.x;                                                                            \
        r.y = -a.y;                                                                            \
        return r;                                                                              \
    }                                                                                          \
    template <class U>                                                                         \
    __host__ __device__ inline typename __hd_same_enable<U, T2, bool>::type operator==(const U &a, const U &b) \
    {                                                                                          \
        return a.x == b.x && a.y == b.y;                                                       \
    }                                                                                          \
    template <class U>                                                                         \
    __host__ __device__ inline typename __hd_same_enable<U, T2, bool>::type operator!=(const U &a, const U &b) \
    {                                                                                          \
        return a.x != b.x && a.y != b.y;                                                       \
    }

#endif /* __cplusplus */
#endif /* HD_CRT_FP_OPS_H */
