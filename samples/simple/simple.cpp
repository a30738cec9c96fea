// ISPCRT's "simple" program on xpurt: arrays in, one launch, copy out, sync, print the results
// and the kernel time. Runs on the default device (XPURT_DEVICE chooses another).
#include <xpurt/xpurt.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

#include "simple_params.h"

int main() try {
  constexpr int kCount = 16;
  std::vector<float> vin(kCount), vout(kCount);
  for (int i = 0; i < kCount; ++i) vin[i] = static_cast<float>(i);

  xpurt::Device device(xpurt::DeviceType::Auto);
  xpurt::DeviceInfo info = device.info();
  std::printf("device: %s (%s)\n", info.name, info.backend);

  xpurt::Array<float> vinDev(device, vin);
  xpurt::Array<float> voutDev(device, vout);
  SimpleParams params{vinDev.devicePtr(), voutDev.devicePtr(), kCount};
  xpurt::Array<SimpleParams> paramsDev(device, params);

  xpurt::Module module(device, "simple");
  xpurt::Kernel kernel(module, "simple_ispc");
  xpurt::QueueOptions options;
  options.profiling = true;  // the kernel's time is printed
  xpurt::TaskQueue queue(device, options);
  queue.copyToDevice(paramsDev);
  queue.copyToDevice(vinDev);
  xpurt::Future result = queue.launch(kernel, paramsDev, info.computeUnits);
  queue.copyToHost(voutDev);
  queue.sync();

  int wrong = 0;
  for (int i = 0; i < kCount; ++i) {
    float v = vin[i], expected = v < 3.0f ? v * v : std::sqrt(v);
    std::printf("%d: simple(%.1f) = %f\n", i, v, vout[i]);
    if (std::fabs(vout[i] - expected) > 1e-6f) ++wrong;
  }
  if (result.valid()) std::printf("kernel time: %llu ns\n", (unsigned long long)result.timeNs());
  if (wrong) {
    std::printf("%d results are wrong\n", wrong);
    return 1;
  }
  return 0;
} catch (const xpurt::Error &e) {
  std::fprintf(stderr, "xpurt error: %s\n", e.what());
  return 1;
}
