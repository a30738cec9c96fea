// Builtins whose results the suite checks against host references on edge values
// (tests/conformance/builtin_values_test.cpp).

#define INT_FUNCTIONS(out, a, b, c, i)                                 \
  out[0] = abs_diff(a[i], b[i]);                                             \
  out[1] = hadd(a[i], b[i]);                                                 \
  out[2] = rhadd(a[i], b[i]);                                                \
  out[3] = mad_hi(a[i], b[i], c[i]);                                         \
  out[4] = ctz(a[i]);                                                        \
  out[5] = clz(a[i]);                                                        \
  out[6] = popcount(a[i]);                                                   \
  out[7] = rotate(a[i], b[i]);                                               \
  out[8] = add_sat(a[i], b[i]);                                              \
  out[9] = sub_sat(a[i], b[i]);                                              \
  out[10] = mad_sat(a[i], b[i], c[i]);                                       \
  out[11] = mul_hi(a[i], b[i]);                                              \
  out[12] = abs(a[i]);                                                       \
  out[13] = a[i] << b[i];                                                    \
  out[14] = bitfield_extract_unsigned(a[i], (uint)c[i] & 7u, (uint)b[i] & 15u); \
  out[15] = bitfield_insert(a[i], b[i], (uint)c[i] & 7u, (uint)b[i] & 15u)

kernel void int_functions(global const int *a, global const int *b, global const int *c,
                          global long *out) {
  size_t i = get_global_id(0);
  global long *o = out + i * 18;
  INT_FUNCTIONS(o, a, b, c, i);
  o[16] = mul24(a[i] & 0x7fffff, b[i] & 0x7fffff);
  o[17] = bitfield_extract_signed(a[i], (uint)c[i] & 7u, (uint)b[i] & 15u);
}

kernel void uint_functions(global const uint *a, global const uint *b, global const uint *c,
                           global long *out) {
  size_t i = get_global_id(0);
  global long *o = out + i * 18;
  INT_FUNCTIONS(o, a, b, c, i);
  o[16] = mad24(a[i] & 0xffffffu, b[i] & 0xffffffu, c[i]);
  o[17] = bitfield_extract_signed(a[i], (uint)c[i] & 7u, (uint)b[i] & 15u);
}

kernel void char_functions(global const char *a, global const char *b, global const char *c,
                           global long *out) {
  size_t i = get_global_id(0);
  global long *o = out + i * 18;
  INT_FUNCTIONS(o, a, b, c, i);
  o[16] = 0;
  o[17] = bitfield_extract_signed(a[i], (uint)c[i] & 7u, (uint)b[i] & 7u);
}

// The same functions on vectors give each element the scalar result.
kernel void int4_functions(global const int4 *a, global const int4 *b, global const int4 *c,
                           global int4 *out) {
  size_t i = get_global_id(0);
  out[i * 5 + 0] = as_int4(abs_diff(a[i], b[i]));
  out[i * 5 + 1] = hadd(a[i], b[i]);
  out[i * 5 + 2] = ctz(a[i]);
  out[i * 5 + 3] = mad_hi(a[i], b[i], c[i]);
  out[i * 5 + 4] = rhadd(a[i], b[i]);
}

kernel void shuffles(global const float8 *x, global const float8 *y, global const uint4 *mask,
                     global float4 *out) {
  size_t i = get_global_id(0);
  out[i * 2] = shuffle(x[i], mask[i]);
  out[i * 2 + 1] = shuffle2(x[i], y[i], mask[i]);
}

kernel void relational(global const float *x, global const float *y, global int *out,
                       global float4 *vout) {
  size_t i = get_global_id(0);
  global int *o = out + i * 8;
  o[0] = isfinite(x[i]);
  o[1] = isnormal(x[i]);
  o[2] = signbit(x[i]);
  o[3] = isnan(x[i]);
  o[4] = isinf(x[i]);
  o[5] = isless(x[i], y[i]);
  o[6] = isunordered(x[i], y[i]);
  o[7] = as_int(bitselect(x[i], y[i], as_float(0x80000000u)));
  float4 v = (float4)(x[i], y[i], -x[i], 1.0f);
  vout[i] = convert_float4(isfinite(v));  // -1 for true in vectors
}

// printf with every kind of conversion, vectors included: the test compares the output byte
// for byte with the host's snprintf.
kernel void print_everything(global const float *f, global const int *i) {
  printf("ints %d %i %u %x %X %o %c %5d|%-5d|%05d %+d\n", i[0], i[1], (uint)i[2], i[3], i[3], i[4],
         'A' + i[5], i[0], i[0], i[0], i[0]);
  printf("longs %ld %lu %lx\n", (long)i[1] * 100000000L, (ulong)i[2] * 3000000000UL, (long)i[3]);
  printf("floats %f %.2f %e %.3E %g %G %10.4f|%-10.1f|\n", f[0], f[1], f[2], f[3], f[4], f[5],
         f[0], f[1]);
  printf("strings %s|%10s|%-6s|%%|%.3s\n", "abc", "right", "left", "truncated");
  short4 s = (short4)((short)i[0], (short)i[1], (short)-3, (short)4);
  ushort4 us = as_ushort4(s);
  float2 v = (float2)(f[0], f[1]);
  int3 t = (int3)(i[0], i[3], i[4]);
  uchar8 c = (uchar8)(1, 2, 3, 250, 5, 6, 7, 8);
  long2 l = (long2)((long)i[1] * 10000000000L, -1L);
  double2 d = (double2)(f[2], 1.0 / 3.0);
  printf("vectors %v4hd|%v2hlf|%v3hld|%v8hhx|%v2ld|%.3v2lf|%#v4hx\n", s, v, t, c, l, d, us);
  int r = printf("%s\n", "returns");
  printf("printf returned %d\n", r);
}

