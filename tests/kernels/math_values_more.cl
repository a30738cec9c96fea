// The math builtins of float and double that math_values.cl leaves out (those with integer or
// pointer arguments, three arguments, or a result of another type), and half_ and native_ of
// float, for tests/conformance/math_values_more_test.cpp, which holds the host references.
// Work-item i reads x[i], y[i], z[i] and n[i] and writes XP_RESULTS values at
// out[i * XP_RESULTS] and XP_INT_RESULTS at iout[i * XP_INT_RESULTS], in the order below (the
// test's kResults and kIntResults).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define XP_RESULTS 26
#define XP_INT_RESULTS 4

// V: the value type (T or a vector of T), I: the int type of the same width; LOAD(p) reads
// the work-item's element(s) of p, STORE(v, k) writes result k.
#define XP_BODY(V, I, LOAD, ILOAD, STORE, ISTORE)                                       \
  V a = LOAD(x), b = LOAD(y), c = LOAD(z), whole, floor_;                                 \
  I k = ILOAD(n), exponent, quotient, sign;                                              \
  STORE(sqrt(a), 0);                                                                     \
  STORE(rsqrt(a), 1);                                                                    \
  STORE(acospi(a), 2);                                                                   \
  STORE(asinpi(a), 3);                                                                   \
  STORE(atanpi(a), 4);                                                                   \
  STORE(tanpi(a), 5);                                                                    \
  STORE(logb(a), 6);                                                                     \
  STORE(atan2pi(a, b), 7);                                                               \
  STORE(fmax(a, b), 8);                                                                  \
  STORE(fmin(a, b), 9);                                                                  \
  STORE(maxmag(a, b), 10);                                                               \
  STORE(minmag(a, b), 11);                                                               \
  STORE(nextafter(a, b), 12);                                                            \
  STORE(powr(a, b), 13);                                                                 \
  STORE(pown(a, k), 14);                                                                 \
  STORE(rootn(a, k), 15);                                                                \
  STORE(fma(a, b, c), 16);                                                               \
  STORE(mad(a, b, c), 17);                                                               \
  STORE(frexp(a, &exponent), 18);                                                        \
  STORE(modf(a, &whole), 19);                                                            \
  STORE(whole, 20);                                                                      \
  STORE(fract(a, &floor_), 21);                                                          \
  STORE(floor_, 22);                                                                     \
  STORE(remquo(a, b, &quotient), 23);                                                    \
  STORE(lgamma_r(a, &sign), 24);                                                         \
  STORE(fabs(a), 25);                                                                    \
  ISTORE(exponent, 0);                                                                   \
  ISTORE(quotient, 1);                                                                   \
  ISTORE(sign, 2);                                                                       \
  ISTORE(ilogb(a), 3);

#define XP_SCALAR_LOAD(p) p[i]
#define XP_SCALAR_STORE(v, r) out[(size_t)i * XP_RESULTS + r] = (v)
#define XP_SCALAR_ISTORE(v, r) iout[(size_t)i * XP_INT_RESULTS + r] = (v)

#define XP_SCALAR(T)                                                                           \
  kernel void more_##T(global const T *x, global const T *y, global const T *z,                \
                       global const int *n, global T *out, global int *iout, uint count) {     \
    uint i = get_global_id(0);                                                                  \
    if (i >= count) return;                                                                     \
    XP_BODY(T, int, XP_SCALAR_LOAD, XP_SCALAR_LOAD, XP_SCALAR_STORE, XP_SCALAR_ISTORE)          \
  }
XP_SCALAR(float)
XP_SCALAR(double)

// Vectors of N: work-item i takes elements i * N.. and writes result r of them at
// out[(i * XP_RESULTS + r) * N ..] (iout alike).
#define XP_VECTOR(T, N)                                                                        \
  kernel void more_##T##N(global const T *x, global const T *y, global const T *z,             \
                          global const int *n, global T *out, global int *iout, uint count) {  \
    uint i = get_global_id(0);                                                                  \
    if (i >= count) return;                                                                     \
    XP_BODY(T##N, int##N, XP_VLOAD##N, XP_VLOAD##N, XP_VSTORE##N, XP_VISTORE##N)                \
  }
#define XP_VLOAD4(p) vload4(i, p)
#define XP_VSTORE4(v, r) vstore4((v), (size_t)i * XP_RESULTS + r, out)
#define XP_VISTORE4(v, r) vstore4((v), (size_t)i * XP_INT_RESULTS + r, iout)
#define XP_VLOAD2(p) vload2(i, p)
#define XP_VSTORE2(v, r) vstore2((v), (size_t)i * XP_RESULTS + r, out)
#define XP_VISTORE2(v, r) vstore2((v), (size_t)i * XP_INT_RESULTS + r, iout)
XP_VECTOR(float, 4)
XP_VECTOR(double, 2)

// half_ and native_ functions of float (OpenCL C 3.0, 6.15.2.3): the test gives each inputs
// from its domain. Work-item i writes XP_FAST_RESULTS values at out[i * XP_FAST_RESULTS].
#define XP_FAST_RESULTS 28
#define XP_FAST(F)                                                                         \
  F(cos, 0) F(exp, 1) F(exp2, 2) F(exp10, 3) F(log, 4) F(log2, 5) F(log10, 6) F(recip, 7)   \
  F(rsqrt, 8) F(sin, 9) F(sqrt, 10) F(tan, 11)
kernel void fast_float(global const float *x, global const float *y, global float *out,
                       uint count) {
  uint i = get_global_id(0);
  if (i >= count) return;
  float a = x[i], b = y[i];
  global float *o = out + (size_t)i * XP_FAST_RESULTS;
#define XP_STORE_FAST(name, r) o[r] = half_##name(a), o[12 + r] = native_##name(a);
  XP_FAST(XP_STORE_FAST)
  o[24] = half_divide(a, b);
  o[25] = native_divide(a, b);
  o[26] = half_powr(a, b);
  o[27] = native_powr(a, b);
}
