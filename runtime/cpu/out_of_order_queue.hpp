// The CPU out-of-order task queue. A command runs once the events it waits for (worked out by
// core::TaskQueue from declared accesses, barriers and waits) have completed. Launches, copies
// and fills run as tasks in the device's arena, side by side with each other, joined by a
// thread of the device's host executor while any run (the queue's compute turn): a copy
// overlaps a kernel, and two ready copies share the cores and the memory bus rather than
// waiting for one copy engine, as a graph's nodes do. Host callbacks and graphs, which may
// block, run one at a time in the order they became ready, in the queue's host turn on the
// executor; so does a copy that no arena thread has started within kCopyFallbackNs (all of
// them held by other queues' kernels or blocked waits), so copies always make progress. A
// turn is taken only while it has work: the queue owns no thread.
#pragma once

#include "core/task_queue.hpp"
#include "cpu_device.hpp"

#include <oneapi/tbb/task_group.h>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <queue>

namespace xpurt::cpu {

class OutOfOrderRunner final : public core::EventDriver,
                               public std::enable_shared_from_this<OutOfOrderRunner> {
 public:
  OutOfOrderRunner(core::Ref<CpuDevice> device, std::shared_ptr<core::FailureLog> failures)
      : device_(std::move(device)), failures_(std::move(failures)) {}

  void submit(core::Command &&cmd);
  // Nothing to run on the waiting thread (the engines run everything); refuses waits that
  // could never end.
  void helpUntil(const std::function<bool()> &done) override;
  void drain();
  bool onOwnEngine() const;
  // Returns once no turn of the queue is posted or running (every arena task ended).
  void waitIdle();

 private:
  struct Node {
    core::Command cmd;
    uint64_t order = 0;              // submission order
    std::atomic<uint32_t> unmet{1};  // waits not yet complete, plus one for submit itself
    uint64_t readyNs = 0;            // copies: when they became ready
  };
  // Far longer than a kernel's piece: a copy that waited this long for an arena thread is not
  // waiting for pieces to end. (At 2 ms it fired in the pipeline sample, where an enqueued copy
  // waits until a thread runs out of pieces, and cost a sixth of the out-of-order way's speed.)
  static constexpr uint64_t kCopyFallbackNs = 20'000'000;
  struct LaterSubmitted {
    bool operator()(const Node *a, const Node *b) const { return a->order > b->order; }
  };
  void dependencyMet(Node *node);
  void dispatch(Node *node);
  void finish(Node *node);
  void runReadyCopy();  // an arena task's copy
  void taskEnded();     // an arena task's last step
  // The turns, posted to the device's host executor while they have work (mutex_ held). Each
  // holds the runner; the compute turn ends after every arena task has, so no task outlives it.
  void scheduleHostTurn();
  void scheduleComputeTurn();
  void hostTurn();
  void computeTurn();

  core::Ref<CpuDevice> device_;
  std::shared_ptr<core::FailureLog> failures_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;     // the host turn: work
  std::condition_variable drained_;  // drain(): completions
  // Ready host callbacks and graphs, and ready copies and fills, the earliest submitted first:
  // a copy out that became ready goes before the copies in submitted after it.
  std::priority_queue<Node *, std::vector<Node *>, LaterSubmitted> hostReady_, copyReady_;
  // Every arena task of this queue (held by pointer: its destructor may throw).
  std::unique_ptr<tbb::task_group> group_ = std::make_unique<tbb::task_group>();
  uint32_t tasksInFlight_ = 0;  // enqueued to the arena, not yet finished
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;
  bool hostTurn_ = false, computeTurn_ = false;  // posted or running
  std::condition_variable turnEnded_;
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
