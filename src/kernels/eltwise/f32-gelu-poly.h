/*
 * kernels/eltwise/f32-gelu-poly.h -- the constants of the float GELU kernels (f32-gelu-*.c).
 *
 * GELU(z) = z Phi(z), Phi the standard normal distribution (the erf form).  With a = |z|,
 * P = Phi(-a) is computed as
 *     P = exp(-a^2 / 2) * t * h(t - GELU_TC),   t = 1 / (1 + GELU_P a),
 * h a polynomial of degree 9 fitted (least squares, reweighted towards the largest relative
 * error) to Phi(-a) exp(a^2 / 2) / t over a in [0, 13.3]; its relative error there is below
 * 4e-9.  Centring t on GELU_TC keeps the coefficients of one sign-balanced size, so Horner's
 * rule in float adds only a few roundings.  Then Phi(z) = z >= 0 ? 1 - P : P.
 * exp(y), -87.3 <= y <= 0, is 2^k e^r with k = round(y / ln 2), r = y - k ln 2 (ln 2 in two
 * parts, the first exact in 9 bits so k * LN2_HI is exact), e^r by its Taylor polynomial
 * to r^7 (relative error below 6e-9 for |r| <= ln2 / 2), 2^k put into the exponent bits.
 * Below -87.3 the clamp leaves e^-87.3 ~ 1e-38 instead of 0: an absolute error far below
 * float resolution of z.
 *
 * Near 0 that form loses accuracy in Phi (rounding t = 1/(1 + p a) moves P by up to 2e-7, which
 * GELU hides, z being small, but its derivative does not), so for the derivative, where |z| < 1,
 * Phi comes from its Taylor series instead: Phi(z) = 1/2 + z S(z^2), S to the z^16 term
 * (truncation below 2e-10).  The forward kernels skip it (a fifth of their work).
 *
 * Measured against double over all floats sampled densely in [-14, 14] (tests/unit/
 * test_kernel_gelu.c): |GELU error| <= 1e-7 (1 + |z|), and |error| <= 1.5e-7 (1 + |z|) for the
 * derivative Phi(z) + z phi(z) (per unit of dy).
 */
#ifndef HD_KERNELS_ELTWISE_F32_GELU_POLY_H
#define HD_KERNELS_ELTWISE_F32_GELU_POLY_H

#define GELU_P 0.2316419f
#define GELU_TC 0.62252388f
#define GELU_H0 0.2187008261680603f
#define GELU_H1 0.41017016768455505f
#define GELU_H2 0.5849252343177795f
#define GELU_H3 0.6178038120269775f
#define GELU_H4 0.4427688419818878f
#define GELU_H5 0.15158867835998535f
#define GELU_H6 (-0.059437621384859085f)
#define GELU_H7 (-0.080806203186512f)
#define GELU_H8 0.00021612181444652379f
#define GELU_H9 0.028857894241809845f

#define GELU_S0 0.3989422804f
#define GELU_S1 (-6.649038007e-02f)
#define GELU_S2 9.973557010e-03f
#define GELU_S3 (-1.187328215e-03f)
#define GELU_S4 1.154346876e-04f
#define GELU_S5 (-9.444656260e-06f)
#define GELU_S6 6.659693516e-07f
#define GELU_S7 (-4.122667415e-08f)
#define GELU_S8 2.273529824e-09f
#define GELU_SMALL 1.0f                   /* |z| below this: the series */
#define GELU_PDF_CLAMP 14.0f              /* z phi(z) uses z clamped to this: phi is 0 there, and inf * 0 would be NaN */

#define GELU_EXP_MIN (-87.3f)
#define GELU_LOG2E 1.44269504f
#define GELU_SHIFTER 12582912.0f          /* 1.5 * 2^23: adding it rounds to an integer in the low bits */
#define GELU_LN2_HI 0.693359375f
#define GELU_LN2_LO (-2.12194440e-4f)
#define GELU_INV_SQRT_2PI 0.398942280f    /* the normal density is exp(-z^2/2) times this */

#endif
