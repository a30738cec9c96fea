#include "task_queue.hpp"

#include "clock.hpp"
#include "cross_device_copy.hpp"
#include "error.hpp"
#include "graph_exec.hpp"
#include "host_callback.hpp"
#include "trace.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <optional>

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
      // Its launches, and its copies, may run side by side: lanes, so that slices of a track
      // never overlap.
      computeLanes_ = std::make_shared<trace::Lanes>(name + " · compute");
      computeTrack_ = computeLanes_->first();
      copyLanes_ = std::make_shared<trace::Lanes>(name + " · copy");
      copyTrack_ = copyLanes_->first();
    } else {
      computeTrack_ = copyTrack_ =
          trace::newTrack(fmt::format("{} · {}", name, engineName(options_.engine)));
    }
  }
}

void *TaskQueue::nativeHandle() const {
  fail(XPURT_ERROR_UNSUPPORTED,
       "a queue of {} has no native handle; only Level Zero (a command list) and CUDA (a stream) "
       "queues have one",
       device_->label());
}

Ref<Event> TaskQueue::newEvent() const {
  Ref<Event> done = makeRef<Event>();
  done->setProfiled(options_.profiling);
  done->setTimed(options_.profiling || computeTrack_ != 0);
  return done;
}

void TaskQueue::gatherWaits(Command &cmd, const EventDriver *own) {
  if (cmd.type == Command::Type::Graph)
    for (const GraphProgram::Node &node : cmd.program->nodes)
      for (const Ref<Event> &f : node.futures)
        if (!f->isDone()) cmd.waits.push_back(f);
  for (const Ref<Event> &e : cmd.waits)
    if (e->driver() != own) e->ready();
}

Ref<Event> TaskQueue::submitWithEvent(Command &&cmd, Ordering ordering,
                                      std::span<const MemoryUse> uses) {
  if (capturing_.load(std::memory_order_acquire)) {
    std::lock_guard lock(submitMutex_);
    if (capture_) {
      capture(std::move(cmd), ordering, uses);
      return nullptr;
    }
  }
  Ref<Event> done = newEvent();
  cmd.done = done;
  if (!options_.outOfOrder) {
    if (computeTrack_) traceOnCompletion(cmd, done);
    submit(std::move(cmd));
    return done;
  }
  std::lock_guard lock(submitMutex_);
  orderAndSubmit(std::move(cmd), ordering, uses);
  return done;
}

void TaskQueue::orderAndSubmit(Command &&cmd, Ordering ordering, std::span<const MemoryUse> uses) {
  if (options_.outOfOrder) {
    switch (ordering) {
      case Ordering::Declared:
        hazards_.addDeclared(uses, cmd.done, cmd.waits);
        break;
      case Ordering::Fence:
        hazards_.addFence(cmd.done, cmd.waits);
        break;
      case Ordering::Wait:
        hazards_.addWait(cmd.done, cmd.waits);
        break;
    }
  }
  if (computeTrack_) traceOnCompletion(cmd, cmd.done);
  submit(std::move(cmd));
}

