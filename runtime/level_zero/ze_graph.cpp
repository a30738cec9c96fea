#include "ze_graph.hpp"

#include "core/host_callback.hpp"
#include "core/log.hpp"
#include "ze_call.hpp"
#include "ze_handles.hpp"

#include <algorithm>

namespace xpurt::level_zero {

using core::Command;
using core::GraphNode;
using core::GraphProgram;

// Queues of the compute group a graph spreads its independent branches over, at most.
constexpr uint32_t kMaxComputeLanes = 4;

// The command queues of one executable graph, which lane each node is on, and the kernels
// its recordings launch. Shared by the graph and its recordings: a recording still in use
// outlives the graph.
struct GraphLanes {
  struct Queue {
    uint32_t ordinal = 0;
    uint32_t maxFillPatternSize = 4;
    ze_command_queue_handle_t handle = nullptr;  // created once a node is on the lane
  };

  explicit GraphLanes(core::Ref<ZeDevice> zeDevice)
      : device(std::move(zeDevice)), appender(*device) {}
  ~GraphLanes() {
    DestroyingHandles destroying;
    for (Queue &q : queues)
      if (q.handle) zeCommandQueueDestroy(q.handle);
  }

  core::Ref<ZeDevice> device;
  std::vector<Queue> queues;      // compute lanes first, then the copy lane if any
  std::vector<int32_t> nodeLane;  // per node; -1: a host step
  std::mutex mutex;               // recording, the appender, recordings' busy flags
  std::condition_variable idle;   // a recording became idle
  CommandAppender appender;
};

namespace {

// Lanes for the nodes, in topological order: copies and fills on the copy lane if there is one,
// every other device node on a compute lane, continuing a predecessor's lane where it is the
// first successor to take it, else the next lane in turn.
void assignLanes(const GraphProgram &program, GraphLanes &lanes, uint32_t computeLanes,
                 bool copyLane) {
  size_t n = program.nodes.size();
  lanes.nodeLane.assign(n, -1);
  std::vector<uint8_t> continued(n);
  std::vector<std::vector<uint32_t>> preds = program.predecessors();
  uint32_t next = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const GraphProgram::Node &node = program.nodes[k];
    bool command = node.kind == GraphNode::Kind::Command;
    if (command && node.cmd->type == Command::Type::HostCallback) continue;
    bool copy =
        command && (node.cmd->type == Command::Type::Copy || node.cmd->type == Command::Type::Fill);
    if (copy && copyLane) {
      lanes.nodeLane[k] = static_cast<int32_t>(computeLanes);
      continue;
    }
    int32_t lane = -1;
    for (uint32_t p : preds[k])
      if (!continued[p] && lanes.nodeLane[p] >= 0 &&
          lanes.nodeLane[p] < static_cast<int32_t>(computeLanes)) {
        continued[p] = 1;
        lane = lanes.nodeLane[p];
        break;
      }
    if (lane < 0) lane = static_cast<int32_t>(next++ % computeLanes);
    lanes.nodeLane[k] = lane;
  }
}

}  // namespace

GraphRecording::GraphRecording(std::shared_ptr<GraphLanes> lanes)
    : lanes_(std::move(lanes)),
      pool_(lanes_->device->sharedContext(), lanes_->device->handle(), false),
      lists_(lanes_->queues.size()) {}

GraphRecording::~GraphRecording() {
  DestroyingHandles destroying;
  for (Lane &lane : lists_) {
    if (lane.fence) zeFenceDestroy(lane.fence);
    if (lane.list) zeCommandListDestroy(lane.list);
  }
}

