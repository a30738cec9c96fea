// Conversions and saturating arithmetic where libclc's NVPTX library is wrong at the edges:
// saturating float-to-integer conversions (libclc gives INT_MIN for NaN; OpenCL says 0),
// directed rounding to float and double (libclc rounds 64-bit integers to nearest whatever the
// mode), and add_sat/sub_sat (wrong for char and short). PTX's cvt rounds in every mode, and
// its float-to-integer forms saturate: they are used through inline assembly (clang's __nvvm_*
// conversion builtins take OpenCL's 128-bit long long, and one lost its rounding mode).
#include "cuda_builtins.h"

// xp_cvt_<dst>_<src>_<mode>(x): one PTX cvt.
#define XP_CVT(DT, ST, name, inst, DC, SC)                       \
  static DT xp_cvt_##name(ST x) {                                \
    DT r;                                                        \
    __asm__("cvt." inst " %0, %1;" : "=" DC(r) : SC(x));         \
    return r;                                                    \
  }
#define XP_CVT_MODES(DT, ST, dname, sname, itype, stype, DC, SC, suffix)              \
  XP_CVT(DT, ST, dname##_##sname##_rte, "rn" suffix "." itype "." stype, DC, SC)     \
  XP_CVT(DT, ST, dname##_##sname##_rtz, "rz" suffix "." itype "." stype, DC, SC)     \
  XP_CVT(DT, ST, dname##_##sname##_rtp, "rp" suffix "." itype "." stype, DC, SC)     \
  XP_CVT(DT, ST, dname##_##sname##_rtn, "rm" suffix "." itype "." stype, DC, SC)

// Float and double to the 32- and 64-bit integers, saturating (cvt.rni and kin), NaN to 0:
// PTX gives 0 for NaN to 32 bits but the lowest value for NaN to 64 bits.
#define XP_CVT_NAN(DT, ST, name, inst, DC, SC)                   \
  static DT xp_cvt_##name(ST x) {                                \
    DT r;                                                        \
    __asm__("cvt." inst " %0, %1;" : "=" DC(r) : SC(x));         \
    return isnan(x) ? (DT)0 : r;                                 \
  }
#define XP_CVT_INT_MODES(DT, ST, itype, stype, DC, SC)                               \
  XP_CVT_NAN(DT, ST, DT##_##ST##_rte, "rni." itype "." stype, DC, SC)               \
  XP_CVT_NAN(DT, ST, DT##_##ST##_rtz, "rzi." itype "." stype, DC, SC)               \
  XP_CVT_NAN(DT, ST, DT##_##ST##_rtp, "rpi." itype "." stype, DC, SC)               \
  XP_CVT_NAN(DT, ST, DT##_##ST##_rtn, "rmi." itype "." stype, DC, SC)
XP_CVT_INT_MODES(int, float, "s32", "f32", "r", "f")
XP_CVT_INT_MODES(uint, float, "u32", "f32", "r", "f")
XP_CVT_INT_MODES(long, float, "s64", "f32", "l", "f")
XP_CVT_INT_MODES(ulong, float, "u64", "f32", "l", "f")
XP_CVT_INT_MODES(int, double, "s32", "f64", "r", "d")
XP_CVT_INT_MODES(uint, double, "u32", "f64", "r", "d")
XP_CVT_INT_MODES(long, double, "s64", "f64", "l", "d")
XP_CVT_INT_MODES(ulong, double, "u64", "f64", "l", "d")
// Integers and double to float, and 64-bit integers to double, rounded in the mode asked.
XP_CVT_MODES(float, int, float, int, "f32", "s32", "f", "r", "")
XP_CVT_MODES(float, uint, float, uint, "f32", "u32", "f", "r", "")
XP_CVT_MODES(float, long, float, long, "f32", "s64", "f", "l", "")
XP_CVT_MODES(float, ulong, float, ulong, "f32", "u64", "f", "l", "")
XP_CVT_MODES(float, double, float, double, "f32", "f64", "f", "d", "")
XP_CVT_MODES(double, long, double, long, "f64", "s64", "d", "l", "")
XP_CVT_MODES(double, ulong, double, ulong, "f64", "u64", "d", "l", "")

// The narrow integers: through int (saturated already), then clamped to their range.
#define XP_NARROW(DT, MINV, MAXV, ST, mode)                                   \
  static DT xp_cvt_##DT##_##ST##_##mode(ST x) {                               \
    return (DT)clamp(xp_cvt_int_##ST##_##mode(x), (int)(MINV), (int)(MAXV));  \
  }
#define XP_NARROW_MODES(DT, MINV, MAXV, ST)                                               \
  XP_NARROW(DT, MINV, MAXV, ST, rte) XP_NARROW(DT, MINV, MAXV, ST, rtz)                 \
  XP_NARROW(DT, MINV, MAXV, ST, rtp) XP_NARROW(DT, MINV, MAXV, ST, rtn)
#define XP_NARROW_TYPES(ST)                                                                \
  XP_NARROW_MODES(char, CHAR_MIN, CHAR_MAX, ST) XP_NARROW_MODES(uchar, 0, UCHAR_MAX, ST)   \
  XP_NARROW_MODES(short, SHRT_MIN, SHRT_MAX, ST) XP_NARROW_MODES(ushort, 0, USHRT_MAX, ST)
XP_NARROW_TYPES(float) XP_NARROW_TYPES(double)

// The OpenCL names, scalar and vector: convert_<dst>[n]<suffix>(<src>[n]) is
// xp_cvt_<dst>_<src>_<mode> on each element.
#define XP_DEFINE(DT, ST, name, mode)                                                   \
  DT OVL name(ST x) { return xp_cvt_##DT##_##ST##_##mode(x); }
#define XP_DEFINE_N(DT, ST, n, name, mode)                                              \
  DT##n OVL name(ST##n x) {                                                             \
    DT##n r;                                                                            \
    for (int k = 0; k < n; ++k) r[k] = xp_cvt_##DT##_##ST##_##mode(x[k]);               \
    return r;                                                                           \
  }
#define XP_DEFINE_ALL(DT, ST, suffix, mode)                                              \
  XP_DEFINE(DT, ST, convert_##DT##suffix, mode)                                          \
  XP_DEFINE_N(DT, ST, 2, convert_##DT##2##suffix, mode)                                  \
  XP_DEFINE_N(DT, ST, 3, convert_##DT##3##suffix, mode)                                  \
  XP_DEFINE_N(DT, ST, 4, convert_##DT##4##suffix, mode)                                  \
  XP_DEFINE_N(DT, ST, 8, convert_##DT##8##suffix, mode)                                  \
  XP_DEFINE_N(DT, ST, 16, convert_##DT##16##suffix, mode)

// Saturating conversions of float and double; without a mode they round toward zero.
#define XP_SATURATING(DT, ST)                                                            \
  XP_DEFINE_ALL(DT, ST, _sat, rtz) XP_DEFINE_ALL(DT, ST, _sat_rte, rte)                \
  XP_DEFINE_ALL(DT, ST, _sat_rtz, rtz) XP_DEFINE_ALL(DT, ST, _sat_rtp, rtp)            \
  XP_DEFINE_ALL(DT, ST, _sat_rtn, rtn)
#define XP_SATURATING_FROM(ST)                                                           \
  XP_SATURATING(char, ST) XP_SATURATING(uchar, ST) XP_SATURATING(short, ST)              \
  XP_SATURATING(ushort, ST) XP_SATURATING(int, ST) XP_SATURATING(uint, ST)               \
  XP_SATURATING(long, ST) XP_SATURATING(ulong, ST)
XP_SATURATING_FROM(float)
XP_SATURATING_FROM(double)

// Directed rounding to float and double.
#define XP_DIRECTED(DT, ST)                                                               \
  XP_DEFINE_ALL(DT, ST, _rte, rte) XP_DEFINE_ALL(DT, ST, _rtz, rtz)                      \
  XP_DEFINE_ALL(DT, ST, _rtp, rtp) XP_DEFINE_ALL(DT, ST, _rtn, rtn)
XP_DIRECTED(float, int) XP_DIRECTED(float, uint) XP_DIRECTED(float, long)
XP_DIRECTED(float, ulong) XP_DIRECTED(float, double)
XP_DIRECTED(double, long) XP_DIRECTED(double, ulong)

// add_sat and sub_sat. 32 and 64 bits: LLVM's saturating intrinsics, which NVPTX expands
// correctly. 8 and 16 bits: in int, clamped (LLVM 15 expands the narrow intrinsics wrongly on
// NVPTX: add_sat((char)-128, (char)-128) gave 0).
#define XP_SAT_WIDE(T)                                                                    \
  T OVL add_sat(T a, T b) { return __builtin_elementwise_add_sat(a, b); }                 \
  T OVL sub_sat(T a, T b) { return __builtin_elementwise_sub_sat(a, b); }
#define XP_SAT_NARROW(T, MINV, MAXV)                                                      \
  T OVL add_sat(T a, T b) { return (T)clamp((int)a + (int)b, (int)(MINV), (int)(MAXV)); } \
  T OVL sub_sat(T a, T b) { return (T)clamp((int)a - (int)b, (int)(MINV), (int)(MAXV)); }
#define XP_SAT_NARROW_N(T, n)                                                             \
  T##n OVL add_sat(T##n a, T##n b) {                                                      \
    T##n r;                                                                               \
    for (int k = 0; k < n; ++k) r[k] = add_sat(a[k], b[k]);                               \
    return r;                                                                             \
  }                                                                                       \
  T##n OVL sub_sat(T##n a, T##n b) {                                                      \
    T##n r;                                                                               \
    for (int k = 0; k < n; ++k) r[k] = sub_sat(a[k], b[k]);                               \
    return r;                                                                             \
  }
#define XP_SAT_WIDTHS(M, T) M(T) M(T##2) M(T##3) M(T##4) M(T##8) M(T##16)
#define XP_SAT_NARROW_WIDTHS(T, MINV, MAXV)                                               \
  XP_SAT_NARROW(T, MINV, MAXV) XP_SAT_NARROW_N(T, 2) XP_SAT_NARROW_N(T, 3)               \
  XP_SAT_NARROW_N(T, 4) XP_SAT_NARROW_N(T, 8) XP_SAT_NARROW_N(T, 16)
XP_SAT_NARROW_WIDTHS(char, CHAR_MIN, CHAR_MAX) XP_SAT_NARROW_WIDTHS(uchar, 0, UCHAR_MAX)
XP_SAT_NARROW_WIDTHS(short, SHRT_MIN, SHRT_MAX) XP_SAT_NARROW_WIDTHS(ushort, 0, USHRT_MAX)
XP_SAT_WIDTHS(XP_SAT_WIDE, int) XP_SAT_WIDTHS(XP_SAT_WIDE, uint)
XP_SAT_WIDTHS(XP_SAT_WIDE, long) XP_SAT_WIDTHS(XP_SAT_WIDE, ulong)
