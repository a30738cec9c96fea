#include "task_queue.hpp"

#include "clock.hpp"
#include "error.hpp"
#include "trace.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>

namespace xpurt::core {

static const char *engineName(XpurtEngine engine) {
  switch (engine) {
    case XPURT_ENGINE_COMPUTE:
      return "compute";
    case XPURT_ENGINE_COPY:
      return "copy";
    default:
      return "any";
  }
}

TaskQueue::TaskQueue(Ref<Device> device, const QueueOptions &options)
    : Object(kKind), device_(std::move(device)), options_(options) {
  if (options_.engine != XPURT_ENGINE_ANY && options_.engine != XPURT_ENGINE_COMPUTE &&
      options_.engine != XPURT_ENGINE_COPY)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "queue options: engine {} is not one of XPURT_ENGINE_ANY, _COMPUTE or _COPY",
         static_cast<int>(options_.engine));
  if (trace::enabled()) {
    static std::atomic<uint32_t> queues{0};
    uint32_t n = ++queues;
    std::string name = fmt::format("{} {} queue {}", device_->info().name,
                                   options_.outOfOrder ? "out-of-order" : "in-order", n);
    // An out-of-order queue runs copies and launches on engines of their own: a track each.
    if (options_.outOfOrder) {
      computeTrack_ = trace::newTrack(name + " · compute");
      copyTrack_ = trace::newTrack(name + " · copy");
    } else {
      computeTrack_ = copyTrack_ =
          trace::newTrack(fmt::format("{} · {}", name, engineName(options_.engine)));
    }
  }
}

void TaskQueue::checkView(const MemoryView &view, const char *what) const {
  if (&view.device().backend() != &device_->backend())
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{}: the memory view belongs to a {} device, but this queue runs on a {} device", what,
         view.device().backend().name(), device_->backend().name());
  // Device memory is the device's own; shared and host memory serve every device of the
  // backend's context.
  if (view.type() == XPURT_ALLOC_TYPE_DEVICE && &view.device() != device_.get())
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{}: the memory view is device memory of {}, but this queue runs on {}; copy the data "
         "into a view of this device, or use a SHARED view",
         what, view.device().label(), device_->label());
}

// Bytes [offset, offset + size) of the storage at base, as the hazard tracker sees them.
static MemoryUse useOf(const void *base, size_t offset, size_t size, bool write) {
  auto at = reinterpret_cast<uintptr_t>(base) + offset;
  return {at, at + size, write};
}

Ref<Event> TaskQueue::submitWithEvent(Command &&cmd, Ordering ordering,
                                      std::span<const MemoryUse> uses) {
  Ref<Event> done = makeRef<Event>();
  done->setProfiled(options_.profiling);
  done->setTimed(options_.profiling || computeTrack_ != 0);
  cmd.done = done;
  if (!options_.outOfOrder) {
    if (computeTrack_) traceOnCompletion(cmd, done);
    submit(std::move(cmd));
    return done;
  }
  std::lock_guard lock(submitMutex_);
  switch (ordering) {
    case Ordering::Declared:
      hazards_.addDeclared(uses, done, cmd.waits);
      break;
    case Ordering::Fence:
      hazards_.addFence(done, cmd.waits);
      break;
    case Ordering::Wait:
      hazards_.addWait(done, cmd.waits);
      break;
  }
  if (computeTrack_) traceOnCompletion(cmd, done);
  submit(std::move(cmd));
  return done;
}

