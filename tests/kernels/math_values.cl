// Math builtins of float, double and half on every input, for
// tests/conformance/math_values_test.cpp, which holds the host references. The order of XP_FUNCTIONS is the test's kFunctions order.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define XP_ONE_ARG(F)                                                                        \
  F(sin) F(cos) F(tan) F(asin) F(acos) F(atan) F(sinh) F(cosh) F(tanh) F(asinh) F(acosh)      \
  F(atanh) F(exp) F(exp2) F(exp10) F(expm1) F(log) F(log2) F(log10) F(log1p) F(cbrt) F(erf) \
  F(erfc) F(lgamma) F(tgamma) F(sinpi) F(cospi) F(round) F(rint) F(trunc) F(floor) F(ceil)
#define XP_TWO_ARGS(F) F(atan2) F(pow) F(hypot) F(fmod) F(remainder) F(fdim) F(copysign)
#define XP_COUNT(name) +1
#define XP_FUNCTIONS (XP_ONE_ARG(XP_COUNT) XP_TWO_ARGS(XP_COUNT) + 2)

// Work-item i writes out[i * XP_FUNCTIONS + f]: function f of x[i] (and y[i]); sincos last.
#define XP_SCALAR(T)                                                                       \
  kernel void math_##T(global const T *x, global const T *y, global T *out, uint n) {      \
    uint i = get_global_id(0);                                                              \
    if (i >= n) return;                                                                     \
    T a = x[i], b = y[i], c;                                                                \
    global T *o = out + (size_t)i * XP_FUNCTIONS;                                           \
    int f = 0;                                                                              \
    XP_ONE_ARG(XP_STORE_ONE) XP_TWO_ARGS(XP_STORE_TWO) o[f++] = sincos(a, &c);              \
    o[f] = c;                                                                               \
  }
#define XP_STORE_ONE(name) o[f++] = name(a);
#define XP_STORE_TWO(name) o[f++] = name(a, b);
XP_SCALAR(float)
XP_SCALAR(double)
XP_SCALAR(half)

// The same on vectors of N: work-item i takes x[i * N ..] and writes function f's N results
// at out[(i * XP_FUNCTIONS + f) * N ..].
#define XP_VECTOR(T, N)                                                                    \
  kernel void math_##T##N(global const T *x, global const T *y, global T *out, uint n) {   \
    uint i = get_global_id(0);                                                              \
    if (i >= n) return;                                                                     \
    T##N a = vload##N(i, x), b = vload##N(i, y), c;                                        \
    global T *o = out + (size_t)i * XP_FUNCTIONS * N;                                       \
    int f = 0;                                                                              \
    XP_ONE_ARG(XP_VSTORE_ONE_##N) XP_TWO_ARGS(XP_VSTORE_TWO_##N)                            \
    vstore##N(sincos(a, &c), f++, o);                                                       \
    vstore##N(c, f, o);                                                                     \
  }
#define XP_VSTORE_ONE_16(name) vstore16(name(a), f++, o);
#define XP_VSTORE_TWO_16(name) vstore16(name(a, b), f++, o);
#define XP_VSTORE_ONE_4(name) vstore4(name(a), f++, o);
#define XP_VSTORE_TWO_4(name) vstore4(name(a, b), f++, o);
XP_VECTOR(float, 16)
XP_VECTOR(double, 4)
#define XP_VSTORE_ONE_8(name) vstore8(name(a), f++, o);
#define XP_VSTORE_TWO_8(name) vstore8(name(a, b), f++, o);
XP_VECTOR(half, 8)

// ldexp, which takes an int: work-item i scales x[i] by 2^n[i].
kernel void ldexp_float(global const float *x, global const int *n, global float *out) {
  size_t i = get_global_id(0);
  out[i] = ldexp(x[i], n[i]);
}
kernel void ldexp_double(global const double *x, global const int *n, global double *out) {
  size_t i = get_global_id(0);
  out[i] = ldexp(x[i], n[i]);
}

// One function a kernel, element by element: the shape a loop vectoriser turns into calls of
// a vector math library (the CPU JIT's: glibc's libmvec, and its own float log; 16 floats or 8
// doubles a call where it compiles for AVX-512, 8 or 4 for AVX2).
#define XP_EACH(T, name, expr)                                                              \
  kernel void each_##name##_##T(global const T *x, global const T *y, global T *out,        \
                                uint n) {                                                   \
    uint i = get_global_id(0);                                                              \
    if (i < n) {                                                                            \
      T a = x[i], b = y[i];                                                                 \
      out[i] = expr;                                                                        \
    }                                                                                       \
  }
#define XP_EACH_TYPE(T)                                                                     \
  XP_EACH(T, sin, sin(a))                                                                   \
  XP_EACH(T, cos, cos(a))                                                                   \
  XP_EACH(T, exp, exp(a))                                                                   \
  XP_EACH(T, log, log(a))                                                                   \
  XP_EACH(T, pow, pow(a, b))
XP_EACH_TYPE(float)
XP_EACH_TYPE(double)
