#include "cpu_backend.hpp"

#include "cpu_device.hpp"

#include <oneapi/tbb/info.h>

namespace xpurt::cpu {
namespace {

class CpuBackend final : public core::Backend {
 public:
  const char *name() const override { return "cpu"; }
  XpurtDeviceType deviceType() const override { return XPURT_DEVICE_TYPE_CPU; }
  uint32_t deviceCount() override { return 1; }
  XpurtDeviceInfo deviceInfo(uint32_t) override {
    return describeHostCpu(static_cast<uint32_t>(tbb::info::default_concurrency()));
  }
  core::Ref<core::Device> createDevice(uint32_t, const core::DeviceOptions &options) override {
    return core::makeRef<CpuDevice>(*this, deviceInfo(0), options);
  }
};

}  // namespace

std::unique_ptr<core::Backend> createCpuBackend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace xpurt::cpu