void GraphRecording::record(std::shared_ptr<const GraphProgram> program) {
  const GraphProgram &p = *program;
  ZeDevice &device = *lanes_->device;
  size_t n = p.nodes.size();
  program_.reset();  // not a recording of anything until it is complete
  while (events_.size() < n) events_.push_back(pool_.acquire());
  if (!start_) start_ = pool_.acquire();
  if (!end_) end_ = pool_.acquire();
  for (size_t l = 0; l < lists_.size(); ++l) {
    Lane &lane = lists_[l];
    lane.used = l == 0;  // the end barrier's
    for (int32_t nodeLane : lanes_->nodeLane) lane.used |= nodeLane == static_cast<int32_t>(l);
    if (!lane.used) continue;
    const GraphLanes::Queue &queue = lanes_->queues[l];
    if (lane.list) {
      check(zeCommandListReset(lane.list), "zeCommandListReset", "a graph's list");
    } else {
      auto desc = zeStruct<ze_command_list_desc_t>(ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC);
      desc.commandQueueGroupOrdinal = queue.ordinal;
      check(createHandle([&] {
              return zeCommandListCreate(device.context().handle(), device.handle(), &desc,
                                         &lane.list);
            }),
            "zeCommandListCreate", fmt::format("a graph's list of queue group {}", queue.ordinal));
    }
    if (!lane.fence) {
      auto fenceDesc = zeStruct<ze_fence_desc_t>(ZE_STRUCTURE_TYPE_FENCE_DESC);
      check(createHandle([&] { return zeFenceCreate(queue.handle, &fenceDesc, &lane.fence); }),
            "zeFenceCreate", "a graph's fence");
    }
  }
  preds_ = p.predecessors();
  keep_.clear();
  hostSteps_.clear();
  failed_.assign(n, 0);
  std::vector<ze_event_handle_t> waits;
  for (uint32_t k = 0; k < n; ++k) {
    waits.clear();
    for (uint32_t pred : preds_[k]) waits.push_back(eventOf(pred));
    if (waits.empty()) waits.push_back(start_->handle);
    const GraphProgram::Node &node = p.nodes[k];
    int32_t l = lanes_->nodeLane[k];
    if (l < 0) {
      hostSteps_.push_back({k, node.cmd->func, node.cmd->userData});
      continue;
    }
    ze_command_list_handle_t list = lists_[l].list;
    if (node.kind == GraphNode::Kind::Command && node.cmd->type != Command::Type::Barrier) {
      if (auto keep = lanes_->appender.append(*node.cmd, list, lanes_->queues[l].maxFillPatternSize,
                                              eventOf(k), waits))
        keep_.push_back(std::move(keep));
      continue;
    }
    check(zeCommandListAppendBarrier(list, eventOf(k), static_cast<uint32_t>(waits.size()),
                                     waits.data()),
          "zeCommandListAppendBarrier", fmt::format("graph node {}", p.name(k)));
  }
  // The end: once every sink has completed (the start, in a graph without nodes).
  waits.clear();
  for (uint32_t k = 0; k < n; ++k)
    if (p.nodes[k].numSuccs == 0) waits.push_back(eventOf(k));
  if (waits.empty()) waits.push_back(start_->handle);
  check(zeCommandListAppendBarrier(lists_[0].list, end_->handle,
                                   static_cast<uint32_t>(waits.size()), waits.data()),
        "zeCommandListAppendBarrier", "the end of a graph");
  for (Lane &lane : lists_)
    if (lane.used) check(zeCommandListClose(lane.list), "zeCommandListClose", "a graph's list");
  program_ = std::move(program);
}

void GraphRecording::execute() {
  for (size_t l = 0; l < lists_.size(); ++l) {
    Lane &lane = lists_[l];
    if (!lane.used) continue;
    ze_result_t r =
        zeCommandQueueExecuteCommandLists(lanes_->queues[l].handle, 1, &lane.list, lane.fence);
    if (r == ZE_RESULT_SUCCESS) {
      lane.executed = true;
      continue;
    }
    // The lists already executed wait on the start and on nodes of this one: they are let
    // through, so that the recording can be released.
    zeEventHostSignal(start_->handle);
    for (const SlotRef &e : events_) zeEventHostSignal(e->handle);
    zeEventHostSignal(end_->handle);
    failCall("zeCommandQueueExecuteCommandLists", r,
             fmt::format("a graph's list of queue group {}", lanes_->queues[l].ordinal));
  }
}

