#include "cuda_device.hpp"

#include "core/log.hpp"
#include "cuda_module.hpp"
#include "cuda_queue.hpp"

#include <algorithm>
#include <utility>

namespace xpurt::cuda {

PrimaryContext::PrimaryContext(CUdevice device) : device_(device) {
  check(cu().DevicePrimaryCtxRetain(&context_, device), "cuDevicePrimaryCtxRetain");
}

PrimaryContext::~PrimaryContext() {
  if (CUresult r = cu().DevicePrimaryCtxRelease(device_); r != CUDA_SUCCESS)
    warnReleaseFailure(
        fmt::format("CUDA: cuDevicePrimaryCtxRelease failed with {}", resultName(r)));
}

CudaDevice::CudaDevice(core::Backend &backend, const CudaDeviceDescription &description)
    : core::Device(backend),
      description_(description),
      context_(std::make_shared<PrimaryContext>(description.device)) {}

CudaDevice::~CudaDevice() = default;

bool CudaDevice::copiesPeerWith(core::Device &other) {
  auto &peer = static_cast<CudaDevice &>(other);
  std::lock_guard lock(peersMutex_);
  if (std::find(peersTried_.begin(), peersTried_.end(), peer.description_.device) !=
      peersTried_.end())
    return true;
  peersTried_.push_back(peer.description_.device);
  // Both ways: a copy on either device's queue then reads or writes the other's memory.
  for (auto [from, to] : {std::pair{this, &peer}, std::pair{&peer, this}}) {
    int can = 0;
    if (cu().DeviceCanAccessPeer(&can, from->description_.device, to->description_.device) !=
            CUDA_SUCCESS ||
        !can) {
      core::log().info(
          "CUDA: {} has no peer access to {}; copies between them go through the "
          "host",
          from->label(), to->label());
      continue;
    }
    ContextScope scope(from->context());
    CUresult r = cu().CtxEnablePeerAccess(to->context(), 0);
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
      core::log().warn(
          "CUDA: peer access from {} to {} not enabled ({}); copies between them "
          "go through the host",
          from->label(), to->label(), resultName(r));
  }
  return true;
}

void *CudaDevice::allocate(size_t size, XpurtAllocationType type) {
  ContextScope scope(context());
  const DriverApi &api = cu();
  CUresult r;
  const char *call;
  void *ptr = nullptr;
  switch (type) {
    case XPURT_ALLOC_TYPE_DEVICE: {
      CUdeviceptr p = 0;
      call = "cuMemAlloc";
      r = api.MemAlloc(&p, size);
      ptr = reinterpret_cast<void *>(p);
      break;
    }
    case XPURT_ALLOC_TYPE_SHARED: {
      if (!description_.managedMemory)
        core::fail(XPURT_ERROR_UNSUPPORTED,
                   "{} has no managed memory, which SHARED views need: use DEVICE views", label());
      // Asking for more managed memory than the device has free can hang the GPU rather than
      // fail: refused here.
      size_t free = 0, total = 0;
      check(api.MemGetInfo(&free, &total), "cuMemGetInfo");
      if (size > free)
        core::fail(XPURT_ERROR_OUT_OF_MEMORY,
                   "a SHARED view of {} bytes is more than the {} bytes free on {}: use a "
                   "smaller view or free memory first",
                   size, free, label());
      CUdeviceptr p = 0;
      call = "cuMemAllocManaged";
      r = api.MemAllocManaged(&p, size, CU_MEM_ATTACH_GLOBAL);
      ptr = reinterpret_cast<void *>(p);
      break;
    }
    default:
      // Page-locked and mapped for every context: copies from it are asynchronous, and the
      // device can read it.
      call = "cuMemHostAlloc";
      r = api.MemHostAlloc(&ptr, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
      break;
  }
  if (r == CUDA_ERROR_OUT_OF_MEMORY || r == CUDA_ERROR_INVALID_VALUE)
    core::fail(XPURT_ERROR_OUT_OF_MEMORY, "{} failed with {}: {} bytes cannot be allocated on {}",
               call, resultName(r), size, label());
  check(r, call, fmt::format("{} bytes on {}", size, label()));
  return ptr;
}

void CudaDevice::deallocate(void *ptr, XpurtAllocationType type) noexcept {
  if (!ptr) return;
  try {
    releaseLater([context = context_, ptr, type] {
      try {
        ContextScope scope(context->handle());
        CUresult r = type == XPURT_ALLOC_TYPE_HOST
                         ? cu().MemFreeHost(ptr)
                         : cu().MemFree(reinterpret_cast<CUdeviceptr>(ptr));
        if (r != CUDA_SUCCESS)
          warnReleaseFailure(fmt::format("CUDA: freeing memory failed with {}", resultName(r)));
      } catch (const core::Error &e) {
        warnReleaseFailure(fmt::format("CUDA: memory not freed: {}", e.what()));
      }
    });
  } catch (const std::exception &e) {
    warnReleaseFailure(fmt::format("CUDA: memory not freed: {}", e.what()));
  }
}

void CudaDevice::checkApplicationMemory(const void *memory, size_t) const {
  ContextScope scope(context());
  CUmemorytype type{};
  CUresult r = cu().PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                        reinterpret_cast<CUdeviceptr>(memory));
  if (r == CUDA_SUCCESS && type == CU_MEMORYTYPE_DEVICE) {
    bool managed = false;
    unsigned int isManaged = 0;
    if (cu().PointerGetAttribute(&isManaged, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                 reinterpret_cast<CUdeviceptr>(memory)) == CUDA_SUCCESS)
      managed = isManaged != 0;
    if (!managed)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                 "the application memory at {} is CUDA device memory, which the host cannot "
                 "read, so it cannot be a DEVICE view's host copy: pass host memory",
                 memory);
  }
}

