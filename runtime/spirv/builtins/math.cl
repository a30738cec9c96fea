// Math, common and geometric builtins that libclc's SPIR-V library lacks: every half-precision
// one (computed in float and rounded once to half, within cl_khr_fp16's ulp limits), native_*
// and half_* (at full precision: OpenCL lets them be more accurate than required), and fdim,
// maxmag, minmag, nan and vector nextafter for float and double.
#include "builtins.h"

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

// Vector forms whose scalar forms exist, element by element.
#define XP_ELEMENTWISE2(name, V, n) \
  V CNFN name(V x, V y) {           \
    V r;                            \
    for (int i = 0; i < n; ++i) r[i] = name(x[i], y[i]); \
    return r;                       \
  }
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
