#include "command_builder.hpp"

#include "cross_device_copy.hpp"
#include "error.hpp"

#include <algorithm>
#include <cstring>

namespace xpurt::core {

void MemoryRef::appendUses(std::vector<MemoryUse> &uses) const {
  // A COHERENT view has no storage of its own: its host memory names its bytes.
  auto begin = view->isCoherent() ? reinterpret_cast<uintptr_t>(view->hostPtr()) + offset
                                  : reinterpret_cast<uintptr_t>(pointer());
  if (access != XPURT_ACCESS_WRITE) uses.push_back({begin, begin + size, false});
  if (access != XPURT_ACCESS_READ) uses.push_back({begin, begin + size, true});
}

std::string Command::description() const {
  switch (type) {
    case Type::Copy:
      return fmt::format("a copy of {} bytes", dst.size);
    case Type::Fill:
      return fmt::format("a fill of {} bytes", dst.size);
    case Type::Launch:
    case Type::LaunchKernel:
      return fmt::format("kernel '{}'", kernel->name());
    case Type::HostCallback:
      return "a host callback";
    case Type::Graph:
      return "a graph";
    case Type::Barrier:
      break;
  }
  return "a wait";
}

bool Command::declaresMemory() const {
  switch (type) {
    case Type::Copy:
    case Type::Fill:
    case Type::LaunchKernel:
      return true;
    case Type::Launch:
      return declared;
    case Type::HostCallback:
    case Type::Barrier:
    case Type::Graph:
      return false;
  }
  return false;
}

std::vector<MemoryUse> Command::memoryUses() const {
  std::vector<MemoryUse> uses;
  forEachRef([&](const MemoryRef &r) { r.appendUses(uses); });
  return uses;
}

CommandBuilder::CommandBuilder(Ref<Device> device, XpurtEngine engine)
    : device_(std::move(device)), engine_(engine) {
  if (device_) {
    XpurtDeviceInfo info = device_->info();
    maxTaskCount_ = info.maxTaskCount;
    maxWorkGroupSize_ = info.maxWorkGroupSize;
  } else {
    maxTaskCount_ = maxWorkGroupSize_ = ~uint64_t{0};
  }
  if (engine_ != XPURT_ENGINE_ANY && engine_ != XPURT_ENGINE_COMPUTE &&
      engine_ != XPURT_ENGINE_COPY)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "queue options: engine {} is not one of XPURT_ENGINE_ANY, _COMPUTE or _COPY",
         static_cast<int>(engine_));
}

// What to do with memory of another device, where a command needs its own.
static constexpr const char *kUseOwnMemory =
    "kernels and graph nodes use memory of their own device: copy the data into a view of this "
    "device (xpurtCopyMemoryView on a queue copies between devices)";

void CommandBuilder::checkView(const MemoryView &view, const char *what) const {
  // Memory of every device: a queue runs the command on its device's copy (TaskQueue::copyOn);
  // what reaches here is a graph node, which a queue submits the same way when it runs.
  if (view.isCoherent()) return;
  if (!device_)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{}: a command on COHERENT memory views alone cannot take a view of one device", what);
  if (&view.device().backend() != &device_->backend())
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{}: the memory view belongs to a {} device, but this runs on a {} device; {}", what,
         view.device().backend().name(), device_->backend().name(), kUseOwnMemory);
  // Device memory is the device's own; shared and host memory serve every device of the
  // backend's context.
  if (view.type() == XPURT_ALLOC_TYPE_DEVICE && &view.device() != device_.get())
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{}: the memory view is device memory of {}, but this runs on {}; {}, or use a SHARED "
         "view",
         what, view.device().label(), device_->label(), kUseOwnMemory);
  if (&view.device() != device_.get() && !device_->sharesMemoryWith(view.device()))
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{}: the memory view was made on {}, whose memory {} cannot reach (another driver's "
         "context); make the view on this device",
         what, view.device().label(), device_->label());
}

