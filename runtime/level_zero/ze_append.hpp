// Appending xpurt's commands to Level Zero command lists, for queues and recorded graphs:
// copies, fills (expanded into a copy where the queue group cannot fill with the pattern),
// launches and barriers. Launches use Level Zero kernels of the appender's own, one per xpurt
// kernel, with the state last set on each, so a launch repeating it makes no call for it; a
// list keeps what was set when the launch was appended. A launch the Level Zero API cannot
// express (a partial last work-group; a global offset without the driver's extension) is
// appended as launches of whole groups of the module's launch-value variant
// (core::splitIntoWholeGroups, ZeModule::launchValueVariant), then a barrier that signals its
// completion. One append at a time.
#pragma once

#include "core/command.hpp"
#include "ze_device.hpp"

#include <array>
#include <map>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace xpurt::level_zero {

class CommandAppender {
 public:
  explicit CommandAppender(ZeDevice &device) : device_(device) {}
  // Destroys the kernels: only once the device is done with every list they were appended to.
  ~CommandAppender();
  CommandAppender(const CommandAppender &) = delete;
  CommandAppender &operator=(const CommandAppender &) = delete;

  // Appends cmd to list (of a queue group filling with patterns of at most
  // maxFillPatternSize bytes), signalling signal once it completes, after waits. Returns what
  // the device reads until it completes (a fill's expanded pattern), if anything. Host
  // callbacks and graphs are not appended.
  std::shared_ptr<void> append(const core::Command &cmd, ze_command_list_handle_t list,
                               uint32_t maxFillPatternSize, ze_event_handle_t signal,
                               std::span<ze_event_handle_t> waits);

 private:
  struct KernelClone {
    core::Ref<core::Kernel> kernel;  // keeps the module alive while the clone lives
    ze_kernel_handle_t handle = nullptr;
    std::array<uint32_t, 3> groupSize{0, 0, 0};
    std::array<uint32_t, 3> offset{0, 0, 0};
    std::vector<std::vector<std::byte>> args;  // as last set; empty: not set
  };

  // The appender's kernel object for `kernel` in `module` (its own, or its launch-value
  // variant: ZeModule::launchValueVariant).
  KernelClone &cloneOf(core::Kernel &kernel, ze_module_handle_t module);
  void setArg(KernelClone &clone, uint32_t index, size_t size, const void *value);
  void setGroupSize(KernelClone &clone, const std::array<uint32_t, 3> &size);
  void appendLaunch(const core::Command &cmd, ze_command_list_handle_t list,
                    ze_event_handle_t signal, std::span<ze_event_handle_t> waits);

  ZeDevice &device_;
  std::map<std::pair<const core::Kernel *, ze_module_handle_t>, KernelClone> clones_;
};

}  // namespace xpurt::level_zero
