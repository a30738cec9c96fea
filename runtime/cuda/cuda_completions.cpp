#include "cuda_completions.hpp"
#include "cuda_graph.hpp"

#include "core/clock.hpp"
#include "core/host_callback.hpp"
#include "core/log.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

namespace xpurt::cuda {
namespace {

thread_local const Completions *runningCompletions = nullptr;

}  // namespace

Completions::Completions(CudaDevice &device, std::shared_ptr<core::FailureLog> failures,
                         bool inOrder)
    : device_(device),
      context_(device.sharedContext()),
      failures_(std::move(failures)),
      inOrder_(inOrder) {}

void Completions::push(PendingCommand &&command) {
  std::vector<PendingCommand> done;
  {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(command));
    ++pushed_;
    pushedSoFar_.store(pushed_, std::memory_order_release);
    done.swap(reaped_);
  }
  work_.notify_one();
  reap(done);
}

bool Completions::runningOnThisThread() const {
  return runningCompletions == this;
}

void Completions::helpUntil(const std::function<bool()> &done) {
  if (done()) return;
  if (runningOnThisThread())
    core::fail(XPURT_ERROR_INVALID_ARGUMENT,
               "waiting for a future of a later command from a host callback of the same "
               "queue: the queue completes its commands on the thread that runs the callback, "
               "so it would wait forever. Wait after the callback, from another thread, or on "
               "another queue");
}