kernel void fences(global int *out, local int *scratch) {
  local int tile[4];
  int priv = 0;
  generic int *g = out, *l = scratch, *t = tile;
  out[0] = get_fence(g);
  out[1] = get_fence(l);
  out[2] = get_fence(t);
  tile[0] = priv;
}

// The shape of a SYCL kernel as icpx emits it: the lambda's captures (device pointers among
// them) as a struct by value, a local accessor as a local pointer followed by its range, and
// the offset as a by-value range. OpenCL C allows neither pointers nor size_t in kernel
// structs: 64-bit integers stand in for them, with the same bytes.
struct Range1 {
  ulong v[1];
};
struct Captures {
  ulong out;
  ulong in;
  float scale;
  int n;
};
kernel void sycl_shaped(struct Captures cap, local float *acc, struct Range1 accRange,
                        struct Range1 offset) {
  size_t i = get_global_id(0), l = get_local_id(0);
  global float *out = (global float *)cap.out;
  global const float *in = (global const float *)cap.in;
  acc[l] = i < (size_t)cap.n ? in[i] * cap.scale : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  size_t mirror = get_local_size(0) - 1 - l;
  if (i < (size_t)cap.n) out[i] = acc[mirror] + (float)(accRange.v[0] * 1000 + offset.v[0]);
}

// Conversions to integers: rounding modes, saturation, NaN and infinities.
kernel void convert_to_integers(global const float *f, global const int *i, global long *out) {
  size_t k = get_global_id(0);
  global long *o = out + k * 12;
  o[0] = convert_int_sat(f[k]);
  o[1] = convert_int_sat_rte(f[k]);
  o[2] = convert_int_sat_rtp(f[k]);
  o[3] = convert_int_sat_rtn(f[k]);
  o[4] = convert_uchar_sat(f[k]);
  o[5] = convert_short_sat_rtp(f[k]);
  o[6] = convert_ulong_sat(f[k]);
  o[7] = convert_long_sat_rte(f[k]);
  o[8] = convert_char_sat(i[k]);
  o[9] = convert_ushort_sat(i[k]);
  o[10] = convert_uint_sat(i[k]);
  o[11] = convert_uchar(i[k]);  // modulo 256
}

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
// Half-precision math (computed in float, rounded once) within cl_khr_fp16's ulp limits.
kernel void half_math(global const half *x, global half *out) {
  size_t k = get_global_id(0);
  half v = x[k];
  global half *o = out + k * 8;
  o[0] = sin(v);
  o[1] = exp(v);
  o[2] = log(fabs(v) + (half)1);
  o[3] = sqrt(fabs(v));
  o[4] = tanh(v);
  o[5] = pow(fabs(v), (half)1.5);
  o[6] = atan2(v, (half)0.75);
  o[7] = cbrt(v);
}

// Geometric functions on float4 and float3.
kernel void geometric(global const float4 *a, global const float4 *b, global float *out) {
  size_t k = get_global_id(0);
  global float *o = out + k * 12;
  o[0] = dot(a[k], b[k]);
  o[1] = length(a[k]);
  o[2] = distance(a[k], b[k]);
  float4 n = normalize(a[k]);
  o[3] = n.x, o[4] = n.y, o[5] = n.z, o[6] = n.w;
  float3 c = cross(a[k].xyz, b[k].xyz);
  o[7] = c.x, o[8] = c.y, o[9] = c.z;
  o[10] = fast_length(a[k]);
  o[11] = dot(a[k].xyz, b[k].xyz);
}

// cl_khr_extended_bit_ops and popcount at every integer width and on a vector, with fields
// from empty to the whole width (Level Zero devices get these rewritten in core SPIR-V).
#define BIT_EDGES(T, bits, x, y, off, cnt, o)                                   \
  o[0] = (ulong)bit_reverse((T)x);                                             \
  o[1] = (ulong)popcount((T)x);                                                \
  o[2] = (ulong)bitfield_extract_unsigned((T)x, off, cnt);                     \
  o[3] = (ulong)(long)bitfield_extract_signed((T)x, off, cnt);                 \
  o[4] = (ulong)bitfield_insert((T)x, (T)y, off, cnt)

kernel void bit_instruction_edges(global const ulong *x, global const ulong *y,
                                  global const uint *off, global const uint *cnt,
                                  global ulong *out) {
  size_t i = get_global_id(0);
  global ulong *o = out + i * 24;
  uint f = off[i], c = cnt[i];
  BIT_EDGES(uchar, 8, x[i], y[i], min(f, 8u), min(c, 8u - min(f, 8u)), o);
  BIT_EDGES(ushort, 16, x[i], y[i], min(f, 16u), min(c, 16u - min(f, 16u)), (o + 5));
  BIT_EDGES(uint, 32, x[i], y[i], min(f, 32u), min(c, 32u - min(f, 32u)), (o + 10));
  BIT_EDGES(ulong, 64, x[i], y[i], f, c, (o + 15));
  uint4 v = (uint4)((uint)x[i], (uint)(x[i] >> 32), (uint)y[i], (uint)(y[i] >> 32));
  uint fv = min(f, 32u), cv = min(c, 32u - fv);
  uint4 r = bit_reverse(v) ^ popcount(v) ^ bitfield_extract_unsigned(v, fv, cv) ^
            bitfield_insert(v, v.wzyx, fv, cv);
  o[20] = r.x;
  o[21] = r.y;
  o[22] = r.z;
  o[23] = r.w;
}
