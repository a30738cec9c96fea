/* Parameters of the simple kernel, shared by the OpenCL C kernel and the host program. */
#pragma once

#ifdef __OPENCL_C_VERSION__
#define XPURT_GLOBAL global
#else
#define XPURT_GLOBAL
#endif

struct SimpleParams {
  XPURT_GLOBAL float *vin;
  XPURT_GLOBAL float *vout;
  int count;
};
