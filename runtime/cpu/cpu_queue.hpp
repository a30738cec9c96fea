// The CPU task queue. One executor thread per queue takes commands in order and runs each;
// launches run inside the device's oneTBB arena, where the executor and the arena's workers
// share the tasks. Enqueueing never waits for work.
#pragma once

#include "core/task_queue.hpp"
#include "cpu_device.hpp"

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

namespace xpurt::cpu {

class CpuQueue final : public core::TaskQueue {
 public:
  explicit CpuQueue(core::Ref<CpuDevice> device);
  // Finishes every queued command, then stops the executor. A host callback must not drop the
  // last reference to its own queue (the executor cannot join itself).
  ~CpuQueue() override;

 protected:
  void submit(core::Command &&cmd) override;
  void drain() override;

 private:
  void executorLoop();
  // Waits for the next command: spins for a while first (a sleeping executor costs the next
  // command a wake-up of several microseconds), then sleeps.
  void awaitWork(uint32_t taken);
  void execute(core::Command &cmd);

  CpuDevice &device_;
  std::mutex mutex_;
  std::deque<core::Command> pending_;  // guarded by mutex_
  // Counters that wrap; compared by difference. submitted_ also counts the stop signal.
  std::atomic<uint32_t> submitted_{0};
  std::atomic<uint32_t> completed_{0};
  std::atomic<uint32_t> executorSleeping_{0};
  std::atomic<uint32_t> drainSleepers_{0};
  std::thread executor_;
};

}  // namespace xpurt::cpu