core::Device::Pinning CudaDevice::pinApplicationMemory(void *memory, size_t size) {
  // Registering costs more than staging a small copy, and pages a small buffer shares with
  // others would be registered with it: small buffers stay pageable.
  constexpr size_t kSmallestRegistered = size_t{256} << 10;
  if (size < kSmallestRegistered) return Pinning::Pageable;
  try {
    ContextScope scope(context());
    CUresult r = cu().MemHostRegister(memory, size, CU_MEMHOSTREGISTER_PORTABLE);
    if (r == CUDA_SUCCESS) return Pinning::Pinned;
    // Registered already, for every context (PORTABLE): by another view of it (the copies of
    // a COHERENT view on several GPUs) or by the application. Where the earlier registration
    // covers only part of it, or goes first, copies from it are still right, only slower.
    if (r == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED) return Pinning::Locked;
    // Memory the driver cannot lock: copies go through the driver's staging buffers instead.
    core::log().debug(
        "CUDA: {} bytes of application memory at {} stay pageable: "
        "cuMemHostRegister failed with {}",
        size, memory, resultName(r));
  } catch (const core::Error &e) {
    core::log().debug("CUDA: application memory stays pageable: {}", e.what());
  }
  return Pinning::Pageable;
}

void CudaDevice::unpinApplicationMemory(void *memory, std::shared_ptr<void> owner) noexcept {
  // Unregistering waits for the device like a free, but the application may reuse the memory
  // as soon as its view is gone, which is fine: no command uses the view any more.
  try {
    // The memory lives until it is unregistered (a COHERENT view's host memory goes with its
    // last copy).
    releaseLater([context = context_, memory, owner = std::move(owner)] {
      (void)owner;
      try {
        ContextScope scope(context->handle());
        if (CUresult r = cu().MemHostUnregister(memory); r != CUDA_SUCCESS)
          warnReleaseFailure(
              fmt::format("CUDA: cuMemHostUnregister failed with {}", resultName(r)));
      } catch (const core::Error &e) {
        warnReleaseFailure(fmt::format("CUDA: application memory not unregistered: {}", e.what()));
      }
    });
  } catch (const std::exception &e) {
    warnReleaseFailure(fmt::format("CUDA: application memory not unregistered: {}", e.what()));
  }
}

core::Ref<core::TaskQueue> CudaDevice::createQueue(const core::QueueOptions &options) {
  return core::makeRef<CudaQueue>(core::Ref<CudaDevice>(this), options);
}

void *CudaDevice::nativeHandle(XpurtNativeObject what) const {
  switch (what) {
    case XPURT_NATIVE_PLATFORM:
      core::fail(XPURT_ERROR_UNSUPPORTED,
                 "CUDA has no platform handle; ask for the device (a CUdevice) or the context");
    case XPURT_NATIVE_DEVICE:
      return reinterpret_cast<void *>(static_cast<uintptr_t>(description_.device));
    case XPURT_NATIVE_CONTEXT:
      return context();
  }
  core::fail(XPURT_ERROR_INVALID_ARGUMENT, "{} is not an XpurtNativeObject",
             static_cast<int>(what));
}

core::Ref<core::Module> CudaDevice::loadSpirv(std::span<const std::byte> bytes,
                                              const std::string &name,
                                              const core::ModuleOptions &options) {
  return loadCudaSpirvModule(core::Ref<CudaDevice>(this), bytes, name, options);
}

core::Ref<core::Module> CudaDevice::loadNativeLibrary(const core::NativeLibrary &library,
                                                      const core::ModuleOptions &options) {
  return loadCudaNativeModule(core::Ref<CudaDevice>(this), library, options);
}

}  // namespace xpurt::cuda
