// The CommandBuilder makes every check of a queue operation once (views and their devices,
// ranges, kernels and their argument signatures, launch dimensions, engines) and gives a
// Command that needs none, for queues and graphs alike.
#pragma once

#include "command.hpp"

#include <span>

namespace xpurt::core {

class CommandBuilder {
 public:
  // Commands for a queue of engine `engine` on `device`: a copy engine takes no launches.
  // device may be null for graph nodes on COHERENT views alone, which no one device owns.
  CommandBuilder(Ref<Device> device, XpurtEngine engine);

  Device &device() const { return *device_; }

  Command copyToDevice(MemoryView &view, size_t offset, size_t size);
  Command copyToHost(MemoryView &view, size_t offset, size_t size);
  Command copyView(MemoryView &dst, MemoryView &src, size_t dstOffset, size_t srcOffset,
                   size_t size);
  Command fill(MemoryView &view, size_t offset, size_t size, const void *pattern,
               size_t patternSize);

  // A range of a view that a task launch touches, its view already looked up.
  struct AccessInput {
    MemoryView *view;
    size_t offset;
    size_t size;
    XpurtAccess access;
  };
  // accesses: null for a launch that declares nothing (ordered against everything).
  Command launch(Kernel &kernel, MemoryView *params, const std::span<const AccessInput> *accesses,
                 size_t d0, size_t d1, size_t d2);

  // One argument of launchKernel, its view already looked up.
  struct ArgInput {
    XpurtKernelArgKind kind;
    size_t size;
    const void *value;
    MemoryView *view;
    size_t offset;
    XpurtAccess access;
  };
  Command launchKernel(Kernel &kernel, std::span<const ArgInput> args, uint32_t workDim,
                       const size_t *globalOffset, const size_t *globalSize,
                       const size_t *localSize);

  // ownedState: what userData points to, where the runtime is to own it (null otherwise).
  Command hostCallback(XpurtHostFunc func, void *userData,
                       std::shared_ptr<void> ownedState = nullptr);
  Command barrier();
  // A barrier that waits for events (of any queue) that have not completed yet; one with no
  // waits when all have.
  Command waitFor(std::span<const Ref<Event>> events);
  // Makes the checks of this builder's device on a command built for another device (a graph
  // node instantiated here): its views and kernel; `what` names it in errors.
  void checkCommand(const Command &cmd, const char *what) const;

 private:
  void checkView(const MemoryView &view, const char *what) const;
  void checkKernel(const Kernel &kernel, const char *what) const;
  Command copyWithin(MemoryView &view, size_t offset, size_t size, bool toDevice);

  Ref<Device> device_;
  XpurtEngine engine_;
  // The device's launch limits, read once: its info is a large struct, returned by value.
  uint64_t maxTaskCount_;
  uint64_t maxWorkGroupSize_;
};

}  // namespace xpurt::core
