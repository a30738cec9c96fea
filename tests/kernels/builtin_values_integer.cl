// Every integer function of OpenCL C 3.0 (§6.15.3) and the shift operators on every integer
// type, scalar, 4-wide and 3-wide: tests/conformance/integer_values_test.cpp checks each result
// against a host reference. Each result goes out as a ulong, sign- or zero-extended from its
// type as a C conversion does.

// The functions in slot order: S(slot, expression). lo and hi are y and z in order (clamp's
// limits must be ordered), found without min/max so that a broken min or max cannot hide.
// EXTRA adds upsample and the 24-bit multiplies where the type has them.
#define IV_FUNCTIONS(S, x, y, z, lo, hi) \
  S(0, abs(x));                          \
  S(1, abs_diff(x, y));                  \
  S(2, add_sat(x, y));                   \
  S(3, hadd(x, y));                      \
  S(4, rhadd(x, y));                     \
  S(5, clamp(x, lo, hi));                \
  S(6, clz(x));                          \
  S(7, ctz(x));                          \
  S(8, mad_hi(x, y, z));                 \
  S(9, mad_sat(x, y, z));                \
  S(10, max(x, y));                      \
  S(11, min(x, y));                      \
  S(12, mul_hi(x, y));                   \
  S(13, rotate(x, y));                   \
  S(14, sub_sat(x, y));                  \
  S(15, popcount(x));                    \
  S(16, x << y);                         \
  S(17, x >> y)

// Slots 18 to 20: upsample(x, y as unsigned), mul24 and mad24 of x, y taken to 24 bits (sign-
// extended for int, as OpenCL requires of mul24's operands), and z.
#define IV_SLOTS 21
#define IV_NO_EXTRA(S, T, UT, x, y, z) \
  S(18, (T)0);                         \
  S(19, (T)0);                         \
  S(20, (T)0)
#define IV_UPSAMPLE(S, T, UT, x, y, z) \
  S(18, upsample(x, as_##UT(y)));      \
  S(19, (T)0);                         \
  S(20, (T)0)
#define IV_UPSAMPLE_24(S, T, UT, x, y, z, x24, y24) \
  S(18, upsample(x, as_##UT(y)));                   \
  S(19, mul24(x24, y24));                           \
  S(20, mad24(x24, y24, z))
#define IV_INT_EXTRA(S, T, UT, x, y, z) \
  IV_UPSAMPLE_24(S, T, UT, x, y, z, (as_##T(as_##UT(x) << 8) >> 8), (as_##T(as_##UT(y) << 8) >> 8))
#define IV_UINT_EXTRA(S, T, UT, x, y, z) \
  IV_UPSAMPLE_24(S, T, UT, x, y, z, ((x)&0xffffffu), ((y)&0xffffffu))

// Vector forms: the scalar-argument forms of clamp, min and max follow in slots 21 to 23, with
// the vector's first y and z as the scalars.
#define IV_VECTOR_SLOTS 24

#define IV_STORE1(k, v) o[k] = (ulong)(v)
#define IV_STORE3(k, v)           \
  do {                            \
    __typeof__(v) r_ = (v);       \
    o3[(k)*3 + 0] = (ulong)r_.s0; \
    o3[(k)*3 + 1] = (ulong)r_.s1; \
    o3[(k)*3 + 2] = (ulong)r_.s2; \
  } while (0)
#define IV_STORE4(k, v)           \
  do {                            \
    __typeof__(v) r_ = (v);       \
    o4[(k)*4 + 0] = (ulong)r_.s0; \
    o4[(k)*4 + 1] = (ulong)r_.s1; \
    o4[(k)*4 + 2] = (ulong)r_.s2; \
    o4[(k)*4 + 3] = (ulong)r_.s3; \
  } while (0)

#define IV_VECTOR(S, T, VT, UVT, EXTRA, x, y, z) \
  {                                              \
    VT lo = y < z ? y : z, hi = y < z ? z : y;   \
    T slo = y.s0 < z.s0 ? y.s0 : z.s0;           \
    T shi = y.s0 < z.s0 ? z.s0 : y.s0;           \
    IV_FUNCTIONS(S, x, y, z, lo, hi);            \
    EXTRA(S, VT, UVT, x, y, z);                  \
    S(21, clamp(x, slo, shi));                   \
    S(22, min(x, y.s0));                         \
    S(23, max(x, y.s0));                         \
  }

// T_values: one work-item per (a, b, c) triple, IV_SLOTS results each. T_vector_values: work-
// item i takes elements 4i to 4i+3 as a T4 and 3i to 3i+2 as a T3, IV_VECTOR_SLOTS results of
// each, the T4's (4 each) before the T3's (3 each).
#define IV_KERNELS(T, UT, EXTRA)                                                         \
  kernel void T##_values(global const T *a, global const T *b, global const T *c,        \
                         global ulong *out) {                                            \
    size_t i = get_global_id(0);                                                         \
    T x = a[i], y = b[i], z = c[i];                                                      \
    T lo = y < z ? y : z, hi = y < z ? z : y;                                            \
    global ulong *o = out + i * IV_SLOTS;                                                \
    IV_FUNCTIONS(IV_STORE1, x, y, z, lo, hi);                                            \
    EXTRA(IV_STORE1, T, UT, x, y, z);                                                    \
  }                                                                                      \
  kernel void T##_vector_values(global const T *a, global const T *b, global const T *c, \
                                global ulong *out) {                                     \
    size_t i = get_global_id(0);                                                         \
    global ulong *o4 = out + i * IV_VECTOR_SLOTS * 7, *o3 = o4 + IV_VECTOR_SLOTS * 4;    \
    T##4 x4 = vload4(i, a), y4 = vload4(i, b), z4 = vload4(i, c);                        \
    IV_VECTOR(IV_STORE4, T, T##4, UT##4, EXTRA, x4, y4, z4);                             \
    T##3 x3 = vload3(i, a), y3 = vload3(i, b), z3 = vload3(i, c);                        \
    IV_VECTOR(IV_STORE3, T, T##3, UT##3, EXTRA, x3, y3, z3);                             \
  }

IV_KERNELS(char, uchar, IV_UPSAMPLE)
IV_KERNELS(uchar, uchar, IV_UPSAMPLE)
IV_KERNELS(short, ushort, IV_UPSAMPLE)
IV_KERNELS(ushort, ushort, IV_UPSAMPLE)
IV_KERNELS(int, uint, IV_INT_EXTRA)
IV_KERNELS(uint, uint, IV_UINT_EXTRA)
IV_KERNELS(long, ulong, IV_NO_EXTRA)
IV_KERNELS(ulong, ulong, IV_NO_EXTRA)
