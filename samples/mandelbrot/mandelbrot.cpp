// mandelbrot: ISPC's mandelbrot_tasks on xpurt. A tiled 2D task launch on the default device;
// writes the image as a PGM file (default mandelbrot.pgm) and checks it against the host.
#include <xpurt/xpurt.hpp>

#include <cstdio>
#include <fstream>
#include <vector>

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

int main(int argc, char **argv) try {
  const char *path = argc > 1 ? argv[1] : "mandelbrot.pgm";
  const int width = 768, height = 512, maxIterations = 256;
  std::vector<int> image(width * height);

  xpurt::Device device(xpurt::DeviceType::Auto);
  std::printf("device: %s (%s)\n", device.info().name, device.info().backend);
  xpurt::Array<int> imageDev(device, image);
  MandelbrotParams params{-2.0f,
                          -1.0f,
                          3.0f / static_cast<float>(width),
                          2.0f / static_cast<float>(height),
                          width,
                          height,
                          maxIterations,
                          imageDev.devicePtr()};
  xpurt::Array<MandelbrotParams> paramsDev(device, params);
  xpurt::Module module(device, "mandelbrot");
  xpurt::Kernel kernel(module, "mandelbrot_tile");
  xpurt::QueueOptions options;
  options.profiling = true;  // the kernel's time is printed
  xpurt::TaskQueue queue(device, options);
  queue.copyToDevice(paramsDev);
  int tilesX = (width + MANDELBROT_TILE - 1) / MANDELBROT_TILE;
  int tilesY = (height + MANDELBROT_TILE - 1) / MANDELBROT_TILE;
  xpurt::Future run = queue.launch(kernel, paramsDev, tilesX, tilesY);
  queue.copyToHost(imageDev);
  queue.sync();

  int wrong = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      if (image[y * width + x] != escape(params.x0 + static_cast<float>(x) * params.dx,
                                         params.y0 + static_cast<float>(y) * params.dy,
                                         maxIterations))
        ++wrong;

  std::ofstream out(path, std::ios::binary);
  out << "P5\n" << width << " " << height << "\n255\n";
  for (int v : image)
    out.put(static_cast<char>(v >= maxIterations ? 0 : 255 - (v * 255) / maxIterations));
  std::printf("%dx%d in %d x %d tasks: %.2f ms; image written to %s\n", width, height, tilesX,
              tilesY, static_cast<double>(run.timeNs()) / 1e6, path);
  // The device may fuse multiply-adds (OpenCL allows it) where the host does not: a few
  // pixels on the set's boundary may escape one iteration apart.
  std::printf("%d of %d pixels differ from the host's\n", wrong, width * height);
  return wrong * 100 < width * height ? 0 : 1;
} catch (const xpurt::Error &e) {
  std::fprintf(stderr, "xpurt error: %s\n", e.what());
  return 1;
}
