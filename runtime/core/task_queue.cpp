#include "task_queue.hpp"

#include "clock.hpp"
#include "error.hpp"
#include "trace.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>

namespace xpurt::core {

static const char *engineName(XpurtEngine engine) {
  switch (engine) {
    case XPURT_ENGINE_COMPUTE:
      return "compute";
    case XPURT_ENGINE_COPY:
      return "copy";
    default:
      return "any";
  }
}

TaskQueue::TaskQueue(Ref<Device> device, const QueueOptions &options)
    : Object(kKind), device_(device), options_(options), builder_(device, options.engine) {
  if (trace::enabled()) {
    static std::atomic<uint32_t> queues{0};
    uint32_t n = ++queues;
    std::string name = fmt::format("{} {} queue {}", device_->info().name,
                                   options_.outOfOrder ? "out-of-order" : "in-order", n);
    // An out-of-order queue runs copies and launches on engines of their own: a track each.
    if (options_.outOfOrder) {
      // Its launches run side by side: lanes, so that slices of a track never overlap.
      computeLanes_ = std::make_shared<trace::Lanes>(name + " · compute");
      computeTrack_ = computeLanes_->first();
      copyTrack_ = trace::newTrack(name + " · copy");
    } else {
      computeTrack_ = copyTrack_ =
          trace::newTrack(fmt::format("{} · {}", name, engineName(options_.engine)));
    }
  }
}

Ref<Event> TaskQueue::submitWithEvent(Command &&cmd, Ordering ordering,
                                      std::span<const MemoryUse> uses) {
  Ref<Event> done = makeRef<Event>();
  done->setProfiled(options_.profiling);
  done->setTimed(options_.profiling || computeTrack_ != 0);
  cmd.done = done;
  if (!options_.outOfOrder) {
    if (computeTrack_) traceOnCompletion(cmd, done);
    submit(std::move(cmd));
    return done;
  }
  std::lock_guard lock(submitMutex_);
  switch (ordering) {
    case Ordering::Declared:
      hazards_.addDeclared(uses, done, cmd.waits);
      break;
    case Ordering::Fence:
      hazards_.addFence(done, cmd.waits);
      break;
    case Ordering::Wait:
      hazards_.addWait(done, cmd.waits);
      break;
  }
  if (computeTrack_) traceOnCompletion(cmd, done);
  submit(std::move(cmd));
  return done;
}

void TaskQueue::traceOnCompletion(const Command &cmd, const Ref<Event> &done) {
  trace::Slice s;
  std::string name;
  switch (cmd.type) {
    case Command::Type::Copy:
      name = cmd.copyKind == Command::CopyKind::ToDevice ? "copy to device"
             : cmd.copyKind == Command::CopyKind::ToHost ? "copy to host"
                                                         : "copy between views";
      s.category = "copy";
      s.bytes = cmd.dst.size;
      break;
    case Command::Type::Fill:
      name = "fill";
      s.category = "fill";
      s.bytes = cmd.dst.size;
      break;
    case Command::Type::Launch:
    case Command::Type::LaunchKernel:
      name = cmd.kernel->name();
      s.category = "kernel";
      break;
    case Command::Type::HostCallback:
      name = "host callback";
      s.category = "host";
      break;
    case Command::Type::Barrier:
      name = cmd.waits.empty() ? "barrier" : "wait";
      s.category = "wait";
      break;
  }
  bool onCompute = cmd.isLaunch();
  s.track = onCompute ? computeTrack_ : copyTrack_;
  s.enqueueNs = steadyNowNs();
  done->setTraceTrack(s.track);
  // Arrows come from the waited commands of other tracks; drawn once this command has
  // completed (they have too by then).
  std::vector<Ref<Event>> sources;
  for (const Ref<Event> &w : cmd.waits)
    if (w->traceTrack() != 0 && w->traceTrack() != s.track) sources.push_back(w);
  std::shared_ptr<trace::Lanes> lanes = onCompute ? computeLanes_ : nullptr;
  done->then([s, name = std::move(name), sources = std::move(sources), lanes = std::move(lanes),
              event = done.get()]() mutable {
    CommandTimes t = event->times();
    s.name = name;
    s.startNs = t.startNs ? t.startNs : s.enqueueNs;
    s.endNs = t.endNs ? t.endNs : s.startNs;
    if (lanes) {
      s.track = lanes->laneFor(s.startNs, s.endNs);
      event->setTraceTrack(s.track);
    }
    s.failed = event->failed();
    trace::slice(s);
    for (const Ref<Event> &from : sources)
      trace::flow(from->traceTrack(), from->times().endNs, s.track, s.startNs);
  });
}

Ref<Event> TaskQueue::submitCommand(Command &&cmd) {
  if (cmd.declaresMemory()) {
    std::vector<MemoryUse> uses = options_.outOfOrder ? cmd.memoryUses() : std::vector<MemoryUse>();
    return submitWithEvent(std::move(cmd), Ordering::Declared, uses);
  }
  Ordering ordering = cmd.waits.empty() ? Ordering::Fence : Ordering::Wait;
  return submitWithEvent(std::move(cmd), ordering);
}

Ref<Event> TaskQueue::copyToDevice(MemoryView &view, size_t offset, size_t size) {
  return submitCommand(builder_.copyToDevice(view, offset, size));
}

Ref<Event> TaskQueue::copyToHost(MemoryView &view, size_t offset, size_t size) {
  return submitCommand(builder_.copyToHost(view, offset, size));
}

Ref<Event> TaskQueue::copyView(MemoryView &dst, MemoryView &src, size_t dstOffset, size_t srcOffset,
                               size_t size) {
  return submitCommand(builder_.copyView(dst, src, dstOffset, srcOffset, size));
}

Ref<Event> TaskQueue::fill(MemoryView &view, size_t offset, size_t size, const void *pattern,
                           size_t patternSize) {
  return submitCommand(builder_.fill(view, offset, size, pattern, patternSize));
}

Ref<Event> TaskQueue::launch(Kernel &kernel, MemoryView *params,
                             const std::span<const AccessInput> *accesses, size_t d0, size_t d1,
                             size_t d2) {
  return submitCommand(builder_.launch(kernel, params, accesses, d0, d1, d2));
}

Ref<Event> TaskQueue::launchKernel(Kernel &kernel, std::span<const ArgInput> args, uint32_t workDim,
                                   const size_t *globalOffset, const size_t *globalSize,
                                   const size_t *localSize) {
  return submitCommand(
      builder_.launchKernel(kernel, args, workDim, globalOffset, globalSize, localSize));
}

Ref<Event> TaskQueue::hostCallback(XpurtHostFunc func, void *userData) {
  return submitCommand(builder_.hostCallback(func, userData));
}

void TaskQueue::barrier() {
  // In order, commands already run one after another: the barrier costs nothing.
  if (!options_.outOfOrder) return;
  submitCommand(builder_.barrier());
}

void TaskQueue::waitFor(std::span<const Ref<Event>> events) {
  Command cmd = builder_.waitFor(events);
  if (cmd.waits.empty()) return;  // nothing to wait for: later commands are not held back
  submitCommand(std::move(cmd));
}

void TaskQueue::sync() {
  drain();
  std::optional<std::string> failure = failures_->take();
  if (failure) fail(XPURT_ERROR_EXECUTION_FAILED, "{}", *failure);
}

}  // namespace xpurt::core
