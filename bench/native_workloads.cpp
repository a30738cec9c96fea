#include "native_workloads.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/blocked_range2d.h>
#include <oneapi/tbb/parallel_for.h>

#include <cmath>

namespace xpurt::bench {

constexpr int kTile = 16;

void nativeSaxpy(float *y, const float *x, float a, int n) {
  tbb::parallel_for(tbb::blocked_range<int>(0, n, 1 << 14), [=](const tbb::blocked_range<int> &r) {
    for (int i = r.begin(); i < r.end(); ++i) y[i] = a * x[i] + y[i];
  });
}

void nativeMathHeavy(float *y, const float *x, int n) {
  tbb::parallel_for(tbb::blocked_range<int>(0, n, 1 << 12), [=](const tbb::blocked_range<int> &r) {
    for (int i = r.begin(); i < r.end(); ++i) {
      float v = x[i];
      y[i] = std::sin(v) * std::exp(-0.5f * v * v) + std::sqrt(std::fabs(v)) * std::cos(0.25f * v) +
             std::log(1.0f + v * v);
    }
  });
}

void nativeMandelbrot(int *out, float x0, float y0, float dx, float dy, int width, int height,
                      int maxIterations) {
  tbb::parallel_for(tbb::blocked_range<int>(0, height), [=](const tbb::blocked_range<int> &r) {
    for (int j = r.begin(); j < r.end(); ++j)
      for (int i = 0; i < width; ++i) {
        float cr = x0 + i * dx, ci = y0 + j * dy, zr = cr, zi = ci;
        int k = 0;
        for (; k < maxIterations; ++k) {
          if (zr * zr + zi * zi > 4.0f) break;
          float nr = zr * zr - zi * zi, ni = 2.0f * zr * zi;
          zr = cr + nr;
          zi = ci + ni;
        }
        out[j * width + i] = k;
      }
  });
}

void nativeReduce(const float *in, float *partial, int n, int block) {
  tbb::parallel_for(tbb::blocked_range<int>(0, n / block, 64),
                    [=](const tbb::blocked_range<int> &r) {
                      for (int g = r.begin(); g < r.end(); ++g) {
                        float sum = 0.0f;
                        for (int i = 0; i < block; ++i) sum += in[g * block + i];
                        partial[g] = sum;
                      }
                    });
}

void nativeTranspose(float *out, const float *in, int rows, int cols) {
  tbb::parallel_for(tbb::blocked_range2d<int>(0, rows / kTile, 0, cols / kTile),
                    [=](const tbb::blocked_range2d<int> &r) {
                      for (int ty = r.rows().begin(); ty < r.rows().end(); ++ty)
                        for (int tx = r.cols().begin(); tx < r.cols().end(); ++tx)
                          for (int y = ty * kTile; y < (ty + 1) * kTile; ++y)
                            for (int x = tx * kTile; x < (tx + 1) * kTile; ++x)
                              out[x * rows + y] = in[y * cols + x];
                    });
}

void nativeSgemm(const float *a, const float *b, float *c, int n) {
  tbb::parallel_for(tbb::blocked_range2d<int>(0, n / kTile, 0, n / kTile),
                    [=](const tbb::blocked_range2d<int> &r) {
                      for (int ti = r.rows().begin(); ti < r.rows().end(); ++ti)
                        for (int tj = r.cols().begin(); tj < r.cols().end(); ++tj) {
                          float acc[kTile][kTile] = {};
                          for (int t = 0; t < n / kTile; ++t)
                            for (int i = 0; i < kTile; ++i)
                              for (int k = 0; k < kTile; ++k) {
                                float av = a[(ti * kTile + i) * n + t * kTile + k];
                                const float *brow = b + (t * kTile + k) * n + tj * kTile;
                                for (int j = 0; j < kTile; ++j) acc[i][j] += av * brow[j];
                              }
                          for (int i = 0; i < kTile; ++i)
                            for (int j = 0; j < kTile; ++j)
                              c[(ti * kTile + i) * n + tj * kTile + j] = acc[i][j];
                        }
                    });
}

}  // namespace xpurt::bench
