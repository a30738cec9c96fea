// Where commands run. Each command queue and each asynchronous immediate command list has an
// Executor, which runs what is submitted, in order, in its turn on the CPU device's host
// executor (core/host_executor.hpp): a thread is taken only while there is work, so a queue or
// list owns none. A synchronous immediate list runs its commands on the appending thread. Either
// way a CommandInterpreter runs each command: it waits for the command's wait events, does the work
// (kernels on the CPU device's oneTBB arena, copies and fills on the running thread), and signals
// the command's event.
//
// A launch that fails at run time (the CPU kernel reports an error, e.g. its work-items parted
// at a barrier) is handled as a GPU driver handles a faulting kernel, with one difference: the
// CPU device is not lost. The failed launch completes — its groups that could run have run —
// and its event is signalled, so no waiter hangs, but carries the failure:
//   - zeEventHostSynchronize and zeEventQueryStatus on that event return
//     ZE_RESULT_ERROR_DEVICE_LOST until the event is reset;
//   - the queue's next zeCommandQueueSynchronize returns ZE_RESULT_ERROR_DEVICE_LOST once, and
//     the fence of the submission that failed does so until it is reset;
//   - an append to a synchronous immediate list returns it for the command that failed.
// Later commands run as usual, and zeDeviceGetStatus and zeContextGetStatus stay SUCCESS. The
// kernel's message is what zeDriverGetLastErrorDescription (an extension function here) then
// gives the thread that got the error, and it is logged (xpurt's logger, on stderr).
#pragma once

#include "command.hpp"
#include "cpu/cpu_device.hpp"
#include "sync.hpp"

#include <level_zero/ze_api.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace xpurt::ze_cpu {

class DeviceObject;

class CommandInterpreter {
 public:
  CommandInterpreter(DeviceObject &device, uint32_t ordinal, uint32_t index)
      : device_(device), ordinal_(ordinal), index_(index) {}

  // Runs the commands one after another; `source` is the list they were appended to (null
  // for a queue's own, whose ExecuteList commands name their lists).
  void run(std::span<RecordedCommand> commands, CommandList *source);
  // Why a command failed since the last call, if one did.
  std::optional<std::string> takeFailure();

 private:
  void runOne(RecordedCommand &command, CommandList *source);
  // Runs the command's work; false (with failure_ set) if it failed.
  bool execute(RecordedCommand &command);
  bool launch(const LaunchPayload &launch);
  // On the copy group's queues, a copy or fill has a core to itself while it runs, as a GPU's
  // copy engine is hardware of its own (cpu/core_share.hpp); null on the compute group's.
  cpu::CoreShare *copyEngine() const;

  DeviceObject &device_;
  uint32_t ordinal_, index_;
  std::string failure_;                           // of the command that just failed
  std::optional<std::string> submissionFailure_;  // for the fence of the submission being run
  // For zeCommandQueueSynchronize and synchronous lists, on other threads.
  std::atomic<bool> failed_{false};
  std::mutex failureMutex_;
  std::string unreportedFailure_;  // guarded by failureMutex_
};

// ZE_RESULT_ERROR_DEVICE_LOST, described for the calling thread, if a command the runner ran
// failed since the last call; else ZE_RESULT_SUCCESS.
ze_result_t reportFailure(CommandInterpreter &runner);

class Executor {
 public:
  // `owner`: the immediate list whose commands these are, or null for a command queue.
  Executor(DeviceObject &device, uint32_t ordinal, uint32_t index, CommandList *owner);
  // Waits for everything submitted to have run.
  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  // Appends commands, in order, as one submission (concurrent submissions do not interleave).
  void submit(std::span<RecordedCommand> commands);
  void submit(RecordedCommand &&command) { submit(std::span<RecordedCommand>(&command, 1)); }
  // Waits until everything submitted before the call has run: ZE_RESULT_SUCCESS,
  // ZE_RESULT_NOT_READY when the deadline passed first, or ZE_RESULT_ERROR_DEVICE_LOST once
  // for commands that failed since the last call (described for the calling thread).
  ze_result_t synchronize(const Deadline &deadline);

 private:
  // The executor's turn: runs what is pending until nothing is, then lets the turn go.
  void turn();

  DeviceObject &device_;
  CommandInterpreter runner_;
  CommandList *owner_;
  std::mutex mutex_;
  std::condition_variable workDone_;      // for synchronizing threads that sleep, and the end
  std::vector<RecordedCommand> pending_;  // guarded by mutex_
  std::vector<RecordedCommand> batch_;    // the turn's; keeps its capacity
  uint64_t submitted_ = 0;                // guarded by mutex_
  bool scheduled_ = false;                // a turn is posted or running; guarded by mutex_
  std::atomic<uint64_t> completed_{0};
  std::atomic<uint32_t> sleepingSynchronizers_{0};
};

}  // namespace xpurt::ze_cpu