void TaskQueue::traceOnCompletion(const Command &cmd, const Ref<Event> &done) {
  trace::Slice s;
  std::string name;
  switch (cmd.type) {
    case Command::Type::Copy:
      name = cmd.copyKind == Command::CopyKind::ToDevice ? "copy to device"
             : cmd.copyKind == Command::CopyKind::ToHost ? "copy to host"
             : cmd.copyKind == Command::CopyKind::Peer   ? "copy between devices"
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
    case Command::Type::Graph:
      name = "graph";
      s.category = "graph";
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
  std::shared_ptr<trace::Lanes> lanes = onCompute ? computeLanes_ : copyLanes_;
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

Ref<Event> TaskQueue::captureCoherent(Command &&cmd) {
  std::vector<MemoryUse> uses;
  if (cmd.declaresMemory() && options_.outOfOrder) uses = cmd.memoryUses();
  Ordering ordering = cmd.declaresMemory() ? Ordering::Declared : Ordering::Fence;
  std::lock_guard lock(submitMutex_);
  if (!capture_)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "the queue's capture ended (on another thread) while a command on a COHERENT view was "
         "enqueued; nothing was enqueued: enqueue it again");
  capture(std::move(cmd), ordering, uses);
  return nullptr;
}

Ref<Event> TaskQueue::copyToDevice(MemoryView &view, size_t offset, size_t size) {
  if (!view.isCoherent()) return submitCommand(builder_.copyToDevice(view, offset, size));
  if (capturing()) return captureCoherent(builder_.copyToDevice(view, offset, size));
  return coherentCopyToDevice(view, offset, size);
}

Ref<Event> TaskQueue::copyToHost(MemoryView &view, size_t offset, size_t size) {
  if (!view.isCoherent()) return submitCommand(builder_.copyToHost(view, offset, size));
  if (capturing()) return captureCoherent(builder_.copyToHost(view, offset, size));
  return coherentCopyToHost(view, offset, size);
}

Ref<Event> TaskQueue::copyView(MemoryView &dst, MemoryView &src, size_t dstOffset, size_t srcOffset,
                               size_t size) {
  // A graph's nodes run on the device it is instantiated for: the builder's checks, which
  // refuse other devices' memory, saying so.
  if ((dst.isCoherent() || src.isCoherent()) && capturing())
    return captureCoherent(builder_.copyView(dst, src, dstOffset, srcOffset, size));
  if (dst.isCoherent() || src.isCoherent()) {
    size = checkedCopySize(dst, src, dstOffset, srcOffset, size);
    std::vector<CoherentAccess> uses;
    if (src.isCoherent()) uses.push_back({&src, srcOffset, size, XPURT_ACCESS_READ});
    if (dst.isCoherent()) uses.push_back({&dst, dstOffset, size, XPURT_ACCESS_WRITE});
    MemoryView &to = copyOn(dst), &from = copyOn(src);
    return submitCoherent(uses, [&] { return copyView(to, from, dstOffset, srcOffset, size); });
  }
  if (capturing_.load(std::memory_order_acquire))
    return submitCommand(builder_.copyView(dst, src, dstOffset, srcOffset, size));
  size = checkedCopySize(dst, src, dstOffset, srcOffset, size);
  if (std::optional<Command> cmd = directCopy(*device_, dst, src, dstOffset, srcOffset, size))
    return submitCommand(std::move(*cmd));
  bool ownDst = copySideFor(*device_, dst) == CopySide::Own;
  if (!ownDst && copySideFor(*device_, src) != CopySide::Own)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "copyMemoryView: neither view is memory of {}, which this queue runs on (the "
         "destination is memory of {}, the source of {}); enqueue the copy on a queue of either "
         "device",
         device_->label(), dst.device().label(), src.device().label());
  // The other side is memory this device cannot copy with: that device copies, or, where it
  // cannot reach this side either, each copies half through page-locked host memory (the
  // source's device into it, then the destination's out of it).
  Device &other = (ownDst ? src : dst).device();
  std::vector<CopyStep> steps;
  if (std::optional<Command> cmd = directCopy(other, dst, src, dstOffset, srcOffset, size)) {
    steps.push_back({&helperFor(other), std::move(*cmd)});
  } else {
    Ref<MemoryView> staging = MemoryView::create(device_, nullptr, size, XPURT_ALLOC_TYPE_HOST);
    Device &srcDevice = ownDst ? other : *device_;
    Device &dstDevice = ownDst ? *device_ : other;
    std::optional<Command> out = directCopy(srcDevice, *staging, src, 0, srcOffset, size);
    std::optional<Command> in = directCopy(dstDevice, dst, *staging, dstOffset, 0, size);
    if (!out || !in)
      fail(XPURT_ERROR_UNSUPPORTED,
           "copyMemoryView: {} and {} cannot copy through host memory; copy through a HOST view "
           "yourself",
           device_->label(), other.label());
    steps.push_back({ownDst ? &helperFor(other) : this, std::move(*out)});
    steps.push_back({ownDst ? this : &helperFor(other), std::move(*in)});
  }
  // The copy as a whole: what it touches (its hazards, out of order) and, in the trace, one
  // copy between devices on this queue's copy track.
  Command whole;
  whole.type = Command::Type::Copy;
  whole.copyKind = Command::CopyKind::Peer;
  whole.dst = {Ref<MemoryView>(&dst), dstOffset, size, XPURT_ACCESS_WRITE, false};
  whole.src = {Ref<MemoryView>(&src), srcOffset, size, XPURT_ACCESS_READ, false};
  return submitSteps(std::move(steps), whole);
}

TaskQueue &TaskQueue::helperFor(Device &device) {
  std::lock_guard lock(helpersMutex_);
  for (const Ref<TaskQueue> &q : helpers_)
    if (&q->device() == &device) return *q;
  return *helpers_.emplace_back(device.createQueue(QueueOptions{}));
}

