// The CPU in-order task queue. Commands run one after another, in the order they were enqueued,
// on one thread at a time: a thread of the device's host executor, which takes the queue's turn
// while it has commands, or a thread that waits for one of them (it runs the queued work itself
// instead of sleeping while the executor wakes). Launches run
// inside the device's oneTBB arena, where that thread and the arena's workers share the tasks;
// copies, fills and callbacks run outside it, so they never wait for a slot behind another
// queue's kernel. A copy queue is this queue without launches. Enqueueing never waits for work.
#pragma once

#include "core/task_queue.hpp"
#include "cpu_device.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace xpurt::cpu {

// The queue's pending commands and whoever runs them. Shared with the queue's events, which
// use it to help when waited on.
class CommandRunner final : public core::EventDriver,
                            public std::enable_shared_from_this<CommandRunner> {
 public:
  CommandRunner(core::Ref<CpuDevice> device, std::shared_ptr<core::FailureLog> failures,
                bool copyEngine)
      : device_(std::move(device)),
        failures_(std::move(failures)),
        copyClaim_(copyEngine ? &device_->cores() : nullptr) {}

  void push(core::Command &&cmd);
  void helpUntil(const std::function<bool()> &done) override;
  // Returns once every command pushed before the call has completed.
  void drain();
  // Returns once no turn of the queue is posted or running.
  void waitIdle();
  // Whether the calling thread is running this runner's commands (a host callback of it).
  bool runningOnThisThread() const;
  // Throws for a wait that a command of this queue makes on the queue's own later work.
  void refuseWaitFromOwnCommand(const char *what) const;

 private:
  // Takes every pending command and runs it; runMutex_ must be held. False if there were none.
  bool runPending();
  void runLaunches(core::Command *const *launches, size_t count);
  // Runs one command and signals its completion.
  void finish(core::Command &cmd);
  void execute(core::Command &cmd);
  // The queue's turn on the host executor, which holds the runner: runs what is pending, then
  // lets the turn go.
  void turn();

  core::Ref<CpuDevice> device_;
  std::mutex runMutex_;                         // held by the one thread running commands
  std::deque<core::Command> batch_;             // runPending's turn; guarded by runMutex_
  std::vector<core::Command *> launchRun_;      // consecutive launches of it
  std::shared_ptr<core::FailureLog> failures_;  // the queue's; outlives it
  // A copy queue's claim on a core, held across a run of copies (null on other queues);
  // guarded by runMutex_.
  CoreShare::EngineClaim copyClaim_;

  std::mutex mutex_;  // guards the three below
  std::deque<core::Command> pending_;
  bool scheduled_ = false;  // a turn is posted or running
  std::condition_variable turnEnded_;
  // Counters that wrap; compared by difference. submitted_ counts pushes.
  std::atomic<uint32_t> submitted_{0};
  std::atomic<uint32_t> completed_{0};
  std::atomic<uint32_t> drainSleepers_{0};
};

class CpuQueue final : public core::TaskQueue {
 public:
  CpuQueue(core::Ref<CpuDevice> device, const core::QueueOptions &options);
  // Every queued command still runs: the destructor waits for them, except in a host callback
  // of this queue (which cannot wait for itself): then the queue's turn finishes them.
  ~CpuQueue() override;

 protected:
  void submit(core::Command &&cmd) override;
  void drain() override { runner_->drain(); }

 private:
  std::shared_ptr<CommandRunner> runner_;
};

}  // namespace xpurt::cpu
