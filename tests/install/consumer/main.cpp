// Built against the installed package only: doubles eight values with a native kernel, then
// triples them with a SPIR-V kernel, on the default device.
#include <xpurt/xpurt.hpp>

#include <cstdio>
#include <vector>

int main() try {
  xpurt::Device device(xpurt::DeviceType::Auto);
  std::vector<int> values{1, 2, 3, 4, 5, 6, 7, 8};
  xpurt::Array<int> array(device, values);
  xpurt::Module module(device, "consumer_kernels");
  xpurt::Kernel kernel(module, "double_values");
  xpurt::TaskQueue queue(device);
  queue.copyToDevice(array);
  // The params pointer is the array itself: the kernel indexes it by task.
  queue.launch(kernel, array, values.size());
  queue.copyToHost(array);
  queue.sync();
  // And a SPIR-V kernel built by xpurt_add_spirv_module in this project.
  xpurt::Module spirv(device, "consumer_spirv");
  queue.copyToDevice(array);
  queue.launch(xpurt::Kernel(spirv, "triple"), array, 1);
  queue.copyToHost(array);
  queue.sync();
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] != 6 * int(i + 1)) {
      std::printf("values[%zu] = %d\n", i, values[i]);
      return 1;
    }
  std::printf("consumer: ok on %s\n", device.info().name);
  return 0;
} catch (const xpurt::Error &e) {
  std::printf("xpurt error: %s\n", e.what());
  return 1;
}
