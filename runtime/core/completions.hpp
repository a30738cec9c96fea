// The completion side of a queue on a device that signals its own events (Level Zero, CUDA),
// written once: the queue's pending commands, completed in submission order (in-order queues)
// or as the device reaches them (out-of-order), their futures completed with device time when
// measured, host callbacks and other host work run on the device's host executor when their
// turn comes, failures noted, and what completed commands held released by the thread that
// submits. The device's one completion poller drives it; a thread that waits for one of its
// futures or syncs the queue makes progress itself. A backend supplies a CompletionBackend:
// how to ask its device whether a command's end is reached, and what is its own.
#pragma once

#include "backend.hpp"
#include "clock.hpp"
#include "command.hpp"
#include "completion_backend.hpp"
#include "completion_poller.hpp"
#include "error.hpp"
#include "host_callback.hpp"
#include "host_executor.hpp"
#include "log.hpp"
#include "scoped_value.hpp"
#include "spin_wait.hpp"
#include "task_queue.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xpurt::core {

namespace detail {
// The Completions whose host work this thread is running (a host callback's own queue).
inline thread_local const void *hostWorkOf = nullptr;
}  // namespace detail

template <class Work>
class Completions final : public CompletionSource,
                          public EventDriver,
                          public std::enable_shared_from_this<Completions<Work>> {
 public:
  using Pending = PendingCommand<Work>;
  // inOrder: commands complete in submission order; else each as soon as it is reached. The
  // queue keeps the device alive, and waits in its destructor for waitIdle().
  Completions(Device &device, std::shared_ptr<CompletionBackend<Work>> backend,
              std::shared_ptr<FailureLog> failures, bool inOrder)
      : device_(device),
        backend_(std::move(backend)),
        failures_(std::move(failures)),
        inOrder_(inOrder) {}
  ~Completions() override { reap(reaped_); }

  // Commands pushed together, in order. Each is built in place in its batch by its queue and
  // stays there, not moved, until released: a command is large.
  using Batch = std::vector<Pending>;

  // Pushes the commands of `batch` in order, under one lock, and leaves in it an empty batch
  // to build the next ones in, with room for at least `room` commands (one that a completed
  // batch left, where there is one). A queue that held commands unsignalled (see
  // holdUnsignalled) pushes them all at once, with the device event it has just recorded
  // after them.
  void pushAll(Batch &batch, size_t room) {
    if (batch.empty()) return;
    pushUnder([&] {
      pushed_ += batch.size();
      pending_.push_back(std::move(batch));
      batch = takeSpare();
      holdsUnsignalled_ = false;
    });
    // Outside the lock; at once, rather than grow by moving the commands built so far.
    batch.reserve(room);
  }

  // For a queue that enqueues device work without recording an event after each command: it
  // holds those commands (their futures pending) until it records one after them and pushes
  // them (pushAll), which its flush (setFlush) does on demand: when one of their futures is
  // waited for or looked at, when the queue is synced, and, once the queue has enqueued
  // nothing for a turn of the device's poller, on the device's host executor (so that a future
  // nobody waits for still completes, and what the commands hold is released; the poller
  // itself never waits for a queue's lock or in the driver). The queue calls this with `first`
  // for the first command it holds after a push, under the lock it pushes with.
  void holdUnsignalled(bool first) {
    unsignalledHeld_.fetch_add(1, std::memory_order_relaxed);
    if (!first) return;
    bool activate;
    {
      std::lock_guard lock(mutex_);
      holdsUnsignalled_ = true;
      activate = list();
    }
    wakePoller(activate);
  }

  // Returns once every command pushed before the call has completed. Throws INVALID_ARGUMENT
  // from the queue's own host work, which would wait for itself.
  void drain() {
    refuseWaitFromOwnWork("xpurtSync");
    poll();
    std::unique_lock lock(mutex_);
    uint64_t target = pushed_;
    if (completed_ < target) {
      lock.unlock();
      // The device's work is often microseconds away: look for it here before sleeping.
      {
        Helping helping(helpers_);
        SpinDeadline deadline(kSpinBeforeSleep);
        do {
          tryProgress();
        } while (completedSoFar() < target && !deadline.passed());
      }
      HostExecutor::Blocking blocking;
      lock.lock();
      drained_.wait(lock, [&] { return completed_ >= target; });
    }
    std::vector<Batch> done = takeReaped();
    lock.unlock();
    reap(done);
  }

  // Work recorded but not yet submitted to the device (a batched queue's): submitted before
  // anyone waits for it.
  void setFlush(std::function<void()> flush) {
    std::lock_guard lock(flushMutex_);
    flush_ = std::move(flush);
  }

  // Returns once neither the device's poller nor its host executor has anything of this queue
  // in hand: after drain(), the queue may go, and its device with it.
  void waitIdle() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return !listed_.load(std::memory_order_relaxed) && hostJobs_ == 0; });
  }

  // Once every pending command has completed, runs cleanup (destroying what the queue's
  // commands ran on) on the thread that completes the last, keeping the device alive until
  // then; at once if none is pending. For a queue released from its own host callback, which
  // cannot wait for itself.
  void finishThen(std::function<void()> cleanup) {
    {
      std::lock_guard lock(mutex_);
      if (!pending_.empty()) {
        cleanup_ = [cleanup = std::move(cleanup), device = Ref<Device>(&device_)] { cleanup(); };
        return;
      }
    }
    cleanup();
  }

  // Calls fn with the pending command whose future is `event` (a queue that waits for it on
  // the device looks up its device event so), under the engine's lock; false if there is none
  // (completed or completing, or still held by its queue).
  template <class Fn>
  bool withPending(const Event *event, Fn &&fn) {
    std::lock_guard lock(mutex_);
    for (auto b = pending_.rbegin(); b != pending_.rend(); ++b)
      for (auto it = b->rbegin(); it != b->rend(); ++it)
        if (it->done.get() == event) {
          if (it->stage >= Pending::Stage::Finishing) return false;
          fn(*it);
          return true;
        }
    return false;
  }

  // The device whose commands these are.
  const Device &device() const { return device_; }

  // Whether the calling thread runs host work of this queue (one of its host callbacks).
  bool runningOnThisThread() const { return detail::hostWorkOf == this; }

  // EventDriver
  void poll() override {
    {
      std::lock_guard lock(flushMutex_);
      if (flush_) flush_();
    }
    tryProgress();
  }
  void helpUntil(const std::function<bool()> &done) override {
    if (done()) return;
    poll();
    if (done()) return;
    refuseWaitFromOwnWork("waiting for a future of a later command");
    // The device's work is often microseconds away: the waiter looks for it itself before it
    // sleeps, rather than wait for the poller to see it and wake it (on the H100 a launch and
    // its wait took 4 µs longer that way). The poller stands back meanwhile.
    Helping helping(helpers_);
    SpinDeadline deadline(kSpinBeforeSleep);
    while (!done() && !deadline.passed()) tryProgress();
  }

  // CompletionSource
  Progress progress() override {
    // A thread waiting for one of its futures is looking itself: leave the device to it.
    if (helpers_.load(std::memory_order_relaxed) != 0) return {false, false};
    std::unique_lock run(progressMutex_, std::try_to_lock);
    if (!run.owns_lock()) return {false, false};  // a waiter is at it
    // Only this thread, holding progressMutex_, unlists the queue.
    if (!listed_.load(std::memory_order_relaxed))
      return {false, true};  // a second entry of an activation that has ended
    Progress p;
    bool mayBeEmpty = false;
    p.advanced = advance(&mayBeEmpty);
    if (!mayBeEmpty) return p;  // the common turn: no second lock
    // While listed, the queue and so its device are alive: the queue's destructor waits until
    // it is not. Once the queue is seen idle below, the destructor may return and the device
    // go, while this thread still releases what the commands held (the backend's release
    // uses the device): the device is kept until then.
    Ref<Device> device;
    std::function<void()> cleanup;
    std::vector<Batch> done;
    {
      std::lock_guard lock(mutex_);
      if (pending_.empty() && !holdsUnsignalled_) {
        p.empty = true;
        device = Ref<Device>(&device_);
        listed_.store(false, std::memory_order_relaxed);
        cleanup = std::move(cleanup_);
        done = takeReaped();  // idle: nobody may submit again soon
        if (hostJobs_ == 0) idle_.notify_all();
      }
    }
    run.unlock();
    reap(done);
    if (cleanup) cleanup();
    return p;
  }

  bool waitAwhile(uint64_t timeoutNs) override {
    if (helpers_.load(std::memory_order_relaxed) != 0) {
      // A waiter is making progress: look again in a moment, without taking its locks.
      SpinDeadline deadline(std::chrono::microseconds(2));
      while (helpers_.load(std::memory_order_relaxed) != 0 && !deadline.passed()) cpuRelax();
      return true;
    }
    std::unique_lock run(progressMutex_, std::try_to_lock);
    if (!run.owns_lock()) return true;  // a waiter is making progress
    Pending *oldest = nullptr;
    bool holdsUnsignalled;
    {
      std::lock_guard lock(mutex_);
      Pending *first = firstUnfinished();
      if (first && first->stage == Stage::OnDevice) oldest = first;
      holdsUnsignalled = holdsUnsignalled_;
    }
    if (!oldest) {
      if (!holdsUnsignalled) return false;
      // Commands the queue holds unsignalled: flushed once it has enqueued none since the
      // poller's last look; until then the poller sleeps (for a moment, or until woken).
      uint64_t held = unsignalledHeld_.load(std::memory_order_relaxed);
      if (std::exchange(unsignalledSeen_, held) != held || flushPosted_.exchange(true))
        return false;
      {
        std::lock_guard lock(mutex_);
        ++hostJobs_;  // waitIdle waits for it
      }
      device_.hostExecutor().post([self = this->shared_from_this()] { self->flushHeld(); });
      return false;  // the flush pushes, which wakes the poller
    }
    std::string ignored;  // seen by the next progress()
    backend_->wait(*oldest, timeoutNs, ignored);
    return true;
  }

 private:
  using Stage = typename Pending::Stage;
  static constexpr size_t kMaxUnreaped = 1024;  // commands
  static constexpr size_t kMaxSpare = 16;       // batches

  void refuseWaitFromOwnWork(const char *what) const {
    if (runningOnThisThread())
      fail(XPURT_ERROR_INVALID_ARGUMENT,
           "{} from a host callback of the same queue: the queue's later work cannot complete "
           "before the callback returns, so it would wait forever. Wait after the callback, "
           "from another thread, or on another queue",
           what);
  }

  uint64_t completedSoFar() const { return completed_.load(std::memory_order_acquire); }

  // mutex_ held: the first pending command not finished, or null.
  Pending *firstUnfinished() {
    for (size_t b = 0, j = frontFinished_; b < pending_.size(); ++b, j = 0)
      for (; j < pending_[b].size(); ++j)
        if (pending_[b][j].stage != Stage::Finished) return &pending_[b][j];
    return nullptr;
  }

  // mutex_ held: the completed batches, for the caller to release (reap) once it has let go
  // of the lock.
  std::vector<Batch> takeReaped() {
    reapedCommands_ = 0;
    return std::exchange(reaped_, {});
  }

  // mutex_ held: an empty batch for a queue to build commands in.
  Batch takeSpare() {
    if (spare_.empty()) return {};
    Batch b = std::move(spare_.back());
    spare_.pop_back();
    return b;
  }

  // Counts a thread that makes progress itself while it lasts.
  class Helping {
   public:
    explicit Helping(std::atomic<uint32_t> &helpers) : helpers_(helpers) {
      helpers_.fetch_add(1, std::memory_order_relaxed);
    }
    ~Helping() { helpers_.fetch_sub(1, std::memory_order_relaxed); }
    Helping(const Helping &) = delete;
    Helping &operator=(const Helping &) = delete;

   private:
    std::atomic<uint32_t> &helpers_;
  };

  // Adds pending commands (add, under mutex_), then lets the poller see them and releases, on
  // this submitting thread, what completed commands held.
  template <class Add>
  void pushUnder(Add &&add) {
    std::vector<Batch> done;
    bool activate;
    {
      std::lock_guard lock(mutex_);
      add();
      activate = list();
      done = takeReaped();
    }
    wakePoller(activate);
    reap(done);
  }

  // mutex_ held. Lists the queue with the poller; returns whether it was not listed, so that
  // the caller activates it (wakePoller) once the lock is released.
  bool list() {
    bool activate = !listed_.load(std::memory_order_relaxed);
    listed_.store(true, std::memory_order_relaxed);
    return activate;
  }
  void wakePoller(bool activate) {
    if (activate)
      device_.completionPoller().activate(this->shared_from_this());
    else
      device_.completionPoller().wake();
  }

  // Advances unless another thread is at it; then pauses, rather than take the lock's cache
  // line from it again at once.
  void tryProgress() {
    std::unique_lock run(progressMutex_, std::try_to_lock);
    bool mayBeEmpty;
    if (run.owns_lock())
      advance(&mayBeEmpty);
    else
      cpuRelax();
  }

  void setStage(Pending &p, Stage stage) {
    std::lock_guard lock(mutex_);
    p.stage = stage;
  }

  // progressMutex_ held. Completes what is reached and hands out host work that is due; pops
  // the completed commands at the front. Returns whether anything happened; *mayBeEmpty is
  // false where the queue surely has commands pending still. Takes the mutex once per command
  // looked at, and once more only where there is something to pop: the poller calls it in a
  // loop while a submitting thread pushes.
  bool advance(bool *mayBeEmpty) {
    bool advanced = false;
    bool allBeforeFinished = true;
    bool frontFinished = false;  // finished by another thread (host work), to pop
    *mayBeEmpty = false;
    // From the first command of the front batch not seen finished; batches are popped whole.
    size_t b = 0, j = frontFinished_;
    for (bool first = true;; ++j, first = false) {
      Pending *p;
      Stage stage;
      {
        std::lock_guard lock(mutex_);
        while (b < pending_.size() && j >= pending_[b].size()) ++b, j = 0;
        if (b >= pending_.size()) {
          if (first && pending_.empty()) *mayBeEmpty = true;
          break;
        }
        p = &pending_[b][j];  // only this function removes batches, and not before the end
        stage = p->stage;
      }
      if (stage == Stage::Finished) {
        if (first) frontFinished = true;
        continue;
      }
      if (stage == Stage::Queued && (p->isHostCallback() || backend_->needsHostStep(*p))) {
        // Host work waits for every command before it.
        if (allBeforeFinished) {
          {
            std::lock_guard lock(mutex_);
            p->stage = Stage::OnHost;
            ++hostJobs_;
          }
          device_.hostExecutor().post([self = this->shared_from_this(), p] { self->runHost(*p); });
          advanced = true;
        }
        stage = Stage::OnHost;
      }
      if (stage == Stage::OnHost || stage == Stage::Finishing) {  // in another thread's hands
        if (inOrder_) break;
        allBeforeFinished = false;
        continue;
      }
      if (stage == Stage::Queued) setStage(*p, Stage::OnDevice);
      std::string failure;
      Reached r = backend_->query(*p, failure);
      if (r == Reached::No) {
        if (inOrder_) break;
        allBeforeFinished = false;
        continue;
      }
      finish(*p, r, std::move(failure));
      advanced = true;
    }
    if (!advanced && !frontFinished) return false;
    std::vector<Batch> overflow;
    bool popped = false;
    {
      std::lock_guard lock(mutex_);
      while (!pending_.empty()) {
        Batch &front = pending_.front();
        while (frontFinished_ < front.size() && front[frontFinished_].stage == Stage::Finished)
          ++frontFinished_;
        if (frontFinished_ < front.size()) break;
        completed_.fetch_add(front.size(), std::memory_order_release);
        reapedCommands_ += front.size();
        reaped_.push_back(std::move(front));
        pending_.pop_front();
        frontFinished_ = 0;
        popped = true;
      }
      *mayBeEmpty = pending_.empty();
      // Nobody submits: release here rather than hold without bound.
      if (reapedCommands_ > kMaxUnreaped) overflow = takeReaped();
    }
    if (popped) drained_.notify_all();
    reap(overflow);
    return advanced || popped;
  }

  // On the host executor: the flush of a queue that holds commands unsignalled and has gone
  // quiet (waitAwhile).
  void flushHeld() {
    try {
      // It waits for the queue's lock, whose holder may wait for the device, which may wait
      // for other host work.
      HostExecutor::Blocking blocking;
      std::lock_guard lock(flushMutex_);
      if (flush_) flush_();
    } catch (const std::exception &e) {
      log().warn("a queue's held commands were not submitted: {}", e.what());
    }
    flushPosted_.store(false);
    std::lock_guard lock(mutex_);
    if (--hostJobs_ == 0 && !listed_.load(std::memory_order_relaxed)) idle_.notify_all();
  }

  // On the host executor: the command's host work, then its device work may end.
  void runHost(Pending &p) {
    ScopedValue<const void *> running(detail::hostWorkOf, this);
    std::string failure;
    try {
      // What it waits for is another queue's or backend's work (earlier commands of this queue
      // have completed). A dependency that failed has reported its failure already: the host
      // work still runs, as on every device.
      for (const Ref<Event> &e : p.hostWaits) e->wait();
      p.hostWaits.clear();
      if (p.isHostCallback())
        failure = runHostCallback(p.command.func, p.command.userData);
      else
        backend_->runHostStep(p);
    } catch (const std::exception &e) {
      failure = e.what();
    }
    if (p.isHostCallback()) {
      backend_->hostCallbackRan(p);
      completeFuture(p, failure, {p.submitNs, p.done && p.done->timed() ? steadyNowNs() : 0});
      setStage(p, Stage::Finished);
    } else if (!failure.empty()) {
      setStage(p, Stage::Finishing);
      backend_->reached(p, Reached::Failed);
      completeFuture(p, failure, {});
      setStage(p, Stage::Finished);
    } else {
      setStage(p, Stage::OnDevice);
    }
    device_.completionPoller().wake();
    std::lock_guard lock(mutex_);
    if (--hostJobs_ == 0 && !listed_.load(std::memory_order_relaxed)) idle_.notify_all();
  }

  void finish(Pending &p, Reached r, std::string failure) {
    CommandTimes times;
    if (r == Reached::Yes && p.done && p.done->timed()) {
      times.endNs = steadyNowNs();
      times.startNs = p.submitNs;
      if (std::optional<uint64_t> ns = backend_->deviceTimeNs(p))
        times.startNs = times.endNs > *ns ? times.endNs - *ns : 0;
    }
    setStage(p, Stage::Finishing);  // its backend may now let go of its device events
    std::string partFailure = backend_->reached(p, r);
    if (r == Reached::Yes) failure = std::move(partFailure);
    completeFuture(p, failure, times);
    setStage(p, Stage::Finished);
  }

  void completeFuture(Pending &p, const std::string &failure, CommandTimes times) {
    if (!failure.empty()) failures_->note(failure);
    if (!p.done) return;
    if (failure.empty())
      p.done->complete(times);
    else
      p.done->fail(failure, times);
  }

  // Releases what the commands of completed batches held, and keeps the emptied batches for
  // queues to build in.
  void reap(std::vector<Batch> &done) {
    if (done.empty()) return;
    for (Batch &batch : done) {
      for (Pending &p : batch) backend_->release(p);
      batch.clear();
    }
    {
      std::lock_guard lock(mutex_);
      for (Batch &batch : done)
        if (spare_.size() < kMaxSpare) spare_.push_back(std::move(batch));
    }
    done.clear();
  }

  Device &device_;
  std::shared_ptr<CompletionBackend<Work>> backend_;
  std::shared_ptr<FailureLog> failures_;
  const bool inOrder_;
  std::mutex progressMutex_;  // held by the one thread completing commands
  std::mutex mutex_;          // guards what follows
  std::condition_variable drained_;
  std::condition_variable idle_;  // waitIdle()
  std::deque<Batch> pending_;     // none empty; only advance() removes them
  size_t frontFinished_ = 0;      // the front batch's first commands seen finished (advance)
  std::vector<Batch> reaped_;     // completed, for a submitting thread to release
  size_t reapedCommands_ = 0;     // in reaped_
  std::vector<Batch> spare_;      // emptied, with their capacity, for pushAll to hand out
  uint64_t pushed_ = 0;
  std::atomic<uint64_t> completed_{0};  // written under mutex_; a spinning drain reads it without
  // Active in the device's poller; written under mutex_, read without it by the poller (which
  // alone unlists).
  std::atomic<bool> listed_{false};
  uint32_t hostJobs_ = 0;          // posted to the device's host executor, not yet ended
  bool holdsUnsignalled_ = false;  // the queue holds commands to push (holdUnsignalled)
  // Counts holdUnsignalled calls; on a line of its own, which a submitting thread writes for
  // each command and the poller reads once a turn.
  alignas(64) std::atomic<uint64_t> unsignalledHeld_{0};
  uint64_t unsignalledSeen_ = 0;          // its value at the poller's last look
  std::atomic<bool> flushPosted_{false};  // a flush is posted to the host executor (flushHeld)
  alignas(64) std::atomic<uint32_t> helpers_{0};  // threads making progress themselves (Helping)
  std::function<void()> cleanup_;
  std::mutex flushMutex_;
  std::function<void()> flush_;
};

}  // namespace xpurt::core
