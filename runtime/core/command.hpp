// Commands: what a queue hands its backend, checked once by the CommandBuilder. A command
// names its memory as ranges of memory views (MemoryRef) rather than raw pointers, so the
// same command can be recorded and replayed with other memory bound to it; it holds
// references to everything it touches, so handles may be released while it waits.
#pragma once

#include "backend.hpp"
#include "hazard_tracker.hpp"
#include "memory_view.hpp"

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace xpurt::core {

struct GraphProgram;  // graph_exec.hpp

// A range of a memory view as a command uses it.
struct MemoryRef {
  Ref<MemoryView> view;
  size_t offset = 0;
  size_t size = 0;
  XpurtAccess access = XPURT_ACCESS_READ_WRITE;
  bool hostCopy = false;  // a DEVICE view's host copy, not its device storage

  explicit operator bool() const { return bool(view); }
  // Where the range is now; resolved when the command runs.
  std::byte *pointer() const {
    return static_cast<std::byte *>(hostCopy ? view->hostPtr() : view->devicePtr()) + offset;
  }
  // Whether the range is host memory the view's device locked for copies (a DEVICE view's
  // host copy that is locked, see MemoryView::hostCopyIsLocked); the host side of a copy
  // between devices is not, for the queue's device.
  bool isLockedHostCopy() const { return hostCopy && view->hostCopyIsLocked(); }
  // The range as the hazard tracker sees it: a read, a write, or both.
  void appendUses(std::vector<MemoryUse> &uses) const;
};

// The arguments of a general launch, checked and copied: `data` holds each value (a uint64_t
// byte count for __local memory; for a memory view, room for the device pointer that the
// backend resolves from `views` when the launch runs).
struct KernelArgs {
  struct Arg {
    XpurtKernelArgKind kind;
    uint32_t offset;  // into data
    uint32_t size;    // VALUE: bytes; LOCAL: bytes per work-group; MEMORY_VIEW: 8
  };
  struct ViewArg {
    uint32_t index;  // of the argument whose value is ref.pointer() when the launch runs
    MemoryRef ref;
  };
  std::vector<Arg> args;
  std::vector<std::byte> data;
  std::vector<ViewArg> views;  // the memory view arguments, which also keep them alive
};

// One queued command. The backend runs it after every event in `waits` has completed (and,
// in an in-order queue, after every command submitted before it), then signals `done`.
struct Command {
  enum class Type : uint8_t { Copy, Fill, Launch, LaunchKernel, HostCallback, Barrier, Graph };
  // ToDevice and ToHost: one side is host memory (a DEVICE view's host copy, or, in a copy
  // between devices, memory of another device that is host memory: MemoryRef::hostCopy false);
  // DeviceToDevice: both sides are the device's own memory (or memory of its context); Peer:
  // one side is DEVICE memory of another device of the backend (Device::copiesPeerWith).
  enum class CopyKind : uint8_t { ToDevice, ToHost, DeviceToDevice, Peer };
  static constexpr size_t kMaxPatternSize = 128;

  Type type = Type::Barrier;
  CopyKind copyKind = CopyKind::ToDevice;  // Copy
  bool declared = false;     // Launch: lists what it touches; without, ordered against everything
  uint32_t patternSize = 0;  // Fill
  MemoryRef dst;             // Copy, Fill
  MemoryRef src;             // Copy; Launch: the params view
  uint64_t pattern = 0;      // Fill: a pattern of up to 8 bytes
  std::shared_ptr<const std::vector<std::byte>> longPattern;  // Fill: a longer one
  Ref<Kernel> kernel;                                         // Launch, LaunchKernel
  std::array<uint32_t, 3> dims{1, 1, 1};                      // Launch: task counts
  std::shared_ptr<const std::vector<MemoryRef>> accesses;     // Launch: what it declares
  std::shared_ptr<const KernelArgs> args;                     // LaunchKernel
  NDRange range;                                              // LaunchKernel
  XpurtHostFunc func = nullptr;                               // HostCallback
  void *userData = nullptr;
  // HostCallback: the state userData points to where the runtime owns it (destroyed with the
  // last command or graph that may call func); null where the application owns it.
  std::shared_ptr<void> ownedState;
  Ref<Object> graph;                            // Graph: the GraphExec launched
  std::shared_ptr<const GraphProgram> program;  // Graph: its nodes as bound at the launch
  std::vector<Ref<Event>> waits;                // what must complete first
  Ref<Event> done;                              // null for a barrier of an in-order queue

  const std::byte *patternBytes() const {
    return longPattern ? longPattern->data() : reinterpret_cast<const std::byte *>(&pattern);
  }
  bool isLaunch() const { return type == Type::Launch || type == Type::LaunchKernel; }
  // Launch: the params pointer the kernel gets (null without a params view).
  void *params() const { return src ? src.pointer() : nullptr; }
  // Whether the command says what memory it touches (else it is ordered against everything,
  // as a barrier is), and if so, what.
  bool declaresMemory() const;
  // What the command is, for messages: "a copy of 64 bytes", "kernel 'saxpy'".
  std::string description() const;
  std::vector<MemoryUse> memoryUses() const;
  // Calls fn(ref) for every range of memory the command names: its destination and source,
  // a task launch's declared accesses, a general launch's view arguments.
  template <class Fn>
  void forEachRef(Fn fn) const {
    if (dst) fn(dst);
    if (src) fn(src);
    if (accesses)
      for (const MemoryRef &r : *accesses) fn(r);
    if (args)
      for (const KernelArgs::ViewArg &v : args->views) fn(v.ref);
  }
};

}  // namespace xpurt::core
