#include "cpu_queue.hpp"

#include "command_execution.hpp"
#include "core/error.hpp"
#include "core/host_executor.hpp"
#include "core/scoped_value.hpp"
#include "core/spin_wait.hpp"
#include "tbb_hand_off.hpp"

#include <algorithm>
#include <cstring>

namespace xpurt::cpu {

// ---- CommandRunner ----------------------------------------------------------------------

// The runner whose commands this thread is running, if any: a host callback's own queue.
static thread_local const CommandRunner *runningOn = nullptr;
using RunningOn = core::ScopedValue<const CommandRunner *>;

bool CommandRunner::runningOnThisThread() const {
  return runningOn == this;
}

void CommandRunner::refuseWaitFromOwnCommand(const char *what) const {
  if (runningOnThisThread())
    core::fail(XPURT_ERROR_INVALID_ARGUMENT,
               "{} from a host callback of the same queue: the queue runs its commands in order, "
               "so what it waits for cannot start before the callback returns and it would wait "
               "forever. Wait after the callback, from another thread, or on another queue",
               what);
}

void CommandRunner::push(core::Command &&cmd) {
  bool post;
  {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(cmd));
    submitted_.fetch_add(1, std::memory_order_seq_cst);
    post = !scheduled_;
    scheduled_ = true;
  }
  if (post) device_->hostExecutor().post([self = shared_from_this()] { self->turn(); });
}

void CommandRunner::waitIdle() {
  std::unique_lock lock(mutex_);
  turnEnded_.wait(lock, [&] { return !scheduled_; });
}

void CommandRunner::turn() {
  for (;;) {
    {
      std::lock_guard run(runMutex_);
      runPending();
    }
    // Let the turn go with nothing pending: the next push posts another, which an executor
    // thread looking for work (HostExecutor) takes within a microsecond.
    std::lock_guard lock(mutex_);
    if (pending_.empty()) {
      scheduled_ = false;
      turnEnded_.notify_all();
      return;
    }
  }
}

void CommandRunner::finish(core::Command &cmd) {
  execute(cmd);
  cmd = core::Command();  // drop the references it held before saying it is complete
  completed_.fetch_add(1, std::memory_order_seq_cst);
  if (drainSleepers_.load(std::memory_order_seq_cst) != 0) completed_.notify_all();
}

void CommandRunner::runLaunches(core::Command *const *launches, size_t count) {
  // One arena entry for a run of launches rather than one per launch. Only launches enter the
  // arena: a copy or callback there would wait for a slot behind another queue's kernel.
  auto run = [&] {
    for (size_t i = 0; i < count; ++i) finish(*launches[i]);
  };
  TbbHandOff handOff;
  handOff.handOver([&] { device_->arena().execute(handOff.wrap(run)); });
}

bool CommandRunner::runPending() {
  {
    // Take everything queued at once: enqueueing threads then rarely meet the runner here.
    std::lock_guard lock(mutex_);
    batch_.swap(pending_);
  }
  if (batch_.empty()) return false;
  RunningOn running(runningOn, this);
  for (size_t i = 0; i < batch_.size();) {
    if (!batch_[i].isLaunch()) {
      finish(batch_[i++]);
      continue;
    }
    launchRun_.clear();
    while (i < batch_.size() && batch_[i].isLaunch()) launchRun_.push_back(&batch_[i++]);
    runLaunches(launchRun_.data(), launchRun_.size());
  }
  batch_.clear();  // keeps its storage for the next turn
  copyClaim_.set(false);
  return true;
}

void CommandRunner::helpUntil(const std::function<bool()> &done) {
  refuseWaitFromOwnCommand("waiting for a future of a later command");
  std::unique_lock run(runMutex_, std::try_to_lock);
  if (!run.owns_lock()) return;  // the executor (or another helper) is at it
  RunningOn running(runningOn, this);
  struct ReleaseClaim {
    CoreShare::EngineClaim &claim;
    ~ReleaseClaim() { claim.set(false); }
  } releaseClaim{copyClaim_};  // before runMutex_ is released
  // One command at a time, and none past what the waiter needs: later commands may depend on
  // what the waiting thread does next.
  while (!done()) {
    core::Command cmd;
    {
      std::lock_guard lock(mutex_);
      if (pending_.empty()) return;
      cmd = std::move(pending_.front());
      pending_.pop_front();
    }
    if (cmd.isLaunch()) {
      core::Command *one = &cmd;
      runLaunches(&one, 1);
    } else {
      finish(cmd);
    }
  }
}

void CommandRunner::drain() {
  refuseWaitFromOwnCommand("xpurtSync");
  uint32_t target;
  {
    std::lock_guard lock(mutex_);
    target = submitted_.load(std::memory_order_relaxed);
  }
  auto reached = [&](uint32_t completed) { return static_cast<int32_t>(completed - target) >= 0; };
  auto done = [&] { return reached(completed_.load(std::memory_order_seq_cst)); };
  helpUntil(done);
  core::spinThenSleep(drainSleepers_, done, [&] {
    // Sleep only on a count seen short of the target: a count read after it was reached would
    // be waited on with nobody left to change it.
    uint32_t completed = completed_.load(std::memory_order_seq_cst);
    core::HostExecutor::Blocking blocking;
    if (!reached(completed)) completed_.wait(completed, std::memory_order_seq_cst);
  });
}

void CommandRunner::execute(core::Command &cmd) {
  // A copy queue claims a core for its copies and fills, and keeps it across a wait that is
  // already over: let go for a moment, the core goes to a kernel thread that the operating
  // system may then leave running for milliseconds while the copy waits.
  if (copyClaim_.canClaim()) {
    bool mustWait = std::any_of(cmd.waits.begin(), cmd.waits.end(),
                                [](const core::Ref<core::Event> &w) { return !w->isDone(); });
    if (mustWait)
      copyClaim_.set(false);
    else if (copiesMemory(cmd))
      copyClaim_.set(true);
    else if (cmd.type != core::Command::Type::Barrier)
      copyClaim_.set(false);
  }
  executeCommand(cmd, failures_.get(), &device_->cores());
}

// ---- CpuQueue ---------------------------------------------------------------------------

CpuQueue::CpuQueue(core::Ref<CpuDevice> device, const core::QueueOptions &options)
    : core::TaskQueue(device, options),
      runner_(std::make_shared<CommandRunner>(device, failures(),
                                              options.engine == XPURT_ENGINE_COPY)) {}

CpuQueue::~CpuQueue() {
  // A host callback of this queue that dropped its last reference runs the queue's commands,
  // so it cannot wait for them: the queue's turn, which holds the runner, runs what is left
  // (every future completes).
  if (runner_->runningOnThisThread()) return;
  runner_->drain();
  runner_->waitIdle();
}

void CpuQueue::submit(core::Command &&cmd) {
  if (cmd.done) cmd.done->setDriver(runner_);
  runner_->push(std::move(cmd));
}

}  // namespace xpurt::cpu
