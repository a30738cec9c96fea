#include "ze_queue.hpp"

#include "core/clock.hpp"
#include "core/config.hpp"
#include "core/log.hpp"
#include "ze_call.hpp"
#include "ze_graph.hpp"
#include "ze_handles.hpp"

#include <algorithm>
#include <cstring>

namespace xpurt::level_zero {

// Queues of the compute group an out-of-order queue spreads its launches over, at most.
constexpr uint32_t kMaxComputeLanes = 4;
// A batched queue executes its batches once they hold this many commands, at the latest: a
// bound on how long a command waits to be submitted when nobody syncs or waits.
constexpr size_t kBatchCommands = 256;

ZeQueue::ZeQueue(core::Ref<ZeDevice> device, const core::QueueOptions &options)
    : core::TaskQueue(device, options),
      zeDevice_(std::move(device)),
      batched_(options.batched ||
               core::envChoice("XPURT_LEVEL_ZERO_SUBMISSION", {"immediate", "batched"}, 0) == 1) {
  const ZeDeviceDescription &d = zeDevice_->description();
  events_ = std::make_unique<ZeEventPool>(zeDevice_->sharedContext(), zeDevice_->handle(),
                                          options.profiling);
  appender_ = std::make_unique<CommandAppender>(*zeDevice_);
  bool copyEngine = options.engine == XPURT_ENGINE_COPY;
  try {
    // A copy queue, and an out-of-order queue's copies, use the copy-only group where there
    // is one: the copies then run beside kernels on the compute engine.
    if (copyEngine && d.copyOrdinal) {
      compute_ = copy_ = &createLane(*d.copyOrdinal, 0, d.maxFillPatternSize[1]);
    } else {
      compute_ = copy_ = &createLane(d.computeOrdinal, 0, d.maxFillPatternSize[0]);
      if (options.outOfOrder && options.engine == XPURT_ENGINE_ANY && d.copyOrdinal)
        copy_ = &createLane(*d.copyOrdinal, 0, d.maxFillPatternSize[1]);
      if (options.outOfOrder && !copyEngine)
        for (uint32_t i = 1; i < std::min(d.computeQueues, kMaxComputeLanes); ++i)
          moreCompute_.push_back(&createLane(d.computeOrdinal, i, d.maxFillPatternSize[0]));
    }
  } catch (...) {
    destroyLanes();
    throw;
  }
  completions_ =
      std::make_shared<Completions>(*zeDevice_, std::make_shared<ZeCompletionBackend>(*zeDevice_),
                                    failures(), !options.outOfOrder);
  completions_->setFlush([this] { flush(); });
}

namespace {

// Frees a lane's Level Zero objects, executed batches once the device is done with them.
template <class Lanes>
void destroyLaneHandles(Lanes &lanes) noexcept {
  for (auto &lane : lanes)
    for (auto &batch : lane.executing) zeFenceHostSynchronize(batch.fence, UINT64_MAX);
  DestroyingHandles destroying;
  for (auto &lane : lanes) {
    for (auto &batch : lane.executing) {
      zeFenceDestroy(batch.fence);
      zeCommandListDestroy(batch.list);
    }
    if (lane.fence) zeFenceDestroy(lane.fence);
    if (lane.list) zeCommandListDestroy(lane.list);
    if (lane.queue) zeCommandQueueDestroy(lane.queue);
  }
  lanes.clear();
}

}  // namespace

ZeQueue::~ZeQueue() {
  flush();  // what was recorded or held runs before the queue goes
  completions_->setFlush(nullptr);
  if (completions_->runningOnThisThread()) {
    // A host callback of this queue releases it: the callback cannot wait for its own
    // queue. What completes the queue's last command frees what the queue held.
    auto lanes = std::make_shared<std::deque<Lane>>(std::move(lanes_));
    std::shared_ptr<CommandAppender> appender(std::move(appender_));
    std::shared_ptr<ZeEventPool> events(std::move(events_));
    completions_->finishThen([lanes, appender, events, device = zeDevice_]() mutable {
      destroyLaneHandles(*lanes);
      appender = nullptr;
    });
    return;
  }
  completions_->drain();
  completions_->waitIdle();
  last_ = nullptr;
  destroyLanes();
  appender_ = nullptr;
}

void ZeQueue::destroyLanes() noexcept {
  destroyLaneHandles(lanes_);
  moreCompute_.clear();
  compute_ = copy_ = nullptr;
}

ZeQueue::Lane &ZeQueue::createLane(uint32_t ordinal, uint32_t index, uint32_t maxFillPatternSize) {
  auto desc = zeStruct<ze_command_queue_desc_t>(ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC);
  desc.ordinal = ordinal;
  desc.index = index;
  desc.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
  desc.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
  Lane &lane = lanes_.emplace_back();
  lane.ordinal = ordinal;
  lane.maxFillPatternSize = maxFillPatternSize;
  if (!batched_) {
    check(createHandle([&] {
            return zeCommandListCreateImmediate(zeDevice_->context().handle(), zeDevice_->handle(),
                                                &desc, &lane.list);
          }),
          "zeCommandListCreateImmediate", fmt::format("queue group {}", ordinal));
    return lane;
  }
  check(createHandle([&] {
          return zeCommandQueueCreate(zeDevice_->context().handle(), zeDevice_->handle(), &desc,
                                      &lane.queue);
        }),
        "zeCommandQueueCreate", fmt::format("queue group {}", ordinal));
  openBatch(lane);
  return lane;
}

ZeQueue::Batch ZeQueue::nextBatch(Lane &lane) {
  Batch batch;
  if (!lane.executing.empty() &&
      zeFenceQueryStatus(lane.executing.front().fence) == ZE_RESULT_SUCCESS) {
    batch = lane.executing.front();
    lane.executing.pop_front();
    ze_result_t r = zeFenceReset(batch.fence);
    const char *call = "zeFenceReset";
    if (r == ZE_RESULT_SUCCESS) {
      r = zeCommandListReset(batch.list);
      call = "zeCommandListReset";
    }
    if (r == ZE_RESULT_SUCCESS) return batch;
    {
      DestroyingHandles destroying;
      zeFenceDestroy(batch.fence);
      zeCommandListDestroy(batch.list);
    }
    failCall(call, r, "a batch for reuse");
  }
  auto desc = zeStruct<ze_command_list_desc_t>(ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC);
  desc.commandQueueGroupOrdinal = lane.ordinal;
  check(createHandle([&] {
          return zeCommandListCreate(zeDevice_->context().handle(), zeDevice_->handle(), &desc,
                                     &batch.list);
        }),
        "zeCommandListCreate", fmt::format("queue group {}", lane.ordinal));
  auto fenceDesc = zeStruct<ze_fence_desc_t>(ZE_STRUCTURE_TYPE_FENCE_DESC);
  if (ze_result_t r =
          createHandle([&] { return zeFenceCreate(lane.queue, &fenceDesc, &batch.fence); });
      r != ZE_RESULT_SUCCESS) {
    {
      DestroyingHandles destroying;
      zeCommandListDestroy(batch.list);
    }
    failCall("zeFenceCreate", r, fmt::format("queue group {}", lane.ordinal));
  }
  return batch;
}

void ZeQueue::flush() {
  std::lock_guard lock(appendMutex_);
  if (batched_)
    flushLocked();
  else
    pushHeld();
}

void ZeQueue::flushLocked() {
  std::unordered_map<const Lane *, std::string> failed;
  for (Lane &lane : lanes_) {
    if (lane.recorded == 0) continue;
    lane.recorded = 0;
    ze_result_t r = zeCommandListClose(lane.list);
    const char *call = "zeCommandListClose";
    if (r == ZE_RESULT_SUCCESS) {
      r = zeCommandQueueExecuteCommandLists(lane.queue, 1, &lane.list, lane.fence);
      call = "zeCommandQueueExecuteCommandLists";
    }
    if (r != ZE_RESULT_SUCCESS) {
      failed[&lane] =
          fmt::format("{} failed with {} on {}{}", call, resultName(r), zeDevice_->label(),
                      toXpurtResult(r) == XPURT_ERROR_DEVICE_LOST ? " (the device is lost)" : "");
      // Not executed: emptied for the next batch, or replaced if it cannot be.
      if (zeCommandListReset(lane.list) == ZE_RESULT_SUCCESS) continue;
      DestroyingHandles destroying;
      zeFenceDestroy(lane.fence);
      zeCommandListDestroy(lane.list);
    } else {
      lane.executing.push_back({lane.list, lane.fence});
    }
    lane.list = nullptr;
    lane.fence = nullptr;
    try {
      openBatch(lane);
    } catch (const core::Error &e) {
      // The next append makes another attempt (openBatch) and reports it.
      core::log().warn("Level Zero: {}", e.what());
    }
  }
  Completions::Batch commands = std::move(recorded_);
  std::vector<const Lane *> lanes = std::move(recordedLanes_);
  recorded_.clear();
  recordedLanes_.clear();
  for (size_t i = 0; i < commands.size(); ++i) {
    PendingCommand &p = commands[i];
    if (auto it = failed.find(lanes[i]); it != failed.end()) {
      // Never to run: failed now, its event signalled so that nothing waits for it forever.
      std::string message = fmt::format(
          "{} was not submitted: {}",
          p.command.kernel ? "kernel '" + p.command.kernel->name() + "'" : std::string("a command"),
          it->second);
      failures()->note(message);
      if (p.done) {
        p.done->fail(message);
        p.done = nullptr;
      }
      zeEventHostSignal(p.work.slot->handle);
    }
  }
  // The next batch is recorded in the emptied one the engine hands back.
  completions_->pushAll(commands, kBatchCommands);
  recorded_ = std::move(commands);
}

void ZeQueue::openBatch(Lane &lane) {
  if (lane.list) return;
  Batch open = nextBatch(lane);
  lane.list = open.list;
  lane.fence = open.fence;
}

void ZeQueue::submitGraph(core::Command &cmd, Lane &lane, PendingCommand &p,
                          std::vector<ze_event_handle_t> &wait) {
  auto &exec = static_cast<ZeGraphExec &>(*cmd.graph);
  // A batched queue submits what it recorded before it waits for a recording in use.
  ZeGraphExec::Launch launch = exec.prepare(cmd.program, [this] {
    if (batched_) flushLocked();
  });
  p.work.slot = launch.end;
  p.work.graph = launch.recording;
  p.work.deviceTimes = false;  // the end event times the last barrier only
  if (wait.empty()) {          // nothing to follow: started here, without a barrier's hop
    check(zeEventHostSignal(launch.start), "zeEventHostSignal", "the start of a graph");
    exec.execute(launch);
    return;
  }
  exec.execute(launch);  // its lists wait for the start event
  ze_result_t r =
      zeCommandListAppendBarrier(lane.list, launch.start, static_cast<uint32_t>(wait.size()),
                                 wait.empty() ? nullptr : wait.data());
  if (r == ZE_RESULT_SUCCESS) return;
  // The lists are executing: they start once what the launch follows has completed.
  if (batched_) flushLocked();
  for (ze_event_handle_t e : wait) zeEventHostSynchronize(e, UINT64_MAX);
  zeEventHostSignal(launch.start);
  zeEventHostSynchronize(launch.end->handle, UINT64_MAX);
  failCall("zeCommandListAppendBarrier", r, "the start of a graph");
}

ZeQueue::Lane &ZeQueue::laneFor(const core::Command &cmd) {
  bool copyOrFill = cmd.type == core::Command::Type::Copy || cmd.type == core::Command::Type::Fill;
  if (copyOrFill) return *copy_;  // the compute lane itself where there is no copy lane
  if (cmd.isLaunch() && !moreCompute_.empty()) {
    size_t at = nextCompute_++ % (moreCompute_.size() + 1);
    return at == 0 ? *compute_ : *moreCompute_[at - 1];
  }
  return *compute_;
}

void *ZeQueue::nativeHandle() const {
  // Batched queues record into lists that change from batch to batch: their command queue.
  const Lane &lane = lanes_.front();
  return lane.queue ? static_cast<void *>(lane.queue) : static_cast<void *>(lane.list);
}

void ZeQueue::drain() {
  completions_->drain();  // its flush submits what the queue records or holds
}

SlotRef ZeQueue::deviceEventOf(const core::Event &e) const {
  // A batched out-of-order queue's own command not executed yet.
  if (e.driver() == completions_.get())
    for (auto it = recorded_.rbegin(); it != recorded_.rend(); ++it)
      if (it->done.get() == &e) return it->work.slot;
  // A pending command of a queue of a device of this context: its events are visible here
  // (ZeEventPool: a driver's several devices share theirs).
  auto *owner = dynamic_cast<Completions *>(e.sharedDriver().get());
  if (!owner || !zeDevice_->sharesMemoryWith(owner->device())) return nullptr;
  SlotRef slot;
  owner->withPending(&e, [&](const PendingCommand &c) { slot = c.work.slot; });
  return slot;
}

void ZeQueue::pushHeld() {
  completions_->pushAll(held_, options().outOfOrder ? 1 : kMaxHeld);
}

void ZeQueue::submit(core::Command &&cmd) {
  using Type = core::Command::Type;
  gatherWaits(cmd, completions_.get());  // never under appendMutex_
  std::lock_guard lock(appendMutex_);
  // A host callback runs once what came before it has: that must be submitted.
  if (batched_ && cmd.type == Type::HostCallback) flushLocked();
  // An in-order queue's barrier orders nothing the chain of events does not already order.
  if (!cmd.done && cmd.waits.empty() && cmd.type == Type::Barrier) return;
  bool inOrder = !options().outOfOrder;
  bool timed = cmd.done && cmd.done->timed();
  // An in-order queue holds its launches, copies, fills and waits, each signalling its event
  // (the next one waits on it), and hands them to the completion engine together
  // (holdUnsignalled): one push and one wake of the poller for many commands. Host callbacks,
  // graphs (their recordings are released as they complete) and measured commands (their end
  // is seen when reached) are pushed at once, after what is held.
  bool hold =
      inOrder && !batched_ && !timed && cmd.type != Type::Graph && cmd.type != Type::HostCallback;
  if (!hold) pushHeld();
  // Pushed once its batch executes. A batch may be executed while the command is built (a
  // graph's launch waits for a recording): it is built apart, then recorded.
  bool record = batched_ && cmd.type != Type::HostCallback;
  PendingCommand recording;
  // Else built where it waits to be pushed: a command is large.
  PendingCommand &p = record ? recording : held_.emplace_back();
  Lane *lane = nullptr;  // the lane it is appended to
  try {
    if (cmd.type != Type::Graph) p.work.slot = events_->acquire();  // a graph's is its end
    // A graph launched again after the last launch completed reuses its recording, which the
    // end event held here would keep busy.
    if (cmd.type == Type::Graph && last_ && zeEventQueryStatus(last_->handle) == ZE_RESULT_SUCCESS)
      last_ = nullptr;
    std::vector<ze_event_handle_t> &wait = waitScratch_;  // reused: no allocation per command
    wait.clear();
    if (last_) {
      wait.push_back(last_->handle);
      p.work.after = last_;
    }
    for (const core::Ref<core::Event> &e : cmd.waits) {
      if (e->isDone()) continue;
      // The queue's own earlier commands: its chain of events orders them already.
      if (inOrder && e->driver() == completions_.get()) continue;
      SlotRef slot = deviceEventOf(*e);
      if (!slot) {
        // Another device's or backend's future: an event the host signals when it completes.
        slot = events_->acquire();
        e->then([proxy = slot] { zeEventHostSignal(proxy->handle); });
      }
      wait.push_back(slot->handle);
      p.work.waits.push_back(std::move(slot));
    }
    p.work.deviceTimes = options().profiling;
    p.submitNs = timed ? core::steadyNowNs() : 0;
    if (cmd.type == Type::HostCallback) {
      // Runs on the device's host executor once the commands before it have completed and
      // what it waits for has; commands after it wait for its event.
      p.hostWaits = cmd.waits;
    } else if (cmd.type == Type::Graph) {
      lane = compute_;
      if (batched_) openBatch(*lane);
      submitGraph(cmd, *lane, p, wait);
    } else {
      lane = &laneFor(cmd);
      if (batched_) openBatch(*lane);
      p.keep =
          appender_->append(cmd, lane->list, lane->maxFillPatternSize, p.work.slot->handle, wait);
    }
  } catch (const core::Error &e) {
    // Nothing was appended: later commands must not wait for this one forever.
    if (!record) held_.pop_back();
    if (cmd.done) cmd.done->fail(e.what());
    throw;
  }
  if (cmd.done) {
    cmd.done->setDriver(completions_);
    p.done = std::move(cmd.done);
  }
  if (inOrder) last_ = p.work.slot;
  p.command = std::move(cmd);
  if (record) {
    ++lane->recorded;
    recorded_.push_back(std::move(p));
    recordedLanes_.push_back(lane);
    if (recorded_.size() >= kBatchCommands) flushLocked();
    return;
  }
  if (!hold) {
    pushHeld();  // it alone: what was held before it is pushed
    return;
  }
  completions_->holdUnsignalled(held_.size() == 1);
  if (held_.size() >= kMaxHeld) pushHeld();
}

}  // namespace xpurt::level_zero
