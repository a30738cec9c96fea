// The CPU out-of-order task queue. A command runs once the events it waits for (worked out by
// core::TaskQueue from declared accesses, barriers and waits) have completed, on one of two
// engines: copies, fills and host callbacks on the queue's copy thread; launches as tasks in
// the device's arena, side by side with each other, joined by the queue's compute thread while
// any run. A copy and a kernel of one queue therefore overlap, as on a GPU's copy and compute
// engines.
#pragma once

#include "core/task_queue.hpp"
#include "cpu_device.hpp"

#include <oneapi/tbb/task_group.h>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>

namespace xpurt::cpu {

class OutOfOrderRunner final : public core::EventDriver,
                               public std::enable_shared_from_this<OutOfOrderRunner> {
 public:
  OutOfOrderRunner(core::Ref<CpuDevice> device, std::shared_ptr<core::FailureLog> failures)
      : device_(std::move(device)), failures_(std::move(failures)), copyClaim_(&device_->cores()) {}

  void start();
  void submit(core::Command &&cmd);
  // Nothing to run on the waiting thread (the engines run everything); refuses waits that
  // could never end.
  void helpUntil(const std::function<bool()> &done) override;
  void drain();
  // Ends the engines once every submitted command has run, and joins them (from one of them:
  // lets them end by themselves).
  void stopAndJoin();
  bool onOwnEngine() const;

 private:
  struct Node {
    core::Command cmd;
    uint64_t order = 0;              // submission order
    std::atomic<uint32_t> unmet{1};  // waits not yet complete, plus one for submit itself
  };
  struct LaterSubmitted {
    bool operator()(const Node *a, const Node *b) const { return a->order > b->order; }
  };
  void dependencyMet(Node *node);
  void dispatch(Node *node);
  void finish(Node *node);
  void copyEngineLoop();
  void computeEngineLoop();
  bool idleAndStopping() const;  // mutex_ held

  core::Ref<CpuDevice> device_;
  std::shared_ptr<core::FailureLog> failures_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;     // the engines: work, or the stop
  std::condition_variable drained_;  // drain(): completions
  // Ready copies, the earliest submitted first: a copy out that became ready goes before the
  // copies in submitted after it, as the program ordered them, rather than after all of them.
  std::priority_queue<Node *, std::vector<Node *>, LaterSubmitted> copyReady_;
  // The copy thread's claim on a core: raised as soon as a copy or fill is ready, lowered when
  // it turns to something else (a host callback, a graph) or has nothing ready.
  CoreShare::EngineClaim copyClaim_;
  bool copyThreadOnOther_ = false;  // it runs a callback or graph: no claim until it is done
  // Every launch task of this queue (held by pointer: its destructor may throw).
  std::unique_ptr<tbb::task_group> group_ = std::make_unique<tbb::task_group>();
  uint32_t launchesInFlight_ = 0;  // enqueued to the arena, not yet finished
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;
  bool stopping_ = false;
  std::thread copyEngine_, computeEngine_;
};

class OutOfOrderQueue final : public core::TaskQueue {
 public:
  OutOfOrderQueue(core::Ref<CpuDevice> device, const core::QueueOptions &options);
  ~OutOfOrderQueue() override;

 protected:
  void submit(core::Command &&cmd) override;
  void drain() override { runner_->drain(); }

 private:
  std::shared_ptr<OutOfOrderRunner> runner_;
};

}  // namespace xpurt::cpu