void CommandBuilder::checkKernel(const Kernel &kernel, const char *what) const {
  if (&kernel.module().device().backend() != &device_->backend())
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{} '{}': the kernel was loaded for a {} device, but this queue runs on a {} device", what,
         kernel.name(), kernel.module().device().backend().name(), device_->backend().name());
  if (const Device &owner = kernel.module().device();
      &owner != device_.get() && !device_->runsKernelsOf(owner))
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{} '{}': the kernel's module was loaded for {}, but this queue runs on {}; load the "
         "module on this device too",
         what, kernel.name(), owner.label(), device_->label());
  if (engine_ == XPURT_ENGINE_COPY)
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

Command CommandBuilder::copyWithin(MemoryView &view, size_t offset, size_t size, bool toDevice) {
  const char *what = toDevice ? "copyToDevice" : "copyToHost";
  checkView(view, what);
  Command cmd;
  cmd.type = Command::Type::Copy;
  size = view.checkedRange(offset, size, what);
  // The host copy on one side, the device storage on the other.
  cmd.dst = {Ref<MemoryView>(&view), offset, size, XPURT_ACCESS_WRITE, !toDevice};
  cmd.src = {Ref<MemoryView>(&view), offset, size, XPURT_ACCESS_READ, toDevice};
  cmd.copyKind = toDevice ? Command::CopyKind::ToDevice : Command::CopyKind::ToHost;
  return cmd;
}

Command CommandBuilder::copyToDevice(MemoryView &view, size_t offset, size_t size) {
  return copyWithin(view, offset, size, true);
}

Command CommandBuilder::copyToHost(MemoryView &view, size_t offset, size_t size) {
  return copyWithin(view, offset, size, false);
}

Command CommandBuilder::copyView(MemoryView &dst, MemoryView &src, size_t dstOffset,
                                 size_t srcOffset, size_t size) {
  checkView(dst, "copyMemoryView (destination)");
  checkView(src, "copyMemoryView (source)");
  size = checkedCopySize(dst, src, dstOffset, srcOffset, size);
  Command cmd;
  cmd.type = Command::Type::Copy;
  cmd.copyKind = Command::CopyKind::DeviceToDevice;
  cmd.dst = {Ref<MemoryView>(&dst), dstOffset, size, XPURT_ACCESS_WRITE, false};
  cmd.src = {Ref<MemoryView>(&src), srcOffset, size, XPURT_ACCESS_READ, false};
  return cmd;
}

Command CommandBuilder::fill(MemoryView &view, size_t offset, size_t size, const void *pattern,
                             size_t patternSize) {
  checkView(view, "fill");
  if (!pattern) fail(XPURT_ERROR_INVALID_ARGUMENT, "fill: the pattern pointer is NULL");
  if (patternSize == 0 || patternSize > Command::kMaxPatternSize)
    fail(XPURT_ERROR_INVALID_ARGUMENT, "fill: a pattern of {} bytes; use 1 to {} bytes",
         patternSize, Command::kMaxPatternSize);
  size = view.checkedRange(offset, size, "fill");
  if (size % patternSize != 0)
    fail(XPURT_ERROR_INVALID_ARGUMENT, "fill: {} bytes is not a whole number of {}-byte patterns",
         size, patternSize);
  Command cmd;
  cmd.type = Command::Type::Fill;
  cmd.dst = {Ref<MemoryView>(&view), offset, size, XPURT_ACCESS_WRITE, false};
  cmd.patternSize = static_cast<uint32_t>(patternSize);
  if (patternSize <= sizeof cmd.pattern) {
    std::memcpy(&cmd.pattern, pattern, patternSize);
  } else {
    auto *bytes = static_cast<const std::byte *>(pattern);
    cmd.longPattern = std::make_shared<std::vector<std::byte>>(bytes, bytes + patternSize);
  }
  return cmd;
}

