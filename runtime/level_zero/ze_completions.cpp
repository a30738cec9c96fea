#include "ze_completions.hpp"

#include "core/clock.hpp"
#include "core/host_callback.hpp"
#include "ze_call.hpp"
#include "ze_device.hpp"
#include "ze_graph.hpp"

namespace xpurt::level_zero {

namespace {

// The Completions whose thread this is, if any.
thread_local const Completions *runningCompletions = nullptr;
}  // namespace

// An out-of-order queue's completion thread waits this long on its oldest command before it
// looks at the later ones, which may complete first.
constexpr uint64_t kOldestWaitNs = 200'000;

Completions::Completions(ZeDevice &device, std::shared_ptr<core::FailureLog> failures, bool inOrder)
    : device_(device), failures_(std::move(failures)), inOrder_(inOrder) {}

void Completions::push(PendingCommand &&command) {
  {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(command));
    ++pushed_;
  }
  work_.notify_one();
}

bool Completions::runningOnThisThread() const {
  return runningCompletions == this;
}

void Completions::refuseWaitFromOwnCommand(const char *what) const {
  if (runningOnThisThread())
    core::fail(XPURT_ERROR_INVALID_ARGUMENT,
               "{} from a host callback of the same queue: the queue completes its commands "
               "on the thread that runs the callback, so what it waits for cannot complete "
               "before the callback returns and it would wait forever. Wait after the "
               "callback, from another thread, or on another queue",
               what);
}

void Completions::helpUntil(const std::function<bool()> &done) {
  if (done()) return;
  poll();
  refuseWaitFromOwnCommand("waiting for a future of a later command");
}

void Completions::poll() {
  std::lock_guard lock(flushMutex_);
  if (flush_) flush_();
}

void Completions::setFlush(std::function<void()> flush) {
  std::lock_guard lock(flushMutex_);
  flush_ = std::move(flush);
}

void Completions::drain() {
  refuseWaitFromOwnCommand("xpurtSync");
  std::unique_lock lock(mutex_);
  uint64_t target = pushed_;
  drained_.wait(lock, [&] { return completed_ >= target; });
}

void Completions::stop(std::function<void()> cleanup) {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    cleanup_ = std::move(cleanup);
  }
  work_.notify_one();
}

void Completions::run() {
  runningCompletions = this;
  for (;;) {
    PendingCommand *oldest;
    {
      std::unique_lock lock(mutex_);
      work_.wait(lock, [&] { return !pending_.empty() || stopping_; });
      if (pending_.empty()) {
        std::function<void()> cleanup = std::move(cleanup_);
        lock.unlock();
        if (cleanup) cleanup();
        return;
      }
      // push_back leaves references to existing entries valid, and only this thread removes.
      oldest = &pending_.front();
    }
    if (!oldest->finished) {
      if (oldest->func) runHostCallback(*oldest);
      if (oldest->graph && !oldest->hostStepsRun) {
        oldest->graph->runHostSteps();
        oldest->hostStepsRun = true;
      }
      ze_result_t r =
          zeEventHostSynchronize(oldest->slot->handle, inOrder_ ? UINT64_MAX : kOldestWaitNs);
      if (r == ZE_RESULT_NOT_READY) {
        finishSignalled();
        continue;
      }
      finish(*oldest, r, "zeEventHostSynchronize");
    }
    std::lock_guard lock(mutex_);
    while (!pending_.empty() && pending_.front().finished) {
      pending_.pop_front();
      ++completed_;
    }
    drained_.notify_all();
  }
}

void Completions::finishSignalled() {
  std::vector<PendingCommand *> later;
  {
    std::lock_guard lock(mutex_);
    for (size_t i = 1; i < pending_.size(); ++i)
      if (!pending_[i].finished && !needsThisThread(pending_[i])) later.push_back(&pending_[i]);
  }
  for (PendingCommand *c : later) {
    ze_result_t r = zeEventQueryStatus(c->slot->handle);
    if (r != ZE_RESULT_NOT_READY) finish(*c, r, "zeEventQueryStatus");
  }
}

bool Completions::needsThisThread(const PendingCommand &command) {
  return command.func || (command.graph && command.graph->hasHostSteps() && !command.hostStepsRun);
}

void Completions::runHostCallback(PendingCommand &command) {
  std::string failure;
  for (const SlotRef &w : command.waits)
    if (ze_result_t r = zeEventHostSynchronize(w->handle, UINT64_MAX); r != ZE_RESULT_SUCCESS) {
      failure = fmt::format("zeEventHostSynchronize failed with {} before a host callback",
                            resultName(r));
      break;
    }
  if (failure.empty()) failure = core::runHostCallback(command.func, command.userData);
  if (!failure.empty()) {
    failures_->note(failure);
    if (command.done) command.done->fail(failure);
    command.done = nullptr;
  }
  // Commands after the callback wait on its event, signalled here.
  if (ze_result_t r = zeEventHostSignal(command.slot->handle); r != ZE_RESULT_SUCCESS)
    failures_->note(
        fmt::format("zeEventHostSignal failed with {} after a host callback", resultName(r)));
  command.func = nullptr;
}

void Completions::finish(PendingCommand &command, ze_result_t status, const char *call) {
  core::CommandTimes times;
  if (status == ZE_RESULT_SUCCESS && command.done && command.done->timed()) {
    times.endNs = core::steadyNowNs();
    times.startNs = command.submitNs;
    ze_kernel_timestamp_result_t ts{};
    if (command.deviceTimes &&
        zeEventQueryKernelTimestamp(command.slot->handle, &ts) == ZE_RESULT_SUCCESS) {
      // Kernel timestamps have kernelTimestampValidBits bits and wrap: the difference is
      // taken modulo that width.
      const ZeDeviceDescription &d = device_.description();
      uint64_t mask = d.kernelTimestampValidBits >= 64
                          ? UINT64_MAX
                          : (uint64_t{1} << d.kernelTimestampValidBits) - 1;
      uint64_t ticks = (ts.global.kernelEnd - ts.global.kernelStart) & mask;
      uint64_t ns = static_cast<uint64_t>(static_cast<double>(ticks) * d.nsPerTimestampTick);
      times.startNs = times.endNs > ns ? times.endNs - ns : 0;
    }
  }
  command.finished = true;
  if (command.graph) {  // its first failed node, named, rather than the end's status
    if (std::string failure = command.graph->failure(); !failure.empty()) {
      failures_->note(failure);
      if (command.done) {
        device_.events().remove(command.done.get());
        command.done->fail(failure, times);
        command.done = nullptr;
      }
    }
  }
  if (command.done) {
    device_.events().remove(command.done.get());
    // A graph's recording is idle for the next launch once nothing holds its end event: by
    // the time the launch's waiters wake, this thread no longer does.
    if (command.graph) {
      command.slot = nullptr;
      command.waits.clear();
      command.graph = nullptr;
    }
    if (status == ZE_RESULT_SUCCESS) {
      command.done->complete(times);
    } else {
      std::string message = fmt::format(
          "{} on {} failed: {} returned {}{}", command.command.description(), device_.label(), call,
          resultName(status),
          toXpurtResult(status) == XPURT_ERROR_DEVICE_LOST ? " (the device is lost)" : "");
      if (std::string why = device_.context().lastError(); !why.empty())
        message += "; the driver says: " + why;
      failures_->note(message);
      command.done->fail(message, times);
    }
  }
  // Its event and those it waited on may be reused from now on.
  command.done = nullptr;
  command.waits.clear();
  command.slot = nullptr;
  command.graph = nullptr;
  command.keep = nullptr;
  command.command = {};
}

}  // namespace xpurt::level_zero