void TaskQueue::traceOnCompletion(const Command &cmd, const Ref<Event> &done) {
  trace::Slice s;
  std::string name;
  switch (cmd.type) {
    case Command::Type::Copy:
      name = cmd.copyKind == Command::CopyKind::ToDevice ? "copy to device"
             : cmd.copyKind == Command::CopyKind::ToHost ? "copy to host"
                                                         : "copy between views";
      s.category = "copy";
      s.bytes = cmd.size;
      break;
    case Command::Type::Fill:
      name = "fill";
      s.category = "fill";
      s.bytes = cmd.size;
      break;
    case Command::Type::Launch:
    case Command::Type::LaunchKernel:
      name = cmd.kernel->name();
      s.category = "kernel";
      break;
    case Command::Type::HostCallback:
      name = "host callback";
      s.category = "host";
      break;
    case Command::Type::Barrier:
      name = cmd.waits.empty() ? "barrier" : "wait";
      s.category = "wait";
      break;
  }
  bool onCompute = cmd.isLaunch();
  s.track = onCompute ? computeTrack_ : copyTrack_;
  s.enqueueNs = steadyNowNs();
  done->setTraceTrack(s.track);
  // Arrows come from the waited commands of other tracks; drawn once this command has
  // completed (they have too by then).
  std::vector<Ref<Event>> sources;
  for (const Ref<Event> &w : cmd.waits)
    if (w->traceTrack() != 0 && w->traceTrack() != s.track) sources.push_back(w);
  done->then(
      [s, name = std::move(name), sources = std::move(sources), event = done.get()]() mutable {
        CommandTimes t = event->times();
        s.name = name;
        s.startNs = t.startNs ? t.startNs : s.enqueueNs;
        s.endNs = t.endNs ? t.endNs : s.startNs;
        s.failed = event->failed();
        trace::slice(s);
        for (const Ref<Event> &from : sources)
          trace::flow(from->traceTrack(), from->times().endNs, s.track, s.startNs);
      });
}

Ref<Event> TaskQueue::copyWithin(MemoryView &view, size_t offset, size_t size, bool toDevice) {
  const char *what = toDevice ? "copyToDevice" : "copyToHost";
  checkView(view, what);
  Command cmd;
  cmd.type = Command::Type::Copy;
  cmd.size = view.checkedRange(offset, size, what);
  auto *host = static_cast<std::byte *>(view.hostPtr()) + offset;
  auto *dev = static_cast<std::byte *>(view.devicePtr()) + offset;
  cmd.dst = toDevice ? dev : host;
  cmd.src = toDevice ? host : dev;
  cmd.copyKind = toDevice ? Command::CopyKind::ToDevice : Command::CopyKind::ToHost;
  cmd.keepAlive[0] = Ref<Object>(&view);
  const MemoryUse uses[] = {useOf(cmd.src, 0, cmd.size, false), useOf(cmd.dst, 0, cmd.size, true)};
  return submitWithEvent(std::move(cmd), Ordering::Declared, uses);
}

Ref<Event> TaskQueue::copyToDevice(MemoryView &view, size_t offset, size_t size) {
  return copyWithin(view, offset, size, true);
}

Ref<Event> TaskQueue::copyToHost(MemoryView &view, size_t offset, size_t size) {
  return copyWithin(view, offset, size, false);
}

Ref<Event> TaskQueue::copyView(MemoryView &dst, MemoryView &src, size_t dstOffset, size_t srcOffset,
                               size_t size) {
  checkView(dst, "copyMemoryView (destination)");
  checkView(src, "copyMemoryView (source)");
  if (size == XPURT_WHOLE_SIZE) {
    size_t srcLeft = src.checkedRange(srcOffset, size, "copyMemoryView (source)");
    size_t dstLeft = dst.checkedRange(dstOffset, size, "copyMemoryView (destination)");
    size = std::min(srcLeft, dstLeft);
  }
  Command cmd;
  cmd.type = Command::Type::Copy;
  cmd.size = src.checkedRange(srcOffset, size, "copyMemoryView (source)");
  dst.checkedRange(dstOffset, size, "copyMemoryView (destination)");
  cmd.dst = static_cast<std::byte *>(dst.devicePtr()) + dstOffset;
  cmd.src = static_cast<const std::byte *>(src.devicePtr()) + srcOffset;
  if (&dst == &src && cmd.size != 0) {
    auto a = dstOffset, b = srcOffset;
    if (a < b + cmd.size && b < a + cmd.size)
      fail(XPURT_ERROR_INVALID_ARGUMENT,
           "copyMemoryView: source [{}, {}) and destination [{}, {}) overlap in the same view", b,
           b + cmd.size, a, a + cmd.size);
  }
  cmd.copyKind = Command::CopyKind::DeviceToDevice;
  cmd.keepAlive[0] = Ref<Object>(&dst);
  cmd.keepAlive[1] = Ref<Object>(&src);
  const MemoryUse uses[] = {useOf(cmd.src, 0, cmd.size, false), useOf(cmd.dst, 0, cmd.size, true)};
  return submitWithEvent(std::move(cmd), Ordering::Declared, uses);
}

