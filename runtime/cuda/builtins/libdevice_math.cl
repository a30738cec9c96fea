// OpenCL math builtins of float and double as calls of NVIDIA's libdevice (__nv_* functions,
// linked after this library where libdevice is found: nvptx_builtins.cpp). Only functions whose
// libdevice version is within OpenCL's ulp limits, with C99's special values as OpenCL's, are
// here; the rest stay libclc's. Vectors call the scalar function once per element: inlined up
// to 4 elements, through one out-of-line copy above, so that a double16 is not 16 bodies.
#include "builtins.h"

#define XP_LANES8(fn, a) \
  fn(a.s0), fn(a.s1), fn(a.s2), fn(a.s3), fn(a.s4), fn(a.s5), fn(a.s6), fn(a.s7)
#define XP_LANES16(fn, a) \
  XP_LANES8(fn, a), fn(a.s8), fn(a.s9), fn(a.sa), fn(a.sb), fn(a.sc), fn(a.sd), fn(a.se), fn(a.sf)
#define XP_LD_VECTORS1(name, F)                                                             \
  F##2 CNFN name(F##2 x) { return (F##2)(name(x.s0), name(x.s1)); }                         \
  F##3 CNFN name(F##3 x) { return (F##3)(name(x.s0), name(x.s1), name(x.s2)); }             \
  F##4 CNFN name(F##4 x) { return (F##4)(name(x.s0), name(x.s1), name(x.s2), name(x.s3)); } \
  F##8 CNFN name(F##8 x) { return (F##8)(XP_LANES8(xp_##name##_##F, x)); }                  \
  F##16 CNFN name(F##16 x) { return (F##16)(XP_LANES16(xp_##name##_##F, x)); }

#define XP_PAIR(fn, i) fn(x.s##i, y.s##i)
#define XP_PAIRS8(fn)                                                                             \
  XP_PAIR(fn, 0), XP_PAIR(fn, 1), XP_PAIR(fn, 2), XP_PAIR(fn, 3), XP_PAIR(fn, 4), XP_PAIR(fn, 5), \
      XP_PAIR(fn, 6), XP_PAIR(fn, 7)
#define XP_PAIRS16(fn)                                                                           \
  XP_PAIRS8(fn), XP_PAIR(fn, 8), XP_PAIR(fn, 9), XP_PAIR(fn, a), XP_PAIR(fn, b), XP_PAIR(fn, c), \
      XP_PAIR(fn, d), XP_PAIR(fn, e), XP_PAIR(fn, f)
#define XP_LD_VECTORS2(name, F)                                                            \
  F##2 CNFN name(F##2 x, F##2 y) { return (F##2)(XP_PAIR(name, 0), XP_PAIR(name, 1)); }    \
  F##3 CNFN name(F##3 x, F##3 y) {                                                         \
    return (F##3)(XP_PAIR(name, 0), XP_PAIR(name, 1), XP_PAIR(name, 2));                   \
  }                                                                                        \
  F##4 CNFN name(F##4 x, F##4 y) {                                                         \
    return (F##4)(XP_PAIR(name, 0), XP_PAIR(name, 1), XP_PAIR(name, 2), XP_PAIR(name, 3)); \
  }                                                                                        \
  F##8 CNFN name(F##8 x, F##8 y) { return (F##8)(XP_PAIRS8(xp_##name##_##F)); }            \
  F##16 CNFN name(F##16 x, F##16 y) { return (F##16)(XP_PAIRS16(xp_##name##_##F)); }

// libdevice's names: __nv_sinf for float, __nv_sin for double.
#define XP_NV(name)            \
  float __nv_##name##f(float); \
  double __nv_##name(double);
#define XP_NV2(name)                  \
  float __nv_##name##f(float, float); \
  double __nv_##name(double, double);

#define XP_ONE(name)                                                              \
  XP_NV(name)                                                                     \
  static inline float xp_nv_##name##_float(float x) { return __nv_##name##f(x); } \
  static inline double xp_nv_##name##_double(double x) { return __nv_##name(x); } \
  XP_ONE_TYPE(name, float) XP_ONE_TYPE(name, double)
