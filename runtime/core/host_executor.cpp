#include "host_executor.hpp"

#include "spin_wait.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace xpurt::core {

struct HostExecutor::State : std::enable_shared_from_this<State> {
  std::mutex mutex;
  std::condition_variable work;   // a job, or the stop
  std::condition_variable ended;  // a thread ended
  std::deque<std::function<void()>> jobs;
  // Jobs not yet taken, readable without the lock: an idle thread looks for one for a moment
  // before it sleeps, so back-to-back jobs do not each pay a wake-up.
  std::atomic<size_t> queued{0};
  size_t threads = 0;
  size_t idle = 0;     // threads waiting for a job (spinning or asleep)
  size_t blocked = 0;  // threads in a job that waits for other work (Blocking)
  size_t maxBusy = std::max(2u, std::thread::hardware_concurrency()) + kExtraThreads;
  size_t sleeping = 0;  // of those, asleep on `work`
  bool stopping = false;
};

thread_local HostExecutor::State *HostExecutor::threadState_ = nullptr;

HostExecutor::HostExecutor() : state_(std::make_shared<State>()) {}

HostExecutor::~HostExecutor() {
  std::unique_lock lock(state_->mutex);
  state_->stopping = true;
  state_->work.notify_all();
  if (onThisExecutor()) return;  // the threads own the state; they end once the jobs have run
  state_->ended.wait(lock, [&] { return state_->threads == 0; });
}

bool HostExecutor::onThisExecutor() const {
  return threadState_ == state_.get();
}

bool HostExecutor::needsThread(State &state) {
  if (state.jobs.size() <= state.idle) return false;
  if (state.threads - state.blocked >= state.maxBusy) return false;
  ++state.threads;
  ++state.idle;  // the new thread counts as idle until it takes its job
  return true;
}

void HostExecutor::spawn(const std::shared_ptr<State> &state) {
  try {
    std::thread(threadBody, state).detach();
  } catch (...) {
    // No thread to be had: the job waits for one of the others.
    std::lock_guard lock(state->mutex);
    --state->threads;
    --state->idle;
  }
}

HostExecutor::Blocking::Blocking() {
  if (!threadState_) return;
  state_ = threadState_->shared_from_this();
  bool make;
  {
    std::lock_guard lock(state_->mutex);
    ++state_->blocked;
    make = needsThread(*state_);
  }
  if (make) spawn(state_);
}

HostExecutor::Blocking::~Blocking() {
  if (!state_) return;
  std::lock_guard lock(state_->mutex);
  --state_->blocked;
}

size_t HostExecutor::threads() const {
  std::lock_guard lock(state_->mutex);
  return state_->threads;
}

void HostExecutor::post(std::function<void()> job) {
  bool make;
  {
    std::lock_guard lock(state_->mutex);
    state_->jobs.push_back(std::move(job));
    state_->queued.fetch_add(1, std::memory_order_release);
    // Every idle thread may be claimed by a job already queued: count jobs against them.
    make = needsThread(*state_);
    if (!make && state_->sleeping > 0) state_->work.notify_one();
  }
  if (make) spawn(state_);
}

void HostExecutor::threadBody(std::shared_ptr<State> state) {
  threadState_ = state.get();
  std::unique_lock lock(state->mutex);
  for (;;) {
    if (state->jobs.empty() && !state->stopping) {
      // Look for a job for a moment before sleeping.
      lock.unlock();
      auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
      for (unsigned i = 0; state->queued.load(std::memory_order_acquire) == 0; ++i) {
        if ((i & 63) == 0 && std::chrono::steady_clock::now() > until) break;
        cpuRelax();
      }
      lock.lock();
      ++state->sleeping;
      bool woken = state->work.wait_for(lock, kIdleLifetime,
                                        [&] { return !state->jobs.empty() || state->stopping; });
      --state->sleeping;
      if (!woken) break;  // idle for kIdleLifetime: end
    }
    if (state->jobs.empty()) break;  // stopping, nothing left
    std::function<void()> job = std::move(state->jobs.front());
    state->jobs.pop_front();
    state->queued.fetch_sub(1, std::memory_order_relaxed);
    --state->idle;
    lock.unlock();
    job();
    job = nullptr;  // what it held goes before the thread counts as idle
    lock.lock();
    ++state->idle;
  }
  --state->idle;
  --state->threads;
  state->ended.notify_all();
}

}  // namespace xpurt::core
