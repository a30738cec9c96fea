// Math builtins of float and double whose library versions (libclc's, on the CPU and on CUDA)
// miss OpenCL's special values or ranges (OpenCL C 3.0, 7.5.1), found by
// tests/conformance/math_values_more_test.cpp and common_values_test.cpp, written here from
// functions that get them right, for every address space a pointer argument may name (generic
// included: OpenCL C 2.0 and later pass pointers to private variables as generic ones) and
// every vector width:
// - atanpi(-0) and tanpi of odd integers gave +0, not -0;
// - fract(-0) gave +0, not -0;
// - lgamma_r(-inf) gave -inf, not +inf;
// - remquo with a subnormal y gave NaN, and quotients without their low bits;
// - rootn of float flushed results near FLT_MIN to 0;
// - clamp of a NaN gave the NaN on CUDA, not minval.
#include "builtins.h"

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

// atanpi: atan / pi, with 1/pi in two parts (the product's error stays below an ulp); exactly
// +-1/2 at +-inf, and a zero of x's sign at +-0.
#define XP_INV_PI_HI 0x1.45f306dc9c883p-2
#define XP_INV_PI_LO -0x1.6b01ec5417056p-56
double CNFN atanpi(double x) {
  if (isinf(x)) return copysign(0.5, x);
  double t = atan(x);
  return x == 0.0 ? x : fma(t, XP_INV_PI_HI, t * XP_INV_PI_LO);
}
float CNFN atanpi(float x) { return (float)atanpi((double)x); }

// tanpi: sinpi / cospi, whose zeros carry OpenCL's signs: at an integer n, a zero with the
// sign of n when n is even and of -n when it is odd; at n + 1/2, +inf for even n, -inf for odd.
double CNFN tanpi(double x) { return sinpi(x) / cospi(x); }
float CNFN tanpi(float x) { return (float)tanpi((double)x); }

// rootn of float in double, rounded once: no flush near FLT_MIN.
float CNFN rootn(float x, int n) { return (float)rootn((double)x, n); }

// fract: fmin(x - floor(x), the largest T below 1), with floor(x) in *p; +-0 for +-inf, and
// -0 stays -0.
#define XP_FRACT(T, ONE_BELOW, AS)                                     \
  T OVL fract(T x, AS T *p) {                                          \
    T whole = floor(x);                                                \
    *p = whole;                                                        \
    if (isnan(x)) return x;                                            \
    if (isinf(x)) return copysign((T)0, x);                            \
    return x == (T)0 ? x : fmin(x - whole, (T)ONE_BELOW);              \
  }

// lgamma_r: lgamma (+inf at -inf, at zero and at the poles), and the sign of gamma(x): -1 on
// the intervals (-2k - 1, -2k) and where gamma(-0) is -inf, else 1. On the CPU, lgamma calls
// libclc's lgamma_r under another name (runtime/CMakeLists.txt). On CUDA, where the library's
// lgamma may call lgamma_r of double by its own name, only float's is replaced: through
// double's, which is right at -inf there.
#define XP_LGAMMA_R_ANY(T, AS)                                                           \
  T OVL lgamma_r(T x, AS int *sign) {                                                    \
    T whole = floor(x);                                                                  \
    bool negative = isfinite(x) && x < (T)0 && x != whole && fmod(whole, (T)2) != (T)0; \
    *sign = negative || (x == (T)0 && signbit(x)) ? -1 : 1;                              \
    return lgamma(x);                                                                    \
  }
#ifdef __NVPTX__
double xp_lgamma_r_double(double x, __private int *sign) __asm__("_Z8lgamma_rdPi");
#define XP_LGAMMA_R_float(AS)                                  \
  float OVL lgamma_r(float x, AS int *sign) {                  \
    int s;                                                     \
    float r = (float)xp_lgamma_r_double((double)x, &s);        \
    *sign = s;                                                 \
    return r;                                                  \
  }
#define XP_LGAMMA_R_double(AS)
#define XP_LGAMMA_R_VECTOR_float(V, I, n, AS) XP_OUT_VECTOR(lgamma_r, V, I, int, n, AS)
#define XP_LGAMMA_R_VECTOR_double(V, I, n, AS)
#else
#define XP_LGAMMA_R_float(AS) XP_LGAMMA_R_ANY(float, AS)
#define XP_LGAMMA_R_double(AS) XP_LGAMMA_R_ANY(double, AS)
#define XP_LGAMMA_R_VECTOR_float(V, I, n, AS) XP_OUT_VECTOR(lgamma_r, V, I, int, n, AS)
#define XP_LGAMMA_R_VECTOR_double(V, I, n, AS) XP_OUT_VECTOR(lgamma_r, V, I, int, n, AS)
#endif

// remquo: remainder(x, y) (exact), and in *quo the sign of x / y with the 7 low bits of the
// integer k nearest x / y: those of k mod 128, from m = fmod(|x|, 128 |y|) (exact), whose
// nearest multiple of |y| is (k mod 128) |y| (ties to even agree, 128 being even). Where
// 128 |y| overflows, |x / y| < 128 and m = |x|. The multiple over |y| is rounded to the
// nearest integer (neither it nor the division need be exact), scaled up first where |y| is
// subnormal (the division's reciprocal would overflow).
#define XP_REMQUO(T, SCALE, AS)                                                          \
  T OVL remquo(T x, T y, AS int *quo) {                                                  \
    if (isnan(x) || isnan(y) || isinf(x) || y == (T)0) {                                 \
      *quo = 0;                                                                          \
      return (T)NAN;                                                                     \
    }                                                                                    \
    T r = remainder(x, y), ay = fabs(y), wide = ay * (T)128;                             \
    T m = isinf(wide) || fabs(x) < wide ? fabs(x) : fmod(fabs(x), wide);                \
    T multiple = m - remainder(m, ay), scale = ay < (T)1 ? (T)SCALE : (T)1;             \
    int k = isinf(y) ? 0 : (int)rint(multiple * scale / (ay * scale)) & 127;             \
    *quo = signbit(x) != signbit(y) ? -k : k;                                            \
    return r;                                                                            \
  }

