#include "completion_poller.hpp"

#include "spin_wait.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace xpurt::core {

struct CompletionPoller::State {
  std::mutex mutex;
  std::condition_variable work;
  std::vector<std::shared_ptr<CompletionSource>> active;
  // Bumped by activate and wake, readable without the lock: the thread looks for new work
  // for a moment before it sleeps.
  std::atomic<uint64_t> changes{0};
  // Bumped (under the lock) when a source is added: the thread copies `active` only then, so a
  // turn over sources that did not change takes no lock.
  std::atomic<uint64_t> activations{0};
  // Set under the lock before the thread waits on `work`, then `changes` read: wake() bumps
  // `changes`, then reads this (both sequentially consistent), so either the thread sees the
  // change or wake() sees it asleep and notifies. A wake of a running thread takes no lock.
  std::atomic<bool> sleeping{false};
  bool stopping = false;
  bool started = false;
};

namespace {
thread_local const void *pollerOfThread = nullptr;
}  // namespace

CompletionPoller::CompletionPoller() : state_(std::make_shared<State>()) {}

CompletionPoller::~CompletionPoller() {
  std::lock_guard lock(state_->mutex);
  state_->stopping = true;
  state_->work.notify_all();
  // The thread is detached and owns the state: it ends once no source is active, which is so
  // by now (sources hold the device this poller belongs to).
}

bool CompletionPoller::onThisThread() const {
  return pollerOfThread == state_.get();
}

void CompletionPoller::activate(std::shared_ptr<CompletionSource> source) {
  std::unique_lock lock(state_->mutex);
  state_->active.push_back(std::move(source));
  state_->activations.fetch_add(1, std::memory_order_release);
  state_->changes.fetch_add(1, std::memory_order_seq_cst);
  if (!state_->started) {
    state_->started = true;
    lock.unlock();
    std::thread(threadBody, state_).detach();
    return;
  }
  if (state_->sleeping) state_->work.notify_one();
}

void CompletionPoller::wake() {
  state_->changes.fetch_add(1, std::memory_order_seq_cst);
  if (!state_->sleeping.load(std::memory_order_seq_cst)) return;
  std::lock_guard lock(state_->mutex);
  state_->work.notify_one();
}

void CompletionPoller::threadBody(std::shared_ptr<State> state) {
  pollerOfThread = state.get();
  // A copy of `active`, taken when a source was added since the last copy; emptied sources
  // leave both.
  std::vector<std::shared_ptr<CompletionSource>> sources;
  uint64_t copiedAt = 0;
  for (;;) {
    uint64_t seen;
    if (sources.empty() || state->activations.load(std::memory_order_acquire) != copiedAt) {
      std::unique_lock lock(state->mutex);
      if (state->active.empty()) {
        if (state->stopping) return;
        // Idle: look for work for a moment before sleeping, so that a steady stream of
        // commands does not pay a wake-up each.
        seen = state->changes.load(std::memory_order_acquire);
        lock.unlock();
        SpinDeadline deadline(std::chrono::microseconds(50));
        while (state->changes.load(std::memory_order_acquire) == seen && !deadline.passed())
          cpuRelax();
        lock.lock();
        state->sleeping.store(true, std::memory_order_seq_cst);
        state->work.wait(lock, [&] { return !state->active.empty() || state->stopping; });
        state->sleeping.store(false, std::memory_order_relaxed);
        continue;
      }
      sources = state->active;
      copiedAt = state->activations.load(std::memory_order_relaxed);
    }
    seen = state->changes.load(std::memory_order_seq_cst);
    bool advanced = false;
    std::vector<const CompletionSource *> emptied;
    for (const std::shared_ptr<CompletionSource> &s : sources) {
      CompletionSource::Progress p = s->progress();
      advanced |= p.advanced;
      if (p.empty) emptied.push_back(s.get());
    }
    if (!emptied.empty()) {
      {
        std::lock_guard lock(state->mutex);
        // One entry for each source emptied: one that became active again since is listed
        // again after it (CompletionSource::progress reports empty once per activation).
        for (const CompletionSource *e : emptied)
          for (auto it = state->active.begin(); it != state->active.end(); ++it)
            if (it->get() == e) {
              state->active.erase(it);
              break;
            }
      }
      sources.clear();  // a source's last reference may go here, and with it its device's
      continue;
    }
    if (advanced || state->changes.load(std::memory_order_seq_cst) != seen) continue;
    // Nothing moved: wait on the oldest source's device work for a moment.
    std::shared_ptr<CompletionSource> first;
    {
      std::lock_guard lock(state->mutex);
      if (!state->active.empty()) first = state->active.front();
    }
    if (first && first->waitAwhile(kWaitNs)) continue;
    // Only host work pending (a host callback running): sleep until it ends and wakes us.
    std::unique_lock lock(state->mutex);
    state->sleeping.store(true, std::memory_order_seq_cst);
    state->work.wait_for(lock, std::chrono::milliseconds(1), [&] {
      return state->changes.load(std::memory_order_seq_cst) != seen || state->stopping;
    });
    state->sleeping.store(false, std::memory_order_relaxed);
  }
}

}  // namespace xpurt::core
