// Every explicit conversion between the scalar types char uchar short ushort int uint long
// ulong float double, in each rounding mode, saturated and not, a 4-wide form per destination,
// and half to and from float: tests/conformance/conversion_values_test.cpp checks each result
// against a host reference. Integer results go out as ulong, sign- or zero-extended from their
// type as a C conversion does; float, double and half results as their bits.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define CV_INTEGER(D, x, o)               \
  o[0] = (ulong)convert_##D(x);           \
  o[1] = (ulong)convert_##D##_rte(x);     \
  o[2] = (ulong)convert_##D##_rtz(x);     \
  o[3] = (ulong)convert_##D##_rtp(x);     \
  o[4] = (ulong)convert_##D##_rtn(x);     \
  o[5] = (ulong)convert_##D##_sat(x);     \
  o[6] = (ulong)convert_##D##_sat_rte(x); \
  o[7] = (ulong)convert_##D##_sat_rtz(x); \
  o[8] = (ulong)convert_##D##_sat_rtp(x); \
  o[9] = (ulong)convert_##D##_sat_rtn(x)
#define CV_FLOATING(D, AS, x, o)   \
  o[0] = AS(convert_##D(x));       \
  o[1] = AS(convert_##D##_rte(x)); \
  o[2] = AS(convert_##D##_rtz(x)); \
  o[3] = AS(convert_##D##_rtp(x)); \
  o[4] = AS(convert_##D##_rtn(x))

// 4-wide forms: two per destination, 4 results each.
#define CV_STORE4(k, v)           \
  do {                            \
    __typeof__(v) r_ = (v);       \
    o4[(k)*4 + 0] = (ulong)r_.s0; \
    o4[(k)*4 + 1] = (ulong)r_.s1; \
    o4[(k)*4 + 2] = (ulong)r_.s2; \
    o4[(k)*4 + 3] = (ulong)r_.s3; \
  } while (0)
#define CV_VECTOR_INTEGER(D, v, k) \
  CV_STORE4(k, convert_##D##4(v)); \
  CV_STORE4((k) + 1, convert_##D##4_sat_rte(v))

// Slots: 10 per integer destination (char, uchar, short, ushort, int, uint, long, ulong: the
// plain conversion, _rte, _rtz, _rtp, _rtn, then the same saturated), 5 for float and for
// double, then the 4-wide forms: convert_D4 and convert_D4_sat_rte per integer destination,
// convert_float4 and convert_float4_rtp, convert_double4 and convert_double4_rtn.
#define CV_SLOTS 170
#define CV_KERNEL(S)                                                           \
  kernel void from_##S(global const S *in, global ulong *out) {                \
    size_t i = get_global_id(0);                                               \
    S x = in[i];                                                               \
    global ulong *o = out + i * CV_SLOTS, *o4 = o + 90;                        \
    CV_INTEGER(char, x, o);                                                    \
    CV_INTEGER(uchar, x, (o + 10));                                            \
    CV_INTEGER(short, x, (o + 20));                                            \
    CV_INTEGER(ushort, x, (o + 30));                                           \
    CV_INTEGER(int, x, (o + 40));                                              \
    CV_INTEGER(uint, x, (o + 50));                                             \
    CV_INTEGER(long, x, (o + 60));                                             \
    CV_INTEGER(ulong, x, (o + 70));                                            \
    CV_FLOATING(float, as_uint, x, (o + 80));                                  \
    CV_FLOATING(double, as_ulong, x, (o + 85));                                \
    /* elements i to i + 3: the input has 3 more after the last work-item's */ \
    S##4 v = vload4(0, in + i);                                                \
    CV_VECTOR_INTEGER(char, v, 0);                                             \
    CV_VECTOR_INTEGER(uchar, v, 2);                                            \
    CV_VECTOR_INTEGER(short, v, 4);                                            \
    CV_VECTOR_INTEGER(ushort, v, 6);                                           \
    CV_VECTOR_INTEGER(int, v, 8);                                              \
    CV_VECTOR_INTEGER(uint, v, 10);                                            \
    CV_VECTOR_INTEGER(long, v, 12);                                            \
    CV_VECTOR_INTEGER(ulong, v, 14);                                           \
    CV_STORE4(16, as_uint4(convert_float4(v)));                                \
    CV_STORE4(17, as_uint4(convert_float4_rtp(v)));                            \
    CV_STORE4(18, as_ulong4(convert_double4(v)));                              \
    CV_STORE4(19, as_ulong4(convert_double4_rtn(v)));                          \
  }

CV_KERNEL(char)
CV_KERNEL(uchar)
CV_KERNEL(short)
CV_KERNEL(ushort)
CV_KERNEL(int)
CV_KERNEL(uint)
CV_KERNEL(long)
CV_KERNEL(ulong)
CV_KERNEL(float)
CV_KERNEL(double)

// half from float in each rounding mode, and float from half (exact), as bits; 4-wide too.
kernel void half_conversions(global const float *f, global const ushort *h, global uint *out) {
  size_t i = get_global_id(0);
  float x = f[i];
  half y = as_half(h[i]);
  global uint *o = out + i * 18;
  o[0] = as_ushort(convert_half(x));
  o[1] = as_ushort(convert_half_rte(x));
  o[2] = as_ushort(convert_half_rtz(x));
  o[3] = as_ushort(convert_half_rtp(x));
  o[4] = as_ushort(convert_half_rtn(x));
  o[5] = as_uint(convert_float(y));
  ushort4 hv = as_ushort4(convert_half4_rtz(vload4(0, f + i)));
  o[6] = hv.s0, o[7] = hv.s1, o[8] = hv.s2, o[9] = hv.s3;
  uint4 fv = as_uint4(convert_float4(as_half4(vload4(0, h + i))));
  o[10] = fv.s0, o[11] = fv.s1, o[12] = fv.s2, o[13] = fv.s3;
  o[14] = as_uint(convert_float_rtz(y));
  o[15] = as_uint(convert_float_rtp(y));
  o[16] = as_uint(convert_float_rtn(y));
  o[17] = as_uint(convert_float_rte(y));
}