#define XP_REMQUO_VECTOR(V, I, n, AS)                    \
  V OVL remquo(V x, V y, AS I *quo) {                    \
    V r;                                                 \
    I q;                                                 \
    for (int i = 0; i < n; ++i) {                        \
      int t;                                             \
      r[i] = remquo(x[i], y[i], &t);                     \
      q[i] = t;                                          \
    }                                                    \
    *quo = q;                                            \
    return r;                                            \
  }
#define XP_ROOTN_VECTOR(V, I, n)                         \
  V CNFN rootn(V x, I k) {                               \
    V r;                                                 \
    for (int i = 0; i < n; ++i) r[i] = rootn(x[i], k[i]); \
    return r;                                            \
  }

#define XP_WIDTH(T, n, AS)                                           \
  XP_OUT_VECTOR(fract, T##n, T##n, T, n, AS)                         \
  XP_LGAMMA_R_VECTOR_##T(T##n, int##n, n, AS)                        \
  XP_REMQUO_VECTOR(T##n, int##n, n, AS)
#define XP_SPACE(T, ONE_BELOW, AS)                                              \
  XP_FRACT(T, ONE_BELOW, AS) XP_LGAMMA_R_##T(AS) XP_REMQUO(T, XP_SCALE_##T, AS) \
  XP_WIDTH(T, 2, AS) XP_WIDTH(T, 3, AS) XP_WIDTH(T, 4, AS) XP_WIDTH(T, 8, AS)   \
  XP_WIDTH(T, 16, AS)
// The generic address space by number: these files compile as OpenCL C 3.0 without the
// generic address space feature, where __generic would mean private. (On NVPTX, 4 is the
// constant space, and generic pointers are the unqualified ones.)
#ifdef __NVPTX__
#define XP_GENERIC_SPACE(T, ONE_BELOW)
#else
#define XP_GENERIC_SPACE(T, ONE_BELOW) XP_SPACE(T, ONE_BELOW, __attribute__((address_space(4))))
#endif
#define XP_SCALE_float 0x1p24f
#define XP_SCALE_double 0x1p53
#define XP_TYPE(T, ONE_BELOW)                                                                  \
  XP_SPACE(T, ONE_BELOW, __private) XP_SPACE(T, ONE_BELOW, __global)                           \
  XP_SPACE(T, ONE_BELOW, __local) XP_GENERIC_SPACE(T, ONE_BELOW)                               \
  XP_ELEMENTWISE1(atanpi, T##2, 2) XP_ELEMENTWISE1(atanpi, T##3, 3)                          \
  XP_ELEMENTWISE1(atanpi, T##4, 4) XP_ELEMENTWISE1(atanpi, T##8, 8)                          \
  XP_ELEMENTWISE1(atanpi, T##16, 16) XP_ELEMENTWISE1(tanpi, T##2, 2)                         \
  XP_ELEMENTWISE1(tanpi, T##3, 3) XP_ELEMENTWISE1(tanpi, T##4, 4)                            \
  XP_ELEMENTWISE1(tanpi, T##8, 8) XP_ELEMENTWISE1(tanpi, T##16, 16)
XP_TYPE(float, 0x1.fffffep-1f)
XP_TYPE(double, 0x1.fffffffffffffp-1)
XP_ROOTN_VECTOR(float2, int2, 2) XP_ROOTN_VECTOR(float3, int3, 3)
XP_ROOTN_VECTOR(float4, int4, 4) XP_ROOTN_VECTOR(float8, int8, 8)
XP_ROOTN_VECTOR(float16, int16, 16)

// clamp(x, minval, maxval) is fmin(fmax(x, minval), maxval) (6.15.4), so minval where x is a
// NaN: libclc's NVPTX one gave the NaN.
#define XP_CLAMP(V, S)                                                             \
  V CNFN clamp(V x, V lo, V hi) { return fmin(fmax(x, lo), hi); }
#define XP_CLAMP_SCALAR_BOUNDS(V, S)                                               \
  V CNFN clamp(V x, S lo, S hi) { return fmin(fmax(x, (V)lo), (V)hi); }
#define XP_CLAMPS(T)                                                                 \
  XP_CLAMP(T, T) XP_CLAMP(T##2, T) XP_CLAMP(T##3, T) XP_CLAMP(T##4, T) XP_CLAMP(T##8, T) \
  XP_CLAMP(T##16, T) XP_CLAMP_SCALAR_BOUNDS(T##2, T) XP_CLAMP_SCALAR_BOUNDS(T##3, T)     \
  XP_CLAMP_SCALAR_BOUNDS(T##4, T) XP_CLAMP_SCALAR_BOUNDS(T##8, T)                        \
  XP_CLAMP_SCALAR_BOUNDS(T##16, T)
XP_CLAMPS(float)
XP_CLAMPS(double)