Ref<Event> TaskQueue::fill(MemoryView &view, size_t offset, size_t size, const void *pattern,
                           size_t patternSize) {
  checkView(view, "fill");
  if (!pattern) fail(XPURT_ERROR_INVALID_ARGUMENT, "fill: the pattern pointer is NULL");
  if (patternSize == 0 || patternSize > Command::kMaxPatternSize)
    fail(XPURT_ERROR_INVALID_ARGUMENT, "fill: a pattern of {} bytes; use 1 to {} bytes",
         patternSize, Command::kMaxPatternSize);
  Command cmd;
  cmd.type = Command::Type::Fill;
  cmd.size = view.checkedRange(offset, size, "fill");
  if (cmd.size % patternSize != 0)
    fail(XPURT_ERROR_INVALID_ARGUMENT, "fill: {} bytes is not a whole number of {}-byte patterns",
         cmd.size, patternSize);
  cmd.dst = static_cast<std::byte *>(view.devicePtr()) + offset;
  cmd.patternSize = static_cast<uint32_t>(patternSize);
  if (patternSize <= sizeof cmd.pattern) {
    std::memcpy(&cmd.pattern, pattern, patternSize);
  } else {
    auto *bytes = static_cast<const std::byte *>(pattern);
    cmd.longPattern = std::make_shared<std::vector<std::byte>>(bytes, bytes + patternSize);
  }
  cmd.keepAlive[0] = Ref<Object>(&view);
  const MemoryUse uses[] = {useOf(cmd.dst, 0, cmd.size, true)};
  return submitWithEvent(std::move(cmd), Ordering::Declared, uses);
}

static void checkSameBackend(const Kernel &kernel, const Device &device, const char *what) {
  if (&kernel.module().device().backend() != &device.backend())
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{} '{}': the kernel was loaded for a {} device, but this queue runs on a {} device", what,
         kernel.name(), kernel.module().device().backend().name(), device.backend().name());
}

void TaskQueue::checkComputeEngine(const Kernel &kernel, const char *what) const {
  if (options_.engine == XPURT_ENGINE_COPY)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{} of '{}' on a copy queue: a copy queue runs copies, fills, host callbacks, barriers "
         "and waits; launch on a queue of engine XPURT_ENGINE_ANY or XPURT_ENGINE_COMPUTE and "
         "make it wait for the copy queue's futures",
         what, kernel.name());
}

static XpurtAccess checkedAccess(XpurtAccess access, const char *what, const std::string &kernel,
                                 size_t index) {
  if (access != XPURT_ACCESS_READ_WRITE && access != XPURT_ACCESS_READ &&
      access != XPURT_ACCESS_WRITE)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{} '{}': access {} of entry {} is not XPURT_ACCESS_READ_WRITE, _READ or _WRITE", what,
         kernel, static_cast<int>(access), index);
  return access;
}

static void addAccess(std::vector<MemoryUse> &uses, const MemoryView &view, size_t offset,
                      size_t size, XpurtAccess access) {
  if (access != XPURT_ACCESS_WRITE) uses.push_back(useOf(view.devicePtr(), offset, size, false));
  if (access != XPURT_ACCESS_READ) uses.push_back(useOf(view.devicePtr(), offset, size, true));
}

