// ISPCRT's C++ API over xpurt: the classes of ISPC's ispcrt.hpp with the same names,
// constructors and methods, over ispcrt.h. C++11; it does not include xpurt.hpp (C++17).
//
//   ispcrt::Device device(ISPCRT_DEVICE_TYPE_AUTO);
//   ispcrt::Array<float> in(device, values);            // values: std::vector<float>
//   ispcrt::Array<Params> params(device, p);
//   ispcrt::Module module(device, "simple");            // libsimple.so or simple.spv
//   ispcrt::Kernel kernel(device, module, "simple_ispc");
//   ispcrt::TaskQueue queue(device);
//   queue.copyToDevice(params);
//   queue.copyToDevice(in);
//   ispcrt::Future f = queue.launch(kernel, params, 1);
//   queue.copyToHost(out);
//   queue.sync();                                        // f.valid(), f.time()
//
// Errors go to the error function (ispcrtSetErrorFunc), as with ISPCRT; the wrappers throw only
// where ISPCRT's do (the shared-memory allocator). Unlike ISPCRT's, assigning to a wrapper
// releases the handle it held.
#ifndef ISPCRT_ISPCRT_HPP
#define ISPCRT_ISPCRT_HPP

#include "ispcrt.h"

#include <array>
#include <cstddef>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ispcrt {

// ---- the reference-counted handle every wrapper holds ---------------------------------------

template <typename HANDLE_T = ISPCRTGenericHandle>
class GenericObject {
 public:
  // Takes over the reference the handle holds.
  GenericObject(HANDLE_T object = nullptr) : m_handle(object) {}
  virtual ~GenericObject() {
    if (m_handle) ispcrtRelease(m_handle);
  }
  GenericObject(const GenericObject &copy) : m_handle(copy.m_handle) {
    if (m_handle) ispcrtRetain(m_handle);
  }
  GenericObject(GenericObject &&move) : m_handle(move.m_handle) { move.m_handle = nullptr; }
  GenericObject &operator=(const GenericObject &copy) {
    if (copy.m_handle) ispcrtRetain(copy.m_handle);
    if (m_handle) ispcrtRelease(m_handle);
    m_handle = copy.m_handle;
    return *this;
  }
  GenericObject &operator=(GenericObject &&move) {
    if (this != &move) {
      if (m_handle) ispcrtRelease(m_handle);
      m_handle = move.m_handle;
      move.m_handle = nullptr;
    }
    return *this;
  }

  HANDLE_T handle() const { return m_handle; }
  // Implicit, as ISPCRT's: programs compare wrappers with 0.
  operator bool() const { return m_handle != nullptr; }

 protected:
  // Holds `object` with a reference of its own.
  void setHandle(HANDLE_T object) {
    if (object) ispcrtRetain(object);
    if (m_handle) ispcrtRelease(m_handle);
    m_handle = object;
  }

  HANDLE_T m_handle{nullptr};
};

// A handle the runtime lends (a future, a fence, a command list): the wrapper takes a
// reference of its own.
template <typename HANDLE_T>
inline HANDLE_T retained(HANDLE_T h) {
  if (h) ispcrtRetain(h);
  return h;
}

// ---- futures and fences --------------------------------------------------------------------

class Future : public GenericObject<ISPCRTFuture> {
 public:
  Future() = default;
  Future(ISPCRTFuture f) : GenericObject<ISPCRTFuture>(retained(f)) {}
  // Completed successfully, with its time known.
  bool valid() const { return handle() && ispcrtFutureIsValid(handle()); }
  // Nanoseconds the command took on the device.
  uint64_t time() const { return ispcrtFutureGetTimeNs(handle()); }
};

class Fence : public GenericObject<ISPCRTFence> {
 public:
  Fence() = default;
  Fence(ISPCRTFence f) : GenericObject<ISPCRTFence>(retained(f)) {}
  void sync() { ispcrtFenceSync(handle()); }
  ISPCRTFenceStatus status() const { return ispcrtFenceStatus(handle()); }
  void reset() { ispcrtFenceReset(handle()); }
  void *nativeFenceHandle() const { return ispcrtFenceNativeHandle(handle()); }
};

// ---- contexts and devices ------------------------------------------------------------------

class Context : public GenericObject<ISPCRTContext> {
 public:
  Context() = default;
  Context(ISPCRTDeviceType type) : GenericObject<ISPCRTContext>(ispcrtNewContext(type)) {}
  Context(ISPCRTDeviceType type, ISPCRTGenericHandle nativeContextHandle)
      : GenericObject<ISPCRTContext>(ispcrtGetContextFromNativeHandle(type, nativeContextHandle)) {}
  void *nativeContextHandle() const { return ispcrtContextNativeHandle(handle()); }
};

