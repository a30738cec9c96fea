// Shared macros of xpurt's OpenCL builtin library (see README.md in this folder).
#pragma once

#include <opencl-c.h>

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define OVL __attribute__((overloadable))
#define CNFN __attribute__((overloadable, const))

// F(type, n) once per vector width, with the scalar as width 1 (type##1 names the scalar).
#define XP_WIDTHS(F, T) F(T, 2) F(T, 3) F(T, 4) F(T, 8) F(T, 16)
#define XP_WIDTHS_NO3(F, T) F(T, 2) F(T, 4) F(T, 8) F(T, 16)

#define XP_INTEGER_TYPES(F) \
  F(char, uchar) F(uchar, uchar) F(short, ushort) F(ushort, ushort) F(int, uint) F(uint, uint) \
  F(long, ulong) F(ulong, ulong)
#define XP_SIGNED_TYPES(F) F(char, uchar) F(short, ushort) F(int, uint) F(long, ulong)
#define XP_UNSIGNED_TYPES(F) F(uchar, uchar) F(ushort, ushort) F(uint, uint) F(ulong, ulong)
#define XP_FLOAT_TYPES(F) F(half) F(float) F(double)

// F(type, unsigned type, element type, unsigned element type) for the scalar and each width.
#define XP_EACH_WIDTH(F, T, U)                                                               \
  F(T, U, T, U) F(T##2, U##2, T, U) F(T##3, U##3, T, U) F(T##4, U##4, T, U) F(T##8, U##8, T, U) \
  F(T##16, U##16, T, U)
#define XP_EACH_INTEGER(F)                                                                  \
  XP_EACH_WIDTH(F, char, uchar) XP_EACH_WIDTH(F, uchar, uchar) XP_EACH_WIDTH(F, short, ushort) \
  XP_EACH_WIDTH(F, ushort, ushort) XP_EACH_WIDTH(F, int, uint) XP_EACH_WIDTH(F, uint, uint)   \
  XP_EACH_WIDTH(F, long, ulong) XP_EACH_WIDTH(F, ulong, ulong)
// F(type, element type) for each floating-point type and width.
#define XP_EACH_FWIDTH(F, T) F(T, T) F(T##2, T) F(T##3, T) F(T##4, T) F(T##8, T) F(T##16, T)
#define XP_EACH_FLOAT(F) XP_EACH_FWIDTH(F, half) XP_EACH_FWIDTH(F, float) XP_EACH_FWIDTH(F, double)
