// A queue on a Level Zero device: immediate command lists, each command appended with one
// call that names the event it signals and the events it waits on, never a full barrier.
// An in-order queue chains each command to the previous one's event; an out-of-order queue
// passes on the waits the hazard tracker found. Copies go to the copy-only queue group where
// the queue's engine says so (a copy queue; an out-of-order queue's copies), launches to the
// compute group. A completion thread per queue sees the events signalled and completes the
// futures, in submission order for in-order queues.
#pragma once

#include "core/task_queue.hpp"
#include "ze_completions.hpp"
#include "ze_device.hpp"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace xpurt::level_zero {

class ZeKernel;

class ZeQueue final : public core::TaskQueue {
 public:
  ZeQueue(core::Ref<ZeDevice> device, const core::QueueOptions &options);
  // Waits for the queued work, then frees the lists and kernel clones.
  ~ZeQueue() override;

 protected:
  void submit(core::Command &&cmd) override;
  void drain() override;

 private:
  struct Lane {
    ze_command_list_handle_t list = nullptr;
    uint32_t ordinal = 0;
    uint32_t maxFillPatternSize = 4;
  };
  // A Level Zero kernel of this queue for one xpurt kernel, with the state last set on it, so
  // a launch repeating it makes no call for it.
  struct KernelClone {
    core::Ref<core::Kernel> kernel;  // keeps the module alive while the clone lives
    ze_kernel_handle_t handle = nullptr;
    std::array<uint32_t, 3> groupSize{0, 0, 0};
    std::array<uint32_t, 3> offset{0, 0, 0};
    std::vector<std::vector<std::byte>> args;  // as last set; empty: not set
  };

  Lane createLane(uint32_t ordinal, uint32_t index, uint32_t maxFillPatternSize);
  Lane &laneFor(const core::Command &cmd);
  void destroyLanes() noexcept;
  KernelClone &cloneOf(core::Kernel &kernel);
  void setArg(KernelClone &clone, uint32_t index, size_t size, const void *value);
  void setGroupSize(KernelClone &clone, const std::array<uint32_t, 3> &size);
  // Appends the command; wait: the events it waits on. Returns what the command must keep
  // alive until it completes (a fill's expanded pattern), if anything.
  std::shared_ptr<void> append(core::Command &cmd, Lane &lane, ze_event_handle_t signal,
                               std::vector<ze_event_handle_t> &wait);
  void appendLaunch(core::Command &cmd, Lane &lane, ze_event_handle_t signal,
                    std::vector<ze_event_handle_t> &wait);

  core::Ref<ZeDevice> zeDevice_;
  std::unique_ptr<EventPool> events_;
  std::mutex appendMutex_;  // a command list takes one append at a time
  Lane compute_;
  Lane copy_;  // the compute lane again where the device has no copy-only group
  // An out-of-order queue's launches go round the compute group's queues, so independent
  // launches may run side by side on a driver that runs each list in order.
  std::vector<Lane> moreCompute_;
  size_t nextCompute_ = 0;
  SlotRef last_;                                // in-order queues: the previous command's event
  std::vector<ze_event_handle_t> waitScratch_;  // a command's wait list, under appendMutex_
  std::unordered_map<const core::Kernel *, KernelClone> clones_;
  std::shared_ptr<Completions> completions_;
  std::thread completionThread_;
};

}  // namespace xpurt::level_zero
