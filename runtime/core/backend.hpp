// The backend interface. A backend enumerates devices of one kind; a device allocates memory,
// creates queues and loads modules; a queue runs commands (command.hpp), each signalling its
// event. runtime/core never includes a backend: backends are reached through this interface
// and registered in runtime/api/backend_list.cpp.
#pragma once

#include "error.hpp"
#include "event.hpp"
#include "kernel_signature.hpp"
#include "object.hpp"

#include <xpurt/xpurt.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace xpurt::core {

class CompletionPoller;
class Device;
class GraphExec;
class HostExecutor;
struct GraphProgram;
class Kernel;
class Module;
class TaskQueue;

struct DeviceOptions {
  bool separateMemory = false;  // XPURT_DEVICE_FLAG_SEPARATE_MEMORY
  bool operator==(const DeviceOptions &) const = default;
};

struct QueueOptions {
  XpurtEngine engine = XPURT_ENGINE_ANY;
  bool outOfOrder = false;
  bool profiling = false;
  bool batched = false;  // a hint: submit to the device in batches (XPURT_QUEUE_FLAG_BATCHED)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char *name() const = 0;  // as in XPURT_DEVICE: "cpu", "level_zero", "cuda"
  // The kind of device the backend is for; backends of GPUs may also find other devices (a
  // Level Zero driver for a CPU), whose type typeOfDevice(index) gives.
  virtual XpurtDeviceType deviceType() const = 0;
  virtual XpurtDeviceType typeOfDevice(uint32_t index) {
    (void)index;
    return deviceType();
  }
  virtual uint32_t deviceCount() = 0;
  // Why the backend found no device ("no CUDA driver: ..."), for messages; empty if it has
  // devices or nothing to say.
  virtual std::string whyNoDevices() { return {}; }
  virtual XpurtDeviceInfo deviceInfo(uint32_t index) = 0;
  // The device at index with these options: the one that lives already, shared by every
  // handle and context that names it (one backend state per device), or a new one.
  Ref<Device> device(uint32_t index, const DeviceOptions &options);

 protected:
  virtual Ref<Device> createDevice(uint32_t index, const DeviceOptions &options) = 0;

 private:
  friend class Device;
  void forget(const Device *device);  // from ~Device
  std::mutex devicesMutex_;
  std::vector<Device *> devices_;  // the living ones
};

using BackendFactory = std::unique_ptr<Backend> (*)();

// Every backend of this build, created on first use, GPU backends before the CPU.
std::span<Backend *const> backends();

struct ModuleSource {
  enum class Kind { Name, Path, Memory } kind;
  std::string text;  // the name or the path
  const void *data = nullptr;
  size_t size = 0;
};

struct ModuleOptions {
  std::string buildFlags;
  std::vector<std::pair<uint32_t, uint64_t>> specConstants;
};

// A native library found by the module loader (module_loader.hpp): a file, bytes in memory, or
// a bare file name for the dynamic linker's own search.
struct NativeLibrary {
  enum class Kind { File, Memory, SystemSearch } kind;
  std::string path;            // File: the path to open; SystemSearch: the file name
  std::string name;            // for messages
  const void *data = nullptr;  // Memory
  size_t size = 0;
};

class Device : public Object {
 public:
  static constexpr ObjectKind kKind = ObjectKind::Device;
  explicit Device(Backend &backend);
  ~Device() override;

