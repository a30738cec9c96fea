// The common builtins (OpenCL C 3.0, 6.15.4) of half, float and double on every input, for
// tests/conformance/common_values_test.cpp, which holds the host references. Work-item i reads
// x[i], y[i], z[i] and writes XP_COMMON results at out[i * XP_COMMON], in this order: clamp(x,
// y, z) (y <= z), degrees(x), radians(x), max(x, y), min(x, y), mix(y, z, a) with a = x in
// [0, 1], step(y, x), smoothstep(y, z, x) (y < z), sign(x).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define XP_COMMON 9

#define XP_BODY(LOAD, STORE)                      \
  STORE(clamp(LOAD(x), LOAD(y), LOAD(z)), 0);     \
  STORE(degrees(LOAD(x)), 1);                     \
  STORE(radians(LOAD(x)), 2);                     \
  STORE(max(LOAD(x), LOAD(y)), 3);                \
  STORE(min(LOAD(x), LOAD(y)), 4);                \
  STORE(mix(LOAD(y), LOAD(z), LOAD(x)), 5);       \
  STORE(step(LOAD(y), LOAD(x)), 6);               \
  STORE(smoothstep(LOAD(y), LOAD(z), LOAD(x)), 7); \
  STORE(sign(LOAD(x)), 8);

#define XP_LOAD(p) p[i]
#define XP_STORE(v, r) out[(size_t)i * XP_COMMON + r] = (v)
#define XP_SCALAR(T)                                                                          \
  kernel void common_##T(global const T *x, global const T *y, global const T *z, global T *out, \
                         uint n) {                                                            \
    uint i = get_global_id(0);                                                                \
    if (i < n) {                                                                              \
      XP_BODY(XP_LOAD, XP_STORE)                                                              \
    }                                                                                         \
  }
XP_SCALAR(half)
XP_SCALAR(float)
XP_SCALAR(double)

// Vectors of N: work-item i takes elements i * N.. and writes result r of them at
// out[(i * XP_COMMON + r) * N ..].
#define XP_VECTOR(T, N)                                                                         \
  kernel void common_##T##N(global const T *x, global const T *y, global const T *z,            \
                            global T *out, uint n) {                                            \
    uint i = get_global_id(0);                                                                  \
    if (i < n) {                                                                                \
      XP_BODY(XP_VLOAD##N, XP_VSTORE##N)                                                        \
    }                                                                                           \
  }
#define XP_VLOAD8(p) vload8(i, p)
#define XP_VSTORE8(v, r) vstore8((v), (size_t)i * XP_COMMON + r, out)
#define XP_VLOAD4(p) vload4(i, p)
#define XP_VSTORE4(v, r) vstore4((v), (size_t)i * XP_COMMON + r, out)
#define XP_VLOAD2(p) vload2(i, p)
#define XP_VSTORE2(v, r) vstore2((v), (size_t)i * XP_COMMON + r, out)
XP_VECTOR(half, 8)
XP_VECTOR(float, 4)
XP_VECTOR(double, 2)
