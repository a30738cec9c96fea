// ISPC's "simple" example as an ISPCRT program writes it: the kernels' module by name (argv[1],
// default xe_simple: the native library on the CPU, SPIR-V elsewhere).
#include "ispcrt.hpp"

#include <cmath>
#include <iostream>
#include <vector>

struct Parameters {
  float *vin;
  float *vout;
  int count;
};

int main(int argc, char **argv) {
  ispcrt::Device device(ISPCRT_DEVICE_TYPE_AUTO);
  std::vector<float> vin(16), vout(16);
  for (int i = 0; i < 16; ++i) vin[i] = static_cast<float>(i);
  ispcrt::Array<float> vin_dev(device, vin);
  ispcrt::Array<float> vout_dev(device, vout);
  Parameters p{vin_dev.devicePtr(), vout_dev.devicePtr(), 16};
  ispcrt::Array<Parameters> p_dev(device, p);
  ispcrt::Module module(device, argc > 1 ? argv[1] : "xe_simple");
  ispcrt::Kernel kernel(device, module, "simple_ispc");
  ispcrt::TaskQueue queue(device);
  queue.copyToDevice(p_dev);
  queue.copyToDevice(vin_dev);
  auto res = queue.launch(kernel, p_dev, 1);
  queue.copyToHost(vout_dev);
  queue.sync();
  if (!res.valid()) return 1;
  std::cout << "time: " << res.time() * 1e-6 << " ms\n";
  for (int i = 0; i < 16; ++i) {
    float expected = vin[i] < 3.0f ? vin[i] * vin[i] : std::sqrt(vin[i]);
    if (vout[i] != expected) {
      std::cout << "element " << i << ": " << vout[i] << ", expected " << expected << "\n";
      return 1;
    }
  }
  std::cout << "ISPCRT consumer: passed\n";
  return 0;
}
