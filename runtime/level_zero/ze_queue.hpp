// A queue on a Level Zero device: immediate command lists, each command appended with one
// call that names the event it signals and the events it waits on, never a full barrier.
// An in-order queue chains each command to the previous one's event, and holds its launches,
// copies and fills to hand them to the completion engine together; an out-of-order queue
// passes on the waits the hazard tracker found. Copies go to the copy-only queue group where
// the queue's engine says so (a copy queue; an out-of-order queue's copies), launches to the
// compute group. The core's completion engine (ze_completions.hpp) sees the events signalled
// and completes the futures, in submission order for in-order queues.
// A batched queue (XPURT_QUEUE_FLAG_BATCHED) appends the same way to regular command lists
// instead, one open list per lane, closed and executed on the lane's command queue when the
// queue is synced, a future of it is waited on or polled (here or by another queue that takes
// a dependency on it), before a host callback, and every kBatchCommands commands; executed
// lists are reset and reused once their fence says the device is done with them.
#pragma once

#include "core/task_queue.hpp"
#include "ze_append.hpp"
#include "ze_completions.hpp"
#include "ze_device.hpp"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace xpurt::level_zero {

class ZeQueue final : public core::TaskQueue {
 public:
  ZeQueue(core::Ref<ZeDevice> device, const core::QueueOptions &options);
  // Waits for the queued work, then frees the lists and kernel clones.
  ~ZeQueue() override;

 protected:
  void submit(core::Command &&cmd) override;
  void drain() override;
  void *nativeHandle() const override;

 private:
  // A regular command list with the fence its execution signals (batched queues).
  struct Batch {
    ze_command_list_handle_t list = nullptr;
    ze_fence_handle_t fence = nullptr;
  };
  struct Lane {
    ze_command_list_handle_t list = nullptr;  // immediate, or the open batch's list
    uint32_t ordinal = 0;
    uint32_t maxFillPatternSize = 4;
    // Batched queues only.
    ze_command_queue_handle_t queue = nullptr;
    ze_fence_handle_t fence = nullptr;  // the open batch's
    uint32_t recorded = 0;              // commands in the open batch
    std::deque<Batch> executing;        // oldest first
  };
  Lane &createLane(uint32_t ordinal, uint32_t index, uint32_t maxFillPatternSize);
  Lane &laneFor(const core::Command &cmd);
  void destroyLanes() noexcept;
  // Batched queues: a list and fence for the next batch of a lane, reused where the device is
  // done with an executed one.
  Batch nextBatch(Lane &lane);
  // Executes every lane's open batch, then hands the commands to the completion engine. A
  // failed execution fails the commands' futures (their events are signalled from the host,
  // so nothing waits for them forever). Under appendMutex_.
  void flushLocked();
  // Submits what is recorded (batched queues) or pushes what is held: the completion engine's
  // flush, when one of their futures is waited for or the queue goes quiet.
  void flush();
  // appendMutex_ held. Pushes the commands held (in-order queues) to the completion engine.
  void pushHeld();
  // The device event that signals the future `e`'s completion: a pending command's of a queue
  // of this device; null if there is none (another device's or backend's future, or done).
  SlotRef deviceEventOf(const core::Event &e) const;
  // Gives the lane an open batch if a failed flush left it without one.
  void openBatch(Lane &lane);
  // Runs a graph's recording (ze_graph.hpp), started by a barrier on the lane after the
  // command's waits, or at once from the host when it has none.
  void submitGraph(core::Command &cmd, Lane &lane, PendingCommand &p,
                   std::vector<ze_event_handle_t> &wait);

  core::Ref<ZeDevice> zeDevice_;
  const bool batched_;  // regular command lists, executed in batches
  std::unique_ptr<ZeEventPool> events_;
  std::mutex appendMutex_;  // a command list takes one append at a time
  std::deque<Lane> lanes_;  // every lane; the pointers below name them
  Lane *compute_ = nullptr;
  Lane *copy_ = nullptr;  // the compute lane again where the device has no copy-only group
  // An out-of-order queue's launches go round the compute group's queues, so independent
  // launches may run side by side on a driver that runs each list in order.
  std::vector<Lane *> moreCompute_;
  // Batched queues: the commands of the open batches, handed to the completion engine once
  // executed.
  Completions::Batch recorded_;
  std::vector<const Lane *> recordedLanes_;  // the lane of each
  // In-order queues: commands appended and not yet pushed, in order; pushed before a command
  // that is not held, on flush(), and at the latest once kMaxHeld of them are held.
  static constexpr size_t kMaxHeld = 64;
  Completions::Batch held_;
  size_t nextCompute_ = 0;
  SlotRef last_;                                // in-order queues: the previous command's event
  std::vector<ze_event_handle_t> waitScratch_;  // a command's wait list, under appendMutex_
  std::unique_ptr<CommandAppender> appender_;   // under appendMutex_
  std::shared_ptr<Completions> completions_;
};

}  // namespace xpurt::level_zero
