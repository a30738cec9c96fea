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
  bool sleeping = false;
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
  state_->changes.fetch_add(1, std::memory_order_release);
  if (!state_->started) {
    state_->started = true;
    lock.unlock();
    std::thread(threadBody, state_).detach();
    return;
  }
  if (state_->sleeping) state_->work.notify_one();
}

void CompletionPoller::wake() {
  std::lock_guard lock(state_->mutex);
  state_->changes.fetch_add(1, std::memory_order_release);
  if (state_->sleeping) state_->work.notify_one();
}

void CompletionPoller::threadBody(std::shared_ptr<State> state) {
  pollerOfThread = state.get();
  std::vector<std::shared_ptr<CompletionSource>> sources;
  for (;;) {
    uint64_t seen;
    {
      std::unique_lock lock(state->mutex);
      if (state->active.empty()) {
        if (state->stopping) return;
        // Idle: look for work for a moment before sleeping, so that a steady stream of
        // commands does not pay a wake-up each.
        seen = state->changes.load(std::memory_order_acquire);
        lock.unlock();
        auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
        for (unsigned i = 0; state->changes.load(std::memory_order_acquire) == seen; ++i) {
          if ((i & 63) == 0 && std::chrono::steady_clock::now() > until) break;
          cpuRelax();
        }
        lock.lock();
        state->sleeping = true;
        state->work.wait(lock, [&] { return !state->active.empty() || state->stopping; });
        state->sleeping = false;
        continue;
      }
      sources = state->active;
      seen = state->changes.load(std::memory_order_acquire);
    }
    bool advanced = false;
    std::vector<const CompletionSource *> emptied;
    for (const std::shared_ptr<CompletionSource> &s : sources) {
      CompletionSource::Progress p = s->progress();
      advanced |= p.advanced;
      if (p.empty) emptied.push_back(s.get());
    }
    if (!emptied.empty()) {
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
    if (advanced || !emptied.empty() || state->changes.load(std::memory_order_acquire) != seen)
      continue;
    // Nothing moved: wait on the oldest source's device work for a moment.
    std::shared_ptr<CompletionSource> first;
    {
      std::lock_guard lock(state->mutex);
      if (!state->active.empty()) first = state->active.front();
    }
    if (first && first->waitAwhile(kWaitNs)) continue;
    // Only host work pending (a host callback running): sleep until it ends and wakes us.
    std::unique_lock lock(state->mutex);
    state->sleeping = true;
    state->work.wait_for(lock, std::chrono::milliseconds(1), [&] {
      return state->changes.load(std::memory_order_acquire) != seen || state->stopping;
    });
    state->sleeping = false;
  }
}

}  // namespace xpurt::core
