// ISPC's headline example, mandelbrot_tasks, in OpenCL C: a 2D launch of tasks, each a tile
// of the image whose rows its program instances sweep.
#include <xpurt/task_model.h>

#include "mandelbrot_params.h"

static int escape(float cr, float ci, int maxIterations) {
  float zr = cr, zi = ci;
  int k = 0;
  for (; k < maxIterations; ++k) {
    if (zr * zr + zi * zi > 4.0f) break;
    float nr = zr * zr - zi * zi, ni = 2.0f * zr * zi;
    zr = cr + nr;
    zi = ci + ni;
  }
  return k;
}

XPURT_TASK_KERNEL(16) void mandelbrot_tile(global struct MandelbrotParams *p) {
  int xStart = taskIndex0 * MANDELBROT_TILE, yStart = taskIndex1 * MANDELBROT_TILE;
  int xEnd = min(xStart + MANDELBROT_TILE, p->width);
  int yEnd = min(yStart + MANDELBROT_TILE, p->height);
  for (int y = yStart; y < yEnd; ++y) {
    xpurt_foreach(x, xStart, xEnd) {
      p->out[y * p->width + x] = escape(p->x0 + x * p->dx, p->y0 + y * p->dy, p->maxIterations);
    }
  }
}
