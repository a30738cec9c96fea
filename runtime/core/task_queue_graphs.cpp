// TaskQueue's graph launches: a graph its device runs as one command, one submitted node by
// node on this queue, and one placed across devices (graph_across_devices.hpp), whose nodes go
// to the executable graph's queues of their devices.
#include "error.hpp"
#include "graph_across_devices.hpp"
#include "host_callback.hpp"
#include "task_queue.hpp"

#include <algorithm>
#include <atomic>

namespace xpurt::core {

Ref<Event> TaskQueue::launchGraph(GraphExec &exec) {
  failIfCapturing("launching an executable graph");
  if (!exec.runsOn(*device_))
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "the executable graph was instantiated for {}, but this queue runs on {}; launch it on a "
         "queue of {}, or instantiate the graph for this device",
         exec.device().label(), device_->label(), exec.device().label());
  if (auto *across = dynamic_cast<DevicesGraphExec *>(&exec)) return submitAcrossDevices(*across);
  std::shared_ptr<const GraphProgram> program = exec.program();
  if (program->hasLaunches && options_.engine == XPURT_ENGINE_COPY)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "the graph launches kernels, and a copy queue runs no launches; launch it on a queue "
         "of engine XPURT_ENGINE_ANY or XPURT_ENGINE_COMPUTE");
  if (!exec.runsAsOneCommand()) return submitGraphNodes(exec, std::move(program));
  Command cmd;
  cmd.type = Command::Type::Graph;
  cmd.graph = Ref<Object>(&exec);
  cmd.program = std::move(program);
  Ref<Event> done = newEvent();
  cmd.done = done;
  std::lock_guard launchLock(exec.launchMutex());
  std::unique_lock lock(submitMutex_, std::defer_lock);
  if (options_.outOfOrder) lock.lock();
  if (Ref<Event> last = exec.exchangeLastLaunch(done)) cmd.waits.push_back(std::move(last));
  orderAndSubmit(std::move(cmd), Ordering::Fence, {});
  return done;
}

namespace {

// A launch of a graph submitted node by node: what its host callbacks look at to tell whether
// a node before them failed. A device runs its own commands whatever came before; a callback
// after a failure (or after nodes after one) does not run.
struct NodeByNodeLaunch {
  std::shared_ptr<const GraphProgram> program;
  std::vector<std::vector<uint32_t>> preds;
  std::vector<Ref<Event>> events;