  Backend &backend() const { return backend_; }
  uint32_t index() const { return index_; }  // within its backend
  const DeviceOptions &options() const { return options_; }
  // "cpu:0 (name)", with "separate memory" where asked for: for messages.
  std::string label() const;
  virtual XpurtDeviceInfo info() const = 0;
  // Device views alias their host copy (no separate storage, copies are free).
  virtual bool deviceMemoryIsHostMemory() const = 0;
  // Whether DEVICE views' storage is plain host memory (the CPU's, separate or not), which any
  // driver copies to and from as host memory (cross_device_copy.hpp).
  virtual bool storageIsHostMemory() const { return false; }
  // Whether this device's queues copy between its memory and DEVICE memory of `other` (a
  // device of the same backend) in one command (Command::CopyKind::Peer); the first call for
  // a pair enables what the driver needs (CUDA's peer access). Thread-safe.
  virtual bool copiesPeerWith(Device &other) {
    (void)other;
    return false;
  }
  // Throws an OUT_OF_MEMORY Error when the memory cannot be had.
  virtual void *allocate(size_t size, XpurtAllocationType type) = 0;
  virtual void deallocate(void *ptr, XpurtAllocationType type) noexcept = 0;
  virtual Ref<TaskQueue> createQueue(const QueueOptions &options) = 0;
  // Throws INVALID_ARGUMENT if the application's memory cannot be a DEVICE view's host copy
  // (memory the host cannot read, such as another device's own).
  virtual void checkApplicationMemory(const void *memory, size_t size) const {
    (void)memory, (void)size;
  }
  // A DEVICE view's host copy in the application's memory: a device whose copies are only
  // asynchronous from page-locked memory locks it until the view goes (Pinned), or finds it
  // locked already, by the application or another view (Locked: copies treat it as locked,
  // and it is not unlocked here). Best effort: memory that cannot be locked is copied from as
  // it is (Pageable).
  enum class Pinning { Pageable, Pinned, Locked };
  virtual Pinning pinApplicationMemory(void *memory, size_t size) {
    (void)memory, (void)size;
    return Pinning::Pageable;
  }
  // owner: what keeps the memory alive (null: the application), held until it is unlocked,
  // which a device may do later.
  virtual void unpinApplicationMemory(void *memory, std::shared_ptr<void> owner) noexcept {
    (void)memory, (void)owner;
  }
  // Work-items per task of an ISPCRT-style launch of a SPIR-V kernel (ISPC's programCount),
  // and the work-group size a general launch gets when it leaves the choice to the runtime.
  virtual uint32_t programCount() const = 0;
  virtual uint32_t defaultWorkGroupSize() const { return 64; }
  // Whether this device reaches SHARED and HOST memory of `other` (a device of the same
  // backend): one context's devices do, another driver's do not.
  virtual bool sharesMemoryWith(const Device &other) const {
    (void)other;
    return true;
  }
  // Whether kernels of modules loaded for `other` (of the same backend) run here.
  virtual bool runsKernelsOf(const Device &other) const {
    (void)other;
    return true;
  }
  // Whether a launch whose last work-group is partial costs more than one launch (the device
  // runs it as several launches of whole groups, core::splitIntoWholeGroups): the runtime then
  // prefers a local size that divides the global size where it chooses one.
  virtual bool prefersWholeWorkGroups() const { return false; }
  // A SPIR-V module, its bytes not yet checked; name is for messages. Modules are found and
  // told apart by core::loadModule (module_loader.hpp), the same for every device.
  virtual Ref<Module> loadSpirv(std::span<const std::byte> bytes, const std::string &name,
                                const ModuleOptions &options) = 0;
  // Whether the device runs native libraries (ELF shared objects); only then is the next
  // called. A SystemSearch that finds nothing returns null.
  virtual bool loadsNativeLibraries() const { return false; }
  // The file a native module of that name is in, when looked up by name: a shared library
  // for the CPU, a GPU binary elsewhere. Searched before NAME.spv.
  virtual std::string nativeLibraryFileName(const std::string &name) const {
    return "lib" + name + ".so";
  }
  // Whether the dynamic linker's own search is tried last for a native module by name.
  virtual bool searchesLibraryPath() const { return loadsNativeLibraries(); }
  virtual Ref<Module> loadNativeLibrary(const NativeLibrary &library,
                                        const ModuleOptions &options) {
    (void)library, (void)options;
    return nullptr;
  }
  // The device's lowering of a checked, flattened graph (graph_exec.hpp). The default runs
  // each launch node by node through the launching queue.
  virtual Ref<GraphExec> lowerGraph(std::shared_ptr<const GraphProgram> program);
  // The driver's handle of the device's platform, device or context (xpurtDeviceGetNativeHandle).
  // The default: UNSUPPORTED, for a device that is not a driver's.
  virtual void *nativeHandle(XpurtNativeObject what) const;

  // The device's threads, made on first use and shared by all its queues: the one poller that
  // sees device work end (completion_poller.hpp), and the executor of host work that may block
  // (host_executor.hpp). A device that has neither kind of work has no thread.
  CompletionPoller &completionPoller();
  HostExecutor &hostExecutor();

 private:
  friend class Backend;
  std::once_flag pollerOnce_, executorOnce_;
  std::unique_ptr<CompletionPoller> poller_;
  std::unique_ptr<HostExecutor> executor_;
  Backend &backend_;
  uint32_t index_ = 0;
  DeviceOptions options_;
  bool registered_ = false;  // in the backend's list of living devices
};