class Module;

class Device : public GenericObject<ISPCRTDevice> {
 public:
  Device() = default;
  Device(ISPCRTDeviceType type) : Device(type, uint32_t(0)) {}
  Device(ISPCRTDeviceType type, uint32_t deviceIdx)
      : GenericObject<ISPCRTDevice>(ispcrtGetDevice(type, deviceIdx)) {}
  Device(const Context &context) : Device(context, uint32_t(0)) {}
  Device(const Context &context, uint32_t deviceIdx)
      : GenericObject<ISPCRTDevice>(ispcrtGetDeviceFromContext(context.handle(), deviceIdx)) {}
  Device(const Context &context, ISPCRTGenericHandle nativeDeviceHandle)
      : GenericObject<ISPCRTDevice>(
            ispcrtGetDeviceFromNativeHandle(context.handle(), nativeDeviceHandle)) {}

  void *nativePlatformHandle() const { return ispcrtPlatformNativeHandle(handle()); }
  void *nativeDeviceHandle() const { return ispcrtDeviceNativeHandle(handle()); }
  void *nativeContextHandle() const { return ispcrtDeviceContextNativeHandle(handle()); }
  ISPCRTDeviceType getType() const { return ispcrtGetDeviceType(handle()); }

  static uint32_t deviceCount(ISPCRTDeviceType type) { return ispcrtGetDeviceCount(type); }
  static ISPCRTDeviceInfo deviceInformation(ISPCRTDeviceType type, uint32_t deviceIdx) {
    ISPCRTDeviceInfo info = {0, 0};
    ispcrtGetDeviceInfo(type, deviceIdx, &info);
    return info;
  }
  static std::vector<ISPCRTDeviceInfo> allDevicesInformation(ISPCRTDeviceType type) {
    std::vector<ISPCRTDeviceInfo> all(deviceCount(type));
    for (uint32_t i = 0; i < all.size(); ++i) ispcrtGetDeviceInfo(type, i, &all[i]);
    return all;
  }

  void dynamicLinkModules(ISPCRTModule *modules, const uint32_t num) {
    ispcrtDynamicLinkModules(handle(), modules, num);
  }
  Module staticLinkModules(ISPCRTModule *modules, const uint32_t num);
  ISPCRTAllocationType getMemoryAllocType(void *memBuffer) {
    return ispcrtGetMemoryAllocType(handle(), memBuffer);
  }
};

// ---- arrays: typed memory views ------------------------------------------------------------

enum class AllocType { Device, Shared };

enum class SharedMemoryUsageHint {
  HostDeviceReadWrite,
  HostWriteDeviceRead,
  HostReadDeviceWrite,
  ApplicationManagedDevice
};

inline void set_shared_memory_view_flags(ISPCRTNewMemoryViewFlags *flags,
                                         SharedMemoryUsageHint hint) {
  flags->allocType = ISPCRT_ALLOC_TYPE_SHARED;
  switch (hint) {
    case SharedMemoryUsageHint::HostDeviceReadWrite:
      flags->smHint = ISPCRT_SM_HOST_DEVICE_READ_WRITE;
      return;
    case SharedMemoryUsageHint::HostWriteDeviceRead:
      flags->smHint = ISPCRT_SM_HOST_WRITE_DEVICE_READ;
      return;
    case SharedMemoryUsageHint::HostReadDeviceWrite:
      flags->smHint = ISPCRT_SM_HOST_READ_DEVICE_WRITE;
      return;
    case SharedMemoryUsageHint::ApplicationManagedDevice:
      flags->smHint = ISPCRT_SM_APPLICATION_MANAGED_DEVICE;
      return;
  }
  throw std::bad_alloc();
}

// A memory view of T elements: DEVICE (a host copy plus device storage, moved by the queue's
// copies) or SHARED (one allocation for host and device).
template <typename T, AllocType AT = AllocType::Device>
class Array : public GenericObject<ISPCRTMemoryView> {
 public:
  template <AllocType alloc>
  using EnableForSharedAllocation = typename std::enable_if<(alloc == AllocType::Shared)>::type *;
  template <AllocType alloc>
  using EnableForDeviceAllocation = typename std::enable_if<(alloc == AllocType::Device)>::type *;

  Array() = default;

