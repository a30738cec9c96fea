#include "out_of_order_queue.hpp"

#include "command_execution.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/host_executor.hpp"
#include "core/scoped_value.hpp"
#include "tbb_hand_off.hpp"

#include <chrono>
#include <vector>

namespace xpurt::cpu {

// The runner whose engine this thread is, or whose launch it runs: a host callback's queue.
static thread_local const OutOfOrderRunner *engineOf = nullptr;
using OnEngine = core::ScopedValue<const OutOfOrderRunner *>;

bool OutOfOrderRunner::onOwnEngine() const {
  return engineOf == this;
}

void OutOfOrderRunner::scheduleHostTurn() {
  if (hostTurn_) return;
  hostTurn_ = true;
  device_->hostExecutor().post([self = shared_from_this()] { self->hostTurn(); });
}

void OutOfOrderRunner::scheduleComputeTurn() {
  if (computeTurn_) return;
  computeTurn_ = true;
  device_->hostExecutor().post([self = shared_from_this()] { self->computeTurn(); });
}

void OutOfOrderRunner::submit(core::Command &&cmd) {
  auto *node = new Node{std::move(cmd)};
  {
    std::lock_guard lock(mutex_);
    node->order = submitted_++;
  }
  node->unmet.store(static_cast<uint32_t>(node->cmd.waits.size()) + 1, std::memory_order_relaxed);
  // The node keeps no references to its waits: each one's continuation counts it down.
  std::vector<core::Ref<core::Event>> waits = std::move(node->cmd.waits);
  node->cmd.waits.clear();
  // The continuation holds the runner: it may still be running after the command it readied
  // has completed and the queue has gone.
  auto self = shared_from_this();
  for (core::Ref<core::Event> &w : waits) w->then([self, node] { self->dependencyMet(node); });
  dependencyMet(node);
}

void OutOfOrderRunner::dependencyMet(Node *node) {
  if (node->unmet.fetch_sub(1, std::memory_order_acq_rel) == 1) dispatch(node);
}

void OutOfOrderRunner::dispatch(Node *node) {
  using Type = core::Command::Type;
  if (node->cmd.type == Type::Barrier) {
    finish(node);  // nothing to run: its event completes, which releases what depends on it
    return;
  }
  std::lock_guard lock(mutex_);
  if (copiesMemory(node->cmd)) {
    // Ready copies wait in one list; an arena task takes the earliest one, or the host thread
    // does if no arena thread has for a while. Whoever pops a node runs and deletes it.
    node->readyNs = core::steadyNowNs();
    copyReady_.push(node);
    ++tasksInFlight_;
    scheduleHostTurn();  // the fallback for a copy no arena thread starts
    scheduleComputeTurn();
    device_->arena().enqueue(group_->defer([sent = TbbHandOff::Captures(this)] {
      // The node itself travels through copyReady_ and mutex_.
      OutOfOrderRunner *self = sent.received();
      self->runReadyCopy();
    }));
  } else if (node->cmd.isLaunch()) {
    // Into the arena at once, from whichever thread made it ready, beside the tasks already
    // running there; the compute engine joins the arena while tasks are in flight.
    ++tasksInFlight_;
    scheduleComputeTurn();
    device_->arena().enqueue(group_->defer([sent = TbbHandOff::Captures(std::pair(this, node))] {
      auto [self, ready] = sent.received();
      self->finish(ready);
      self->taskEnded();
    }));
  } else {
    hostReady_.push(node);
    scheduleHostTurn();
  }
  wake_.notify_all();
}

// In an arena task: the earliest ready copy, if the host turn has not taken it.
void OutOfOrderRunner::runReadyCopy() {
  Node *copy = nullptr;
  {
    std::lock_guard take(mutex_);
    if (!copyReady_.empty()) {
      copy = copyReady_.top();
      copyReady_.pop();
    }
  }
  if (copy) finish(copy);
  taskEnded();
}

void OutOfOrderRunner::taskEnded() {
  std::lock_guard done(mutex_);
  if (--tasksInFlight_ == 0) wake_.notify_all();
}

void OutOfOrderRunner::finish(Node *node) {
  {
    OnEngine on(engineOf, this);
    executeCommand(node->cmd, failures_.get(), &device_->cores());
  }
  delete node;  // drops the command's references before the count says it is complete
  std::lock_guard lock(mutex_);
  ++completed_;
  drained_.notify_all();
  wake_.notify_all();  // a copy the host turn waits to fall back on may have been taken
}

void OutOfOrderRunner::waitIdle() {
  std::unique_lock lock(mutex_);
  turnEnded_.wait(lock, [&] { return !hostTurn_ && !computeTurn_; });
}

void OutOfOrderRunner::hostTurn() {
  OnEngine on(engineOf, this);
  std::unique_lock lock(mutex_);
  for (;;) {
    if (hostReady_.empty() && copyReady_.empty()) {
      hostTurn_ = false;
      turnEnded_.notify_all();
      return;
    }
    if (!hostReady_.empty()) {
      Node *node = hostReady_.top();
      hostReady_.pop();
      lock.unlock();
      finish(node);
      lock.lock();
      continue;
    }
    // A copy no arena thread has started for a while: every one is held (by long kernels of
    // other queues, or waits inside graphs). Copies still make progress, as on a GPU's copy
    // engine: this thread runs it, with a claim on a core as a copy queue's thread has.
    uint64_t waited = core::steadyNowNs() - copyReady_.top()->readyNs;
    if (waited < kCopyFallbackNs) {
      wake_.wait_for(lock, std::chrono::nanoseconds(kCopyFallbackNs - waited));
      continue;
    }
    Node *node = copyReady_.top();
    copyReady_.pop();
    lock.unlock();
    {
      CoreShare::Copying claim(&device_->cores());
      finish(node);
    }
    lock.lock();
  }
}

void OutOfOrderRunner::computeTurn() {
  OnEngine on(engineOf, this);
  // A thread of the arena while tasks run: without it, they would have the arena's workers
  // only (one fewer than its threads). Waiting for the tasks outside the arena would hold this
  // thread while a task that no worker takes waits.
  auto helpTasks = [&] { group_->wait(); };
  auto joinTasks = [&] {
    TbbHandOff handOff;
    handOff.handOver([&] { device_->arena().execute(handOff.wrap(helpTasks)); });
  };
  std::unique_lock lock(mutex_);
  for (;;) {
    lock.unlock();
    joinTasks();
    lock.lock();
    if (tasksInFlight_ != 0) continue;
    // Every task has finished its command; once more, so that every one has also ended (a task
    // enqueued after this wait counts itself in tasksInFlight_ first).
    lock.unlock();
    joinTasks();
    lock.lock();
    if (tasksInFlight_ == 0) {
      computeTurn_ = false;
      turnEnded_.notify_all();
      return;
    }
  }
}

void OutOfOrderRunner::helpUntil(const std::function<bool()> &) {
  if (onOwnEngine())
    core::fail(XPURT_ERROR_INVALID_ARGUMENT,
               "waiting for a future of an out-of-order queue from a host callback or launch of "
               "the same queue: its engine is busy with the callback and may be what the future "
               "needs. Wait from another thread or on another queue");
}

void OutOfOrderRunner::drain() {
  if (onOwnEngine())
    core::fail(XPURT_ERROR_INVALID_ARGUMENT,
               "xpurtSync from a host callback of the same queue would wait for itself; sync from "
               "another thread");
  core::HostExecutor::Blocking blocking;
  std::unique_lock lock(mutex_);
  uint64_t target = submitted_;
  drained_.wait(lock, [&] { return completed_ >= target; });
}

// ---- OutOfOrderQueue --------------------------------------------------------------------

OutOfOrderQueue::OutOfOrderQueue(core::Ref<CpuDevice> device, const core::QueueOptions &options)
    : core::TaskQueue(device, options),
      runner_(std::make_shared<OutOfOrderRunner>(device, failures())) {}

OutOfOrderQueue::~OutOfOrderQueue() {
  // Every queued command still runs and every future completes: waited for here, except from
  // a host callback of this queue, which cannot wait for itself (the queue's turns hold the
  // runner and finish its work).
  if (runner_->onOwnEngine()) return;
  runner_->drain();
  runner_->waitIdle();
}

void OutOfOrderQueue::submit(core::Command &&cmd) {
  if (cmd.done) cmd.done->setDriver(runner_);
  // Its waits end through continuations, which nobody else may set going: a queue that
  // batches its work submits what this command waits for (an in-order queue's runner waits
  // for each, which does the same).
  for (const core::Ref<core::Event> &e : cmd.waits)
    if (e->driver() != runner_.get()) e->ready();
  runner_->submit(std::move(cmd));
}

}  // namespace xpurt::cpu
