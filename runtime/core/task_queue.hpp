// TaskQueue: has each command built and checked (CommandBuilder), works out what it must wait
// for (out-of-order queues: from declared memory accesses, barriers and waits), then hands it
// to the backend.
#pragma once

#include "coherent_memory.hpp"
#include "command_builder.hpp"
#include "graph.hpp"
#include "hazard_tracker.hpp"
#include "trace.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace xpurt::core {

class DevicesGraphExec;
class GraphExec;
struct GraphProgram;

// The first failure of queued work since the last sync. Shared by a queue and its backend's
// runners, which may outlive the queue (they finish its work after its last release).
class FailureLog {
 public:
  void note(const std::string &message) {
    std::lock_guard lock(mutex_);
    if (!first_) first_ = message;
  }
  std::optional<std::string> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(first_, std::nullopt);
  }

 private:
  std::mutex mutex_;
  std::optional<std::string> first_;
};

class TaskQueue : public Object {
 public:
  static constexpr ObjectKind kKind = ObjectKind::TaskQueue;
  // Throws INVALID_CONFIG when XPURT_TRACE names a file that cannot be written.
  TaskQueue(Ref<Device> device, const QueueOptions &options);

  Device &device() const { return *device_; }
  const QueueOptions &options() const { return options_; }

  Ref<Event> copyToDevice(MemoryView &view, size_t offset, size_t size);
  Ref<Event> copyToHost(MemoryView &view, size_t offset, size_t size);
  // Between views of any devices, one of them this queue's (or memory its device reaches):
  // cross_device_copy.hpp.
  Ref<Event> copyView(MemoryView &dst, MemoryView &src, size_t dstOffset, size_t srcOffset,
                      size_t size);
  Ref<Event> fill(MemoryView &view, size_t offset, size_t size, const void *pattern,
                  size_t patternSize);
  using AccessInput = CommandBuilder::AccessInput;
  using ArgInput = CommandBuilder::ArgInput;
  // accesses: null for a launch that declares nothing (ordered against everything).
  Ref<Event> launch(Kernel &kernel, MemoryView *params,
                    const std::span<const AccessInput> *accesses, size_t d0, size_t d1, size_t d2);
  Ref<Event> launchKernel(Kernel &kernel, std::span<const ArgInput> args, uint32_t workDim,
                          const size_t *globalOffset, const size_t *globalSize,
                          const size_t *localSize);
  Ref<Event> hostCallback(XpurtHostFunc func, void *userData,
                          std::shared_ptr<void> ownedState = nullptr);
  // Runs the executable graph after what comes before it (as a barrier would) and after its
  // own previous launch; what comes after runs after it.
  Ref<Event> launchGraph(GraphExec &exec);
  void barrier();
  // Every command submitted after this runs after the events have completed.
  void waitFor(std::span<const Ref<Event>> events);
  // Waits for everything submitted so far; throws EXECUTION_FAILED for the first failure of
  // queued work since the last sync.
  void sync();

  // One chunk of a split launch (split_launch.hpp), in two steps so that every chunk is
  // checked before any is submitted: the launch built on this device's copies of the
  // COHERENT views among args ...
  Command buildChunk(Kernel &kernel, std::span<const ArgInput> args, uint32_t workDim,
                     const size_t *globalOffset, const size_t *globalSize, const size_t *localSize);
  // ... and submitted once what `uses` read is here (submitCoherent).
  Ref<Event> submitChunk(Command &&cmd, std::span<const CoherentAccess> uses);

  // Until endCapture, commands enqueued on the queue (from any thread) become nodes of graph
  // instead of running: in order after each other on an in-order queue, ordered by their
  // declared memory, barriers and waits on an out-of-order one. They return no event.
  void beginCapture(Ref<Graph> graph);
  void endCapture();

  // The driver's handle of the queue (xpurtQueueGetNativeHandle); the default: UNSUPPORTED.
  virtual void *nativeHandle() const;

  // Backends note each failed command here; sync() reports the first. Thread-safe.
  const std::shared_ptr<FailureLog> &failures() const { return failures_; }

 protected:
  // Runs the command after cmd.waits (and, in order, after everything submitted before it);
  // signals cmd.done when it is over, measuring it when cmd.done->timed().
  virtual void submit(Command &&cmd) = 0;
  // Returns once every command submitted before the call has completed.
  virtual void drain() = 0;
  // For a backend that turns waits into device waits: a graph's waits on futures become waits
  // of the whole launch, and every future it waits for that `own` (the queue's EventDriver)
  // does not drive is made ready (submitted, where its queue batches). Call before taking a
  // lock of the queue's, so that two queues waiting on each other cannot deadlock.
  static void gatherWaits(Command &cmd, const EventDriver *own);

