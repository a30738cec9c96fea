// The benchmark workloads as plain C++ on oneTBB (built with -O3 -march=native): the same
// algorithms as bench/kernels/workloads.cl.
#pragma once

#include <cstddef>

namespace xpurt::bench {

void nativeSaxpy(float *y, const float *x, float a, int n);
void nativeMathHeavy(float *y, const float *x, int n);
void nativeMandelbrot(int *out, float x0, float y0, float dx, float dy, int width, int height,
                      int maxIterations);
// One partial sum per block of `block` elements.
void nativeReduce(const float *in, float *partial, int n, int block);
void nativeTranspose(float *out, const float *in, int rows, int cols);
void nativeSgemm(const float *a, const float *b, float *c, int n);

}  // namespace xpurt::bench
