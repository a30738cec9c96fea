// ISPCRT's objects over xpurt's C API: each holds the xpurt handles it is made of and what
// ISPCRT's semantics add (futures kept until a sync, command lists replayed on submission).
#pragma once

#include "ispcrt_object.hpp"

#include <functional>
#include <mutex>
#include <vector>

namespace xpurt::ispcrt {

// Holds one reference to an xpurt handle.
template <class H, XpurtResult (*Release)(H)>
class Owned {
 public:
  Owned() = default;
  explicit Owned(H h) : h_(h) {}
  Owned(Owned &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Owned &operator=(Owned &&o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  ~Owned() {
    if (h_) Release(h_);
  }
  H get() const { return h_; }

 private:
  H h_ = nullptr;
};
using XDevice = Owned<XpurtDevice, xpurtReleaseDevice>;
using XContext = Owned<XpurtContext, xpurtReleaseContext>;
using XView = Owned<XpurtMemoryView, xpurtReleaseMemoryView>;
using XQueue = Owned<XpurtTaskQueue, xpurtReleaseTaskQueue>;
using XModule = Owned<XpurtModule, xpurtReleaseModule>;
using XKernel = Owned<XpurtKernel, xpurtReleaseKernel>;
using XFuture = Owned<XpurtFuture, xpurtReleaseFuture>;

class Context;

class Device : public Object {
 public:
  static constexpr Kind kKind = Kind::Device;
  Device(XDevice device, ISPCRTDeviceType type, std::string backend)
      : Object(kKind), device_(std::move(device)), type_(type), backend_(std::move(backend)) {}
  XpurtDevice handle() const { return device_.get(); }
  ISPCRTDeviceType type() const { return type_; }  // CPU or GPU
  const std::string &backend() const { return backend_; }

 private:
  XDevice device_;
  ISPCRTDeviceType type_;
  std::string backend_;  // as xpurt names it: "cpu", "level_zero", "cuda"
};

class Context : public Object {
 public:
  static constexpr Kind kKind = Kind::Context;
  Context(XContext context, ISPCRTDeviceType type)
      : Object(kKind), context_(std::move(context)), type_(type) {}
  XpurtContext handle() const { return context_.get(); }
  ISPCRTDeviceType type() const { return type_; }

 private:
  XContext context_;
  ISPCRTDeviceType type_;
};

class MemoryView : public Object {
 public:
  static constexpr Kind kKind = Kind::MemoryView;
  MemoryView(XView view, ISPCRTAllocationType type)
      : Object(kKind), view_(std::move(view)), type_(type) {}
  ~MemoryView() override;
  XpurtMemoryView handle() const { return view_.get(); }
  ISPCRTAllocationType type() const { return type_; }

 private:
  XView view_;
  ISPCRTAllocationType type_;
};

class ModuleOptions : public Object {
 public:
  static constexpr Kind kKind = Kind::ModuleOptions;
  ModuleOptions() : Object(kKind) {}
  std::mutex mutex;  // the fields may be set and read from several threads
  ISPCRTModuleType moduleType = ISPCRT_VECTOR_MODULE;
  bool libraryCompilation = false;
  uint32_t stackSize = 0;
};

class Module : public Object {
 public:
  static constexpr Kind kKind = Kind::Module;
  // parts: one module, or the native modules a static link joined (searched in order, as
  // ISPCRT's CPU device searches the libraries of a linked module).
  Module(Ref<Device> device, std::vector<std::shared_ptr<XModule>> parts, bool native)
      : Object(kKind), device_(std::move(device)), parts_(std::move(parts)), native_(native) {}
  const Ref<Device> &device() const { return device_; }
  bool native() const { return native_; }
  const std::vector<std::shared_ptr<XModule>> &parts() const { return parts_; }
  // The modules its kernels come from: its parts, or the module it was dynamically linked
  // into (ispcrtDynamicLinkModules).
  std::vector<std::shared_ptr<XModule>> kernelSources() const;
  void setLinked(std::shared_ptr<XModule> linked);

 private:
  Ref<Device> device_;
  std::vector<std::shared_ptr<XModule>> parts_;
  bool native_;
  mutable std::mutex mutex_;
  std::shared_ptr<XModule> linked_;  // shared by the modules linked together
};

class Kernel : public Object {
 public:
  static constexpr Kind kKind = Kind::Kernel;
  Kernel(Ref<Module> module, XKernel kernel)
      : Object(kKind), module_(std::move(module)), kernel_(std::move(kernel)) {}
  XpurtKernel handle() const { return kernel_.get(); }

 private:
  Ref<Module> module_;
  XKernel kernel_;
};

// The result of a command. A command list's futures are made when the command is recorded and
// bound to the xpurt future of each submission.
class Future : public Object {
 public:
  static constexpr Kind kKind = Kind::Future;
  Future() : Object(kKind) {}
  Future(XFuture f, bool timed) : Object(kKind), future_(std::move(f)), timed_(timed) {}
  void bind(XFuture f, bool timed);
  // Completed, and successfully: its time is known.
  bool valid();
  // 0 until valid, and for a command list's commands recorded without timestamps.
  uint64_t timeNs();

 private:
  std::mutex mutex_;
  XFuture future_;  // none before a command list's first submission
  bool timed_ = false;
};

class TaskQueue : public Object {
 public:
  static constexpr Kind kKind = Kind::TaskQueue;
  TaskQueue(Ref<Device> device, XQueue queue)
      : Object(kKind), device_(std::move(device)), queue_(std::move(queue)) {}
  XpurtTaskQueue handle() const { return queue_.get(); }
  const Ref<Device> &device() const { return device_; }
  // Keeps f until the next sync, and hands out a borrowed handle to it.
  ISPCRTFuture keep(Ref<Future> f);
  void sync();

 private:
  Ref<Device> device_;
  XQueue queue_;
  std::mutex mutex_;
  std::vector<Ref<Future>> kept_;
};

class CommandList;

// The fence of a command list's submission: signalled when its commands are done. The list
// keeps it until it is reset.
class Fence : public Object {
 public:
  static constexpr Kind kKind = Kind::Fence;
  Fence() : Object(kKind) {}
  void bind(XFuture last);  // a submission's last command; a fence is bound when it is made
  void sync();
  bool signalled();  // done, and not reset since
  bool done();       // its submission has completed, reset or not
  void reset();

 private:
  bool doneLocked();  // mutex_ held

  std::mutex mutex_;
  XFuture last_;        // none for an empty submission
  bool reset_ = false;  // reset since its submission completed
};

class CommandQueue;

// A command list's way to its queue, which the list does not keep alive (the queue keeps its
// lists until it syncs): cleared when the queue goes.
struct QueueLink {
  std::mutex mutex;
  CommandQueue *queue = nullptr;
};

class CommandQueue : public Object {
 public:
  static constexpr Kind kKind = Kind::CommandQueue;
  CommandQueue(Ref<Device> device, XQueue queue);
  ~CommandQueue() override;
  XpurtTaskQueue handle() const { return queue_.get(); }
  const Ref<Device> &device() const { return device_; }
  const std::shared_ptr<QueueLink> &link() const { return link_; }
  // Takes the reference of a list made from the queue, given back when the queue goes (if
  // the program has not given it back already, as some ISPCRT programs do).
  void own(Object *list);

 private:
  Ref<Device> device_;
  XQueue queue_;
  std::shared_ptr<QueueLink> link_;
  std::mutex mutex_;
  std::vector<std::pair<Object *, uint64_t>> lists_;  // and their serials
};

// Commands recorded to run on their queue at each submission.
class CommandList : public Object {
 public:
  static constexpr Kind kKind = Kind::CommandList;
  explicit CommandList(std::shared_ptr<QueueLink> queue)
      : Object(kKind), queue_(std::move(queue)) {}

  // Enqueues a command on a queue, handing back its future where the pointer is not NULL.
  using Command = std::function<XpurtResult(XpurtTaskQueue q, XpurtFuture *future)>;
  // Records a command; its future is the list's until the list is reset or released.
  ISPCRTFuture record(Command command);
  void recordBarrier();
  void close();
  ISPCRTFence submit();
  void reset();
  void enableTimestamps();

 private:
  void checkOpen(const char *what);

  std::shared_ptr<QueueLink> queue_;
  std::mutex mutex_;
  bool closed_ = false;
  bool timestamps_ = false;
  struct Recorded {
    Command command;     // empty for a barrier
    Ref<Future> future;  // none for a barrier
    bool timed = false;
  };
  std::vector<Recorded> commands_;
  std::vector<Ref<Fence>> fences_;  // one per submission since the last reset
};

}  // namespace xpurt::ispcrt