Command CommandBuilder::launch(Kernel &kernel, MemoryView *params,
                               const std::span<const AccessInput> *accesses, size_t d0, size_t d1,
                               size_t d2) {
  checkKernel(kernel, "launch");
  if (params) checkView(*params, "launch (params)");
  kernel.checkTaskLaunch(params != nullptr);
  if (d0 == 0 || d1 == 0 || d2 == 0)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "launch of '{}': task dimensions ({}, {}, {}) — every dimension must be at least 1",
         kernel.name(), d0, d1, d2);
  uint64_t maxTasks = maxTaskCount_;
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
  cmd.dims = {static_cast<uint32_t>(d0), static_cast<uint32_t>(d1), static_cast<uint32_t>(d2)};
  if (params) cmd.src = {Ref<MemoryView>(params), 0, params->size(), XPURT_ACCESS_READ, false};
  if (!accesses) return cmd;
  cmd.declared = true;
  auto declared = std::make_shared<std::vector<MemoryRef>>();
  for (size_t i = 0; i < accesses->size(); ++i) {
    const AccessInput &a = (*accesses)[i];
    if (!a.view)
      fail(XPURT_ERROR_INVALID_ARGUMENT, "launch of '{}': access {} names no memory view",
           kernel.name(), i);
    checkView(*a.view, "launch (accesses)");
    size_t size = a.view->checkedRange(a.offset, a.size, "launch (accesses)");
    declared->push_back({Ref<MemoryView>(a.view), a.offset, size,
                         checkedAccess(a.access, "launch", kernel.name(), i), false});
  }
  cmd.accesses = std::move(declared);
  return cmd;
}

// The range of launchKernel, checked against the device's limits (maxItems: its largest
// work-group).
static NDRange checkedRange(const Kernel &kernel, uint64_t maxItems, uint32_t workDim,
                            const size_t *globalOffset, const size_t *globalSize,
                            const size_t *localSize) {
  if (workDim < 1 || workDim > 3)
    fail(XPURT_ERROR_INVALID_ARGUMENT, "launchKernel '{}': workDim is {}; use 1, 2 or 3",
         kernel.name(), workDim);
  if (!globalSize)
    fail(XPURT_ERROR_INVALID_ARGUMENT, "launchKernel '{}': globalSize is NULL", kernel.name());
  NDRange range;
  range.workDim = workDim;
  uint64_t items = 1;
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
  return range;
}

Command CommandBuilder::launchKernel(Kernel &kernel, std::span<const ArgInput> inputs,
                                     uint32_t workDim, const size_t *globalOffset,
                                     const size_t *globalSize, const size_t *localSize) {
  checkKernel(kernel, "launchKernel");
  NDRange range =
      checkedRange(kernel, maxWorkGroupSize_, workDim, globalOffset, globalSize, localSize);
  auto args = std::make_shared<KernelArgs>();
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
        MemoryRef ref{Ref<MemoryView>(in.view), in.offset,
                      in.size ? in.size : in.view->size() - in.offset,
                      checkedAccess(in.access, "launchKernel", kernel.name(), i), false};
        // The pointer is the backend's to resolve when the launch runs (ref.pointer()): a
        // recorded launch may be replayed with another view bound here.
        void *unresolved = nullptr;
        arg.size = sizeof unresolved;
        append(&unresolved, sizeof unresolved);
        args->views.push_back({static_cast<uint32_t>(i), std::move(ref)});
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
  return cmd;
}

Command CommandBuilder::hostCallback(XpurtHostFunc func, void *userData,
                                     std::shared_ptr<void> ownedState) {
  if (!func) fail(XPURT_ERROR_INVALID_ARGUMENT, "hostCallback: the function pointer is NULL");
  Command cmd;
  cmd.type = Command::Type::HostCallback;
  cmd.func = func;
  cmd.userData = userData;
  cmd.ownedState = std::move(ownedState);
  return cmd;
}

void CommandBuilder::checkCommand(const Command &cmd, const char *what) const {
  cmd.forEachRef([&](const MemoryRef &ref) { checkView(*ref.view, what); });
  if (cmd.kernel) checkKernel(*cmd.kernel, what);
}

Command CommandBuilder::barrier() {
  Command cmd;
  cmd.type = Command::Type::Barrier;
  return cmd;
}

Command CommandBuilder::waitFor(std::span<const Ref<Event>> events) {
  Command cmd;
  cmd.type = Command::Type::Barrier;
  for (const Ref<Event> &e : events)
    if (!e->isDone() && std::find(cmd.waits.begin(), cmd.waits.end(), e) == cmd.waits.end())
      cmd.waits.push_back(e);
  return cmd;
}

}  // namespace xpurt::core