namespace {

// The check that ends a copy with steps on several queues: fails with the first step that
// failed.
struct StepsCheck {
  std::vector<Ref<Event>> steps;
};

XpurtResult checkSteps(void *data) {
  for (const Ref<Event> &e : static_cast<StepsCheck *>(data)->steps)
    if (e->failed()) {
      setRuntimeCallbackFailure(fmt::format("a copy between devices: {}", e->errorMessage()));
      return XPURT_ERROR_EXECUTION_FAILED;
    }
  return XPURT_SUCCESS;
}

}  // namespace

Ref<Event> TaskQueue::submitSteps(std::vector<CopyStep> steps, const Command &whole) {
  Ref<Event> done = newEvent();
  if (computeTrack_) traceOnCompletion(whole, done);
  auto check = std::make_shared<StepsCheck>();
  std::unique_lock lock(submitMutex_, std::defer_lock);
  if (options_.outOfOrder) lock.lock();
  // What the copy follows: the commands its memory depends on (out of order), or everything
  // before it (in order: a marker whose event the other devices can wait for).
  std::vector<Ref<Event>> before;
  if (options_.outOfOrder) {
    hazards_.addDeclared(whole.memoryUses(), done, before);
  } else {
    Command marker = builder_.barrier();
    marker.done = makeRef<Event>();
    before.push_back(marker.done);
    submit(std::move(marker));
  }
  try {
    for (CopyStep &step : steps) {
      step.cmd.waits = check->steps.empty() ? before : std::vector{check->steps.back()};
      step.cmd.done = makeRef<Event>();
      check->steps.push_back(step.cmd.done);
      step.queue->submit(std::move(step.cmd));
    }
    Command last = builder_.hostCallback(checkSteps, check.get(), check);
    last.waits = {check->steps.back()};
    last.done = done;
    submit(std::move(last));
  } catch (const std::exception &e) {
    // The copy fails as the call does. No step before the one refused writes the destination
    // (an earlier step only fills the staging memory): what waits for the copy may go on.
    done->fail(e.what());
    throw;
  }
  return done;
}

Ref<Event> TaskQueue::fill(MemoryView &view, size_t offset, size_t size, const void *pattern,
                           size_t patternSize) {
  if (!view.isCoherent())
    return submitCommand(builder_.fill(view, offset, size, pattern, patternSize));
  if (capturing()) return captureCoherent(builder_.fill(view, offset, size, pattern, patternSize));
  refuseCoherentCapture();
  Command cmd = builder_.fill(copyOn(view), offset, size, pattern, patternSize);
  CoherentAccess use{&view, offset, cmd.dst.size, XPURT_ACCESS_WRITE};
  return submitCoherent({&use, 1}, [&] { return submitCommand(std::move(cmd)); });
}

Ref<Event> TaskQueue::launch(Kernel &kernel, MemoryView *params,
                             const std::span<const AccessInput> *accesses, size_t d0, size_t d1,
                             size_t d2) {
  bool coherent = params && params->isCoherent();
  if (accesses)
    for (const AccessInput &a : *accesses) coherent = coherent || (a.view && a.view->isCoherent());
  if (!coherent) return submitCommand(builder_.launch(kernel, params, accesses, d0, d1, d2));
  if (capturing()) return captureCoherent(builder_.launch(kernel, params, accesses, d0, d1, d2));
  // Each COHERENT view becomes this device's copy; what the launch does with it is what it
  // declares (the params view: read whole).
  refuseCoherentCapture();
  std::vector<CoherentAccess> uses;
  if (params && params->isCoherent())
    uses.push_back({params, 0, params->size(), XPURT_ACCESS_READ});
  std::vector<AccessInput> local;
  if (accesses)
    for (AccessInput a : *accesses) {
      if (a.view && a.view->isCoherent()) {
        size_t size = a.view->checkedRange(a.offset, a.size, "launch (accesses)");
        uses.push_back({a.view, a.offset, size, a.access});
        a.view = &copyOn(*a.view);
      }
      local.push_back(a);
    }
  std::span<const AccessInput> declared(local);
  Command cmd = builder_.launch(kernel, params ? &copyOn(*params) : nullptr,
                                accesses ? &declared : nullptr, d0, d1, d2);
  return submitCoherent(uses, [&] { return submitCommand(std::move(cmd)); });
}