  // DEVICE arrays over the application's memory (the host copy).
  template <AllocType alloc = AT>
  Array(const Device &device, T *appMemory, size_t size, EnableForDeviceAllocation<alloc> = 0) {
    ISPCRTNewMemoryViewFlags flags;
    flags.allocType = ISPCRT_ALLOC_TYPE_DEVICE;
    flags.smHint = ISPCRT_SM_HOST_DEVICE_READ_WRITE;
    m_handle = ispcrtNewMemoryView(device.handle(), appMemory, size * sizeof(T), &flags);
  }
  template <std::size_t N, AllocType alloc = AT>
  Array(const Device &device, std::array<T, N> &arr, EnableForDeviceAllocation<alloc> = 0)
      : Array(device, arr.data(), N) {}
  template <typename ALLOC_T, AllocType alloc = AT>
  Array(const Device &device, std::vector<T, ALLOC_T> &v, EnableForDeviceAllocation<alloc> = 0)
      : Array(device, v.data(), v.size()) {}
  template <AllocType alloc = AT>
  Array(const Device &device, T &obj, EnableForDeviceAllocation<alloc> = 0)
      : Array(device, &obj, 1) {}

  // SHARED arrays of one element or of `size`, for a device or every device of a context.
  template <AllocType alloc = AT>
  Array(const Device &device,
        SharedMemoryUsageHint hint = SharedMemoryUsageHint::HostDeviceReadWrite,
        EnableForSharedAllocation<alloc> = 0)
      : Array(device, 1, hint) {}
  template <AllocType alloc = AT>
  Array(const Context &context,
        SharedMemoryUsageHint hint = SharedMemoryUsageHint::HostDeviceReadWrite,
        EnableForSharedAllocation<alloc> = 0)
      : Array(context, 1, hint) {}
  template <AllocType alloc = AT>
  Array(const Device &device, size_t size,
        SharedMemoryUsageHint hint = SharedMemoryUsageHint::HostDeviceReadWrite,
        EnableForSharedAllocation<alloc> = 0)
      : m_smuh(hint) {
    ISPCRTNewMemoryViewFlags flags;
    set_shared_memory_view_flags(&flags, hint);
    m_handle = ispcrtNewMemoryView(device.handle(), nullptr, size * sizeof(T), &flags);
  }
  template <AllocType alloc = AT>
  Array(const Context &context, size_t size,
        SharedMemoryUsageHint hint = SharedMemoryUsageHint::HostDeviceReadWrite,
        EnableForSharedAllocation<alloc> = 0)
      : m_smuh(hint) {
    ISPCRTNewMemoryViewFlags flags;
    set_shared_memory_view_flags(&flags, hint);
    m_handle = ispcrtNewMemoryViewForContext(context.handle(), nullptr, size * sizeof(T), &flags);
  }

  template <AllocType alloc = AT>
  T *hostPtr(EnableForDeviceAllocation<alloc> = 0) const {
    return static_cast<T *>(ispcrtHostPtr(handle()));
  }
  template <AllocType alloc = AT>
  T *devicePtr(EnableForDeviceAllocation<alloc> = 0) const {
    return static_cast<T *>(ispcrtDevicePtr(handle()));
  }
  template <AllocType alloc = AT>
  T *sharedPtr(EnableForSharedAllocation<alloc> = 0) const {
    return static_cast<T *>(ispcrtSharedPtr(handle()));
  }
  template <AllocType alloc = AT>
  SharedMemoryUsageHint smType(EnableForSharedAllocation<alloc> = 0) const {
    return m_smuh;
  }

  size_t size() const { return ispcrtSize(handle()) / sizeof(T); }
  AllocType type() const { return AT; }

 private:
  SharedMemoryUsageHint m_smuh{SharedMemoryUsageHint::HostDeviceReadWrite};
};

// An allocator of shared memory, for standard containers (SharedVector).
template <typename T>
class SharedMemoryAllocator {
 public:
  using value_type = T;

  SharedMemoryAllocator() = delete;
  SharedMemoryAllocator(const Context &context,
                        SharedMemoryUsageHint hint = SharedMemoryUsageHint::HostDeviceReadWrite)
      : m_context(context), m_smuh(hint) {}
  SharedMemoryAllocator(const SharedMemoryAllocator &) = default;
  ~SharedMemoryAllocator() = default;
  SharedMemoryAllocator &operator=(const SharedMemoryAllocator &) = delete;

  T *allocate(const size_t n) {
    Array<T, AllocType::Shared> a(m_context, n, m_smuh);
    void *p = a.sharedPtr();
    if (!p) throw std::bad_alloc();
    m_ptrToArray[p] = a;
    return static_cast<T *>(p);
  }
  void deallocate(T *const p, const size_t) {
    auto it = m_ptrToArray.find(p);
    if (it == m_ptrToArray.end())
      throw std::invalid_argument("pointer not allocated with this allocator");
    m_ptrToArray.erase(it);
  }

