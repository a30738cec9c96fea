// xpurt — the C++ API: header-only over the C API, with RAII handles and exceptions.
//
//   xpurt::Device device(xpurt::DeviceType::Auto);         // default device (XPURT_DEVICE)
//   xpurt::Array<float> in(device, values);                // values: std::vector<float>
//   xpurt::Array<Params> params(device, p);
//   xpurt::Module module(device, "simple");                 // libsimple.so or simple.spv
//   xpurt::Kernel kernel(module, "simple_ispc");
//   xpurt::TaskQueue queue(device);
//   queue.copyToDevice(in);
//   xpurt::Future f = queue.launch(kernel, params, tasks);
//   queue.copyToHost(out);
//   queue.sync();                                          // f.timeNs(): kernel time
//
// Each method takes the arguments of the C function it calls, in the same order, less the
// handle it is called on and the output (graph nodes add, last, the nodes they run after).
// Every handle but Graph is empty when default-constructed.
#pragma once

#include <xpurt/xpurt.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace xpurt {

// Every failed call throws this, with the C API's code and message.
class Error : public std::runtime_error {
 public:
  Error(XpurtResult code, const std::string &message) : std::runtime_error(message), code_(code) {}
  XpurtResult code() const noexcept { return code_; }

 private:
  XpurtResult code_;
};