 private:
  // How an out-of-order queue orders a command (see HazardTracker): by the memory it declares,
  // against everything (barriers, undeclared commands), or as a wait for other queues' work.
  enum class Ordering { Declared, Fence, Wait };
  // Gives the command its event and dependencies and submits it; uses: what a Declared
  // command touches.
  Ref<Event> submitWithEvent(Command &&cmd, Ordering ordering,
                             std::span<const MemoryUse> uses = {});
  // submitWithEvent with submitMutex_ held (out of order) and the event made.
  void orderAndSubmit(Command &&cmd, Ordering ordering, std::span<const MemoryUse> uses);
  Ref<Event> newEvent() const;
  // A graph whose device runs it node by node: its nodes as commands between two fences.
  Ref<Event> submitGraphNodes(GraphExec &exec, std::shared_ptr<const GraphProgram> program);
  // A graph placed across devices: each node on the executable graph's queue of its device,
  // between two fences of this queue (task_queue_graphs.cpp).
  Ref<Event> submitAcrossDevices(DevicesGraphExec &exec);
  // A command with its event that orders as a barrier, submitMutex_ taken where needed.
  void submitFence(Command &&cmd);
  // On such a queue (in order): a node's command after waits, on this device's copies of the
  // COHERENT views it names.
  Ref<Event> submitPlaced(Command &&cmd, std::vector<Ref<Event>> waits);
  // Adds the command to the graph being captured.
  void capture(Command &&cmd, Ordering ordering, std::span<const MemoryUse> uses);
  void failIfCapturing(const char *what) const;
  // While capturing, commands on COHERENT views are recorded with the views themselves, which
  // each launch of the graph resolves where its node runs (captureCoherent).
  bool capturing() const { return capturing_.load(std::memory_order_acquire); }
  Ref<Event> captureCoherent(Command &&cmd);
  // Submits a built command, ordered by what it declares.
  Ref<Event> submitCommand(Command &&cmd);
  // A copy that other devices' queues take part in: each step after the one before it, the
  // first after what the copy must follow in this queue, then a check on this queue whose
  // event is the copy's (failed with the first step that failed).
  struct CopyStep {
    TaskQueue *queue;  // this queue, or a helper on another device (helperFor)
    Command cmd;
  };
  // whole: the copy the steps make, for its hazards and the trace (never submitted).
  Ref<Event> submitSteps(std::vector<CopyStep> steps, const Command &whole);
  // The in-order queue on `device` that runs this queue's steps there, made on first use.
  TaskQueue &helperFor(Device &device);

  // Commands on COHERENT views (task_queue_coherence.cpp): each runs on this device's copy.
  // This device's copy of a COHERENT view; any other view itself.
  MemoryView &copyOn(MemoryView &view);
  // Copies into this device's copies what the accesses read and it lacks, makes the queue wait
  // for other queues' work those bytes must follow, then submits the command (submitMain, after
  // which the bytes written are up to date here only).
  Ref<Event> submitCoherent(std::span<const CoherentAccess> accesses,
                            const std::function<Ref<Event>()> &submitMain);
  Ref<Event> coherentCopyToDevice(MemoryView &view, size_t offset, size_t size);
  Ref<Event> coherentCopyToHost(MemoryView &view, size_t offset, size_t size);
  void refuseCoherentCapture() const;
  // A command whose event completes once `waits` have (and, in order, what came before).
  Ref<Event> marker(std::vector<Ref<Event>> waits);
  void traceOnCompletion(const Command &cmd, const Ref<Event> &done);

  Ref<Device> device_;
  QueueOptions options_;
  CommandBuilder builder_;
  uint32_t computeTrack_ = 0;  // trace tracks; 0 when not tracing
  uint32_t copyTrack_ = 0;
  std::shared_ptr<trace::Lanes> computeLanes_;  // an out-of-order queue's launches
  std::shared_ptr<trace::Lanes> copyLanes_;     // and its copies, fills and host work
  std::mutex submitMutex_;  // out-of-order queues: dependencies and submission in one order
  HazardTracker hazards_;
  struct Capture {
    Ref<Graph> graph;
    uint32_t last = ~0u;  // in order: the node captured last
    NodeHazards hazards{true};
  };
  std::atomic<bool> capturing_{false};
  std::unique_ptr<Capture> capture_;  // guarded by submitMutex_
  std::shared_ptr<FailureLog> failures_ = std::make_shared<FailureLog>();
  std::mutex helpersMutex_;
  std::vector<Ref<TaskQueue>> helpers_;  // one per other device this queue copied with
};

}  // namespace xpurt::core
