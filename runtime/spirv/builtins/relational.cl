// Relational builtins that libclc's SPIR-V library lacks, and shuffle/shuffle2. Comparisons
// give OpenCL's results by themselves: 1/0 as int for scalars, -1/0 of the matching integer
// type for vectors.
#include "builtins.h"

// F(type, integer type of the same size, result type, smallest normal value)
#define XP_REAL_WIDTHS(F, T, I, MIN)                                                      \
  F(T, I, int, MIN) F(T##2, I##2, I##2, MIN) F(T##3, I##3, I##3, MIN)                     \
  F(T##4, I##4, I##4, MIN) F(T##8, I##8, I##8, MIN) F(T##16, I##16, I##16, MIN)
#define XP_RELATIONAL(T, I, R, MIN)                                                      \
  R CNFN isfinite(T x) { return fabs(x) < (T)INFINITY; }                                  \
  R CNFN isnormal(T x) { return fabs(x) >= (T)MIN && fabs(x) < (T)INFINITY; }             \
  R CNFN signbit(T x) { return as_##I(x) < (I)0; }                                        \
  T CNFN bitselect(T a, T b, T c) {                                                       \
    return as_##T((I)((as_##I(a) & ~as_##I(c)) | (as_##I(b) & as_##I(c))));              \
  }
XP_REAL_WIDTHS(XP_RELATIONAL, half, short, HALF_MIN)
XP_REAL_WIDTHS(XP_RELATIONAL, float, int, FLT_MIN)
XP_REAL_WIDTHS(XP_RELATIONAL, double, long, DBL_MIN)

#define XP_BITSELECT(T, U, ET, EU) \
  T CNFN bitselect(T a, T b, T c) { return (T)((a & (T)~c) | (b & c)); }
XP_EACH_INTEGER(XP_BITSELECT)

// shuffle(x, mask): element i of the result is x[mask[i] mod N] (N is a power of two).
#define XP_SHUFFLE(T, N, M, U)                                                         \
  T##M CNFN shuffle(T##N x, U##M mask) {                                               \
    T##M r;                                                                            \
    for (int i = 0; i < M; ++i) r[i] = x[mask[i] & (U)(N - 1)];                        \
    return r;                                                                          \
  }                                                                                    \
  T##M CNFN shuffle2(T##N x, T##N y, U##M mask) {                                      \
    T##M r;                                                                            \
    for (int i = 0; i < M; ++i) {                                                      \
      U k = mask[i] & (U)(2 * N - 1);                                                  \
      r[i] = k < (U)N ? x[k] : y[k - (U)N];                                            \
    }                                                                                  \
    return r;                                                                          \
  }
#define XP_SHUFFLE_M(T, N, U) \
  XP_SHUFFLE(T, N, 2, U) XP_SHUFFLE(T, N, 4, U) XP_SHUFFLE(T, N, 8, U) XP_SHUFFLE(T, N, 16, U)
#define XP_SHUFFLE_T(T, U) \
  XP_SHUFFLE_M(T, 2, U) XP_SHUFFLE_M(T, 4, U) XP_SHUFFLE_M(T, 8, U) XP_SHUFFLE_M(T, 16, U)
XP_SHUFFLE_T(char, uchar) XP_SHUFFLE_T(uchar, uchar) XP_SHUFFLE_T(short, ushort)
XP_SHUFFLE_T(ushort, ushort) XP_SHUFFLE_T(int, uint) XP_SHUFFLE_T(uint, uint)
XP_SHUFFLE_T(long, ulong) XP_SHUFFLE_T(ulong, ulong) XP_SHUFFLE_T(half, ushort)
XP_SHUFFLE_T(float, uint) XP_SHUFFLE_T(double, ulong)
