#include "cuda_backend.hpp"

#include "core/log.hpp"
#include "cuda_device.hpp"
#include "ptx_compiler.hpp"

#include <mutex>
#include <vector>

namespace xpurt::cuda {
namespace {

int attribute(CUdevice device, CUdevice_attribute which) {
  int value = 0;
  if (cu().DeviceGetAttribute(&value, which, device) != CUDA_SUCCESS) return 0;
  return value;
}

// Everything xpurt needs to know about a device; nothing (logged) if it cannot run xpurt's
// PTX or a query fails.
std::optional<CudaDeviceDescription> describe(int ordinal) {
  const DriverApi &api = cu();
  CudaDeviceDescription d;
  d.ordinal = ordinal;
  if (CUresult r = api.DeviceGet(&d.device, ordinal); r != CUDA_SUCCESS) {
    core::log().warn("CUDA: cuDeviceGet({}) failed with {}; device skipped", ordinal,
                     resultName(r));
    return std::nullopt;
  }
  char name[256] = {};
  api.DeviceGetName(name, sizeof name - 1, d.device);
  d.computeMajor = attribute(d.device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  d.computeMinor = attribute(d.device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  std::optional<int> target = ptxTargetFor(d.computeMajor, d.computeMinor);
  if (!target) {
    core::log().warn(
        "CUDA: device {} '{}' (compute capability {}.{}) is older than xpurt's "
        "oldest PTX target, sm_50; skipped",
        ordinal, name, d.computeMajor, d.computeMinor);
    return std::nullopt;
  }
  d.ptxTarget = *target;
  d.maxGridSize[0] = static_cast<uint32_t>(attribute(d.device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X));
  d.maxGridSize[1] = static_cast<uint32_t>(attribute(d.device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y));
  d.maxGridSize[2] = static_cast<uint32_t>(attribute(d.device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z));
  d.maxBlockSize[0] =
      static_cast<uint32_t>(attribute(d.device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X));
  d.maxBlockSize[1] =
      static_cast<uint32_t>(attribute(d.device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y));
  d.maxBlockSize[2] =
      static_cast<uint32_t>(attribute(d.device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z));
  d.maxSharedMemoryPerBlock =
      static_cast<uint32_t>(attribute(d.device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  d.maxSharedMemoryOptIn =
      std::max(d.maxSharedMemoryPerBlock,
               static_cast<uint32_t>(
                   attribute(d.device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)));
  d.managedMemory = attribute(d.device, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY) != 0;
  d.streamWaitValue = attribute(d.device, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1) != 0 ||
                      api.version >= 12000;  // stream memory operations are always on from CUDA 12
  size_t memory = 0;
  api.DeviceTotalMem(&memory, d.device);

  XpurtDeviceInfo &info = d.info;
  info.type = XPURT_DEVICE_TYPE_GPU;
  std::snprintf(info.backend, sizeof info.backend, "cuda");
  std::snprintf(info.name, sizeof info.name, "%s", name);
  std::snprintf(info.vendor, sizeof info.vendor, "NVIDIA");
  info.vendorId = 0x10de;
  info.deviceId = static_cast<uint32_t>(attribute(d.device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));
  info.computeUnits =
      static_cast<uint32_t>(attribute(d.device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  info.globalMemorySize = memory;
  info.maxTaskCount = uint64_t{d.maxGridSize[0]} * d.maxGridSize[1] * d.maxGridSize[2];
  info.maxWorkGroupSize =
      static_cast<uint64_t>(attribute(d.device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  info.deviceMemoryIsHostMemory = false;
  return d;
}

class CudaBackend final : public core::Backend {
 public:
  const char *name() const override { return "cuda"; }
  XpurtDeviceType deviceType() const override { return XPURT_DEVICE_TYPE_GPU; }
  uint32_t deviceCount() override { return static_cast<uint32_t>(discovered().size()); }
  std::string whyNoDevices() override {
    discovered();
    return why_;
  }
  XpurtDeviceInfo deviceInfo(uint32_t index) override {
    const auto &all = discovered();
    if (index >= all.size())
      core::fail(XPURT_ERROR_NOT_FOUND, "there is no CUDA device {} ({} found{}{})", index,
                 all.size(), why_.empty() ? "" : ": ", why_);
    return all[index].info;
  }

 protected:
  core::Ref<core::Device> createDevice(uint32_t index, const core::DeviceOptions &) override {
    return core::makeRef<CudaDevice>(*this, discovered().at(index));
  }

 private:
  const std::vector<CudaDeviceDescription> &discovered() {
    std::call_once(discoverOnce_, [this] { discover(); });
    return devices_;
  }

  void discover() {
    if (!openDriver(&why_)) {
      core::log().info("CUDA: {}; there are no CUDA devices", why_);
      return;
    }
    int count = 0;
    if (CUresult r = cu().DeviceGetCount(&count); r != CUDA_SUCCESS || count == 0) {
      why_ = r != CUDA_SUCCESS ? fmt::format("cuDeviceGetCount failed with {}", resultName(r))
                               : "the CUDA driver reports no device";
      core::log().info("CUDA: {}", why_);
      return;
    }
    for (int i = 0; i < count; ++i)
      if (auto d = describe(i)) {
        d->info.index = static_cast<uint32_t>(devices_.size());
        core::log().info(
            "CUDA: device {} '{}' (compute capability {}.{}, PTX for sm_{}), CUDA "
            "driver {}.{}",
            devices_.size(), d->info.name, d->computeMajor, d->computeMinor, d->ptxTarget,
            cu().version / 1000, cu().version % 1000 / 10);
        devices_.push_back(std::move(*d));
      }
    if (devices_.empty()) why_ = "no CUDA device can run xpurt's PTX";
  }

  std::once_flag discoverOnce_;
  std::vector<CudaDeviceDescription> devices_;
  std::string why_;  // why there are no devices
};

}  // namespace

std::unique_ptr<core::Backend> createCudaBackend() {
  return std::make_unique<CudaBackend>();
}

}  // namespace xpurt::cuda
