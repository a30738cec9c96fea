// Math, common and geometric builtins that libclc's SPIR-V library lacks: every half-precision
// one (computed in float and rounded once to half, within cl_khr_fp16's ulp limits), native_*
// and half_* (at full precision: OpenCL lets them be more accurate than required), and fdim,
// maxmag, minmag, nan and vector nextafter for float and double.
#include "builtins.h"

// Functions that the CUDA library's libdevice math (cuda/builtins/libdevice_math.cl) defines
// too, and displaces where libdevice is found (cuda/nvptx_builtins.cpp): not inlined into this
// file's other functions there (the half ones, which call the float ones), so that those call
// the function that remains, as the vector forms do.
#ifdef __NVPTX__
#define XP_DISPLACEABLE __attribute__((noinline))
#else
#define XP_DISPLACEABLE
#endif

// F(half type, float type, int type, ushort type) for the scalar and each width.
#define XP_HALF_WIDTHS(F)                                                                    \
  F(half, float, int, ushort) F(half2, float2, int2, ushort2) F(half3, float3, int3, ushort3) \
  F(half4, float4, int4, ushort4) F(half8, float8, int8, ushort8)                           \
  F(half16, float16, int16, ushort16)

#define XP_H1(name, H, F) \
  H CNFN name(H x) { return convert_##H(name(convert_##F(x))); }
#define XP_H2(name, H, F) \
  H CNFN name(H x, H y) { return convert_##H(name(convert_##F(x), convert_##F(y))); }
#define XP_H3(name, H, F)                                                          \
  H CNFN name(H x, H y, H z) {                                                    \
    return convert_##H(name(convert_##F(x), convert_##F(y), convert_##F(z)));     \
  }
// Builtins that write through a pointer, for each address space a pointer may name: the float
// builtin writes to a private variable (through a generic pointer), then the result is stored.
#define XP_HOUT(name, H, P, FP, AS, CONVERT, PARAMS, ...)           \
  H OVL name(PARAMS(H), AS P *out) {                                  \
    FP value;                                                         \
    H r = convert_##H(name(__VA_ARGS__, (__generic FP *)&value));     \
    *out = CONVERT(value);                                            \
    return r;                                                         \
  }
#define XP_SAME(v) v
#define XP_ONE_ARG(H) H x
#define XP_TWO_ARGS(H) H x, H y
#define XP_HPTR(H, F, I, AS)                                                                 \
  XP_HOUT(frexp, H, I, I, AS, XP_SAME, XP_ONE_ARG, convert_##F(x))                    \
  XP_HOUT(lgamma_r, H, I, I, AS, XP_SAME, XP_ONE_ARG, convert_##F(x))                 \
  XP_HOUT(remquo, H, I, I, AS, XP_SAME, XP_TWO_ARGS, convert_##F(x), convert_##F(y))  \
  XP_HOUT(sincos, H, H, F, AS, convert_##H, XP_ONE_ARG, convert_##F(x))               \
  XP_HOUT(fract, H, H, F, AS, convert_##H, XP_ONE_ARG, convert_##F(x))                \
  XP_HOUT(modf, H, H, F, AS, convert_##H, XP_ONE_ARG, convert_##F(x))

#define XP_HALF(H, F, I, U)                                                                  \
  XP_H1(acos, H, F) XP_H1(acosh, H, F) XP_H1(acospi, H, F) XP_H1(asin, H, F)                  \
  XP_H1(asinh, H, F) XP_H1(asinpi, H, F) XP_H1(atan, H, F) XP_H1(atanh, H, F)                 \
  XP_H1(atanpi, H, F) XP_H1(cbrt, H, F) XP_H1(cos, H, F) XP_H1(cosh, H, F) XP_H1(cospi, H, F) \
  XP_H1(erf, H, F) XP_H1(erfc, H, F) XP_H1(exp, H, F) XP_H1(exp10, H, F) XP_H1(exp2, H, F)    \
  XP_H1(expm1, H, F) XP_H1(lgamma, H, F) XP_H1(log, H, F) XP_H1(log10, H, F)                  \
  XP_H1(log1p, H, F) XP_H1(log2, H, F) XP_H1(logb, H, F) XP_H1(sin, H, F) XP_H1(sinh, H, F)   \
  XP_H1(sinpi, H, F) XP_H1(tan, H, F) XP_H1(tanh, H, F) XP_H1(tanpi, H, F)                    \
  XP_H1(tgamma, H, F) XP_H1(degrees, H, F) XP_H1(radians, H, F) XP_H1(sign, H, F)             \
  XP_H1(rsqrt, H, F) XP_H1(native_cos, H, F) XP_H1(native_exp, H, F)                          \
  XP_H1(native_exp10, H, F) XP_H1(native_exp2, H, F) XP_H1(native_log, H, F)                  \
  XP_H1(native_log10, H, F) XP_H1(native_log2, H, F) XP_H1(native_rsqrt, H, F)                \
  XP_H1(native_sin, H, F) XP_H1(native_sqrt, H, F) XP_H1(native_tan, H, F)                    \
  XP_H1(native_recip, H, F)                                                                   \
  XP_H2(atan2, H, F) XP_H2(atan2pi, H, F) XP_H2(fdim, H, F) XP_H2(fmod, H, F)                 \
  XP_H2(hypot, H, F) XP_H2(maxmag, H, F) XP_H2(minmag, H, F) XP_H2(pow, H, F)                 \
  XP_H2(powr, H, F) XP_H2(remainder, H, F) XP_H2(step, H, F) XP_H2(native_divide, H, F)       \
  XP_H2(native_powr, H, F) XP_H3(smoothstep, H, F) XP_H3(mix, H, F)                           \
  I CNFN ilogb(H x) { return ilogb(convert_##F(x)); }                                         \
  H CNFN pown(H x, I n) { return convert_##H(pown(convert_##F(x), n)); }                      \
  H CNFN rootn(H x, I n) { return convert_##H(rootn(convert_##F(x), n)); }                    \
  H CNFN ldexp(H x, I n) { return convert_##H(ldexp(convert_##F(x), n)); }                    \
  H CNFN nan(U code) { return as_##H((U)(code | (U)0x7e00)); }                                \
  XP_HPTR(H, F, I, __global) XP_HPTR(H, F, I, __local) XP_HPTR(H, F, I, __private)
XP_HALF_WIDTHS(XP_HALF)

half CNFN nextafter(half x, half y) {
  if (isnan(x) || isnan(y)) return x + y;
  if (x == y) return y;
  if (x == (half)0) return as_half((ushort)((as_ushort(y) & (ushort)0x8000) | (ushort)1));
  short bits = as_short(x);
  bits += (x < y) == (x > (half)0) ? 1 : -1;
  return as_half(bits);
}

// Vector forms whose scalar forms exist, element by element (XP_ELEMENTWISE2, builtins.h).
#define XP_NEXTAFTER(T) XP_ELEMENTWISE2(nextafter, T##2, 2) XP_ELEMENTWISE2(nextafter, T##3, 3) \
  XP_ELEMENTWISE2(nextafter, T##4, 4) XP_ELEMENTWISE2(nextafter, T##8, 8)                       \
  XP_ELEMENTWISE2(nextafter, T##16, 16)
XP_NEXTAFTER(half) XP_NEXTAFTER(float) XP_NEXTAFTER(double)

#define XP_HALF_VECTOR_SCALAR(H, F, I, U)                                           \
  H CNFN step(half e, H x) { return step((H)e, x); }                                \
  H CNFN smoothstep(half a, half b, H x) { return smoothstep((H)a, (H)b, x); }      \
  H CNFN mix(H x, H y, half a) { return mix(x, y, (H)a); }                          \
  H CNFN ldexp(H x, int n) { return ldexp(x, (I)n); }

XP_HALF_VECTOR_SCALAR(half2, float2, int2, ushort2) XP_HALF_VECTOR_SCALAR(half3, float3, int3, ushort3)
XP_HALF_VECTOR_SCALAR(half4, float4, int4, ushort4) XP_HALF_VECTOR_SCALAR(half8, float8, int8, ushort8)
XP_HALF_VECTOR_SCALAR(half16, float16, int16, ushort16)

half3 CNFN cross(half3 a, half3 b) { return convert_half3(cross(convert_float3(a), convert_float3(b))); }
half4 CNFN cross(half4 a, half4 b) { return convert_half4(cross(convert_float4(a), convert_float4(b))); }
#define XP_HALF_GEOMETRIC(H, F)                                                               \
  half CNFN dot(H a, H b) { return (half)dot(convert_##F(a), convert_##F(b)); }               \
  half CNFN length(H a) { return (half)length(convert_##F(a)); }                              \
  half CNFN distance(H a, H b) { return (half)distance(convert_##F(a), convert_##F(b)); }     \
  half CNFN fast_length(H a) { return (half)fast_length(convert_##F(a)); }                    \
  H CNFN normalize(H a) { return convert_##H(normalize(convert_##F(a))); }                    \
  H CNFN fast_normalize(H a) { return convert_##H(fast_normalize(convert_##F(a))); }          \
  half CNFN fast_distance(H a, H b) { return (half)fast_distance(convert_##F(a), convert_##F(b)); }
XP_HALF_GEOMETRIC(half, float) XP_HALF_GEOMETRIC(half2, float2) XP_HALF_GEOMETRIC(half3, float3)
XP_HALF_GEOMETRIC(half4, float4)

// --- float and double ----------------------------------------------------------------------
#define XP_REAL(T, U)                                                                    \
  T CNFN fdim(T x, T y) { return isnan(x) || isnan(y) ? x + y : (x > y ? x - y : (T)0); } \
  T CNFN maxmag(T x, T y) {                                                              \
    T ax = fabs(x), ay = fabs(y);                                                        \
    return ax > ay ? x : ay > ax ? y : fmax(x, y);                                       \
  }                                                                                      \
  T CNFN minmag(T x, T y) {                                                              \
    T ax = fabs(x), ay = fabs(y);                                                        \
    return ax < ay ? x : ay < ax ? y : fmin(x, y);                                       \
  }
#define XP_FLOAT_ONLY(T, U)                                                                     \
  T CNFN nan(U code) { return as_##T((U)(code | (U)0x7fc00000u)); }                             \
  T CNFN native_cos(T x) { return cos(x); } T CNFN native_sin(T x) { return sin(x); }           \
  T CNFN native_tan(T x) { return tan(x); } T CNFN native_exp(T x) { return exp(x); }           \
  T CNFN native_exp2(T x) { return exp2(x); } T CNFN native_exp10(T x) { return exp10(x); }     \
  T CNFN native_log(T x) { return log(x); } T CNFN native_log2(T x) { return log2(x); }         \
  T CNFN native_log10(T x) { return log10(x); } T CNFN native_sqrt(T x) { return sqrt(x); }     \
  T CNFN native_rsqrt(T x) { return rsqrt(x); } T CNFN native_powr(T x, T y) { return powr(x, y); } \
  T CNFN half_cos(T x) { return cos(x); } T CNFN half_sin(T x) { return sin(x); }               \
  T CNFN half_tan(T x) { return tan(x); } T CNFN half_exp(T x) { return exp(x); }               \
  T CNFN half_exp2(T x) { return exp2(x); } T CNFN half_exp10(T x) { return exp10(x); }         \
  T CNFN half_log(T x) { return log(x); } T CNFN half_log2(T x) { return log2(x); }             \
  T CNFN half_log10(T x) { return log10(x); } T CNFN half_recip(T x) { return (T)1 / x; }       \
  T CNFN half_divide(T x, T y) { return x / y; } T CNFN half_powr(T x, T y) { return powr(x, y); }
XP_REAL(float, uint) XP_REAL(float2, uint2) XP_REAL(float3, uint3) XP_REAL(float4, uint4)
XP_REAL(float8, uint8) XP_REAL(float16, uint16)
XP_REAL(double, ulong) XP_REAL(double2, ulong2) XP_REAL(double3, ulong3) XP_REAL(double4, ulong4)
XP_REAL(double8, ulong8) XP_REAL(double16, ulong16)
XP_FLOAT_ONLY(float, uint) XP_FLOAT_ONLY(float2, uint2) XP_FLOAT_ONLY(float3, uint3)
XP_FLOAT_ONLY(float4, uint4) XP_FLOAT_ONLY(float8, uint8) XP_FLOAT_ONLY(float16, uint16)
#define XP_DOUBLE_NAN(T, U) T CNFN nan(U code) { return as_##T((U)(code | (U)0x7ff8000000000000ul)); }
XP_DOUBLE_NAN(double, ulong) XP_DOUBLE_NAN(double2, ulong2) XP_DOUBLE_NAN(double3, ulong3)
XP_DOUBLE_NAN(double4, ulong4) XP_DOUBLE_NAN(double8, ulong8) XP_DOUBLE_NAN(double16, ulong16)

// --- where libclc's results are outside OpenCL's limits ------------------------------------
// Each found by tests/conformance/math_values_test.cpp against a host reference. Vector forms
// of these call the scalar ones in libclc's library, so they follow.

// exp2 of float: libclc's flushes results below FLT_MIN to zero (so does its ldexp). 2^x =
// 2^n * 2^f with n the nearest integer and |f| <= 1/2, 2^f from its Taylor series to the 7th
// power (below 1e-9 relative), scaled by powers of 2 of which only the last product rounds.
XP_DISPLACEABLE float CNFN exp2(float x) {
  if (isnan(x)) return x;
  if (x >= 128.0f) return INFINITY;
  if (x < -152.0f) return 0.0f;
  float n = rint(x), f = x - n;
  float p = 1.5252733804059841e-05f;
  p = fma(p, f, 1.5403530393381606e-04f);
  p = fma(p, f, 1.3333558146428443e-03f);
  p = fma(p, f, 9.6181291076284772e-03f);
  p = fma(p, f, 5.5504108664821580e-02f);
  p = fma(p, f, 2.4022650695910071e-01f);
  p = fma(p, f, 6.9314718055994531e-01f);
  p = fma(p, f, 1.0f);
  int k = (int)n;
  if (k < -126) return (p * as_float((uint)(k + 126 + 127) << 23)) * 0x1p-126f;
  if (k > 127) return (p * 2.0f) * 0x1p127f;
  return p * as_float((uint)(k + 127) << 23);
}

// ldexp of float: libclc's flushes subnormal results to zero. x * 2^n in double is exact for
// every float x and |n| <= 400 (beyond, the result is 0 or infinite anyway) and rounds once
// to float.
float CNFN ldexp(float x, int n) {
  n = clamp(n, -400, 400);
  return (float)((double)x * as_double((ulong)(n + 1023) << 52));
}

// sinpi and cospi: libclc gives -0 where OpenCL requires +0 (sinpi(1), cospi(0.5)). From the
// nearest multiple n/2 of 1/2 and the exact rest t (|t| <= 1/4): sin and cos of pi t keep
// their precision near the zeros. Float in double, rounded once.
#define XP_PI 3.141592653589793116
XP_DISPLACEABLE double CNFN sinpi(double x) {
  if (isinf(x) || isnan(x)) return x - x;
  double r = fmod(fabs(x), 2.0);  // exact
  double n = rint(2.0 * r), t = r - 0.5 * n;
  double s = sin(XP_PI * t), c = cos(XP_PI * t);
  int q = (int)n & 3;
  double v = q == 0 ? s : q == 1 ? c : q == 2 ? -s : -c;
  if (r == 0.0 || r == 1.0) v = 0.0;
  return copysign(1.0, x) * v;
}
XP_DISPLACEABLE double CNFN cospi(double x) {
  if (isinf(x) || isnan(x)) return x - x;
  double r = fmod(fabs(x), 2.0);
  double n = rint(2.0 * r), t = r - 0.5 * n;
  if (r == 0.5 || r == 1.5) return 0.0;
  double s = sin(XP_PI * t), c = cos(XP_PI * t);
  int q = (int)n & 3;
  return q == 0 ? c : q == 1 ? -s : q == 2 ? -c : s;
}
XP_DISPLACEABLE float CNFN sinpi(float x) { return (float)sinpi((double)x); }
XP_DISPLACEABLE float CNFN cospi(float x) { return (float)cospi((double)x); }

// remainder: libclc's loses the sign of a zero result (remainder(-0, y) must be -0).
float OVL __clc_remainder(float x, float y);
double OVL __clc_remainder(double x, double y);
XP_DISPLACEABLE float CNFN remainder(float x, float y) {
  float r = __clc_remainder(x, y);
  return r == 0.0f ? copysign(0.0f, x) : r;
}
XP_DISPLACEABLE double CNFN remainder(double x, double y) {
  double r = __clc_remainder(x, y);
  return r == 0.0 ? copysign(0.0, x) : r;
}

// lgamma: libclc's is -inf at -inf; OpenCL's (C99's) is +inf there, at zero and at the
// negative integers (the poles).
// libclc's lgamma_r (renamed on the CPU, where math_special_values.cl defines OpenCL's).
#ifdef __NVPTX__
double xp_lgamma_r(double x, __private int *sign) __asm__("_Z8lgamma_rdPi");
#else
double xp_lgamma_r(double x, __private int *sign) __asm__("xpurt.libclc._Z8lgamma_rdPi");
#endif
XP_DISPLACEABLE double CNFN lgamma(double x) {
  if (isinf(x) || (x <= 0.0 && x == floor(x))) return (double)INFINITY;
  int sign;
  return xp_lgamma_r(x, &sign);
}
XP_DISPLACEABLE float CNFN lgamma(float x) { return (float)lgamma((double)x); }

// sinh and cosh of double: libclc's index a table by (int)|x| for every input, which is far
// outside it for large ones and NaN (a crash on the CPU). From exp and expm1 instead: below
// 1 through expm1, which keeps the precision near 0; above ln(DBL_MAX) as exp(|x|/2)^2 / 2,
// which does not overflow early.
XP_DISPLACEABLE double CNFN sinh(double x) {
  double a = fabs(x), h = copysign(0.5, x);
  if (!(a < 710.5)) return isnan(x) ? x : copysign((double)INFINITY, x);
  if (a < 0x1p-28) return x;
  if (a < 22.0) {
    double t = expm1(a);
    return a < 1.0 ? h * (2.0 * t - t * t / (t + 1.0)) : h * (t + t / (t + 1.0));
  }
  if (a < 709.0) return h * exp(a);
  double w = exp(0.5 * a);
  return (h * w) * w;
}
XP_DISPLACEABLE double CNFN cosh(double x) {
  double a = fabs(x);
  if (!(a < 710.5)) return isnan(x) ? x : (double)INFINITY;
  if (a < 0.3465735902799726) {  // ln(2) / 2
    double t = expm1(a), w = 1.0 + t;
    return 1.0 + (t * t) / (w + w);
  }
  if (a < 22.0) {
    double t = exp(a);
    return 0.5 * t + 0.5 / t;
  }
  if (a < 709.0) return 0.5 * exp(a);
  double w = exp(0.5 * a);
  return (0.5 * w) * w;
}

// tgamma of double: libclc's is up to 700 ulp off (OpenCL allows 16), +inf where tiny
// negative results underflow, and +inf at -0. Here, for z >= 10, Stirling's series,
//   tgamma(z) = z^(z - 1/2) e^-z sqrt(2 pi) e^s(z),  s(z) = sum B_2k / (2k (2k - 1) z^(2k - 1)),
// to the 8th term (below 1e-17 relative at 10), with z^(z - 1/2) as the square of
// z^((z - 1/2) / 2) so that nothing overflows early. Below 10, tgamma(x) = tgamma(x + n) /
// (x (x + 1) ... (x + n - 1)), the rounding of each shifted argument and of each product
// carried as a first-order correction (an argument off by half an ulp would cost ~10 ulp).
// For negative x, tgamma(x) = pi / (sinpi(x) tgamma(1 - x)), which underflows gradually.
static double xp_stirling(double z) {
  double r = 1.0 / z, r2 = r * r;
  double s = -3617.0 / 122400.0;
  s = fma(s, r2, 1.0 / 156.0);
  s = fma(s, r2, -691.0 / 360360.0);
  s = fma(s, r2, 1.0 / 1188.0);
  s = fma(s, r2, -1.0 / 1680.0);
  s = fma(s, r2, 1.0 / 1260.0);
  s = fma(s, r2, -1.0 / 360.0);
  s = fma(s, r2, 1.0 / 12.0);
  return s * r;
}
// a + b = s + e exactly.
static double xp_two_sum(double a, double b, double *e) {
  double s = a + b, bb = s - a;
  *e = (a - (s - bb)) + (b - bb);
  return s;
}
// tgamma(x + dx) for 0 < x <= 171.7, |dx| below half an ulp of x: a * b, each factor finite.
static void xp_gamma_positive(double x, double dx, double *a, double *b) {
  double p = 1.0, c = 0.0;  // the product of the shifted arguments, its relative error
  double z = x, ze = dx;    // the shifted argument is z + ze
  for (double k = 1.0; z < 10.0; k += 1.0) {
    double q = p * z;
    c += fma(p, z, -q) / q + ze / z;
    p = q;
    z = xp_two_sum(x, k, &ze);
    ze += dx;
  }
  double y = pow(z, 0.5 * (z - 0.5));
  double digamma = log(z) - 0.5 / z - 1.0 / (12.0 * z * z);
  *a = y / p;
  *b = (y * exp(-z)) * (2.5066282746310002 * exp(xp_stirling(z)) * (1.0 + digamma * ze - c));
}
XP_DISPLACEABLE double CNFN tgamma(double x) {
  if (isnan(x)) return x;
  if (x == 0.0) return 1.0 / x;  // +-inf
  if (isinf(x)) return x > 0.0 ? x : x - x;
  if (x < 0.0 && x == floor(x)) return (x - x) / (x - x);  // NaN at the poles
  if (fabs(x) < 0x1p-54) return 1.0 / x;  // 1/x - Euler's gamma + O(x)
  if (x > 171.7) return (double)INFINITY;
  double a, b;
  if (x > 0.0) {
    xp_gamma_positive(x, 0.0, &a, &b);
    return a * b;
  }
  double e, z = xp_two_sum(1.0, -x, &e), q = XP_PI / sinpi(x);
  if (z > 200.0) return copysign(0.0, q);  // below the smallest subnormal
  xp_gamma_positive(z, e, &a, &b);
  return (q / a) / b;
}

// erfc and tgamma of float: libclc's erfc is 36 ulp off near 8 and flushes results below
// FLT_MIN; its tgamma is up to 92 ulp off (OpenCL allows 16). In double, rounded once.
XP_DISPLACEABLE float CNFN erfc(float x) { return (float)erfc((double)x); }
float CNFN tgamma(float x) { return (float)tgamma((double)x); }

#ifndef __NVPTX__  // the CUDA builtin library compiles this file too: libdevice serves there
// Double functions of libclc's that lose the sign of -0 (tan(-0) must be -0): libclc's
// bodies, renamed xpurt.libclc.<name> at build time (runtime/CMakeLists.txt), for the rest.
#define XP_SIGNED_ZERO(name, mangled)                                              \
  double xp_libclc_##name(double) __asm__("xpurt.libclc." mangled);               \
  double CNFN name(double x) { return x == 0.0 ? x : xp_libclc_##name(x); }
XP_SIGNED_ZERO(tan, "_Z3tand")
XP_SIGNED_ZERO(atan, "_Z4atand")
XP_SIGNED_ZERO(expm1, "_Z5expm1d")
XP_SIGNED_ZERO(erf, "_Z3erfd")
// ldexp of double: libclc's turns a NaN scaled far down into a finite number.
double xp_libclc_ldexp(double, int) __asm__("xpurt.libclc._Z5ldexpdi");
double CNFN ldexp(double x, int n) { return isnan(x) ? x : xp_libclc_ldexp(x, n); }
#define XP_SINCOS_SIGNED_ZERO(AS, suffix, mangled)                                         \
  double xp_libclc_sincos_##suffix(double, AS double *) __asm__("xpurt.libclc." mangled);  \
  double OVL sincos(double x, AS double *c) {                                              \
    double s = xp_libclc_sincos_##suffix(x, c);                                            \
    return x == 0.0 ? x : s;                                                               \
  }
XP_SINCOS_SIGNED_ZERO(__private, private, "_Z6sincosdPd")
XP_SINCOS_SIGNED_ZERO(__global, global, "_Z6sincosdPU3AS1d")
XP_SINCOS_SIGNED_ZERO(__local, local, "_Z6sincosdPU3AS3d")
// libclc's vector tan and sincos of double do not call the scalar ones: these do.
#define XP_SIGNED_ZERO_VECTORS(V, n)                                                   \
  XP_ELEMENTWISE1(tan, V, n) XP_OUT_VECTOR(sincos, V, V, double, n, __private)         \
  XP_OUT_VECTOR(sincos, V, V, double, n, __global)                                     \
  XP_OUT_VECTOR(sincos, V, V, double, n, __local)
XP_SIGNED_ZERO_VECTORS(double2, 2) XP_SIGNED_ZERO_VECTORS(double3, 3)
XP_SIGNED_ZERO_VECTORS(double4, 4) XP_SIGNED_ZERO_VECTORS(double8, 8)
XP_SIGNED_ZERO_VECTORS(double16, 16)
#endif

// libclc's vector remainder does not call the scalar one: this does.
#define XP_REMAINDER_VECTORS(T) XP_ELEMENTWISE2(remainder, T##2, 2)                          \
  XP_ELEMENTWISE2(remainder, T##3, 3) XP_ELEMENTWISE2(remainder, T##4, 4)                    \
  XP_ELEMENTWISE2(remainder, T##8, 8) XP_ELEMENTWISE2(remainder, T##16, 16)
XP_REMAINDER_VECTORS(float) XP_REMAINDER_VECTORS(double)
