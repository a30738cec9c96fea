// Shared macros of xpurt's OpenCL builtin library (runtime/spirv/builtins/*.cl): OpenCL C for
// any target, compiled by clang-15 at build time and linked over libclc's SPIR-V library.
#pragma once

#include <opencl-c.h>  // the full declarations: clang's builtin table lacks some of them

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define OVL __attribute__((overloadable))
#define CNFN __attribute__((overloadable, const))

// F(type, unsigned type, element type, unsigned element type) for the scalar and each width.
#define XP_EACH_WIDTH(F, T, U)                                                               \
  F(T, U, T, U) F(T##2, U##2, T, U) F(T##3, U##3, T, U) F(T##4, U##4, T, U) F(T##8, U##8, T, U) \
  F(T##16, U##16, T, U)
#define XP_EACH_INTEGER(F)                                                                  \
  XP_EACH_WIDTH(F, char, uchar) XP_EACH_WIDTH(F, uchar, uchar) XP_EACH_WIDTH(F, short, ushort) \
  XP_EACH_WIDTH(F, ushort, ushort) XP_EACH_WIDTH(F, int, uint) XP_EACH_WIDTH(F, uint, uint)   \
  XP_EACH_WIDTH(F, long, ulong) XP_EACH_WIDTH(F, ulong, ulong)

// The names the SPIR-V reader gives SPV_KHR_uniform_group_instructions' OpGroupBitwise*KHR
// (work_group_reduce_bitwise_and, ...), for one scope (work_group, sub_group) and type, as the
// plain ones (work_group_reduce_and, ...), which must be defined first.
#define XP_BITWISE_NAMED(T, scope, op)                                                      \
  T OVL scope##_reduce_bitwise_##op(T x) { return scope##_reduce_##op(x); }                 \
  T OVL scope##_scan_inclusive_bitwise_##op(T x) { return scope##_scan_inclusive_##op(x); } \
  T OVL scope##_scan_exclusive_bitwise_##op(T x) { return scope##_scan_exclusive_##op(x); }
#define XP_BITWISE_NAMES(T, scope) \
  XP_BITWISE_NAMED(T, scope, and) XP_BITWISE_NAMED(T, scope, or) XP_BITWISE_NAMED(T, scope, xor)

// Vector forms of a function of one or two arguments, element by element through the scalar
// form (which must exist).
#define XP_ELEMENTWISE1(name, V, n)                \
  V CNFN name(V x) {                               \
    V r;                                           \
    for (int i = 0; i < n; ++i) r[i] = name(x[i]); \
    return r;                                      \
  }
#define XP_ELEMENTWISE2(name, V, n)                      \
  V CNFN name(V x, V y) {                                \
    V r;                                                 \
    for (int i = 0; i < n; ++i) r[i] = name(x[i], y[i]); \
    return r;                                            \
  }
// Vector forms that also write through a pointer (S: what the scalar form writes, P: the
// vector written), element by element through the scalar form.
#define XP_OUT_VECTOR(name, V, P, S, n, AS)              \
  V OVL name(V x, AS P *out) {                           \
    V r;                                                 \
    P o;                                                 \
    for (int i = 0; i < n; ++i) {                        \
      S t;                                               \
      r[i] = name(x[i], &t);                             \
      o[i] = t;                                          \
    }                                                    \
    *out = o;                                            \
    return r;                                            \
  }
