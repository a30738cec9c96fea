// Integer builtins that libclc's SPIR-V library lacks (OpenCL C 3.0 §6.15.4,
// cl_khr_extended_bit_ops, cl_khr_integer_dot_product).
#include "builtins.h"

// Unsigned arithmetic throughout: OpenCL C's signed overflow is undefined, the builtins' is not.
#define XP_INTEGER(T, U, ET, EU)                                                        \
  U CNFN abs_diff(T x, T y) {                                                           \
    U ux = as_##U(x), uy = as_##U(y);                                                   \
    return x > y ? ux - uy : uy - ux;                                                   \
  }                                                                                     \
  T CNFN hadd(T x, T y) { return (x >> 1) + (y >> 1) + (x & y & (T)1); }                \
  T CNFN rhadd(T x, T y) { return (x >> 1) + (y >> 1) + ((x | y) & (T)1); }             \
  T CNFN mad_hi(T a, T b, T c) { return as_##T((U)(as_##U(mul_hi(a, b)) + as_##U(c))); }     \
  T CNFN ctz(T x) {                                                                     \
    U u = as_##U(x);                                                                    \
    return as_##T(popcount((U)((U)(u & (U)(-u)) - (U)1)));                              \
  }                                                                                     \
  T CNFN bitfield_insert(T base, T insert, uint offset, uint count) {                   \
    const uint bits = sizeof(ET) * 8;                                                   \
    if (count == 0) return base;                                                        \
    EU low = count >= bits ? (EU)~(EU)0 : (EU)(((EU)1 << count) - (EU)1);               \
    U mask = (U)(EU)(low << offset);                                                    \
    U shifted = (U)(as_##U(insert) << (U)(EU)offset);                                  \
    return as_##T((U)((as_##U(base) & (U)~mask) | (shifted & mask)));                  \
  }                                                                                     \
  U CNFN bitfield_extract_unsigned(T base, uint offset, uint count) {                   \
    const uint bits = sizeof(ET) * 8;                                                   \
    if (count == 0) return (U)0;                                                        \
    U high = (U)(as_##U(base) << (U)(EU)(bits - offset - count));                      \
    return (U)(high >> (U)(EU)(bits - count));                                          \
  }
XP_EACH_INTEGER(XP_INTEGER)

#define XP_SIGNED_EXTRACT(T, U, ET, EU)                                               \
  T CNFN bitfield_extract_signed(T base, uint offset, uint count) {                   \
    const uint bits = sizeof(ET) * 8;                                                 \
    if (count == 0) return (T)0;                                                      \
    T high = as_##T((U)(as_##U(base) << (U)(EU)(bits - offset - count)));             \
    return (T)(high >> (T)(ET)(bits - count));                                        \
  }                                                                                   \
  T CNFN bitfield_extract_signed(U base, uint offset, uint count) {                   \
    return bitfield_extract_signed(as_##T(base), offset, count);                      \
  }
XP_EACH_WIDTH(XP_SIGNED_EXTRACT, char, uchar)
XP_EACH_WIDTH(XP_SIGNED_EXTRACT, short, ushort)
XP_EACH_WIDTH(XP_SIGNED_EXTRACT, int, uint)
XP_EACH_WIDTH(XP_SIGNED_EXTRACT, long, ulong)

// mad_sat on long: libclc's is wrong near every limit (mad_sat(0L, -1L, 1L) and
// mad_sat(1L, 1L, LONG_MAX) give LONG_MIN, mad_sat(1L, LONG_MAX, LONG_MIN) gives LONG_MAX).
// The product and c are added in 128 bits (mul_hi's high half, the wrapped low half and c's
// sign); the sum saturates where its high half is not the low half's sign. Comparisons go
// through select, which scalars and vectors read alike.
#define XP_MAD_SAT_LONG(T, U, ET, EU)                                                        \
  T CNFN mad_sat(T a, T b, T c) {                                                          \
    U lo = as_##U(a) * as_##U(b), uc = as_##U(c), sum = lo + uc;                           \
    U carry = ((lo & uc) | ((lo | uc) & ~sum)) >> (U)63;                                   \
    T high = mul_hi(a, b) + (c >> (T)63) + as_##T(carry);                                  \
    T saturated = select((T)LONG_MAX, (T)LONG_MIN, (T)(high < (T)0));                      \
    return select(saturated, as_##T(sum), (T)(high == (as_##T(sum) >> (T)63)));            \
  }
XP_EACH_WIDTH(XP_MAD_SAT_LONG, long, ulong)

// 24-bit multiplies: the operands' low 24 bits, sign-extended for int.
#define XP_MUL24(T, U, ET, EU)                                                               \
  T CNFN mul24(T x, T y) { return as_##T(as_##U((x << (T)8) >> (T)8) * as_##U((y << (T)8) >> (T)8)); } \
  T CNFN mad24(T x, T y, T z) { return as_##T((U)(as_##U(mul24(x, y)) + as_##U(z))); }
XP_EACH_WIDTH(XP_MUL24, int, uint)
XP_EACH_WIDTH(XP_MUL24, uint, uint)

// Integer dot products. The SPIR-V reader names the non-packed forms after the SPIR-V
// instruction and gives every operand a signed type: the name says which are unsigned.
int CNFN __spirv_SDotKHR_Rint(char4 a, char4 b) {
  int4 p = convert_int4(a) * convert_int4(b);
  return p.x + p.y + p.z + p.w;
}
uint CNFN __spirv_UDotKHR_Ruint(char4 a, char4 b) {
  uint4 p = convert_uint4(as_uchar4(a)) * convert_uint4(as_uchar4(b));
  return p.x + p.y + p.z + p.w;
}
int CNFN __spirv_SUDotKHR_Rint(char4 a, char4 b) {
  int4 p = convert_int4(a) * convert_int4(as_uchar4(b));
  return p.x + p.y + p.z + p.w;
}
int CNFN __spirv_SDotAccSatKHR_Rint(char4 a, char4 b, int acc) {
  return add_sat(__spirv_SDotKHR_Rint(a, b), acc);
}
uint CNFN __spirv_UDotAccSatKHR_Ruint(char4 a, char4 b, int acc) {
  return add_sat(__spirv_UDotKHR_Ruint(a, b), as_uint(acc));
}
int CNFN __spirv_SUDotAccSatKHR_Rint(char4 a, char4 b, int acc) {
  return add_sat(__spirv_SUDotKHR_Rint(a, b), acc);
}
uint CNFN dot_acc_sat_4x8packed_uu_uint(uint a, uint b, uint acc) {
  return add_sat(__spirv_UDotKHR_Ruint(as_char4(a), as_char4(b)), acc);
}
int CNFN dot_acc_sat_4x8packed_ss_int(uint a, uint b, int acc) {
  return add_sat(__spirv_SDotKHR_Rint(as_char4(a), as_char4(b)), acc);
}
int CNFN dot_acc_sat_4x8packed_su_int(uint a, uint b, int acc) {
  return add_sat(__spirv_SUDotKHR_Rint(as_char4(a), as_char4(b)), acc);
}
int CNFN dot_acc_sat_4x8packed_us_int(uint a, uint b, int acc) {
  return add_sat(__spirv_SUDotKHR_Rint(as_char4(b), as_char4(a)), acc);
}
uint CNFN dot_4x8packed_uu_uint(uint a, uint b) {
  return __spirv_UDotKHR_Ruint(as_char4(a), as_char4(b));
}
int CNFN dot_4x8packed_ss_int(uint a, uint b) {
  return __spirv_SDotKHR_Rint(as_char4(a), as_char4(b));
}
int CNFN dot_4x8packed_su_int(uint a, uint b) {
  return __spirv_SUDotKHR_Rint(as_char4(a), as_char4(b));
}
int CNFN dot_4x8packed_us_int(uint a, uint b) {
  return __spirv_SUDotKHR_Rint(as_char4(b), as_char4(a));
}
