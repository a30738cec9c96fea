// Threads for a device's host work that may block: host callbacks, a CPU queue's turn at its
// commands, a staging buffer filled once what a copy follows is done. One executor per device
// rather than threads per queue: a thread is made when a job finds every thread busy, up to
// kExtraThreads more than the machine has cores; beyond that only for a thread that waits for
// other work (Blocking), whose wait may be for a queued job, so that no wait can deadlock. An
// idle thread ends after kIdleLifetime. Jobs never run inside a oneTBB task, so a blocking job
// never takes a worker from the device's arena.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

namespace xpurt::core {

class HostExecutor {
  struct State;

 public:
  HostExecutor();
  // Lets the threads end once the jobs posted have run; waits for them, except on one of its
  // own threads (a job that drops the device's last reference), which cannot wait for itself.
  ~HostExecutor();
  HostExecutor(const HostExecutor &) = delete;
  HostExecutor &operator=(const HostExecutor &) = delete;

  // Runs job on one of the executor's threads, soon: never on the calling thread. job must not
  // throw.
  void post(std::function<void()> job);
  // Whether the calling thread is one of this executor's.
  bool onThisExecutor() const;
  // Threads alive now: for tests and diagnostics.
  size_t threads() const;

  // Marks the calling thread, if it is an executor's, as waiting for other work while it
  // lives (a future, a queue's sync): the executor may make another thread for its queued
  // jobs, one of which may be what the wait is for.
  class Blocking {
   public:
    Blocking();
    ~Blocking();
    Blocking(const Blocking &) = delete;
    Blocking &operator=(const Blocking &) = delete;

   private:
    std::shared_ptr<State> state_;
  };

  // How long a thread without work lives on; a burst of jobs reuses the threads of the last.
  static constexpr std::chrono::milliseconds kIdleLifetime{2000};
  // Threads beyond the cores that busy jobs may have: copies and callbacks beside kernels.
  static constexpr unsigned kExtraThreads = 4;

 private:
  static void threadBody(std::shared_ptr<State> state);
  // With the lock held: whether a queued job should get a new thread (then counted).
  static bool needsThread(State &state);
  static void spawn(const std::shared_ptr<State> &state);
  // The executor whose thread this is, if any (its thread holds the state).
  static thread_local State *threadState_;
  std::shared_ptr<State> state_;
};

}  // namespace xpurt::core
