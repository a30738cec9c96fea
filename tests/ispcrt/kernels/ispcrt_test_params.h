/* Parameter blocks of the ISPCRT test kernels, shared by the kernels and the host programs. */
#pragma once

#ifdef __OPENCL_C_VERSION__
#define ISPCRT_TEST_GLOBAL global
#else
#include <stdint.h>
#define ISPCRT_TEST_GLOBAL
#endif

/* ISPC's "simple" example: squares values below 3, takes the square root of the others. */
struct SimpleParams {
  ISPCRT_TEST_GLOBAL float *vin;
  ISPCRT_TEST_GLOBAL float *vout;
  int count;
};

/* data[i] = data[i] * mul + add, each task over its share of count elements. */
struct ScaleAddParams {
  ISPCRT_TEST_GLOBAL float *data;
  int count;
  float mul;
  float add;
};

/* 8 ints per task: taskIndex0..2, taskCount0..2, taskIndex, taskCount. */
struct DimsParams {
  ISPCRT_TEST_GLOBAL int *out;
};

/* data[i] = ispcrt_link_scale(data[i]), the function defined by the library module. */
struct LinkParams {
  ISPCRT_TEST_GLOBAL float *data;
  int count;
};
