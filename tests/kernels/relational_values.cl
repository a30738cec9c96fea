// The relational builtins (OpenCL C 3.0, 6.15.6) of half, float and double, for
// tests/conformance/relational_values_test.cpp, which holds the host references. Work-item i
// reads x[i], y[i], z[i] and c[i] and writes XP_TESTS results of the tests at
// out[i * XP_TESTS] (scalars: 1 or 0; vectors: -1 or 0 in the integer type of the element's
// size) and two of the type at sel[i * 2]: bitselect(x, y, z) and select(x, y, c).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define XP_TESTS 14
#define XP_BODY(V, LOAD, STORE, SSTORE)                                                 \
  V a = LOAD(x), b = LOAD(y);                                                           \
  STORE(isequal(a, b), 0);                                                              \
  STORE(isnotequal(a, b), 1);                                                           \
  STORE(isgreater(a, b), 2);                                                            \
  STORE(isgreaterequal(a, b), 3);                                                       \
  STORE(isless(a, b), 4);                                                               \
  STORE(islessequal(a, b), 5);                                                          \
  STORE(islessgreater(a, b), 6);                                                        \
  STORE(isfinite(a), 7);                                                                \
  STORE(isinf(a), 8);                                                                   \
  STORE(isnan(a), 9);                                                                   \
  STORE(isnormal(a), 10);                                                               \
  STORE(isordered(a, b), 11);                                                           \
  STORE(isunordered(a, b), 12);                                                         \
  STORE(signbit(a), 13);                                                                \
  SSTORE(bitselect(a, b, LOAD(z)), 0);                                                  \
  SSTORE(select(a, b, LOAD(c)), 1);

#define XP_LOAD(p) p[i]
#define XP_STORE(v, r) out[(size_t)i * XP_TESTS + r] = (v)
#define XP_SSTORE(v, r) sel[(size_t)i * 2 + r] = (v)
#define XP_SCALAR(T, I)                                                                    \
  kernel void relational_##T(global const T *x, global const T *y, global const T *z,      \
                             global const I *c, global I *out, global T *sel, uint n) {    \
    uint i = get_global_id(0);                                                              \
    if (i < n) {                                                                            \
      XP_BODY(T, XP_LOAD, XP_STORE, XP_SSTORE)                                              \
    }                                                                                       \
  }
// The scalar tests return int; stored as the type of the element's size, as the vectors'.
XP_SCALAR(half, short)
XP_SCALAR(float, int)
XP_SCALAR(double, long)

#define XP_VLOAD(p) vload4(i, p)
#define XP_VSTORE(v, r) vstore4((v), (size_t)i * XP_TESTS + r, out)
#define XP_VSSTORE(v, r) vstore4((v), (size_t)i * 2 + r, sel)
#define XP_VECTOR(T, I)                                                                    \
  kernel void relational_##T##4(global const T *x, global const T *y, global const T *z,   \
                                global const I *c, global I *out, global T *sel, uint n) { \
    uint i = get_global_id(0);                                                              \
    if (i < n) {                                                                            \
      XP_BODY(T##4, XP_VLOAD, XP_VSTORE, XP_VSSTORE)                                        \
    }                                                                                       \
  }
XP_VECTOR(half, short)
XP_VECTOR(float, int)
XP_VECTOR(double, long)
