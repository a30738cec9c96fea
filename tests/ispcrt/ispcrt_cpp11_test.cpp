// ispcrt.hpp as ISPCRT programs build it: C++11, every class and template in use. Runs ISPC's
// simple example both ways (a task queue, a command list) and exits non-zero on a failure.
#include <ispcrt.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/ispcrt_test_params.h"

// Every member of the class templates, compiled.
template class ispcrt::GenericObject<ISPCRTDevice>;
template class ispcrt::SharedMemoryAllocator<float>;

namespace {

int failures = 0;
#define CHECK(cond)                                                           \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

void onError(ISPCRTError e, const char *message) {
  std::fprintf(stderr, "ISPCRT error %d: %s\n", static_cast<int>(e), message);
  ++failures;
}

ISPCRTDeviceType deviceType() {
  const char *v = std::getenv("ISPCRT_TEST_DEVICE");
  if (v && std::strcmp(v, "cpu") == 0) return ISPCRT_DEVICE_TYPE_CPU;
  if (v && std::strcmp(v, "gpu") == 0) return ISPCRT_DEVICE_TYPE_GPU;
  return ISPCRT_DEVICE_TYPE_AUTO;
}

float reference(float v) {
  return v < 3.0f ? v * v : std::sqrt(v);
}

}  // namespace

int main() {
  ispcrtSetErrorFunc(onError);
  ispcrt::Device device(deviceType());
  CHECK(device);
  std::vector<ISPCRTDeviceInfo> infos = ispcrt::Device::allDevicesInformation(device.getType());
  CHECK(!infos.empty());

  std::array<float, 16> vin;
  std::array<float, 16> vout;
  for (size_t i = 0; i < vin.size(); ++i) vin[i] = static_cast<float>(i);
  vout.fill(-1.0f);
  ispcrt::Array<float> vinDev(device, vin);
  ispcrt::Array<float> voutDev(device, vout);
  SimpleParams p;
  p.vin = vinDev.devicePtr();
  p.vout = voutDev.devicePtr();
  p.count = 16;
  ispcrt::Array<SimpleParams> params(device, p);
  ispcrt::ModuleOptions options(device);
  ispcrt::Module module(device, "ispcrt_test_kernels", options);
  ispcrt::Kernel kernel(device, module, "simple_ispc");

  ispcrt::TaskQueue queue(device);
  queue.copyToDevice(params);
  queue.copyToDevice(vinDev);
  queue.barrier();
  ispcrt::Future future = queue.launch(kernel, params, 1);
  queue.copyToHost(voutDev);
  queue.sync();
  for (size_t i = 0; i < vin.size(); ++i) CHECK(vout[i] == reference(vin[i]));
  CHECK(future.valid());

  vout.fill(-1.0f);
  ispcrt::CommandQueue commandQueue(device, 0);
  ispcrt::CommandList list = commandQueue.createCommandList();
  list.copyToDevice(params);
  list.copyToDevice(vinDev);
  list.barrier();
  list.launch(kernel, params, 1, 1, 1);
  list.barrier();
  list.copyToHost(voutDev);
  ispcrt::Fence fence = list.submit();
  fence.sync();
  CHECK(fence.status() == ISPCRT_FENCE_SIGNALED);
  commandQueue.sync();
  for (size_t i = 0; i < vin.size(); ++i) CHECK(vout[i] == reference(vin[i]));

  // Shared memory through the allocator, and copies and assignments of the wrappers.
  ispcrt::Context context(device.getType());
  ispcrt::SharedMemoryAllocator<float> sma(context);
  ispcrt::SharedVector<float> shared(8, 1.5f, sma);
  CHECK(shared[7] == 1.5f);
  ispcrt::Array<float, ispcrt::AllocType::Shared> one(context);
  CHECK(one.size() == 1 && one.sharedPtr() != nullptr);
  long long uses = ispcrtUseCount(device.handle());
  ispcrt::Device copy = device;
  copy = device;
  ispcrt::Device moved(std::move(copy));
  CHECK(moved && !copy);
  CHECK(ispcrtUseCount(device.handle()) == uses + 1);

  if (failures) return 1;
  std::puts("ispcrt.hpp as C++11: passed");
  return 0;
}
