// The Level Zero device's lowering of a graph: regular command lists recorded once and
// executed again by each launch, on command queues of the graph's own.
//
// Each node is assigned a lane at instantiation: copies and fills the copy-only queue group
// where the device has one, launches and empty nodes one of up to four queues of the compute
// group (a node continues the lane of a predecessor where it can, so chains stay on one
// queue, and independent branches go to different ones). A recording has one list per lane
// and an event per node; every node waits on its predecessors' events (events between
// engines), roots on the recording's start event, and the first compute list ends with a
// barrier on the sinks that signals the recording's end event.
//
// A launch takes an idle recording of the program it runs (recording again one made from an
// earlier binding, or a new one, up to kMaxRecordings; past that, the launch runs node by node
// through the queue), executes its lists, and has the launching queue signal the start event
// once the launch's waits are done; the queue's later commands wait on the end event. Host
// callbacks are host steps the completion engine runs once their predecessors' events are
// signalled, signalling the callback's event after it. A recording is reused once nothing holds its
// end event any more: its events are reset then. Level Zero 1.4 has no mutable command lists, so
// rebinding records again, lazily.
#pragma once

#include "core/graph_exec.hpp"
#include "ze_append.hpp"
#include "ze_device.hpp"
#include "ze_events.hpp"

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xpurt::level_zero {

struct GraphLanes;

// One recording of a program, used by one launch at a time. A launch's end is a slot of its
// own (launchEnd_): its last holder makes the recording idle.
class GraphRecording final : public SlotOwner {
 public:
  explicit GraphRecording(std::shared_ptr<GraphLanes> lanes);
  ~GraphRecording();
  GraphRecording(const GraphRecording &) = delete;
  GraphRecording &operator=(const GraphRecording &) = delete;

  bool hasHostSteps() const { return !hostSteps_.empty(); }
  // Runs the host callbacks, each once its predecessors have completed; one whose
  // predecessors include a failed node does not run and counts as failed. The completion
  // thread, once per launch.
  void runHostSteps();
  // Once the end event is signalled: the launch's first failure ("graph node 3 (kernel 'k'):
  // ..."), or an empty string.
  std::string failure();

 private:
  friend class ZeGraphExec;
  struct Lane {
    ze_command_list_handle_t list = nullptr;
    ze_fence_handle_t fence = nullptr;
    bool used = false;      // in the current recording
    bool executed = false;  // by the current launch
  };
  struct HostStep {
    uint32_t node;
    XpurtHostFunc func;
    void *userData;
  };

  // Records program into the lists (reset first if they were recorded before).
  void record(std::shared_ptr<const core::GraphProgram> program);
  // Executes the used lists; on failure, signals every node's event from the host so the
  // lists already executed run to their end, and throws.
  void execute();
  // The end event's last holder let it go: waits for the lists, resets the events and makes
  // the recording idle.
  void release() noexcept;
  void slotReleased(EventSlot &slot) noexcept override;
  bool failedBefore(uint32_t node) const;
  ze_event_handle_t eventOf(uint32_t node) const { return events_[node]->handle; }

  std::shared_ptr<GraphLanes> lanes_;
  // Recorded from. Not held: an idle recording stays alive while a queue's later command may
  // still wait on its end event, and must not keep the callbacks' state alive (a launch's
  // command holds its program).
  std::weak_ptr<const core::GraphProgram> program_;
  std::vector<std::vector<uint32_t>> preds_;
  ZeEventPool pool_;
  std::vector<SlotRef> events_;  // per node; held for the recording's life
  SlotRef start_, end_;
  EventSlot launchEnd_;  // end_'s event, counted by the launch's holders
  // While a launch holds launchEnd_: the recording stays until its last holder lets it go.
  std::shared_ptr<GraphRecording> self_;
  std::vector<Lane> lists_;                  // per lane
  std::vector<std::shared_ptr<void>> keep_;  // what the lists read (expanded fill patterns)
  std::vector<HostStep> hostSteps_;          // in topological order
  std::vector<uint8_t> failed_;              // per node: a host step failed or did not run
  std::string failure_;                      // the first host step's failure
  bool busy_ = false;                        // under the lanes' mutex
};

class ZeGraphExec final : public core::GraphExec {
 public:
  static constexpr size_t kMaxRecordings = 4;

  ZeGraphExec(core::Ref<ZeDevice> device, std::shared_ptr<const core::GraphProgram> program);
  ~ZeGraphExec() override;

  // While every recording is in use (launches in flight, or held back by their waits), a
  // launch runs node by node through the queue instead (core's lowering) rather than wait.
  bool runsAsOneCommand() const override;

  struct Launch {
    std::shared_ptr<GraphRecording> recording;
    ze_event_handle_t start = nullptr;  // the queue signals it to start the graph
    SlotRef end;  // signalled once every node has completed; holders keep the recording busy
  };
  // A recording of program, ready for its lists to be executed. beforeWaiting runs before
  // this waits for a recording in use to become idle (a batched queue submits its batches).
  Launch prepare(const std::shared_ptr<const core::GraphProgram> &program,
                 const std::function<void()> &beforeWaiting);
  // Executes the prepared recording's lists. Throws if the driver refuses; the launch's
  // nodes then run without their waits (its future fails).
  void execute(Launch &launch);

 private:
  std::shared_ptr<GraphLanes> lanes_;
  std::vector<std::shared_ptr<GraphRecording>> recordings_;  // under the lanes' mutex
};

}  // namespace xpurt::level_zero
