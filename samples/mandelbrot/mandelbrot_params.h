/* Parameters of the mandelbrot kernel, shared by the OpenCL C kernel and the host program. */
#pragma once

#ifdef __OPENCL_C_VERSION__
#define XPURT_GLOBAL global
#else
#define XPURT_GLOBAL
#endif

#define MANDELBROT_TILE 16 /* each task computes a TILE x TILE block of pixels */

struct MandelbrotParams {
  float x0, y0, dx, dy;
  int width, height, maxIterations;
  XPURT_GLOBAL int *out;
};
