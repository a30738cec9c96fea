#include "task_queue.hpp"

#include "error.hpp"

#include <cstring>
#include <limits>

namespace xpurt::core {

void TaskQueue::checkView(const MemoryView &view, const char *what) const {
  if (&view.device().backend() != &device_->backend())
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{}: the memory view belongs to a {} device, but this queue runs on a {} device", what,
         view.device().backend().name(), device_->backend().name());
}

Ref<Event> TaskQueue::submitWithEvent(Command &&cmd) {
  Ref<Event> done = makeRef<Event>();
  cmd.done = done;
  submit(std::move(cmd));
  return done;
}

Ref<Event> TaskQueue::copyToDevice(MemoryView &view, size_t offset, size_t size) {
  checkView(view, "copyToDevice");
  Command cmd;
  cmd.type = Command::Type::Copy;
  cmd.size = view.checkedRange(offset, size, "copyToDevice");
  cmd.dst = static_cast<std::byte *>(view.devicePtr()) + offset;
  cmd.src = static_cast<const std::byte *>(view.hostPtr()) + offset;
  cmd.keepAlive[0] = Ref<Object>(&view);
  return submitWithEvent(std::move(cmd));
}

Ref<Event> TaskQueue::copyToHost(MemoryView &view, size_t offset, size_t size) {
  checkView(view, "copyToHost");
  Command cmd;
  cmd.type = Command::Type::Copy;
  cmd.size = view.checkedRange(offset, size, "copyToHost");
  cmd.dst = static_cast<std::byte *>(view.hostPtr()) + offset;
  cmd.src = static_cast<const std::byte *>(view.devicePtr()) + offset;
  cmd.keepAlive[0] = Ref<Object>(&view);
  return submitWithEvent(std::move(cmd));
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
  cmd.keepAlive[0] = Ref<Object>(&dst);
  cmd.keepAlive[1] = Ref<Object>(&src);
  return submitWithEvent(std::move(cmd));
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
  std::memcpy(cmd.pattern.data(), pattern, patternSize);
  cmd.keepAlive[0] = Ref<Object>(&view);
  return submitWithEvent(std::move(cmd));
}

Ref<Event> TaskQueue::launch(Kernel &kernel, MemoryView *params, size_t d0, size_t d1, size_t d2) {
  if (&kernel.module().device().backend() != &device_->backend())
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "launch: kernel '{}' was loaded for a {} device, but this queue runs on a {} device",
         kernel.name(), kernel.module().device().backend().name(), device_->backend().name());
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
  return submitWithEvent(std::move(cmd));
}

Ref<Event> TaskQueue::hostCallback(XpurtHostFunc func, void *userData) {
  if (!func) fail(XPURT_ERROR_INVALID_ARGUMENT, "hostCallback: the function pointer is NULL");
  Command cmd;
  cmd.type = Command::Type::HostCallback;
  cmd.func = func;
  cmd.userData = userData;
  return submitWithEvent(std::move(cmd));
}

void TaskQueue::barrier() {
  Command cmd;
  cmd.type = Command::Type::Barrier;
  submit(std::move(cmd));
}

void TaskQueue::sync() {
  drain();
  std::optional<std::string> failure;
  {
    std::lock_guard lock(failureMutex_);
    failure.swap(firstFailure_);
  }
  if (failure) fail(XPURT_ERROR_EXECUTION_FAILED, "{}", *failure);
}

void TaskQueue::noteFailure(const std::string &message) {
  std::lock_guard lock(failureMutex_);
  if (!firstFailure_) firstFailure_ = message;
}

}  // namespace xpurt::core

namespace xpurt::core {

static thread_local std::string hostCallbackError;

void setHostCallbackError(const char *message) {
  hostCallbackError = message ? message : "";
}

std::string takeHostCallbackError() {
  return std::exchange(hostCallbackError, std::string());
}

}  // namespace xpurt::core