Ref<Event> TaskQueue::launchKernel(Kernel &kernel, std::span<const ArgInput> args, uint32_t workDim,
                                   const size_t *globalOffset, const size_t *globalSize,
                                   const size_t *localSize) {
  bool coherent = false;
  for (const ArgInput &a : args)
    coherent =
        coherent || (a.kind == XPURT_KERNEL_ARG_MEMORY_VIEW && a.view && a.view->isCoherent());
  if (!coherent)
    return submitCommand(
        builder_.launchKernel(kernel, args, workDim, globalOffset, globalSize, localSize));
  if (capturing())
    return captureCoherent(
        builder_.launchKernel(kernel, args, workDim, globalOffset, globalSize, localSize));
  refuseCoherentCapture();
  std::vector<CoherentAccess> uses;
  std::vector<ArgInput> local(args.begin(), args.end());
  for (ArgInput &a : local)
    if (a.kind == XPURT_KERNEL_ARG_MEMORY_VIEW && a.view && a.view->isCoherent()) {
      // Size 0: to the end of the view.
      size_t size = a.view->checkedRange(a.offset, a.size ? a.size : XPURT_WHOLE_SIZE,
                                         "launchKernel (view argument)");
      uses.push_back({a.view, a.offset, size, a.access});
      a.view = &copyOn(*a.view);
    }
  Command cmd = builder_.launchKernel(kernel, local, workDim, globalOffset, globalSize, localSize);
  return submitCoherent(uses, [&] { return submitCommand(std::move(cmd)); });
}

Ref<Event> TaskQueue::hostCallback(XpurtHostFunc func, void *userData,
                                   std::shared_ptr<void> ownedState) {
  return submitCommand(builder_.hostCallback(func, userData, std::move(ownedState)));
}

void TaskQueue::barrier() {
  // In order, commands already run one after another: the barrier costs nothing.
  if (!options_.outOfOrder) return;
  // While capturing, a barrier of an out-of-order queue orders the nodes around it.
  submitCommand(builder_.barrier());
}

void TaskQueue::waitFor(std::span<const Ref<Event>> events) {
  Command cmd = builder_.waitFor(events);
  if (cmd.waits.empty()) return;  // nothing to wait for: later commands are not held back
  submitCommand(std::move(cmd));
}

void TaskQueue::sync() {
  failIfCapturing("xpurtSync");
  drain();
  std::optional<std::string> failure = failures_->take();
  if (failure) fail(XPURT_ERROR_EXECUTION_FAILED, "{}", *failure);
}

// ---- graphs ------------------------------------------------------------------------------

void TaskQueue::failIfCapturing(const char *what) const {
  if (capturing_.load(std::memory_order_acquire))
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{} while the queue captures into a graph: nothing captured runs until the graph is "
         "launched; end the capture first",
         what);
}

void TaskQueue::beginCapture(Ref<Graph> graph) {
  std::lock_guard lock(submitMutex_);
  if (capture_)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "the queue is capturing into a graph already; end that capture first");
  capture_ = std::make_unique<Capture>();
  capture_->graph = std::move(graph);
  capturing_.store(true, std::memory_order_release);
}

void TaskQueue::endCapture() {
  std::lock_guard lock(submitMutex_);
  if (!capture_)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "the queue is not capturing: begin a capture (xpurtQueueBeginCapture) first");
  capture_.reset();
  capturing_.store(false, std::memory_order_release);
}

void TaskQueue::capture(Command &&cmd, Ordering ordering, std::span<const MemoryUse> uses) {
  GraphNode node;
  if (cmd.type == Command::Type::Barrier) {
    node.kind = cmd.waits.empty() ? GraphNode::Kind::Empty : GraphNode::Kind::Wait;
    node.futures = std::move(cmd.waits);
  } else {
    node.kind = GraphNode::Kind::Command;
    node.cmd = std::make_shared<const Command>(std::move(cmd));
    node.uses.assign(uses.begin(), uses.end());
  }
  Capture &c = *capture_;
  // The node's number once added: the graph may have nodes from before the capture, or from
  // another thread adding to it directly.
  uint32_t id = c.graph->nodeCount();
  std::vector<uint32_t> deps;
  if (!options_.outOfOrder) {
    if (c.last != ~0u) deps.push_back(c.last);
  } else if (ordering == Ordering::Declared) {
    c.hazards.addDeclared(uses, id, deps);
  } else {
    c.hazards.addFence(id, deps);  // waits, barriers and undeclared commands
  }
  c.last = c.graph->addWithDependencies(std::move(node), std::move(deps));
}

}  // namespace xpurt::core
