// The completion side of a Level Zero queue: a thread that waits for the events of the
// queue's commands and completes their futures (with device time from kernel timestamps when
// the queue profiles), runs host callbacks when their turn comes, and gives events back for
// reuse once the commands that wait on them have completed too.
#pragma once

#include "core/task_queue.hpp"
#include "ze_events.hpp"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

namespace xpurt::level_zero {

class GraphRecording;
class ZeDevice;

struct PendingCommand {
  SlotRef slot;                  // the event the command signals
  std::vector<SlotRef> waits;    // the events it waits on: not reused before it completes
  core::Ref<core::Event> done;   // its future (null for an in-order barrier)
  std::shared_ptr<void> keep;    // memory the device reads until it completes
  core::Command command;         // holds the views, kernel and params it uses
  XpurtHostFunc func = nullptr;  // a host callback: run once `waits` are signalled
  void *userData = nullptr;
  // A graph's launch: its host steps run before its end (`slot`) can be signalled, and its
  // nodes' failures fail it.
  std::shared_ptr<GraphRecording> graph;
  bool hostStepsRun = false;
  bool deviceTimes = false;  // the event records kernel timestamps
  uint64_t submitNs = 0;     // when it was appended: a trace's start without device times
  bool finished = false;     // completion thread only
};

class Completions final : public core::EventDriver {
 public:
  Completions(ZeDevice &device, std::shared_ptr<core::FailureLog> failures, bool inOrder);

  void push(PendingCommand &&command);
  // Returns once every command pushed before the call has completed. Throws
  // INVALID_ARGUMENT on the completion thread (a host callback of the queue), which would
  // wait for itself.
  void drain();
  // The completion thread's body: until stop() and nothing is pending; then runs the
  // cleanup stop() was given.
  void run();
  void stop(std::function<void()> cleanup = {});
  // Whether the calling thread is this queue's completion thread (in a host callback).
  bool runningOnThisThread() const;

  // Waiters sleep on the future; the completion thread completes it as the event signals.
  // A host callback waiting on a later command of its own queue would wait forever: refused.
  void helpUntil(const std::function<bool()> &done) override;
  // A batched queue's futures: looking at one, or waiting for it, first submits the batches
  // recorded so far (the queue's flush).
  void poll() override;
  // Set by a batched queue; cleared before it goes (waiting for a flush in progress).
  void setFlush(std::function<void()> flush);

 private:
  void runHostCallback(PendingCommand &command);
  // Whether the command needs this thread before it can complete (a host callback, a graph
  // with host steps still to run).
  static bool needsThisThread(const PendingCommand &command);
  // Completes the future of a command whose event is signalled (status SUCCESS) or failed.
  void finish(PendingCommand &command, ze_result_t status, const char *call);
  // Out-of-order queues: completes every later command whose event is already signalled.
  void finishSignalled();
  void refuseWaitFromOwnCommand(const char *what) const;

  ZeDevice &device_;
  std::shared_ptr<core::FailureLog> failures_;
  const bool inOrder_;
  std::mutex mutex_;
  std::condition_variable work_, drained_;
  std::deque<PendingCommand> pending_;  // only the completion thread removes entries
  uint64_t pushed_ = 0, completed_ = 0;
  bool stopping_ = false;
  std::function<void()> cleanup_;
  std::mutex flushMutex_;
  std::function<void()> flush_;
};

}  // namespace xpurt::level_zero
