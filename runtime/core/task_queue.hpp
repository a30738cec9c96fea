// TaskQueue: checks every command against its views, kernel and device, then hands it to the
// backend. In order as its user sees it.
#pragma once

#include "backend.hpp"
#include "memory_view.hpp"

#include <mutex>
#include <optional>
#include <span>
#include <string>

namespace xpurt::core {

class TaskQueue : public Object {
 public:
  static constexpr ObjectKind kKind = ObjectKind::TaskQueue;
  explicit TaskQueue(Ref<Device> device) : Object(kKind), device_(std::move(device)) {}

  Device &device() const { return *device_; }

  Ref<Event> copyToDevice(MemoryView &view, size_t offset, size_t size);
  Ref<Event> copyToHost(MemoryView &view, size_t offset, size_t size);
  Ref<Event> copyView(MemoryView &dst, MemoryView &src, size_t dstOffset, size_t srcOffset,
                      size_t size);
  Ref<Event> fill(MemoryView &view, size_t offset, size_t size, const void *pattern,
                  size_t patternSize);
  Ref<Event> launch(Kernel &kernel, MemoryView *params, size_t d0, size_t d1, size_t d2);
  // One argument of launchKernel, its view already looked up.
  struct ArgInput {
    XpurtKernelArgKind kind;
    size_t size;
    const void *value;
    MemoryView *view;
    size_t offset;
  };
  Ref<Event> launchKernel(Kernel &kernel, std::span<const ArgInput> args, uint32_t workDim,
                          const size_t *globalOffset, const size_t *globalSize,
                          const size_t *localSize);
  Ref<Event> hostCallback(XpurtHostFunc func, void *userData);
  void barrier();
  // Waits for everything submitted so far; throws EXECUTION_FAILED for the first failure of
  // queued work since the last sync.
  void sync();

  // Backends call this when a command fails; sync() reports the first. Thread-safe.
  void noteFailure(const std::string &message);

 protected:
  // Runs the command after everything submitted before it; signals cmd.done when it is over.
  virtual void submit(Command &&cmd) = 0;
  // Returns once every command submitted before the call has completed.
  virtual void drain() = 0;

 private:
  Ref<Event> submitWithEvent(Command &&cmd);
  // Between a view's host copy and its device storage.
  Ref<Event> copyWithin(MemoryView &view, size_t offset, size_t size, bool toDevice);
  void checkView(const MemoryView &view, const char *what) const;

  Ref<Device> device_;
  std::mutex failureMutex_;
  std::optional<std::string> firstFailure_;
};

}  // namespace xpurt::core

namespace xpurt::core {

// The message a host callback gives its failure (xpurtHostCallbackSetError), per thread.
void setHostCallbackError(const char *message);
std::string takeHostCallbackError();

}  // namespace xpurt::core
