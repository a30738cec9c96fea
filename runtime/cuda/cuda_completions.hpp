// The completion side of a CUDA queue: a thread that waits for the event each command records
// when it ends (in submission order for an in-order queue; as they are reached for an
// out-of-order one), completes its future (device time from a start event
// when the command is measured), runs host callbacks when their turn comes, and releases what
// the command held.
#pragma once

#include "core/task_queue.hpp"
#include "cuda_events.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace xpurt::cuda {

// Page-locked memory, xpurt's own, that copies of pageable host memory go through: the driver
// refuses a copy whose host range is only partly registered (two views of one application
// page, or a page whose view has just gone).
struct StagingBuffer {
  void *host = nullptr;
  size_t size = 0;
};

struct PendingCommand {
  SlotRef end;                  // recorded after the command (null for a host callback)
  SlotRef start;                // recorded before it, when it is measured
  core::Ref<core::Event> done;  // its future (null for an in-order barrier)
  std::vector<FlagRef> flags;   // host flags its stream waits on
  std::shared_ptr<void> keep;   // memory the device reads until it completes
  core::Command command;        // holds the views, kernel and params it uses
  std::vector<core::Ref<core::Event>> hostWaits;  // a host callback's waits
  XpurtHostFunc func = nullptr;                   // a host callback
  void *userData = nullptr;
  // A copy of pageable host memory: the buffer it goes through; for a copy to the device, the
  // flag its stream waits on until the completion thread has filled the buffer.
  std::shared_ptr<StagingBuffer> staging;
  FlagRef stagingFilled;
  bool filled = false;    // completion thread only
  uint64_t submitNs = 0;  // when it was submitted: a trace's start without device times
  bool finished = false;  // completion thread only
};

class Completions final : public core::EventDriver {
 public:
  // inOrder: commands complete in submission order; else each as soon as its event says so.
  Completions(CudaDevice &device, std::shared_ptr<core::FailureLog> failures, bool inOrder);
  ~Completions() { reap(reaped_); }

  void push(PendingCommand &&command);
  // Returns once every command pushed before the call has completed. Throws
  // INVALID_ARGUMENT on the completion thread (a host callback of the queue would wait for
  // itself).
  void drain();
  void run();  // the thread's body, until stop() and nothing is pending
  void stop(std::function<void()> cleanup = {});
  bool runningOnThisThread() const;

  void helpUntil(const std::function<bool()> &done) override;

 private:
  void runHostCallback(PendingCommand &command);
  // A copy to the device from pageable host memory: the staging buffer filled, once what it
  // waits for is done, and its stream let go.
  void fillStaging(PendingCommand &command);
  void finish(PendingCommand &command, CUresult status, const char *call);
  // Releases what completed commands held. The thread that submits does it, on its next push
  // or drain: their objects were made there, and releasing them here would make both threads
  // touch the same memory and reference counts for every command. This thread does it when the
  // queue is idle (nothing pushed for 50 us) or more than kMaxUnreaped wait.
  static void reap(std::vector<PendingCommand> &done);
  void reapFinished();
  static constexpr size_t kMaxUnreaped = 1024;
  // Out-of-order queues: completes every later command whose event has been reached; returns
  // whether there was one.
  bool finishReached();

  CudaDevice &device_;
  std::shared_ptr<PrimaryContext> context_;
  std::shared_ptr<core::FailureLog> failures_;
  const bool inOrder_;
  std::mutex mutex_;
  std::condition_variable work_, drained_;
  std::deque<PendingCommand> pending_;  // only the completion thread removes entries
  std::vector<PendingCommand> reaped_;  // completed, for the submitting thread to release
  uint64_t pushed_ = 0, completed_ = 0;
  // pushed_, readable without the lock: the thread looks for new work for a moment before it
  // sleeps, so a steady stream of commands does not pay a wake-up each.
  std::atomic<uint64_t> pushedSoFar_{0};
  bool stopping_ = false;
  std::function<void()> cleanup_;
};

}  // namespace xpurt::cuda