  SharedMemoryUsageHint smType() const { return m_smuh; }

 protected:
  Context m_context;
  SharedMemoryUsageHint m_smuh;
  std::unordered_map<void *, Array<T, AllocType::Shared>> m_ptrToArray;
};

template <typename T>
using SharedVector = std::vector<T, SharedMemoryAllocator<T>>;

// ---- modules and kernels -------------------------------------------------------------------

class ModuleOptions : public GenericObject<ISPCRTModuleOptions> {
 public:
  ModuleOptions(const Device &device)
      : GenericObject<ISPCRTModuleOptions>(ispcrtNewModuleOptionsEmpty(device.handle())) {}
  ModuleOptions(const Device &device, ISPCRTModuleType moduleType, bool libraryCompilation = false,
                uint32_t stackSize = 0)
      : GenericObject<ISPCRTModuleOptions>(
            ispcrtNewModuleOptions(device.handle(), moduleType, libraryCompilation, stackSize)) {}
  ModuleOptions(ISPCRTModuleOptions options) : GenericObject<ISPCRTModuleOptions>(options) {}
  uint32_t stackSize() { return ispcrtModuleOptionsGetStackSize(handle()); }
  bool libraryCompilation() { return ispcrtModuleOptionsGetLibraryCompilation(handle()); }
  ISPCRTModuleType moduleType() { return ispcrtModuleOptionsGetModuleType(handle()); }
  void setStackSize(uint32_t size) { ispcrtModuleOptionsSetStackSize(handle(), size); }
  void setLibraryCompilation(bool library) {
    ispcrtModuleOptionsSetLibraryCompilation(handle(), library);
  }
  void setModuleType(ISPCRTModuleType type) { ispcrtModuleOptionsSetModuleType(handle(), type); }
};

class Module : public GenericObject<ISPCRTModule> {
 public:
  Module() = default;
  Module(const Device &device, const char *moduleName)
      : GenericObject<ISPCRTModule>(ispcrtLoadModule(device.handle(), moduleName)) {}
  Module(const Device &device, const char *moduleName, const ModuleOptions &opts)
      : GenericObject<ISPCRTModule>(
            ispcrtLoadModuleWithOptions(device.handle(), moduleName, opts.handle())) {}
  Module(ISPCRTModule module) : GenericObject<ISPCRTModule>(module) {}
  void *functionPtr(const char *functionName) { return ispcrtFunctionPtr(handle(), functionName); }
};

inline Module Device::staticLinkModules(ISPCRTModule *modules, const uint32_t num) {
  return Module(ispcrtStaticLinkModules(handle(), modules, num));
}

class Kernel : public GenericObject<ISPCRTKernel> {
 public:
  Kernel() = default;
  Kernel(const Device &device, const Module &module, const char *kernelName)
      : GenericObject<ISPCRTKernel>(ispcrtNewKernel(device.handle(), module.handle(), kernelName)) {
  }
};

// ---- command lists and command queues ------------------------------------------------------

class CommandList : public GenericObject<ISPCRTCommandList> {
 public:
  CommandList() = default;
  CommandList(ISPCRTCommandList list) : GenericObject<ISPCRTCommandList>(retained(list)) {}

  void barrier() { ispcrtCommandListBarrier(handle()); }

  template <typename T, AllocType AT>
  Future copyToDevice(const Array<T, AT> &arr) const {
    return ispcrtCommandListCopyToDevice(handle(), arr.handle());
  }
  template <typename T, AllocType AT>
  Future copyToHost(const Array<T, AT> &arr) const {
    return ispcrtCommandListCopyToHost(handle(), arr.handle());
  }
  // size elements from arrSrc's device storage to arrDst's.
  template <typename T, AllocType AT>
  Future copyArray(const Array<T, AT> &arrDst, const Array<T, AT> &arrSrc,
                   const size_t size) const {
    return ispcrtCommandListCopyMemoryView(handle(), arrDst.handle(), arrSrc.handle(),
                                           size * sizeof(T));
  }

