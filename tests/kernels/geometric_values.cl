// The geometric builtins (OpenCL C 3.0, 6.15.5) of half, float and double on vectors of 1 to 4
// elements, for tests/conformance/geometric_values_test.cpp, which holds the host references.
// Work-item i takes 4 elements of a and of b at i * 4 and writes at out[i * XP_GEOMETRIC]:
// for each width n = 1, 2, 3, 4 (their first n elements) dot, length, distance and the n
// elements of normalize(a); then cross of the 3-element and of the 4-element vectors; and for
// float, fast_length, fast_distance and fast_normalize of the 4-element vectors.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define XP_GEOMETRIC 40

#define XP_WIDTH(T, V, n, PICK)                                              \
  {                                                                          \
    V x = PICK(a), y = PICK(b), u = normalize(x);                            \
    o[k++] = dot(x, y);                                                      \
    o[k++] = length(x);                                                      \
    o[k++] = distance(x, y);                                                 \
    T *w = (T *)&u;                                                          \
    for (int j = 0; j < n; ++j) o[k++] = w[j];                               \
  }
#define XP_PICK1(v) v.s0
#define XP_PICK2(v) v.s01
#define XP_PICK3(v) v.s012
#define XP_PICK4(v) v

#define XP_KERNEL(T)                                                                         \
  kernel void geometric_##T(global const T *pa, global const T *pb, global T *out, uint n) { \
    uint i = get_global_id(0);                                                                \
    if (i >= n) return;                                                                       \
    T##4 a = vload4(i, pa), b = vload4(i, pb);                                                \
    global T *o = out + (size_t)i * XP_GEOMETRIC;                                             \
    int k = 0;                                                                                \
    XP_WIDTH(T, T, 1, XP_PICK1)                                                               \
    XP_WIDTH(T, T##2, 2, XP_PICK2)                                                            \
    XP_WIDTH(T, T##3, 3, XP_PICK3)                                                            \
    XP_WIDTH(T, T##4, 4, XP_PICK4)                                                            \
    T##3 c3 = cross(a.s012, b.s012);                                                          \
    T##4 c4 = cross(a, b);                                                                    \
    o[k++] = c3.s0, o[k++] = c3.s1, o[k++] = c3.s2;                                           \
    o[k++] = c4.s0, o[k++] = c4.s1, o[k++] = c4.s2, o[k++] = c4.s3;                           \
    XP_FAST_##T                                                                               \
  }
#define XP_FAST_half
#define XP_FAST_double
#define XP_FAST_float                                                          \
  float4 f = fast_normalize(a);                                                \
  o[k++] = fast_length(a), o[k++] = fast_distance(a, b);                       \
  o[k++] = f.s0, o[k++] = f.s1, o[k++] = f.s2, o[k++] = f.s3;
XP_KERNEL(half)
XP_KERNEL(float)
XP_KERNEL(double)