Ref<Event> TaskQueue::launch(Kernel &kernel, MemoryView *params,
                             const std::span<const AccessInput> *accesses, size_t d0, size_t d1,
                             size_t d2) {
  checkSameBackend(kernel, *device_, "launch");
  checkComputeEngine(kernel, "launch");
  if (params) checkView(*params, "launch (params)");
  kernel.checkTaskLaunch(params != nullptr);
  if (d0 == 0 || d1 == 0 || d2 == 0)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "launch of '{}': task dimensions ({}, {}, {}) — every dimension must be at least 1",
         kernel.name(), d0, d1, d2);
  uint64_t maxTasks = device_->info().maxTaskCount;
  uint64_t tasks = 0;
  bool overflow = __builtin_mul_overflow(uint64_t{d0}, uint64_t{d1}, &tasks) ||
                  __builtin_mul_overflow(tasks, uint64_t{d2}, &tasks);
  if (overflow || tasks > maxTasks || d0 > UINT32_MAX || d1 > UINT32_MAX || d2 > UINT32_MAX)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "launch of '{}': task dimensions ({}, {}, {}) exceed the {} tasks this device runs in "
         "one launch",
         kernel.name(), d0, d1, d2, maxTasks);
  Command cmd;
  cmd.type = Command::Type::Launch;
  cmd.kernel = Ref<Kernel>(&kernel);
  cmd.params = params ? params->devicePtr() : nullptr;
  cmd.dims = {static_cast<uint32_t>(d0), static_cast<uint32_t>(d1), static_cast<uint32_t>(d2)};
  if (params) cmd.keepAlive[0] = Ref<Object>(params);
  if (!accesses) return submitWithEvent(std::move(cmd), Ordering::Fence);
  std::vector<MemoryUse> uses;
  if (params) addAccess(uses, *params, 0, params->size(), XPURT_ACCESS_READ);
  for (size_t i = 0; i < accesses->size(); ++i) {
    const AccessInput &a = (*accesses)[i];
    if (!a.view)
      fail(XPURT_ERROR_INVALID_ARGUMENT, "launch of '{}': access {} names no memory view",
           kernel.name(), i);
    checkView(*a.view, "launch (accesses)");
    size_t size = a.view->checkedRange(a.offset, a.size, "launch (accesses)");
    addAccess(uses, *a.view, a.offset, size, checkedAccess(a.access, "launch", kernel.name(), i));
  }
  return submitWithEvent(std::move(cmd), Ordering::Declared, uses);
}

Ref<Event> TaskQueue::launchKernel(Kernel &kernel, std::span<const ArgInput> inputs,
                                   uint32_t workDim, const size_t *globalOffset,
                                   const size_t *globalSize, const size_t *localSize) {
  checkSameBackend(kernel, *device_, "launchKernel");
  checkComputeEngine(kernel, "launchKernel");
  if (workDim < 1 || workDim > 3)
    fail(XPURT_ERROR_INVALID_ARGUMENT, "launchKernel '{}': workDim is {}; use 1, 2 or 3",
         kernel.name(), workDim);
  if (!globalSize)
    fail(XPURT_ERROR_INVALID_ARGUMENT, "launchKernel '{}': globalSize is NULL", kernel.name());
  NDRange range;
  range.workDim = workDim;
  uint64_t items = 1;
  uint64_t maxItems = device_->info().maxWorkGroupSize;
  for (uint32_t d = 0; d < workDim; ++d) {
    range.globalSize[d] = globalSize[d];
    range.globalOffset[d] = globalOffset ? globalOffset[d] : 0;
    range.localSize[d] = localSize ? localSize[d] : 0;
    if (globalSize[d] == 0 || (localSize && localSize[d] == 0))
      fail(XPURT_ERROR_INVALID_ARGUMENT,
           "launchKernel '{}': dimension {} has global size {} and local size {}; both must be at "
           "least 1",
           kernel.name(), d, globalSize[d], localSize ? localSize[d] : 1);
    if (globalSize[d] > UINT32_MAX || range.globalOffset[d] > UINT64_MAX - globalSize[d])
      fail(XPURT_ERROR_INVALID_ARGUMENT,
           "launchKernel '{}': dimension {} with global size {} and offset {} is out of range",
           kernel.name(), d, globalSize[d], range.globalOffset[d]);
    // Each factor is checked before the products, so neither can wrap.
    if (localSize && localSize[d] > maxItems)
      fail(XPURT_ERROR_INVALID_ARGUMENT,
           "launchKernel '{}': local size {} in dimension {}; this device allows at most {} "
           "work-items in a work-group",
           kernel.name(), localSize[d], d, maxItems);
    if (localSize) items *= localSize[d];
    // At most 2^32 per dimension: only the third factor can take the product past 2^64.
    if (d == 2 && globalSize[2] > 1 && globalSize[0] * globalSize[1] > UINT64_MAX / globalSize[2])
      fail(XPURT_ERROR_INVALID_ARGUMENT,
           "launchKernel '{}': a global size of {} x {} x {} work-items is more than 2^64",
           kernel.name(), globalSize[0], globalSize[1], globalSize[2]);
  }
  if (localSize && items > maxItems)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "launchKernel '{}': a work-group of {} work-items; this device allows at most {}",
         kernel.name(), items, maxItems);

  auto args = std::make_shared<KernelArgs>();
  std::vector<MemoryUse> uses;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ArgInput &in = inputs[i];
    KernelArgs::Arg arg{in.kind, static_cast<uint32_t>(args->data.size()), 0};
    auto append = [&](const void *p, size_t n) {
      auto *bytes = static_cast<const std::byte *>(p);
      args->data.insert(args->data.end(), bytes, bytes + n);
      args->data.resize((args->data.size() + 7) / 8 * 8);  // keep every value 8-byte aligned
    };
    switch (in.kind) {
      case XPURT_KERNEL_ARG_VALUE:
        if (!in.value || in.size == 0 || in.size > 4096)
          fail(XPURT_ERROR_INVALID_ARGUMENT,
               "launchKernel '{}': argument {} is a value of {} bytes at {}; give 1 to 4096 "
               "bytes at a non-NULL address",
               kernel.name(), i, in.size, in.value);
        arg.size = static_cast<uint32_t>(in.size);
        append(in.value, in.size);
        break;
      case XPURT_KERNEL_ARG_MEMORY_VIEW: {
        if (!in.view)
          fail(XPURT_ERROR_INVALID_ARGUMENT, "launchKernel '{}': argument {} has no memory view",
               kernel.name(), i);
        checkView(*in.view, "launchKernel");
        if (in.offset > in.view->size() || (in.size && in.size > in.view->size() - in.offset))
          fail(XPURT_ERROR_OUT_OF_RANGE,
               "launchKernel '{}': argument {} names {} bytes {} bytes into a {}-byte memory "
               "view",
               kernel.name(), i, in.size ? in.size : in.view->size() - in.offset, in.offset,
               in.view->size());
        addAccess(uses, *in.view, in.offset, in.size ? in.size : in.view->size() - in.offset,
                  checkedAccess(in.access, "launchKernel", kernel.name(), i));
        void *p = static_cast<std::byte *>(in.view->devicePtr()) + in.offset;
        arg.size = sizeof p;
        append(&p, sizeof p);
        args->views.emplace_back(in.view);
        break;
      }
      case XPURT_KERNEL_ARG_LOCAL: {
        if (in.size == 0)
          fail(XPURT_ERROR_INVALID_ARGUMENT,
               "launchKernel '{}': argument {} asks for 0 bytes of local memory", kernel.name(), i);
        uint64_t bytes = in.size;
        arg.size = static_cast<uint32_t>(std::min<uint64_t>(bytes, UINT32_MAX));
        append(&bytes, sizeof bytes);
        break;
      }
      default:
        fail(XPURT_ERROR_INVALID_ARGUMENT, "launchKernel '{}': argument {} has unknown kind {}",
             kernel.name(), i, static_cast<int>(in.kind));
    }
    args->args.push_back(arg);
  }
  kernel.checkLaunch(*args, range);

  Command cmd;
  cmd.type = Command::Type::LaunchKernel;
  cmd.kernel = Ref<Kernel>(&kernel);
  cmd.args = std::move(args);
  cmd.range = range;
  return submitWithEvent(std::move(cmd), Ordering::Declared, uses);
}