bool GraphRecording::failedBefore(uint32_t node) const {
  return GraphProgram::findAncestor(preds_, node,
                                    [&](uint32_t k) {
                                      if (failed_[k]) return true;
                                      return lanes_->nodeLane[k] >= 0 &&
                                             zeEventQueryStatus(eventOf(k)) != ZE_RESULT_SUCCESS;
                                    })
      .has_value();
}

void GraphRecording::runHostSteps() {
  std::shared_ptr<const GraphProgram> program = program_.lock();  // held by the launch
  const GraphProgram &p = *program;
  for (const HostStep &step : hostSteps_) {
    bool ready = true;
    for (uint32_t pred : preds_[step.node])
      ready &= zeEventHostSynchronize(eventOf(pred), UINT64_MAX) == ZE_RESULT_SUCCESS;
    if (preds_[step.node].empty())
      ready &= zeEventHostSynchronize(start_->handle, UINT64_MAX) == ZE_RESULT_SUCCESS;
    // A callback after a failed node does not run; it counts as failed for those after it.
    if (!ready || failedBefore(step.node)) {
      failed_[step.node] = 1;
    } else if (std::string why = core::runHostCallback(step.func, step.userData); !why.empty()) {
      failed_[step.node] = 1;
      if (failure_.empty())
        failure_ = fmt::format("graph node {} (a host callback): {}", p.name(step.node), why);
    }
    if (ze_result_t r = zeEventHostSignal(eventOf(step.node)); r != ZE_RESULT_SUCCESS)
      core::log().error("Level Zero: zeEventHostSignal failed with {} after graph node {}",
                        resultName(r), p.name(step.node));
  }
}

std::string GraphRecording::failure() {
  std::shared_ptr<const GraphProgram> program = program_.lock();  // held by the launch
  const GraphProgram &p = *program;
  bool deviceFailed = false;
  for (Lane &lane : lists_)
    if (lane.executed)
      deviceFailed |= zeFenceHostSynchronize(lane.fence, UINT64_MAX) != ZE_RESULT_SUCCESS;
  if (!deviceFailed) return failure_;
  ZeDevice &device = *lanes_->device;
  for (uint32_t k = 0; k < p.nodes.size(); ++k) {
    if (lanes_->nodeLane[k] < 0) {
      if (failed_[k] && !failure_.empty()) return failure_;
      continue;
    }
    ze_result_t r = zeEventQueryStatus(eventOf(k));
    if (r == ZE_RESULT_SUCCESS) continue;
    std::string message = fmt::format("graph node {} ({}) failed on {}: {}", p.name(k),
                                      p.description(k), device.label(), resultName(r));
    if (std::string why = device.context().lastError(); !why.empty())
      message += "; the driver says: " + why;
    return message;
  }
  return failure_.empty() ? fmt::format("a list of the graph failed on {}", device.label())
                          : failure_;
}

void GraphRecording::slotReleased(EventSlot &) noexcept {
  std::shared_ptr<GraphRecording> self = std::move(self_);  // this goes last, if at all
  release();
}

void GraphRecording::release() noexcept {
  for (Lane &lane : lists_) {
    if (!lane.executed) continue;
    zeFenceHostSynchronize(lane.fence, UINT64_MAX);
    zeFenceReset(lane.fence);
    lane.executed = false;
  }
  bool reset = true;
  for (const SlotRef &e : events_) reset &= zeEventHostReset(e->handle) == ZE_RESULT_SUCCESS;
  reset &= zeEventHostReset(start_->handle) == ZE_RESULT_SUCCESS;
  reset &= zeEventHostReset(end_->handle) == ZE_RESULT_SUCCESS;
  failure_.clear();
  std::fill(failed_.begin(), failed_.end(), uint8_t{0});
  std::lock_guard lock(lanes_->mutex);
  // Events that cannot be reset would look signalled at once: the recording is not reused.
  if (!reset) {
    core::log().warn("Level Zero: a graph's events could not be reset; it records again");
    program_.reset();
  }
  busy_ = false;
  lanes_->idle.notify_all();
}

