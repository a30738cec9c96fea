// A CUDA device: its primary context, device memory (cuMemAlloc), page-locked host memory for
// the host copies xpurt owns (and the application's, registered while a view wraps it),
// managed memory for SHARED views, queues on streams, modules from SPIR-V (compiled to PTX in
// the JIT worker), PTX or cubin.
#pragma once

#include "core/backend.hpp"
#include "cuda_driver.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace xpurt::cuda {

// What discovery learnt about a device (cuda_backend.cpp).
struct CudaDeviceDescription {
  CUdevice device = 0;
  int ordinal = 0;
  int computeMajor = 0, computeMinor = 0;
  int ptxTarget = 0;  // the sm_NN its SPIR-V is compiled for (ptx_compiler.hpp)
  uint32_t maxGridSize[3] = {1, 1, 1};
  uint32_t maxBlockSize[3] = {1, 1, 1};
  uint32_t maxSharedMemoryPerBlock = 48 * 1024;  // without opting in to more
  uint32_t maxSharedMemoryOptIn = 48 * 1024;     // with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_..._SIZE
  bool managedMemory = false;
  bool streamWaitValue = false;  // cuStreamWaitValue32 on host memory
  XpurtDeviceInfo info{};
};

// The device's primary context, retained while any object of the device lives (queues and
// events may outlive the device handle).
class PrimaryContext {
 public:
  explicit PrimaryContext(CUdevice device);
  ~PrimaryContext();
  PrimaryContext(const PrimaryContext &) = delete;
  PrimaryContext &operator=(const PrimaryContext &) = delete;
  CUcontext handle() const { return context_; }

 private:
  CUdevice device_;
  CUcontext context_ = nullptr;
};

class CudaDevice final : public core::Device {
 public:
  CudaDevice(core::Backend &backend, const CudaDeviceDescription &description);
  ~CudaDevice() override;

  XpurtDeviceInfo info() const override { return description_.info; }
  bool deviceMemoryIsHostMemory() const override { return false; }
  void *allocate(size_t size, XpurtAllocationType type) override;
  void deallocate(void *ptr, XpurtAllocationType type) noexcept override;
  core::Ref<core::TaskQueue> createQueue(const core::QueueOptions &options) override;
  void *nativeHandle(XpurtNativeObject what) const override;
  // Memory of a CUDA device cannot be a host copy.
  void checkApplicationMemory(const void *memory, size_t size) const override;
  Pinning pinApplicationMemory(void *memory, size_t size) override;
  void unpinApplicationMemory(void *memory, std::shared_ptr<void> owner) noexcept override;
  // A task of an ISPCRT-style launch is one block of a warp's 32 threads.
  uint32_t programCount() const override { return 32; }
  uint32_t defaultWorkGroupSize() const override { return 256; }
  // Grids are whole blocks: a partial last work-group is a launch of its own; the offset and
  // the whole launch's sizes go to the kernel with its arguments (KernelLaunch::values).
  bool prefersWholeWorkGroups() const override { return true; }
  // Every CUDA device reaches managed and page-locked memory (unified addressing).
  bool sharesMemoryWith(const core::Device &) const override { return true; }
  // cuMemcpyPeerAsync copies between any two devices; the first copy of a pair enables peer
  // access both ways where the devices have it (NVLink or PCIe), so that copies go directly.
  bool copiesPeerWith(core::Device &other) override;
  // PTX is JIT-compiled per device: a module belongs to one context.
  bool runsKernelsOf(const core::Device &other) const override {
    return static_cast<const CudaDevice &>(other).context() == context();
  }
  core::Ref<core::Module> loadSpirv(std::span<const std::byte> bytes, const std::string &name,
                                    const core::ModuleOptions &options) override;
  // PTX text and cubin (ELF) modules go to the driver as they are.
  bool loadsNativeLibraries() const override { return true; }
  std::string nativeLibraryFileName(const std::string &name) const override {
    return name + ".ptx";
  }
  bool searchesLibraryPath() const override { return false; }
  core::Ref<core::Module> loadNativeLibrary(const core::NativeLibrary &library,
                                            const core::ModuleOptions &options) override;

  // cuda_graph.cpp: a CUDA graph, instantiated once.
  core::Ref<core::GraphExec> lowerGraph(std::shared_ptr<const core::GraphProgram> program) override;
  const CudaDeviceDescription &description() const { return description_; }
  CUcontext context() const { return context_->handle(); }
  const std::shared_ptr<PrimaryContext> &sharedContext() const { return context_; }

 private:
  CudaDeviceDescription description_;
  std::shared_ptr<PrimaryContext> context_;
  std::mutex peersMutex_;
  std::vector<CUdevice> peersTried_;  // devices whose peer access was enabled (or refused)
};

}  // namespace xpurt::cuda