Ref<Event> TaskQueue::hostCallback(XpurtHostFunc func, void *userData) {
  if (!func) fail(XPURT_ERROR_INVALID_ARGUMENT, "hostCallback: the function pointer is NULL");
  Command cmd;
  cmd.type = Command::Type::HostCallback;
  cmd.func = func;
  cmd.userData = userData;
  return submitWithEvent(std::move(cmd), Ordering::Fence);
}

void TaskQueue::barrier() {
  // In order, commands already run one after another: the barrier costs nothing.
  if (!options_.outOfOrder) return;
  Command cmd;
  cmd.type = Command::Type::Barrier;
  submitWithEvent(std::move(cmd), Ordering::Fence);
}

void TaskQueue::waitFor(std::span<const Ref<Event>> events) {
  Command cmd;
  cmd.type = Command::Type::Barrier;
  for (const Ref<Event> &e : events)
    if (!e->isDone() && std::find(cmd.waits.begin(), cmd.waits.end(), e) == cmd.waits.end())
      cmd.waits.push_back(e);
  if (cmd.waits.empty()) return;  // nothing to wait for: later commands are not held back
  submitWithEvent(std::move(cmd), Ordering::Wait);
}

void TaskQueue::sync() {
  drain();
  std::optional<std::string> failure = failures_->take();
  if (failure) fail(XPURT_ERROR_EXECUTION_FAILED, "{}", *failure);
}

}  // namespace xpurt::core