namespace detail {

inline void check(XpurtResult result) {
  if (result != XPURT_SUCCESS) throw Error(result, xpurtLastErrorMessage());
}

// A std::function<void()> as a host callback: an exception fails it with its message.
inline XpurtResult runFunction(void *data) {
  try {
    (*static_cast<std::function<void()> *>(data))();
    return XPURT_SUCCESS;
  } catch (const std::exception &e) {
    xpurtHostCallbackSetError(e.what());
  } catch (...) {
    xpurtHostCallbackSetError("a host callback threw a non-standard exception");
  }
  return XPURT_ERROR_EXECUTION_FAILED;
}
inline void deleteFunction(void *data) {
  delete static_cast<std::function<void()> *>(data);
}

// The typed reference counting of each handle kind.
#define XPURT_DETAIL_COUNTING(Name)                                         \
  inline XpurtResult retain(Xpurt##Name h) { return xpurtRetain##Name(h); } \
  inline XpurtResult release(Xpurt##Name h) { return xpurtRelease##Name(h); }
XPURT_DETAIL_COUNTING(Device)
XPURT_DETAIL_COUNTING(Context)
XPURT_DETAIL_COUNTING(MemoryView)
XPURT_DETAIL_COUNTING(TaskQueue)
XPURT_DETAIL_COUNTING(Module)
XPURT_DETAIL_COUNTING(Kernel)
XPURT_DETAIL_COUNTING(Future)
XPURT_DETAIL_COUNTING(Graph)
XPURT_DETAIL_COUNTING(GraphExec)
#undef XPURT_DETAIL_COUNTING

// Owns one reference to a C handle: copies retain, destruction releases. Default-constructed
// (or moved from), it is empty: it names no object, converts to false, and every call through
// it fails with XPURT_ERROR_INVALID_HANDLE.
template <class H>
class Handle {
 public:
  Handle() = default;
  Handle(const Handle &o) : h_(o.h_) {
    if (h_) check(retain(h_));
  }
  Handle(Handle &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Handle &operator=(Handle o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  ~Handle() {
    if (h_) release(h_);
  }

  H handle() const noexcept { return h_; }
  explicit operator bool() const noexcept { return h_ != nullptr; }

 protected:
  explicit Handle(H adopted) : h_(adopted) {}
  H h_ = nullptr;
};

}  // namespace detail

enum class DeviceType {
  CPU = XPURT_DEVICE_TYPE_CPU,
  GPU = XPURT_DEVICE_TYPE_GPU,
  Auto = XPURT_DEVICE_TYPE_AUTO
};
enum class DeviceFeature {
  PartialWorkGroups = XPURT_FEATURE_PARTIAL_WORK_GROUPS,
  GlobalOffsets = XPURT_FEATURE_GLOBAL_OFFSETS
};
enum class AllocType {
  Device = XPURT_ALLOC_TYPE_DEVICE,
  Shared = XPURT_ALLOC_TYPE_SHARED,
  Host = XPURT_ALLOC_TYPE_HOST,
  Coherent = XPURT_ALLOC_TYPE_COHERENT
};

using DeviceInfo = XpurtDeviceInfo;

class Device : public detail::Handle<XpurtDevice> {
 public:
  Device() = default;  // empty
  // DeviceType::Auto: the first GPU, else the CPU; the XPURT_DEVICE variable overrides.
  explicit Device(DeviceType type, uint32_t index = 0, uint32_t flags = 0) {
    XpurtDeviceOptions options{sizeof(XpurtDeviceOptions), flags};
    detail::check(
        xpurtGetDeviceWithOptions(static_cast<XpurtDeviceType>(type), index, &options, &h_));
  }
  static Device adopt(XpurtDevice h) { return Device(h, 0); }

  static uint32_t count(DeviceType type) {
    uint32_t n = 0;
    detail::check(xpurtGetDeviceCount(static_cast<XpurtDeviceType>(type), &n));
    return n;
  }
  static DeviceInfo info(DeviceType type, uint32_t index) {
    DeviceInfo i{};
    i.structSize = sizeof i;
    detail::check(xpurtGetDeviceInfo(static_cast<XpurtDeviceType>(type), index, &i));
    return i;
  }
  DeviceInfo info() const {
    DeviceInfo i{};
    i.structSize = sizeof i;
    detail::check(xpurtDeviceGetInfo(h_, &i));
    return i;
  }
  bool has(DeviceFeature feature) const {
    bool supported = false;
    detail::check(xpurtDeviceHasFeature(h_, static_cast<XpurtDeviceFeature>(feature), &supported));
    return supported;
  }

 private:
  Device(XpurtDevice h, int) : Handle(h) {}
};

class Context : public detail::Handle<XpurtContext> {
 public:
  Context() = default;  // empty
  explicit Context(DeviceType type) {
    detail::check(xpurtNewContext(static_cast<XpurtDeviceType>(type), &h_));
  }
  uint32_t deviceCount() const {
    uint32_t n = 0;
    detail::check(xpurtContextGetDeviceCount(h_, &n));
    return n;
  }
  Device device(uint32_t index) const {
    XpurtDevice d = nullptr;
    detail::check(xpurtContextGetDevice(h_, index, &d));
    return Device::adopt(d);
  }
};

// Untyped memory; see Array<T> for the typed form.
class MemoryView : public detail::Handle<XpurtMemoryView> {
 public:
  MemoryView() = default;  // empty
  MemoryView(const Device &device, void *appMemory, size_t bytes,
             AllocType type = AllocType::Device) {
    detail::check(xpurtNewMemoryView(device.handle(), appMemory, bytes,
                                     static_cast<XpurtAllocationType>(type), &h_));
  }
  MemoryView(const Context &context, size_t bytes, AllocType type = AllocType::Shared) {
    detail::check(xpurtNewMemoryViewForContext(context.handle(), bytes,
                                               static_cast<XpurtAllocationType>(type), &h_));
  }
  void *hostPtr() const {
    void *p = nullptr;
    detail::check(xpurtHostPtr(h_, &p));
    return p;
  }
  void *devicePtr() const {
    void *p = nullptr;
    detail::check(xpurtDevicePtr(h_, &p));
    return p;
  }
  size_t bytes() const {
    size_t n = 0;
    detail::check(xpurtSize(h_, &n));
    return n;
  }
  AllocType type() const {
    XpurtAllocationType t{};
    detail::check(xpurtGetAllocationType(h_, &t));
    return static_cast<AllocType>(t);
  }
};

// count elements of T in a COHERENT view (xpurtNewCoherentMemoryView): memory of no one
// device, kept up to date by the runtime on every device that uses it.
template <class T>
class CoherentArray : public MemoryView {
 public:
  CoherentArray() = default;  // empty
  explicit CoherentArray(size_t count) : count_(count) { make(nullptr); }
  CoherentArray(T *appMemory, size_t count) : count_(count) { make(appMemory); }
  explicit CoherentArray(std::vector<T> &values) : CoherentArray(values.data(), values.size()) {}

  T *hostPtr() const { return static_cast<T *>(MemoryView::hostPtr()); }
  size_t size() const noexcept { return count_; }

 private:
  void make(T *appMemory) {
    detail::check(xpurtNewCoherentMemoryView(appMemory, count_ * sizeof(T), &h_));
  }
  size_t count_ = 0;
};

// count elements of T. A DEVICE array wraps the application's memory (or allocates its own
// host copy); SHARED and HOST arrays are allocated by the runtime.
template <class T, AllocType A = AllocType::Device>
class Array : public MemoryView {
 public:
  Array() = default;  // empty
  explicit Array(const Device &device, size_t count = 1)
      : MemoryView(device, nullptr, count * sizeof(T), A), count_(count) {}
  Array(const Device &device, T *appMemory, size_t count)
      : MemoryView(device, appMemory, count * sizeof(T), A), count_(count) {}
  Array(const Device &device, T &object) : Array(device, &object, 1) {}
  Array(const Device &device, std::vector<T> &values)
      : Array(device, values.data(), values.size()) {}
  Array(const Context &context, size_t count)
      : MemoryView(context, count * sizeof(T), A), count_(count) {}

  T *hostPtr() const { return static_cast<T *>(MemoryView::hostPtr()); }
  T *devicePtr() const { return static_cast<T *>(MemoryView::devicePtr()); }
  size_t size() const noexcept { return count_; }

 private:
  size_t count_ = 0;
};

// A std::allocator over SHARED memory of a context, so SharedVector<T> lives in memory that
// host and device both use directly.
template <class T>
class SharedMemoryAllocator {
 public:
  using value_type = T;
  explicit SharedMemoryAllocator(Context context)
      : state_(std::make_shared<State>(std::move(context))) {}
  template <class U>
  SharedMemoryAllocator(const SharedMemoryAllocator<U> &o) : state_(o.state_) {}

  T *allocate(size_t n) {
    if (n == 0) n = 1;
    MemoryView view(state_->context, n * sizeof(T), AllocType::Shared);
    T *p = static_cast<T *>(view.hostPtr());
    std::lock_guard lock(state_->mutex);
    state_->views.emplace(p, std::move(view));
    return p;
  }
  void deallocate(T *p, size_t) noexcept {
    std::lock_guard lock(state_->mutex);
    state_->views.erase(p);
  }
  template <class U>
  bool operator==(const SharedMemoryAllocator<U> &o) const noexcept {
    return state_ == o.state_;
  }

 private:
  template <class U>
  friend class SharedMemoryAllocator;
  struct State {
    explicit State(Context c) : context(std::move(c)) {}
    Context context;
    std::mutex mutex;
    std::unordered_map<const void *, MemoryView> views;
  };
  std::shared_ptr<State> state_;
};

template <class T>
using SharedVector = std::vector<T, SharedMemoryAllocator<T>>;

// The completion of one command. Usable as soon as the command is enqueued.
class Future : public detail::Handle<XpurtFuture> {
 public:
  Future() = default;
  static Future adopt(XpurtFuture h) { return Future(h); }

  // The command has completed. Never blocks.
  bool valid() const {
    bool v = false;
    detail::check(xpurtFutureIsValid(h_, &v));
    return v;
  }
  // Blocks until the command completes; throws if it failed.
  void wait() const { detail::check(xpurtFutureWait(h_)); }
  // Device execution time in nanoseconds (waits for completion).
  uint64_t timeNs() const {
    uint64_t ns = 0;
    detail::check(xpurtFutureTimeNs(h_, &ns));
    return ns;
  }

 private:
  explicit Future(XpurtFuture h) : Handle(h) {}
};

struct ModuleOptions {
  std::string buildFlags;
  std::vector<std::pair<uint32_t, uint64_t>> specConstants;  // id, value
};

class Module : public detail::Handle<XpurtModule> {
 public:
  Module() = default;  // empty
  // By name: lib<name>.so or <name>.spv, searched as xpurtLoadModule says.
  Module(const Device &device, const std::string &name, const ModuleOptions &options = {}) {
    Options o(options);
    detail::check(xpurtLoadModule(device.handle(), name.c_str(), &o.c, &h_));
  }
  static Module fromFile(const Device &device, const std::string &path,
                         const ModuleOptions &options = {}) {
    Options o(options);
    XpurtModule m = nullptr;
    detail::check(xpurtLoadModuleFromFile(device.handle(), path.c_str(), &o.c, &m));
    return Module(m);
  }
  static Module fromMemory(const Device &device, const void *data, size_t size,
                           const ModuleOptions &options = {}) {
    Options o(options);
    XpurtModule m = nullptr;
    detail::check(xpurtLoadModuleFromMemory(device.handle(), data, size, &o.c, &m));
    return Module(m);
  }
  // One module from SPIR-V modules of `device` whose functions call each other's
  // (xpurtLinkModules).
  static Module link(const Device &device, const std::vector<Module> &modules,
                     const ModuleOptions &options = {}) {
    std::vector<XpurtModule> handles;
    for (const Module &m : modules) handles.push_back(m.handle());
    Options o(options);
    XpurtModule m = nullptr;
    detail::check(xpurtLinkModules(device.handle(), handles.data(),
                                   static_cast<uint32_t>(handles.size()), &o.c, &m));
    return Module(m);
  }

 private:
  explicit Module(XpurtModule h) : Handle(h) {}
  struct Options {  // the C view of ModuleOptions, valid while `options` lives
    explicit Options(const ModuleOptions &options) {
      for (auto &[id, value] : options.specConstants) {
        ids.push_back(id);
        values.push_back(value);
      }
      c = {sizeof(XpurtModuleOptions), options.buildFlags.c_str(),
           static_cast<uint32_t>(ids.size()), ids.data(), values.data()};
    }
    std::vector<uint32_t> ids;
    std::vector<uint64_t> values;
    XpurtModuleOptions c{};
  };
};

class Kernel : public detail::Handle<XpurtKernel> {
 public:
  Kernel() = default;  // empty
  Kernel(const Module &module, const std::string &name) {
    detail::check(xpurtNewKernel(module.handle(), name.c_str(), &h_));
  }
  // ISPCRT's form; the device is the module's.
  Kernel(const Device &, const Module &module, const std::string &name) : Kernel(module, name) {}
};

// An argument of a general launch: a memory view (its device pointer), a value (copied), or
// __local memory of some size per work-group.
// What a command does with memory; an out-of-order queue orders commands by it.
enum class Access {
  ReadWrite = XPURT_ACCESS_READ_WRITE,
  Read = XPURT_ACCESS_READ,
  Write = XPURT_ACCESS_WRITE
};

class Arg {
 public:
  // The view's device pointer plus offset; the kernel touches `bytes` from there (0: to the
  // end of the view) with `access`.
  Arg(const MemoryView &view, size_t offset = 0, Access access = Access::ReadWrite,
      size_t bytes = 0)
      : kind_(XPURT_KERNEL_ARG_MEMORY_VIEW), access_(access) {
    view_ = view.handle();
    offset_ = offset;
    viewBytes_ = bytes;
  }
  // A view the kernel only reads, or only writes.
  static Arg read(const MemoryView &view, size_t offset = 0, size_t bytes = 0) {
    return Arg(view, offset, Access::Read, bytes);
  }
  static Arg write(const MemoryView &view, size_t offset = 0, size_t bytes = 0) {
    return Arg(view, offset, Access::Write, bytes);
  }
  template <class T, class = std::enable_if_t<!std::is_base_of_v<MemoryView, T> &&
                                              std::is_trivially_copyable_v<T>>>
  Arg(const T &value) : kind_(XPURT_KERNEL_ARG_VALUE), value_(sizeof(T)) {
    std::memcpy(value_.data(), &value, sizeof(T));
  }
  static Arg local(size_t bytes) {
    Arg a;
    a.kind_ = XPURT_KERNEL_ARG_LOCAL;
    a.localBytes_ = bytes;
    return a;
  }
  XpurtKernelArg toC() const {
    XpurtKernelArg c{};
    c.kind = kind_;
    c.size = kind_ == XPURT_KERNEL_ARG_LOCAL         ? localBytes_
             : kind_ == XPURT_KERNEL_ARG_MEMORY_VIEW ? viewBytes_
                                                     : value_.size();
    c.value = value_.empty() ? nullptr : value_.data();
    c.view = view_;
    c.offset = offset_;
    c.access = static_cast<XpurtAccess>(access_);
    return c;
  }

 private:
  Arg() = default;
  XpurtKernelArgKind kind_ = XPURT_KERNEL_ARG_VALUE;
  Access access_ = Access::ReadWrite;
  std::vector<unsigned char> value_;
  XpurtMemoryView view_ = nullptr;
  size_t offset_ = 0, localBytes_ = 0, viewBytes_ = 0;
};

// The work-items of a general launch: global size, optional local size and offset. Explicit:
// launch(kernel, Range(n), {args}) is a general launch, launch(kernel, params, n) a task launch,
// and a size never turns into a Range.
class Range {
 public:
  explicit Range(size_t x) : dims_(1), global_{x, 1, 1} {}
  explicit Range(size_t x, size_t y) : dims_(2), global_{x, y, 1} {}
  explicit Range(size_t x, size_t y, size_t z) : dims_(3), global_{x, y, z} {}
  Range &local(size_t x, size_t y = 1, size_t z = 1) {
    local_[0] = x, local_[1] = y, local_[2] = z;
    hasLocal_ = true;
    return *this;
  }
  Range &offset(size_t x, size_t y = 0, size_t z = 0) {
    offset_[0] = x, offset_[1] = y, offset_[2] = z;
    return *this;
  }
  uint32_t dimensions() const noexcept { return dims_; }
  const size_t *globalSize() const noexcept { return global_; }
  const size_t *globalOffset() const noexcept { return offset_; }
  const size_t *localSize() const noexcept { return hasLocal_ ? local_ : nullptr; }  // or none

 private:
  friend class TaskQueue;
  friend class Graph;
  friend class GraphBatch;
  friend class SplitLaunch;
  uint32_t dims_;
  size_t global_[3], local_[3] = {1, 1, 1}, offset_[3] = {0, 0, 0};
  bool hasLocal_ = false;
};

// A range of a view a task launch reads or writes through its params.
struct ViewAccess {
  ViewAccess(const MemoryView &view, Access access, size_t offset = 0,
             size_t bytes = XPURT_WHOLE_SIZE)
      : c{view.handle(), offset, bytes, static_cast<XpurtAccess>(access)} {}
  XpurtViewAccess c;
};

enum class Engine {
  Any = XPURT_ENGINE_ANY,
  Compute = XPURT_ENGINE_COMPUTE,
  Copy = XPURT_ENGINE_COPY
};

struct QueueOptions {
  Engine engine = Engine::Any;
  bool outOfOrder = false;  // run commands as their declared accesses, waits and barriers allow
  bool profiling = false;   // futures carry device times
  bool batched = false;     // submit in batches (Level Zero: regular command lists)
};

class Graph;      // xpurt/graph.hpp
class GraphExec;  // xpurt/graph.hpp

class TaskQueue : public detail::Handle<XpurtTaskQueue> {
 public:
  TaskQueue() = default;  // empty
  // In order, any engine, no profiling (QueueOptions::profiling for futures with device times).
  explicit TaskQueue(const Device &device) {
    detail::check(xpurtNewTaskQueue(device.handle(), &h_));
  }
  TaskQueue(const Device &device, const QueueOptions &options) {
    XpurtQueueOptions o{sizeof(XpurtQueueOptions), static_cast<XpurtEngine>(options.engine),
                        (options.outOfOrder ? XPURT_QUEUE_FLAG_OUT_OF_ORDER : 0u) |
                            (options.profiling ? XPURT_QUEUE_FLAG_PROFILING : 0u) |
                            (options.batched ? XPURT_QUEUE_FLAG_BATCHED : 0u)};
    detail::check(xpurtNewTaskQueueWithOptions(device.handle(), &o, &h_));
  }

  // Every command enqueued after this runs after the futures (of any queue) complete.
  void wait(std::initializer_list<std::reference_wrapper<const Future>> futures) {
    std::vector<XpurtFuture> c;
    for (const Future &f : futures) c.push_back(f.handle());
    detail::check(xpurtQueueWaitFutures(h_, static_cast<uint32_t>(c.size()), c.data()));
  }
  void wait(const Future &future) { wait({std::cref(future)}); }

  Future copyToDevice(const MemoryView &view, size_t offset = 0, size_t bytes = XPURT_WHOLE_SIZE) {
    return enqueue(
        [&](XpurtFuture *f) { return xpurtCopyToDevice(h_, view.handle(), offset, bytes, f); });
  }
  Future copyToHost(const MemoryView &view, size_t offset = 0, size_t bytes = XPURT_WHOLE_SIZE) {
    return enqueue(
        [&](XpurtFuture *f) { return xpurtCopyToHost(h_, view.handle(), offset, bytes, f); });
  }
  // Also between views of different devices, one of them this queue's (xpurtCopyMemoryView).
  Future copyMemoryView(const MemoryView &dst, const MemoryView &src, size_t dstOffset = 0,
                        size_t srcOffset = 0, size_t bytes = XPURT_WHOLE_SIZE) {
    return enqueue([&](XpurtFuture *f) {
      return xpurtCopyMemoryView(h_, dst.handle(), src.handle(), dstOffset, srcOffset, bytes, f);
    });
  }
  template <class T>
  Future fill(const MemoryView &view, const T &value, size_t offset = 0,
              size_t bytes = XPURT_WHOLE_SIZE) {
    return enqueue([&](XpurtFuture *f) {
      return xpurtFill(h_, view.handle(), offset, bytes, &value, sizeof(T), f);
    });
  }
  Future launch(const Kernel &kernel, const MemoryView &params, size_t d0, size_t d1 = 1,
                size_t d2 = 1) {
    return launch(kernel, params.handle(), d0, d1, d2);
  }
  Future launch(const Kernel &kernel, size_t d0, size_t d1 = 1, size_t d2 = 1) {
    return launch(kernel, nullptr, d0, d1, d2);
  }
  // A task launch that declares the memory it reads and writes through params.
  Future launch(const Kernel &kernel, const MemoryView &params,
                std::initializer_list<ViewAccess> accesses, size_t d0, size_t d1 = 1,
                size_t d2 = 1) {
    std::vector<XpurtViewAccess> c;
    for (const ViewAccess &a : accesses) c.push_back(a.c);
    return enqueue([&](XpurtFuture *f) {
      return xpurtLaunchWithAccess(h_, kernel.handle(), params.handle(),
                                   static_cast<uint32_t>(c.size()), c.data(), d0, d1, d2, f);
    });
  }
  // A general launch: arguments by position, checked against the kernel's signature.
  Future launch(const Kernel &kernel, const Range &range, std::initializer_list<Arg> args) {
    std::vector<XpurtKernelArg> c;
    for (const Arg &a : args) c.push_back(a.toC());
    return enqueue([&](XpurtFuture *f) {
      return xpurtLaunchKernel(h_, kernel.handle(), static_cast<uint32_t>(c.size()), c.data(),
                               range.dims_, range.offset_, range.global_,
                               range.hasLocal_ ? range.local_ : nullptr, f);
    });
  }
  // Runs fn on a runtime thread after the commands before it; an exception fails its future
  // and the next sync(). fn is kept until it cannot be called any more (for a captured
  // callback: as long as the graph).
  Future hostCallback(std::function<void()> fn) {
    auto *owned = new std::function<void()>(std::move(fn));
    XpurtFuture f = nullptr;
    // The runtime owns fn from here, even when the call fails.
    detail::check(xpurtHostCallbackWithDestructor(h_, &detail::runFunction, owned,
                                                  &detail::deleteFunction, &f));
    return Future::adopt(f);
  }
  // Runs the executable graph after what came before; what comes after runs after it.
  Future launch(const GraphExec &exec);
  // Until endCapture(), commands enqueued here become nodes of graph instead of running
  // (their futures are empty).
  void beginCapture(const Graph &graph);
  void endCapture() { detail::check(xpurtQueueEndCapture(h_)); }
  void barrier() { detail::check(xpurtBarrier(h_)); }
  // Waits for everything enqueued; throws the first failure of queued work since the last sync.
  void sync() { detail::check(xpurtSync(h_)); }

 private:
  template <class Call>
  Future enqueue(Call call) {
    XpurtFuture f = nullptr;
    detail::check(call(&f));
    return Future::adopt(f);
  }
  Future launch(const Kernel &kernel, XpurtMemoryView params, size_t d0, size_t d1, size_t d2) {
    return enqueue(
        [&](XpurtFuture *f) { return xpurtLaunch3D(h_, kernel.handle(), params, d0, d1, d2, f); });
  }
};

}  // namespace xpurt

#include <xpurt/graph.hpp>
#include <xpurt/split_launch.hpp>