class Module : public Object {
 public:
  static constexpr ObjectKind kKind = ObjectKind::Module;
  Module(Ref<Device> device, std::string name)
      : Object(kKind), device_(std::move(device)), name_(std::move(name)) {}

  Device &device() const { return *device_; }
  const std::string &name() const { return name_; }
  // Throws a NOT_FOUND Error that names the module when there is no such kernel.
  virtual Ref<Kernel> createKernel(const std::string &name) = 0;
  // The host address of an exported function (a native library's); the default: UNSUPPORTED.
  // Inline: Module has no key function, and tools that link core without the backends use it.
  virtual void *functionPointer(const std::string &function) {
    fail(XPURT_ERROR_UNSUPPORTED,
         "module '{}' gives no host function pointers (asked for '{}'): only native CPU modules "
         "(shared libraries) have them",
         name(), function);
  }
  // The SPIR-V the module was loaded from, which linking reads; empty for a native module.
  // Set by the module loader before the module is handed out, never changed after.
  std::span<const std::byte> spirv() const { return spirv_; }
  // The options it was built with, which loading it on another device reads.
  const ModuleOptions &options() const { return options_; }
  void keepSpirv(std::span<const std::byte> bytes, const ModuleOptions &options) {
    spirv_.assign(bytes.begin(), bytes.end());
    options_ = options;
  }
  // The same SPIR-V loaded on `device` with the same options (this module itself on its own
  // device), loaded on first use and kept: module_loader.cpp. UNSUPPORTED for a native module.
  Ref<Module> loadedOn(Device &device);

 private:
  Ref<Device> device_;
  std::string name_;
  std::vector<std::byte> spirv_;
  ModuleOptions options_;
  std::mutex copiesMutex_;
  std::vector<std::pair<Device *, Ref<Module>>> copies_;  // loadedOn's, one per device
};

struct KernelArgs;  // command.hpp

struct NDRange {
  uint32_t workDim = 1;
  std::array<uint64_t, 3> globalOffset{0, 0, 0};
  std::array<uint64_t, 3> globalSize{1, 1, 1};
  std::array<uint64_t, 3> localSize{0, 0, 0};  // 0: the backend chooses
};

class Kernel : public Object {
 public:
  static constexpr ObjectKind kKind = ObjectKind::Kernel;
  // signature: what the kernel takes, where the module knows it (SPIR-V); a kernel without one
  // (a native task kernel) takes task launches only, with whatever params struct it is given.
  Kernel(Ref<Module> module, std::string name,
         std::optional<KernelSignature> signature = std::nullopt)
      : Object(kKind),
        module_(std::move(module)),
        name_(std::move(name)),
        signature_(std::move(signature)) {}

  Module &module() const { return *module_; }
  const std::string &name() const { return name_; }
  const KernelSignature *signature() const { return signature_ ? &*signature_ : nullptr; }
  // Throws INVALID_ARGUMENT if the kernel cannot take an ISPCRT-style launch (one params
  // pointer, or none).
  void checkTaskLaunch(bool hasParams) const;
  // Throws INVALID_ARGUMENT (naming the argument) if args do not match the kernel's signature,
  // UNSUPPORTED if the kernel takes task launches only, or what the device's own limits say.
  // Chooses the local sizes the launch left open.
  void checkLaunch(const KernelArgs &args, NDRange &range) const;
  // The range of an ISPCRT-style launch of a kernel with a signature (taskRange with the
  // device's program count).
  NDRange taskRange(const std::array<uint32_t, 3> &dims) const;

 protected:
  // The local size the device's driver suggests for a launch that leaves it open (Level
  // Zero's zeKernelSuggestGroupSize); nothing to let the runtime choose.
  virtual std::optional<std::array<uint64_t, 3>> suggestLocalSize(const NDRange &range) const {
    (void)range;
    return std::nullopt;
  }
  // Limits of the device beyond the signature (local memory, ...), on a checked launch.
  virtual void checkDeviceLimits(const KernelArgs &args, const NDRange &range) const {
    (void)args, (void)range;
  }

 private:
  Ref<Module> module_;
  std::string name_;
  std::optional<KernelSignature> signature_;
};

}  // namespace xpurt::core
