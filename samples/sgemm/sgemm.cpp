// sgemm: a tiled matrix multiply with local memory and barriers, launched with arguments over a
// 2D range on the default device, checked against the host and timed.
#include <xpurt/xpurt.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char **argv) try {
  int n = argc > 1 ? std::atoi(argv[1]) : 512;
  if (n <= 0 || n % 16 != 0) {
    std::fprintf(stderr, "usage: sgemm [n]  (n a positive multiple of 16)\n");
    return 2;
  }
  std::vector<float> a(n * n), b(n * n), c(n * n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  for (float &v : a) v = d(rng);
  for (float &v : b) v = d(rng);

  xpurt::Device device(xpurt::DeviceType::Auto);
  std::printf("device: %s (%s)\n", device.info().name, device.info().backend);
  xpurt::Array<float> aDev(device, a), bDev(device, b), cDev(device, c);
  xpurt::Module module(device, "sgemm");
  xpurt::Kernel kernel(module, "sgemm");
  xpurt::QueueOptions options;
  options.profiling = true;  // the kernel's time is printed
  xpurt::TaskQueue queue(device, options);
  queue.copyToDevice(aDev);
  queue.copyToDevice(bDev);
  xpurt::Future run = queue.launch(kernel, xpurt::Range(n, n).local(16, 16), {aDev, bDev, cDev, n});
  queue.copyToHost(cDev);
  queue.sync();

  double worst = 0;
  for (int i = 0; i < n; i += 37)
    for (int j = 0; j < n; j += 41) {
      double want = 0;
      for (int k = 0; k < n; ++k) want += double(a[i * n + k]) * b[k * n + j];
      worst = std::max(worst, std::fabs(c[i * n + j] - want));
    }
  double seconds = static_cast<double>(run.timeNs()) * 1e-9;
  std::printf("%dx%d sgemm: %.2f ms, %.2f GFLOP/s, largest error %.2g\n", n, n, seconds * 1e3,
              2.0 * n * n * n / seconds * 1e-9, worst);
  return worst < 1e-3 ? 0 : 1;
} catch (const xpurt::Error &e) {
  std::fprintf(stderr, "xpurt error: %s\n", e.what());
  return 1;
}
