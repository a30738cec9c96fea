// Command lists and command queues.
#pragma once

#include "command.hpp"
#include "executor.hpp"

#include <level_zero/ze_api.h>

#include <memory>
#include <span>
#include <vector>

namespace xpurt::ze_cpu {

class DeviceObject;
class Fence;

// The checks of a queue descriptor that zeCommandQueueCreate and zeCommandListCreateImmediate
// share (the ordinal and index must exist); returns whether the mode is synchronous.
bool checkQueueDesc(const ze_command_queue_desc_t *desc);

class CommandList {
 public:
  // A regular list: recorded, closed, then executed on command queues of its ordinal.
  CommandList(DeviceObject &device, uint32_t ordinal);
  // An immediate list: each command runs as it is appended, on a thread of the list's own
  // (asynchronous, and the default mode) or before the append returns (synchronous).
  CommandList(DeviceObject &device, uint32_t ordinal, uint32_t index, bool synchronous);
  // An immediate list first runs what was appended to it.
  ~CommandList();

  DeviceObject &device() const { return device_; }
  uint32_t ordinal() const { return ordinal_; }
  bool immediate() const { return immediate_; }
  bool closed() const { return closed_; }
  bool runsLaunches() const;  // whether its ordinal's group computes

  // Appends (regular) or runs (immediate) a command. Returns what a synchronous immediate
  // list's command came to (executor.hpp); SUCCESS otherwise.
  ze_result_t append(RecordedCommand &&command);
  void close() { closed_ = true; }
  // Empties a regular list; an immediate list waits for what it runs.
  void reset();
  // What a queue runs: the commands of a closed regular list.
  std::span<RecordedCommand> commands() { return commands_; }

 private:
  DeviceObject &device_;
  uint32_t ordinal_;
  bool immediate_;
  bool closed_ = false;
  std::vector<RecordedCommand> commands_;             // regular
  std::unique_ptr<CommandInterpreter> inlineRunner_;  // synchronous immediate
  std::unique_ptr<Executor> executor_;                // asynchronous immediate
};

class CommandQueue {
 public:
  CommandQueue(DeviceObject &device, uint32_t ordinal, uint32_t index, bool synchronous)
      : device_(device),
        ordinal_(ordinal),
        synchronous_(synchronous),
        executor_(device, ordinal, index, nullptr) {}

  DeviceObject &device() const { return device_; }
  uint32_t ordinal() const { return ordinal_; }
  // Runs the lists in order, then signals the fence (may be null). A synchronous queue returns
  // when they have run.
  ze_result_t execute(std::span<CommandList *const> lists, Fence *fence);
  ze_result_t synchronize(const Deadline &deadline) { return executor_.synchronize(deadline); }

 private:
  DeviceObject &device_;
  uint32_t ordinal_;
  bool synchronous_;
  Executor executor_;  // last: its destructor runs what is queued while the rest still lives
};

}  // namespace xpurt::ze_cpu