void Completions::drain() {
  if (runningOnThisThread())
    core::fail(XPURT_ERROR_INVALID_ARGUMENT,
               "xpurtSync from a host callback of the same queue: the queue completes its "
               "commands on the thread that runs the callback, so it would wait forever. Sync "
               "after the callback, from another thread");
  {
    std::unique_lock lock(mutex_);
    uint64_t target = pushed_;
    drained_.wait(lock, [&] { return completed_ >= target; });
  }
  reapFinished();
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
  // Driver calls on this thread need the device's context.
  cu().CtxSetCurrent(context_->handle());
  for (;;) {
    PendingCommand *oldest;
    {
      // Nothing pending: look again for up to 50 us before sleeping.
      uint64_t seen = completed_;
      auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
      while (pushedSoFar_.load(std::memory_order_acquire) == seen &&
             std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      {
        // Idle, nothing submitted for a while: release what completed commands held here,
        // so that memory an application let go of after waiting is freed without a sync.
        std::vector<PendingCommand> done;
        {
          std::lock_guard lock(mutex_);
          if (pending_.empty()) done.swap(reaped_);
        }
        reap(done);
      }
      std::unique_lock lock(mutex_);
      work_.wait(lock, [&] { return !pending_.empty() || stopping_; });
      if (pending_.empty()) {
        std::function<void()> cleanup = std::move(cleanup_);
        std::vector<PendingCommand> done;
        done.swap(reaped_);  // the queue is gone: nobody else will
        lock.unlock();
        reap(done);
        if (cleanup) cleanup();
        return;
      }
      // push_back leaves references to existing entries valid, and only this thread removes.
      oldest = &pending_.front();
    }
    if (oldest->stagingFilled && !oldest->filled)
      fillStaging(*oldest);  // then wait for its copy, as for others
    if (oldest->finished) {
      // Completed already, out of order.
    } else if (oldest->func) {
      runHostCallback(*oldest);
    } else if (inOrder_) {
      finish(*oldest, cu().EventSynchronize(oldest->end->handle), "cuEventSynchronize");
    } else {
      // Later commands of an out-of-order queue may end first: their futures complete as
      // soon as their events are reached, not after the oldest.
      CUresult r = cu().EventQuery(oldest->end->handle);
      if (r == CUDA_ERROR_NOT_READY) {
        if (!finishReached()) std::this_thread::sleep_for(std::chrono::microseconds(20));
        continue;
      }
      finish(*oldest, r, "cuEventQuery");
    }
    std::vector<PendingCommand> overflow;
    {
      std::lock_guard lock(mutex_);
      while (!pending_.empty() && pending_.front().finished) {
        reaped_.push_back(std::move(pending_.front()));
        pending_.pop_front();
        ++completed_;
      }
      // Nobody submits: release here rather than hold without bound.
      if (reaped_.size() > kMaxUnreaped) overflow.swap(reaped_);
    }
    drained_.notify_all();
    reap(overflow);
  }
}

bool Completions::finishReached() {
  std::vector<PendingCommand *> later;
  {
    std::lock_guard lock(mutex_);
    for (size_t i = 1; i < pending_.size(); ++i)
      if (!pending_[i].finished && pending_[i].end) later.push_back(&pending_[i]);
  }
  bool any = false;
  for (PendingCommand *c : later)
    if (CUresult r = cu().EventQuery(c->end->handle); r != CUDA_ERROR_NOT_READY) {
      finish(*c, r, "cuEventQuery");
      any = true;
    }
  return any;
}

void Completions::runHostCallback(PendingCommand &command) {
  // Earlier commands of the queue have completed (the oldest is handled first); what else it
  // waits for is another queue's or backend's work. A dependency that failed has reported
  // its failure already: the callback still runs, as on every device.
  for (const core::Ref<core::Event> &e : command.hostWaits) e->wait();
  std::string failure = core::runHostCallback(command.func, command.userData);
  if (command.done) {
    if (failure.empty()) {
      core::CommandTimes times;
      if (command.done->timed()) times = {command.submitNs, core::steadyNowNs()};
      command.done->complete(times);
    } else {
      failures_->note(failure);
      command.done->fail(failure);
    }
  }
  command.finished = true;
}

void Completions::fillStaging(PendingCommand &command) {
  for (const core::Ref<core::Event> &e : command.hostWaits) e->wait();
  command.hostWaits.clear();
  const core::Command &cmd = command.command;
  std::memcpy(command.staging->host, cmd.src.pointer(), cmd.dst.size);
  command.stagingFilled->set();  // kept until the command completes (HostFlag)
  command.filled = true;
}

void Completions::finish(PendingCommand &command, CUresult status, const char *call) {
  core::CommandTimes times;
  if (status == CUDA_SUCCESS && command.done && command.done->timed()) {
    times.endNs = core::steadyNowNs();
    times.startNs = command.submitNs;
    float ms = 0;
    if (command.start && command.end &&
        cu().EventElapsedTime(&ms, command.start->handle, command.end->handle) == CUDA_SUCCESS) {
      auto ns = static_cast<uint64_t>(static_cast<double>(ms) * 1e6);
      times.startNs = times.endNs > ns ? times.endNs - ns : 0;
    }
  }
  if (status == CUDA_SUCCESS && command.staging &&
      command.command.copyKind == core::Command::CopyKind::ToHost)
    std::memcpy(command.command.dst.pointer(), command.staging->host, command.command.dst.size);
  // A graph whose host callback failed completes on the device all the same.
  std::string graphFailure;
  if (status == CUDA_SUCCESS && command.command.type == core::Command::Type::Graph)
    graphFailure = static_cast<CudaGraphExec &>(*command.command.graph).takeFailure();
  if (command.done) {
    if (!graphFailure.empty()) {
      failures_->note(graphFailure);
      command.done->fail(graphFailure, times);
    } else if (status == CUDA_SUCCESS) {
      command.done->complete(times);
    } else {
      std::string message =
          fmt::format("{} on {} failed: {} returned {}{}", command.command.description(),
                      device_.label(), call, resultName(status),
                      toXpurtResult(status) == XPURT_ERROR_DEVICE_LOST
                          ? " (the CUDA context is lost: release the device's objects and "
                            "create the device again)"
                          : "");
      failures_->note(message);
      command.done->fail(message, times);
    }
  }
  // What it holds (its events, flags, views, kernel, its entry in the event table) is released
  // by the submitting thread, which made it (reap).
  command.finished = true;
}

void Completions::reap(std::vector<PendingCommand> &done) {
  // A queue that looks an event up before this sees it done, or waits on a signalled event.
  for (PendingCommand &c : done)
    if (c.done) EventTable::instance().remove(c.done.get());
  done.clear();
}

void Completions::reapFinished() {
  std::vector<PendingCommand> done;
  {
    std::lock_guard lock(mutex_);
    done.swap(reaped_);
  }
  reap(done);
}

}  // namespace xpurt::cuda