  Future launch(const Kernel &k, size_t dim0) const {
    return ispcrtCommandListLaunch1D(handle(), k.handle(), nullptr, dim0);
  }
  Future launch(const Kernel &k, size_t dim0, size_t dim1) const {
    return ispcrtCommandListLaunch2D(handle(), k.handle(), nullptr, dim0, dim1);
  }
  Future launch(const Kernel &k, size_t dim0, size_t dim1, size_t dim2) const {
    return ispcrtCommandListLaunch3D(handle(), k.handle(), nullptr, dim0, dim1, dim2);
  }
  template <typename T, AllocType AT>
  Future launch(const Kernel &k, const Array<T, AT> &p, size_t dim0) const {
    return ispcrtCommandListLaunch1D(handle(), k.handle(), p.handle(), dim0);
  }
  template <typename T, AllocType AT>
  Future launch(const Kernel &k, const Array<T, AT> &p, size_t dim0, size_t dim1) const {
    return ispcrtCommandListLaunch2D(handle(), k.handle(), p.handle(), dim0, dim1);
  }
  template <typename T, AllocType AT>
  Future launch(const Kernel &k, const Array<T, AT> &p, size_t dim0, size_t dim1,
                size_t dim2) const {
    return ispcrtCommandListLaunch3D(handle(), k.handle(), p.handle(), dim0, dim1, dim2);
  }

  void close() { ispcrtCommandListClose(handle()); }
  Fence submit() { return ispcrtCommandListSubmit(handle()); }
  void reset() { ispcrtCommandListReset(handle()); }
  void enableTimestamps() { ispcrtCommandListEnableTimestamps(handle()); }
  void *nativeHandle() const { return ispcrtCommandListNativeHandle(handle()); }
};

class CommandQueue : public GenericObject<ISPCRTCommandQueue> {
 public:
  CommandQueue() = default;
  CommandQueue(const Device &device, uint32_t ordinal)
      : GenericObject<ISPCRTCommandQueue>(ispcrtNewCommandQueue(device.handle(), ordinal)) {}
  CommandList createCommandList() { return ispcrtCommandQueueCreateCommandList(handle()); }
  void sync() { ispcrtCommandQueueSync(handle()); }
  void *nativeHandle() const { return ispcrtCommandQueueNativeHandle(handle()); }
};

// ---- task queues ---------------------------------------------------------------------------

class TaskQueue : public GenericObject<ISPCRTTaskQueue> {
 public:
  TaskQueue() = default;
  TaskQueue(const Device &device)
      : GenericObject<ISPCRTTaskQueue>(ispcrtNewTaskQueue(device.handle())) {}

  void barrier() const { ispcrtDeviceBarrier(handle()); }

  template <typename T, AllocType AT>
  void copyToDevice(const Array<T, AT> &arr) const {
    ispcrtCopyToDevice(handle(), arr.handle());
  }
  template <typename T, AllocType AT>
  void copyToHost(const Array<T, AT> &arr) const {
    ispcrtCopyToHost(handle(), arr.handle());
  }
  // size elements from arrSrc's device storage to arrDst's.
  template <typename T, AllocType AT>
  void copyArray(const Array<T, AT> &arrDst, const Array<T, AT> &arrSrc, const size_t size) const {
    ispcrtCopyMemoryView(handle(), arrDst.handle(), arrSrc.handle(), size * sizeof(T));
  }

  Future launch(const Kernel &k, size_t dim0) const {
    return ispcrtLaunch1D(handle(), k.handle(), nullptr, dim0);
  }
  Future launch(const Kernel &k, size_t dim0, size_t dim1) const {
    return ispcrtLaunch2D(handle(), k.handle(), nullptr, dim0, dim1);
  }
  Future launch(const Kernel &k, size_t dim0, size_t dim1, size_t dim2) const {
    return ispcrtLaunch3D(handle(), k.handle(), nullptr, dim0, dim1, dim2);
  }
  template <typename T, AllocType AT>
  Future launch(const Kernel &k, const Array<T, AT> &p, size_t dim0) const {
    return ispcrtLaunch1D(handle(), k.handle(), p.handle(), dim0);
  }
  template <typename T, AllocType AT>
  Future launch(const Kernel &k, const Array<T, AT> &p, size_t dim0, size_t dim1) const {
    return ispcrtLaunch2D(handle(), k.handle(), p.handle(), dim0, dim1);
  }
  template <typename T, AllocType AT>
  Future launch(const Kernel &k, const Array<T, AT> &p, size_t dim0, size_t dim1,
                size_t dim2) const {
    return ispcrtLaunch3D(handle(), k.handle(), p.handle(), dim0, dim1, dim2);
  }

  // Waits for everything enqueued.
  void sync() const { ispcrtSync(handle()); }
  void *nativeTaskQueueHandle() const { return ispcrtTaskQueueNativeHandle(handle()); }
};

}  // namespace ispcrt

#endif  // ISPCRT_ISPCRT_HPP