  // The ancestor of node that failed, if any. Every ancestor has completed on its device, but
  // its future may be published a moment later: a device may let the work after a host
  // callback go before the callback's future is failed (a Level Zero event signalled first),
  // so an ancestor not done yet is waited for. One of this queue's own is done (the queue is
  // in order); a wait the backend refuses leaves the ancestor counted as not failed.
  std::optional<uint32_t> failedAncestor(uint32_t node) const {
    return GraphProgram::findAncestor(preds, node, [&](uint32_t k) {
      const Event &e = *events[k];
      if (!e.isDone()) waitIfAllowed(e);
      return e.failed();
    });
  }
  static void waitIfAllowed(const Event &e) {
    try {
      e.wait();
    } catch (const Error &) {
    }
  }
};

struct GuardedCallback {
  std::shared_ptr<NodeByNodeLaunch> launch;
  uint32_t node;
  XpurtHostFunc func;
  void *userData;
};

XpurtResult runGuardedCallback(void *data) {
  auto *g = static_cast<GuardedCallback *>(data);
  if (std::optional<uint32_t> failed = g->launch->failedAncestor(g->node)) {
    std::string why =
        fmt::format("not run: node {} before it failed", g->launch->program->name(*failed));
    setHostCallbackError(why.c_str());
    return XPURT_ERROR_EXECUTION_FAILED;
  }
  return g->func(g->userData);
}

// Completes `done` once `end` and every node of the launch have: failed with the first node
// that failed (in node order), its time spanning every node's.
void settleLaunch(const Ref<Event> &done, const std::shared_ptr<NodeByNodeLaunch> &launch,
                  const Ref<Event> &end) {
  done->setDriver(end->sharedDriver());
  // The launch completes once every node has: failed with the first failure (in node order).
  auto left = std::make_shared<std::atomic<size_t>>(launch->events.size() + 1);
  auto settle = [done, launch, left] {
    const std::vector<Ref<Event>> &nodeEvents = launch->events;
    if (left->fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    CommandTimes times;
    for (uint32_t k = 0; k < nodeEvents.size(); ++k) {
      const Event &e = *nodeEvents[k];
      CommandTimes t = e.times();
      if (t.startNs && (!times.startNs || t.startNs < times.startNs)) times.startNs = t.startNs;
      times.endNs = std::max(times.endNs, t.endNs);
      if (e.failed()) {
        done->fail(fmt::format("graph node {}: {}", launch->program->name(k), e.errorMessage()),
                   times);
        return;
      }
    }
    done->complete(times);
  };
  for (const Ref<Event> &e : launch->events) e->then(settle);
  end->then(settle);
}

// The last command of a launch across devices: fails with the first node that failed.
XpurtResult checkAcrossDevices(void *data) {
  const auto &launch = *static_cast<const NodeByNodeLaunch *>(data);
  for (uint32_t k = 0; k < launch.events.size(); ++k)
    if (launch.events[k]->failed()) {
      setRuntimeCallbackFailure(fmt::format("graph node {}: {}", launch.program->name(k),
                                            launch.events[k]->errorMessage()));
      return XPURT_ERROR_EXECUTION_FAILED;
    }
  return XPURT_SUCCESS;
}

// A host callback after other nodes runs only if none of them failed.
void guardCallback(Command &cmd, const std::shared_ptr<NodeByNodeLaunch> &launch, uint32_t node) {
  if (cmd.type != Command::Type::HostCallback || launch->preds[node].empty()) return;
  auto guard =
      std::make_shared<GuardedCallback>(GuardedCallback{launch, node, cmd.func, cmd.userData});
  cmd.func = runGuardedCallback;
  cmd.userData = guard.get();
  cmd.ownedState = std::move(guard);  // the callback's own state is the program's
}

}  // namespace

Ref<Event> TaskQueue::submitGraphNodes(GraphExec &exec, std::shared_ptr<const GraphProgram> keep) {
  const GraphProgram &program = *keep;
  size_t n = program.nodes.size();
  auto launch = std::make_shared<NodeByNodeLaunch>();
  launch->program = keep;
  launch->preds = program.predecessors();
  launch->events.resize(n);
  const std::vector<std::vector<uint32_t>> &preds = launch->preds;
  Ref<Event> done = newEvent();
  std::vector<Ref<Event>> *events = &launch->events;
  // The launch's last command on this queue, which the next launch's first one waits for: it
  // completes after every node, and (unlike `done`, settled by the nodes' continuations) before
  // anything after it on this queue runs.
  Ref<Event> end = newEvent();
  {
    std::unique_lock lock(submitMutex_, std::defer_lock);
    if (options_.outOfOrder) lock.lock();
    // Roots start after what came before (a fence) and after the previous launch.
    Command start = builder_.barrier();
    start.done = newEvent();
    if (Ref<Event> last = exec.exchangeLastLaunch(end)) start.waits.push_back(std::move(last));
    Ref<Event> started = start.done;
    orderAndSubmit(std::move(start), Ordering::Fence, {});
    for (uint32_t k = 0; k < n; ++k) {
      const GraphProgram::Node &node = program.nodes[k];
      Command cmd = node.kind == GraphNode::Kind::Command ? *node.cmd : builder_.barrier();
      guardCallback(cmd, launch, static_cast<uint32_t>(k));
      for (const Ref<Event> &f : node.futures)
        if (!f->isDone()) cmd.waits.push_back(f);
      for (uint32_t p : preds[k]) cmd.waits.push_back((*events)[p]);
      if (preds[k].empty()) cmd.waits.push_back(started);
      cmd.done = newEvent();
      (*events)[k] = cmd.done;
      if (computeTrack_) traceOnCompletion(cmd, cmd.done);
      submit(std::move(cmd));  // ordered by its waits alone
    }
    // What comes after waits for every node (a fence).
    Command finish = builder_.barrier();
    finish.waits = *events;
    finish.done = end;
    orderAndSubmit(std::move(finish), Ordering::Fence, {});
  }
  settleLaunch(done, launch, end);
  return done;
}

Ref<Event> TaskQueue::submitAcrossDevices(DevicesGraphExec &exec) {
  std::shared_ptr<const DevicesGraphExec::Binding> binding = exec.binding();
  const GraphProgram &program = *binding->program;
  auto n = static_cast<uint32_t>(program.nodes.size());
  auto launch = std::make_shared<NodeByNodeLaunch>();
  launch->program = binding->program;
  launch->preds = program.predecessors();
  launch->events.resize(n);
  Ref<Event> done = newEvent();
  Ref<Event> end = newEvent();  // as in submitGraphNodes
  std::lock_guard launchLock(exec.launchMutex());
  exec.admit(end);
  // Roots start once this queue reaches the launch (a fence) and the previous launch is over.
  Command start = builder_.barrier();
  start.done = newEvent();
  if (Ref<Event> last = exec.exchangeLastLaunch(end)) start.waits.push_back(std::move(last));
  Ref<Event> started = start.done;
  submitFence(std::move(start));
  // The nodes in order, each on its device's queue; no lock of this queue is held, as the
  // copies of COHERENT views take the views' locks and then queues' (submitCoherent). A node
  // that cannot be submitted (its device's copy of a view cannot be allocated, say) fails the
  // call; the launch still ends after what was submitted, failed, so later launches and what
  // waits for this queue go on.
  std::optional<Error> refused;
  uint32_t k = 0;
  try {
    for (; k < n; ++k) {
      const GraphProgram::Node &node = program.nodes[k];
      std::vector<Ref<Event>> waits;
      for (const Ref<Event> &f : node.futures)
        if (!f->isDone()) waits.push_back(f);
      for (uint32_t p : launch->preds[k]) waits.push_back(launch->events[p]);
      if (launch->preds[k].empty()) waits.push_back(started);
      uint32_t device = binding->placement[k];
      TaskQueue &queue = exec.queueOn(device);
      Ref<Event> event;
      if (node.kind == GraphNode::Kind::Command) {
        Command cmd = *binding->commands[k];
        guardCallback(cmd, launch, k);
        event = queue.submitPlaced(std::move(cmd), std::move(waits));
        if (std::optional<DevicesGraphExec::Sample> sample = exec.sampleOf(*binding, k))
          event->then([sample = std::move(*sample), event = event.get()] {
            if (!event->failed())
              KernelTimeModel::instance().record(sample.kernel, sample.device, sample.items,
                                                 event->deviceTimeNs());
          });
      } else {
        event = queue.marker(std::move(waits));
      }
      launch->events[k] = std::move(event);
    }
  } catch (const Error &e) {
    refused = e;
    for (; k < n; ++k) {
      launch->events[k] = makeRef<Event>();
      launch->events[k]->fail(fmt::format("not submitted: {}", e.what()));
    }
  }
  // What comes after on this queue waits for every node (a fence), and a node that failed
  // fails this queue's last command of the launch, so that its sync reports it as for a graph
  // of this device.
  Command finish = builder_.hostCallback(checkAcrossDevices, launch.get(), launch);
  finish.waits = launch->events;
  finish.done = end;
  submitFence(std::move(finish));
  settleLaunch(done, launch, end);
  if (refused) throw *refused;
  return done;
}

void TaskQueue::submitFence(Command &&cmd) {
  std::unique_lock lock(submitMutex_, std::defer_lock);
  if (options_.outOfOrder) lock.lock();
  orderAndSubmit(std::move(cmd), Ordering::Fence, {});
}

Ref<Event> TaskQueue::submitPlaced(Command &&cmd, std::vector<Ref<Event>> waits) {
  std::erase_if(waits, [](const Ref<Event> &e) { return e->isDone(); });
  if (!usesCoherentView(cmd)) {
    cmd.waits = std::move(waits);
    return submitWithEvent(std::move(cmd), Ordering::Fence);
  }
  // The queue is in order: what follows the wait runs after the node's predecessors.
  if (!waits.empty()) waitFor(waits);
  if (cmd.type == Command::Type::Copy && cmd.dst.view == cmd.src.view)
    return cmd.copyKind == Command::CopyKind::ToDevice
               ? coherentCopyToDevice(*cmd.dst.view, cmd.dst.offset, cmd.dst.size)
               : coherentCopyToHost(*cmd.dst.view, cmd.dst.offset, cmd.dst.size);
  if (cmd.type == Command::Type::Copy)
    return copyView(*cmd.dst.view, *cmd.src.view, cmd.dst.offset, cmd.src.offset, cmd.dst.size);
  // A fill or a launch: each COHERENT view becomes this device's copy (made here, before
  // submitCoherent takes the views' locks), after the copies in of what the command reads.
  std::vector<CoherentAccess> uses;
  Command here = cmd;
  auto retarget = [&](MemoryRef &r) {
    if (!r || !r.view->isCoherent()) return;
    uses.push_back({r.view.get(), r.offset, r.size, r.access});
    r.view = Ref<MemoryView>(&copyOn(*r.view));
  };
  retarget(here.dst);
  retarget(here.src);
  if (cmd.accesses) {
    auto accesses = std::make_shared<std::vector<MemoryRef>>(*cmd.accesses);
    for (MemoryRef &r : *accesses) retarget(r);
    here.accesses = std::move(accesses);
  }
  if (cmd.args) {
    auto args = std::make_shared<KernelArgs>(*cmd.args);
    for (KernelArgs::ViewArg &v : args->views) retarget(v.ref);
    here.args = std::move(args);
  }
  // `cmd` keeps the COHERENT views that `uses` names alive.
  return submitCoherent(uses, [&] { return submitCommand(std::move(here)); });
}

}  // namespace xpurt::core