ZeGraphExec::ZeGraphExec(core::Ref<ZeDevice> device, std::shared_ptr<const GraphProgram> program)
    : core::GraphExec(device, program), lanes_(std::make_shared<GraphLanes>(device)) {
  const ZeDeviceDescription &d = device->description();
  uint32_t computeLanes = std::min(d.computeQueues, kMaxComputeLanes);
  for (uint32_t i = 0; i < computeLanes; ++i)
    lanes_->queues.push_back({d.computeOrdinal, d.maxFillPatternSize[0], nullptr});
  if (d.copyOrdinal) lanes_->queues.push_back({*d.copyOrdinal, d.maxFillPatternSize[1], nullptr});
  assignLanes(*program, *lanes_, computeLanes, d.copyOrdinal.has_value());
  std::vector<uint8_t> used(lanes_->queues.size());
  used[0] = 1;
  for (int32_t l : lanes_->nodeLane)
    if (l >= 0) used[l] = 1;
  // Index i of the group for the i-th compute lane: each its own queue of the engine.
  uint32_t index = 0;
  for (size_t l = 0; l < lanes_->queues.size(); ++l) {
    GraphLanes::Queue &q = lanes_->queues[l];
    uint32_t queueIndex = q.ordinal == d.computeOrdinal ? index++ : 0;
    if (!used[l]) continue;
    auto desc = zeStruct<ze_command_queue_desc_t>(ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC);
    desc.ordinal = q.ordinal;
    desc.index = queueIndex;
    desc.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
    check(createHandle([&] {
            return zeCommandQueueCreate(device->context().handle(), device->handle(), &desc,
                                        &q.handle);
          }),
          "zeCommandQueueCreate", fmt::format("a graph's queue of group {}", q.ordinal));
  }
  // The first launch's recording is made now: the cost of recording is the instantiation's.
  std::lock_guard lock(lanes_->mutex);
  auto recording = std::make_shared<GraphRecording>(lanes_);
  recording->record(std::move(program));
  recordings_.push_back(std::move(recording));
}

ZeGraphExec::~ZeGraphExec() = default;

bool ZeGraphExec::runsAsOneCommand() const {
  std::lock_guard lock(lanes_->mutex);
  return recordings_.size() < kMaxRecordings ||
         std::any_of(recordings_.begin(), recordings_.end(),
                     [](const auto &r) { return !r->busy_; });
}

ZeGraphExec::Launch ZeGraphExec::prepare(const std::shared_ptr<const GraphProgram> &program,
                                         const std::function<void()> &beforeWaiting) {
  std::unique_lock lock(lanes_->mutex);
  std::shared_ptr<GraphRecording> chosen;
  for (;;) {
    // An idle recording of this program, else any idle one, else a new one.
    for (const auto &r : recordings_)
      if (!r->busy_ && (!chosen || r->program_.lock() == program)) chosen = r;
    if (chosen || recordings_.size() < kMaxRecordings) break;
    if (beforeWaiting) {
      lock.unlock();
      beforeWaiting();
      lock.lock();
    }
    lanes_->idle.wait(lock, [&] {
      return std::any_of(recordings_.begin(), recordings_.end(),
                         [](const auto &r) { return !r->busy_; });
    });
  }
  if (!chosen) {
    chosen = std::make_shared<GraphRecording>(lanes_);
    recordings_.push_back(chosen);
  }
  if (chosen->program_.lock() != program) chosen->record(program);
  chosen->busy_ = true;
  Launch launch;
  launch.recording = chosen;
  launch.start = chosen->start_->handle;
  // Its last holder makes the recording idle again.
  chosen->launchEnd_.handle = chosen->end_->handle;
  chosen->launchEnd_.owner = chosen.get();
  chosen->self_ = chosen;
  launch.end = SlotRef(&chosen->launchEnd_);
  return launch;
}

void ZeGraphExec::execute(Launch &launch) {
  launch.recording->execute();
}

core::Ref<core::GraphExec> ZeDevice::lowerGraph(std::shared_ptr<const GraphProgram> program) {
  return core::makeRef<ZeGraphExec>(core::Ref<ZeDevice>(this), std::move(program));
}

}  // namespace xpurt::level_zero