#define XP_ONE_TYPE(name, F)                                                                \
  F CNFN name(F x) { return xp_nv_##name##_##F(x); }                                        \
  static __attribute__((noinline)) F xp_##name##_##F(F x) { return xp_nv_##name##_##F(x); } \
  XP_LD_VECTORS1(name, F)

#define XP_TWO(name)                                                                           \
  XP_NV2(name)                                                                                 \
  static inline float xp_nv_##name##_float(float x, float y) { return __nv_##name##f(x, y); }  \
  static inline double xp_nv_##name##_double(double x, double y) { return __nv_##name(x, y); } \
  XP_TWO_TYPE(name, float) XP_TWO_TYPE(name, double)
#define XP_TWO_TYPE(name, F)                                     \
  F CNFN name(F x, F y) { return xp_nv_##name##_##F(x, y); }     \
  static __attribute__((noinline)) F xp_##name##_##F(F x, F y) { \
    return xp_nv_##name##_##F(x, y);                             \
  }                                                              \
  XP_LD_VECTORS2(name, F)

// sincos: one range reduction for both results.
void __nv_sincosf(float, float *, float *);
void __nv_sincos(double, double *, double *);
#define XP_SINCOS(F, nv)              \
  F OVL sincos(F x, __generic F *c) { \
    F s;                              \
    nv(x, &s, c);                     \
    return s;                         \
  }                                   \
  static __attribute__((noinline)) F xp_sincos_##F(F x, __generic F *c) { return sincos(x, c); }
XP_SINCOS(float, __nv_sincosf)
XP_SINCOS(double, __nv_sincos)
#define XP_SINCOS_LANE(fn, i) s.s##i = fn(x.s##i, &t), k.s##i = t
#define XP_SINCOS_VECTOR(F, N, LANES)          \
  F##N OVL sincos(F##N x, __generic F##N *c) { \
    F##N s, k;                                 \
    F t;                                       \
    LANES;                                     \
    *c = k;                                    \
    return s;                                  \
  }
#define XP_SC(fn, i) XP_SINCOS_LANE(fn, i)
#define XP_SINCOS_TYPE(F)                                                                        \
  XP_SINCOS_VECTOR(F, 2, XP_SC(sincos, 0); XP_SC(sincos, 1))                                     \
  XP_SINCOS_VECTOR(F, 3, XP_SC(sincos, 0); XP_SC(sincos, 1); XP_SC(sincos, 2))                   \
  XP_SINCOS_VECTOR(F, 4, XP_SC(sincos, 0); XP_SC(sincos, 1); XP_SC(sincos, 2); XP_SC(sincos, 3)) \
  XP_SINCOS_VECTOR(F, 8, XP_SC(xp_sincos_##F, 0); XP_SC(xp_sincos_##F, 1);                       \
                   XP_SC(xp_sincos_##F, 2); XP_SC(xp_sincos_##F, 3); XP_SC(xp_sincos_##F, 4);    \
                   XP_SC(xp_sincos_##F, 5); XP_SC(xp_sincos_##F, 6); XP_SC(xp_sincos_##F, 7))    \
  XP_SINCOS_VECTOR(F, 16, XP_SC(xp_sincos_##F, 0); XP_SC(xp_sincos_##F, 1);                      \
                   XP_SC(xp_sincos_##F, 2); XP_SC(xp_sincos_##F, 3); XP_SC(xp_sincos_##F, 4);    \
                   XP_SC(xp_sincos_##F, 5); XP_SC(xp_sincos_##F, 6); XP_SC(xp_sincos_##F, 7);    \
                   XP_SC(xp_sincos_##F, 8); XP_SC(xp_sincos_##F, 9); XP_SC(xp_sincos_##F, a);    \
                   XP_SC(xp_sincos_##F, b); XP_SC(xp_sincos_##F, c); XP_SC(xp_sincos_##F, d);    \
                   XP_SC(xp_sincos_##F, e); XP_SC(xp_sincos_##F, f))
XP_SINCOS_TYPE(float)
XP_SINCOS_TYPE(double)

// hypot of float only: libdevice's of double overflows where the result is near DBL_MAX
// (hypot(1, DBL_MAX) gave inf), which libclc's does not.
XP_NV2(hypot)
static inline float xp_nv_hypot_float(float x, float y) { return __nv_hypotf(x, y); }
XP_TWO_TYPE(hypot, float)

// tgamma of double only: libdevice's of float, as LLVM 15 compiles it, gives tgamma(-0.5) at 0.5
// and tgamma(0.5) at -0.5 (the cause not found); xpurt's own (spirv/builtins/math.cl) serves.
XP_NV(tgamma)
static inline double xp_nv_tgamma_double(double x) { return __nv_tgamma(x); }
XP_ONE_TYPE(tgamma, double)

// ldexp of double: libclc's turns a NaN scaled far down into a finite number (xpurt's float
// one, in spirv/builtins/math.cl, serves float).
double __nv_ldexp(double, int);
double CNFN ldexp(double x, int n) { return __nv_ldexp(x, n); }

// One line a family.
// clang-format off
XP_ONE(sin) XP_ONE(cos) XP_ONE(tan) XP_ONE(asin) XP_ONE(acos) XP_ONE(atan)
XP_ONE(sinh) XP_ONE(cosh) XP_ONE(tanh) XP_ONE(asinh) XP_ONE(acosh) XP_ONE(atanh)
XP_ONE(exp) XP_ONE(exp2) XP_ONE(exp10) XP_ONE(expm1)
XP_ONE(log) XP_ONE(log2) XP_ONE(log10) XP_ONE(log1p)
XP_ONE(cbrt) XP_ONE(erf) XP_ONE(erfc) XP_ONE(lgamma) XP_ONE(sinpi) XP_ONE(cospi)
XP_TWO(atan2) XP_TWO(pow) XP_TWO(fmod) XP_TWO(remainder)
