// A Level Zero device: USM memory in its driver's context, queues on immediate command lists
// of its compute and copy-only queue groups, modules built by the driver from SPIR-V or a
// native binary.
#pragma once

#include "core/backend.hpp"
#include "ze_context.hpp"
#include "ze_events.hpp"

#include <level_zero/ze_api.h>

#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace xpurt::level_zero {

// What discovery learnt about a device (ze_backend.cpp).
struct ZeDeviceDescription {
  ze_driver_handle_t driver;
  ze_device_handle_t device;
  ze_device_properties_t properties;
  ze_device_compute_properties_t compute;
  uint32_t computeOrdinal = 0;              // a queue group with COMPUTE
  uint32_t computeQueues = 1;               // its number of queues
  std::optional<uint32_t> copyOrdinal;      // a queue group with COPY and without COMPUTE
  uint32_t maxFillPatternSize[2] = {4, 4};  // of the compute group, of the copy group
  double nsPerTimestampTick = 1.0;          // kernel timestamps
  uint32_t kernelTimestampValidBits = 32;
  XpurtDeviceInfo info;
};

class ZeDevice final : public core::Device {
 public:
  ZeDevice(core::Backend &backend, const ZeDeviceDescription &description,
           std::shared_ptr<ZeContext> context);
  ~ZeDevice() override;

  XpurtDeviceInfo info() const override { return description_.info; }
  bool deviceMemoryIsHostMemory() const override { return false; }
  void *allocate(size_t size, XpurtAllocationType type) override;
  void deallocate(void *ptr, XpurtAllocationType type) noexcept override;
  core::Ref<core::TaskQueue> createQueue(const core::QueueOptions &options) override;
  // Regular command lists recorded once, executed by each launch (ze_graph.hpp).
  core::Ref<core::GraphExec> lowerGraph(std::shared_ptr<const core::GraphProgram> program) override;
  void *nativeHandle(XpurtNativeObject what) const override;
  // zeMemGetAllocProperties: device memory of a Level Zero device cannot be a host copy.
  void checkApplicationMemory(const void *memory, size_t size) const override;
  // A task of an ISPCRT-style launch is one work-group of 16 work-items: the SIMD width Intel
  // GPUs run OpenCL kernels at.
  uint32_t programCount() const override { return 16; }
  // Level Zero launches whole groups only: a partial last work-group is a launch of its own,
  // of a variant of the module that takes the launch's values (ZeModule::launchValueVariant).
  bool prefersWholeWorkGroups() const override { return true; }
  // SHARED and HOST memory belong to a context: one per driver.
  bool sharesMemoryWith(const core::Device &other) const override {
    return &static_cast<const ZeDevice &>(other).context() == context_.get();
  }
  // Devices of one context whose driver says they reach each other's memory
  // (zeDeviceCanAccessPeer) copy between them with one append.
  bool copiesPeerWith(core::Device &other) override;
  // A Level Zero module is built for one device.
  bool runsKernelsOf(const core::Device &other) const override {
    return static_cast<const ZeDevice &>(other).handle() == handle();
  }
  core::Ref<core::Module> loadSpirv(std::span<const std::byte> bytes, const std::string &name,
                                    const core::ModuleOptions &options) override;
  // Native binaries (zebin for Intel GPUs) go to the driver as they are.
  bool loadsNativeLibraries() const override { return true; }
  // ISPCRT's name for a GPU binary (zebin) beside the SPIR-V.
  std::string nativeLibraryFileName(const std::string &name) const override {
    return name + ".bin";
  }
  bool searchesLibraryPath() const override { return false; }
  core::Ref<core::Module> loadNativeLibrary(const core::NativeLibrary &library,
                                            const core::ModuleOptions &options) override;

  const ZeDeviceDescription &description() const { return description_; }
  ze_device_handle_t handle() const { return description_.device; }
  ZeContext &context() const { return *context_; }
  const std::shared_ptr<ZeContext> &sharedContext() const { return context_; }

 private:
  ZeDeviceDescription description_;
  std::shared_ptr<ZeContext> context_;
  std::mutex peersMutex_;
  std::vector<std::pair<ze_device_handle_t, bool>> peers_;  // what zeDeviceCanAccessPeer said
};

}  // namespace xpurt::level_zero
