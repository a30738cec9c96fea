// Graphs, their capture from queues, and executable graphs.
#include "api_common.hpp"
#include "core/graph_across_devices.hpp"
#include "core/graph_exec.hpp"
#include "core/task_queue.hpp"

#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <type_traits>

using namespace xpurt;

namespace {

using core::GraphNode;
using core::MemoryView;
using core::Ref;

std::span<const uint32_t> dependencies(uint32_t numDeps, const XpurtGraphNode *deps) {
  if (numDeps && !deps)
    core::fail(XPURT_ERROR_INVALID_ARGUMENT, "{} dependencies announced but deps is NULL", numDeps);
  return {deps, numDeps};
}

// Builds a node with the checks of a queue of the device `device` and adds it.
template <class Build>
XpurtResult addNode(const char *entry, XpurtGraph graph, uint32_t numDeps,
                    const XpurtGraphNode *deps, XpurtGraphNode *node, Build build) {
  return api::guarded(entry, [&] {
    auto g = api::lookup<core::Graph>(graph, "graph");
    std::span<const uint32_t> d = dependencies(numDeps, deps);
    GraphNode n = build();
    uint32_t id = g->add(std::move(n), d);
    if (node) *node = id;
  });
}

GraphNode commandNode(core::Command &&cmd) {
  GraphNode n;
  n.kind = GraphNode::Kind::Command;
  if (cmd.declaresMemory()) n.uses = cmd.memoryUses();
  n.cmd = std::make_shared<const core::Command>(std::move(cmd));
  return n;
}

core::CommandBuilder builderFor(core::Device &device) {
  return core::CommandBuilder(Ref<core::Device>(&device), XPURT_ENGINE_ANY);
}

// The builder for a node on views: of the device of the first that is not COHERENT; of no
// device for COHERENT views alone, which every device may use.
core::CommandBuilder builderFor(std::initializer_list<const MemoryView *> views) {
  for (const MemoryView *v : views)
    if (!v->isCoherent()) return builderFor(v->device());
  return core::CommandBuilder(nullptr, XPURT_ENGINE_ANY);
}

// The declared accesses, their views looked up (and kept alive in views).
std::vector<core::CommandBuilder::AccessInput> accessInputs(uint32_t numAccesses,
                                                            const XpurtViewAccess *accesses,
                                                            std::vector<Ref<MemoryView>> &views) {
  if (numAccesses && !accesses)
    core::fail(XPURT_ERROR_INVALID_ARGUMENT, "{} accesses announced but accesses is NULL",
               numAccesses);
  std::vector<core::CommandBuilder::AccessInput> inputs;
  for (uint32_t i = 0; i < numAccesses; ++i) {
    views.push_back(api::lookup<MemoryView>(accesses[i].view, "accesses[i].view"));
    inputs.push_back(
        {views.back().get(), accesses[i].offset, accesses[i].size, accesses[i].access});
  }
  return inputs;
}

core::CommandBuilder::ArgInput argInput(const XpurtKernelArg &a,
                                        std::vector<Ref<MemoryView>> &views) {
  MemoryView *v = nullptr;
  if (a.kind == XPURT_KERNEL_ARG_MEMORY_VIEW && a.view) {
    views.push_back(api::lookup<MemoryView>(a.view, "args[i].view"));
    v = views.back().get();
  }
  return {a.kind, a.size, a.value, v, a.offset, a.access};
}

// A task launch's node (xpurtGraphAddLaunch).
GraphNode launchNode(XpurtKernel kernel, XpurtMemoryView params, uint32_t numAccesses,
                     const XpurtViewAccess *accesses, size_t d0, size_t d1, size_t d2) {
  auto k = api::lookup<core::Kernel>(kernel, "kernel");
  Ref<MemoryView> p = params ? api::lookup<MemoryView>(params, "params") : nullptr;
  std::vector<Ref<MemoryView>> views;
  auto inputs = accessInputs(numAccesses, accesses, views);
  std::span<const core::CommandBuilder::AccessInput> declared(inputs);
  return commandNode(builderFor(k->module().device())
                         .launch(*k, p.get(), numAccesses ? &declared : nullptr, d0, d1, d2));
}

// A general launch's node (xpurtGraphAddLaunchKernel).
GraphNode launchKernelNode(XpurtKernel kernel, uint32_t numArgs, const XpurtKernelArg *args,
                           uint32_t workDim, const size_t *globalOffset, const size_t *globalSize,
                           const size_t *localSize) {
  auto k = api::lookup<core::Kernel>(kernel, "kernel");
  if (numArgs && !args)
    core::fail(XPURT_ERROR_INVALID_ARGUMENT, "{} arguments announced but args is NULL", numArgs);
  std::vector<Ref<MemoryView>> views;
  std::vector<core::CommandBuilder::ArgInput> inputs;
  for (uint32_t i = 0; i < numArgs; ++i) inputs.push_back(argInput(args[i], views));
  return commandNode(builderFor(k->module().device())
                         .launchKernel(*k, inputs, workDim, globalOffset, globalSize, localSize));
}

// Makes n the node desc describes (xpurtGraphAddNodes), with its dependencies as given.
void describeNode(const XpurtGraphNodeDesc &desc, GraphNode &n) {
  // Read as the integer the caller stored: a value that names no type is not one of the enum's.
  std::underlying_type_t<XpurtGraphNodeType> type;
  std::memcpy(&type, &desc.type, sizeof type);
  switch (type) {
    case XPURT_GRAPH_NODE_EMPTY:
      break;
    case XPURT_GRAPH_NODE_LAUNCH:
      n = launchNode(desc.kernel, desc.params, desc.numAccesses, desc.accesses, desc.d[0],
                     desc.d[1], desc.d[2]);
      break;
    case XPURT_GRAPH_NODE_LAUNCH_KERNEL:
      n = launchKernelNode(desc.kernel, desc.numArgs, desc.args, desc.workDim, desc.globalOffset,
                           desc.globalSize, desc.localSize);
      break;
    default:
      core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                 "type {} is not XPURT_GRAPH_NODE_EMPTY, _LAUNCH or _LAUNCH_KERNEL; add copies, "
                 "fills, host callbacks, waits and child graphs with their own functions",
                 type);
  }
  std::span<const uint32_t> deps = dependencies(desc.numDeps, desc.deps);
  n.deps.assign(deps.begin(), deps.end());
}

}  // namespace

extern "C" {

XPURT_API XpurtResult xpurtNewGraph(XpurtGraph *graph) {
  return api::guarded("xpurtNewGraph", [&] {
    api::checkOut(graph, "graph");
    api::publish(graph, core::makeRef<core::Graph>());
  });
}

XPURT_API XpurtResult xpurtGraphAddCopyToDevice(XpurtGraph graph, XpurtMemoryView v, size_t offset,
                                                size_t size, uint32_t numDeps,
                                                const XpurtGraphNode *deps, XpurtGraphNode *node) {
  return addNode("xpurtGraphAddCopyToDevice", graph, numDeps, deps, node, [&] {
    auto mv = api::lookup<MemoryView>(v, "view");
    return commandNode(builderFor({mv.get()}).copyToDevice(*mv, offset, size));
  });
}

XPURT_API XpurtResult xpurtGraphAddCopyToHost(XpurtGraph graph, XpurtMemoryView v, size_t offset,
                                              size_t size, uint32_t numDeps,
                                              const XpurtGraphNode *deps, XpurtGraphNode *node) {
  return addNode("xpurtGraphAddCopyToHost", graph, numDeps, deps, node, [&] {
    auto mv = api::lookup<MemoryView>(v, "view");
    return commandNode(builderFor({mv.get()}).copyToHost(*mv, offset, size));
  });
}

XPURT_API XpurtResult xpurtGraphAddCopyMemoryView(XpurtGraph graph, XpurtMemoryView dst,
                                                  XpurtMemoryView src, size_t dstOffset,
                                                  size_t srcOffset, size_t size, uint32_t numDeps,
                                                  const XpurtGraphNode *deps,
                                                  XpurtGraphNode *node) {
  return addNode("xpurtGraphAddCopyMemoryView", graph, numDeps, deps, node, [&] {
    auto d = api::lookup<MemoryView>(dst, "dst");
    auto s = api::lookup<MemoryView>(src, "src");
    return commandNode(builderFor({d.get(), s.get()}).copyView(*d, *s, dstOffset, srcOffset, size));
  });
}

XPURT_API XpurtResult xpurtGraphAddFill(XpurtGraph graph, XpurtMemoryView v, size_t offset,
                                        size_t size, const void *pattern, size_t patternSize,
                                        uint32_t numDeps, const XpurtGraphNode *deps,
                                        XpurtGraphNode *node) {
  return addNode("xpurtGraphAddFill", graph, numDeps, deps, node, [&] {
    auto mv = api::lookup<MemoryView>(v, "view");
    return commandNode(builderFor({mv.get()}).fill(*mv, offset, size, pattern, patternSize));
  });
}

XPURT_API XpurtResult xpurtGraphAddLaunch(XpurtGraph graph, XpurtKernel kernel,
                                          XpurtMemoryView params, uint32_t numAccesses,
                                          const XpurtViewAccess *accesses, size_t d0, size_t d1,
                                          size_t d2, uint32_t numDeps, const XpurtGraphNode *deps,
                                          XpurtGraphNode *node) {
  return addNode("xpurtGraphAddLaunch", graph, numDeps, deps, node,
                 [&] { return launchNode(kernel, params, numAccesses, accesses, d0, d1, d2); });
}

XPURT_API XpurtResult xpurtGraphAddLaunchKernel(XpurtGraph graph, XpurtKernel kernel,
                                                uint32_t numArgs, const XpurtKernelArg *args,
                                                uint32_t workDim, const size_t *globalOffset,
                                                const size_t *globalSize, const size_t *localSize,
                                                uint32_t numDeps, const XpurtGraphNode *deps,
                                                XpurtGraphNode *node) {
  return addNode("xpurtGraphAddLaunchKernel", graph, numDeps, deps, node, [&] {
    return launchKernelNode(kernel, numArgs, args, workDim, globalOffset, globalSize, localSize);
  });
}

XPURT_API XpurtResult xpurtGraphAddHostCallback(XpurtGraph graph, XpurtHostFunc func,
                                                void *userData, XpurtDestroyFunc destroy,
                                                uint32_t numAccesses,
                                                const XpurtViewAccess *accesses, uint32_t numDeps,
                                                const XpurtGraphNode *deps, XpurtGraphNode *node) {
  // Owned from the start, so that a failing call frees it too.
  std::shared_ptr<void> owned;
  if (destroy) owned = std::shared_ptr<void>(userData, destroy);
  return addNode("xpurtGraphAddHostCallback", graph, numDeps, deps, node, [&] {
    std::vector<Ref<MemoryView>> views;
    auto inputs = accessInputs(numAccesses, accesses, views);
    GraphNode n;
    n.kind = GraphNode::Kind::Command;
    // A host callback touches host copies: a DEVICE view's is memory of its own.
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto &a = inputs[i];
      if (a.view->isCoherent())
        core::fail(XPURT_ERROR_UNSUPPORTED,
                   "accesses[{}]: a host callback cannot declare a COHERENT memory view, whose "
                   "host memory is up to date only after a copy to the host; add a "
                   "xpurtGraphAddCopyToHost node of the range and make the callback depend on it",
                   i);
      size_t size = a.view->checkedRange(a.offset, a.size, "xpurtGraphAddHostCallback (accesses)");
      if (a.access != XPURT_ACCESS_READ_WRITE && a.access != XPURT_ACCESS_READ &&
          a.access != XPURT_ACCESS_WRITE)
        core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                   "access {} of entry {} is not XPURT_ACCESS_READ_WRITE, _READ or _WRITE",
                   static_cast<int>(a.access), i);
      core::MemoryRef ref{Ref<MemoryView>(a.view), a.offset, size, a.access, true};
      ref.appendUses(n.uses);
    }
    if (!func) core::fail(XPURT_ERROR_INVALID_ARGUMENT, "the function pointer is NULL");
    core::Command cmd;
    cmd.type = core::Command::Type::HostCallback;
    cmd.func = func;
    cmd.userData = userData;
    cmd.ownedState = std::move(owned);
    n.cmd = std::make_shared<const core::Command>(std::move(cmd));
    return n;
  });
}

XPURT_API XpurtResult xpurtGraphAddWait(XpurtGraph graph, uint32_t numFutures,
                                        const XpurtFuture *futures, uint32_t numDeps,
                                        const XpurtGraphNode *deps, XpurtGraphNode *node) {
  return addNode("xpurtGraphAddWait", graph, numDeps, deps, node, [&] {
    if (numFutures && !futures)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT, "{} futures announced but futures is NULL",
                 numFutures);
    GraphNode n;
    n.kind = GraphNode::Kind::Wait;
    for (uint32_t i = 0; i < numFutures; ++i)
      n.futures.push_back(api::lookup<core::Event>(futures[i], "futures[i]"));
    return n;
  });
}

XPURT_API XpurtResult xpurtGraphAddEmpty(XpurtGraph graph, uint32_t numDeps,
                                         const XpurtGraphNode *deps, XpurtGraphNode *node) {
  return addNode("xpurtGraphAddEmpty", graph, numDeps, deps, node, [] { return GraphNode(); });
}

XPURT_API XpurtResult xpurtGraphAddChildGraph(XpurtGraph graph, XpurtGraph child, uint32_t numDeps,
                                              const XpurtGraphNode *deps, XpurtGraphNode *node) {
  return addNode("xpurtGraphAddChildGraph", graph, numDeps, deps, node, [&] {
    auto c = api::lookup<core::Graph>(child, "child");
    if (c.get() == api::lookup<core::Graph>(graph, "graph").get())
      core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                 "a graph cannot contain itself; add a copy made by capture or by building it "
                 "again");
    GraphNode n;
    n.kind = GraphNode::Kind::Child;
    n.child = c->snapshot();
    for (const GraphNode &inner : n.child->nodes)
      n.uses.insert(n.uses.end(), inner.uses.begin(), inner.uses.end());
    return n;
  });
}

XPURT_API XpurtResult xpurtGraphAddDependencies(XpurtGraph graph, uint32_t count,
                                                const XpurtGraphNode *from,
                                                const XpurtGraphNode *to) {
  return api::guarded("xpurtGraphAddDependencies", [&] {
    auto g = api::lookup<core::Graph>(graph, "graph");
    if (count && (!from || !to))
      core::fail(XPURT_ERROR_INVALID_ARGUMENT, "{} edges announced but from or to is NULL", count);
    g->addDependencies({from, count}, {to, count});
  });
}

XPURT_API XpurtResult xpurtGraphAddNodes(XpurtGraph graph, uint32_t count,
                                         const XpurtGraphNodeDesc *nodes, XpurtGraphNode *first) {
  return api::guarded("xpurtGraphAddNodes", [&] {
    auto g = api::lookup<core::Graph>(graph, "graph");
    if (count && !nodes)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT, "{} nodes announced but nodes is NULL", count);
    std::vector<GraphNode> made;
    made.reserve(count);
    uint32_t stride = count ? nodes->structSize : 0;
    for (uint32_t i = 0; i < count; ++i) {
      const auto *at = reinterpret_cast<const XpurtGraphNodeDesc *>(
          reinterpret_cast<const std::byte *>(nodes) + size_t{i} * stride);
      if (at->structSize != stride)
        core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                   "nodes[{}].structSize is {} where nodes[0]'s is {}: the array holds structs "
                   "of one header; set every element's to sizeof(XpurtGraphNodeDesc)",
                   i, at->structSize, stride);
      try {
        // The caller's own layout is read in place; another one through the defaults.
        if (stride == sizeof(XpurtGraphNodeDesc))
          describeNode(*at, made.emplace_back());
        else
          describeNode(api::versionedInput(at, "XpurtGraphNodeDesc"), made.emplace_back());
      } catch (const core::Error &e) {
        core::fail(e.code(), "nodes[{}]: {}", i, e.what());
      }
    }
    uint32_t id = g->addAll(std::move(made));
    if (first) *first = id;
  });
}

XPURT_API XpurtResult xpurtGraphGetNodeCount(XpurtGraph graph, uint32_t *count) {
  return api::guarded("xpurtGraphGetNodeCount", [&] {
    auto g = api::lookup<core::Graph>(graph, "graph");
    api::checkOut(count, "count");
    *count = g->nodeCount();
  });
}

XPURT_API XpurtResult xpurtGraphExportDot(XpurtGraph graph, char *buffer, size_t *size) {
  return api::guarded("xpurtGraphExportDot", [&] {
    auto g = api::lookup<core::Graph>(graph, "graph");
    api::checkOut(size, "size");
    if (*size && !buffer)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT, "a capacity of {} bytes but buffer is NULL", *size);
    std::string text = g->dot();
    size_t capacity = *size;
    *size = text.size() + 1;
    if (!buffer && capacity == 0) return;  // a query of the size
    if (capacity < text.size() + 1)
      core::fail(XPURT_ERROR_OUT_OF_RANGE,
                 "the DOT text needs {} bytes and the buffer has {}; pass a buffer of *size bytes",
                 text.size() + 1, capacity);
    std::memcpy(buffer, text.c_str(), text.size() + 1);
  });
}

XPURT_API XpurtResult xpurtQueueBeginCapture(XpurtTaskQueue queue, XpurtGraph graph) {
  return api::guarded("xpurtQueueBeginCapture", [&] {
    auto q = api::lookup<core::TaskQueue>(queue, "queue");
    q->beginCapture(api::lookup<core::Graph>(graph, "graph"));
  });
}

XPURT_API XpurtResult xpurtQueueEndCapture(XpurtTaskQueue queue) {
  return api::guarded("xpurtQueueEndCapture",
                      [&] { api::lookup<core::TaskQueue>(queue, "queue")->endCapture(); });
}

XPURT_API XpurtResult xpurtGraphInstantiate(XpurtGraph graph, XpurtDevice device,
                                            XpurtGraphExec *exec) {
  return api::guarded("xpurtGraphInstantiate", [&] {
    auto g = api::lookup<core::Graph>(graph, "graph");
    auto d = api::lookup<core::Device>(device, "device");
    api::checkOut(exec, "exec");
    api::publish(exec, core::instantiateGraph(*g, *d));
  });
}

XPURT_API XpurtResult xpurtGraphSetNodeDevice(XpurtGraph graph, XpurtGraphNode node,
                                              XpurtDevice device) {
  return api::guarded("xpurtGraphSetNodeDevice", [&] {
    auto g = api::lookup<core::Graph>(graph, "graph");
    Ref<core::Device> d = device ? api::lookup<core::Device>(device, "device") : nullptr;
    g->pin(node, std::move(d));
  });
}

XPURT_API XpurtResult xpurtGraphInstantiateOnDevices(XpurtGraph graph, uint32_t numDevices,
                                                     const XpurtDevice *devices,
                                                     XpurtGraphExec *exec) {
  return api::guarded("xpurtGraphInstantiateOnDevices", [&] {
    auto g = api::lookup<core::Graph>(graph, "graph");
    if (numDevices && !devices)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT, "{} devices announced but devices is NULL",
                 numDevices);
    std::vector<Ref<core::Device>> list;
    for (uint32_t i = 0; i < numDevices; ++i)
      list.push_back(api::lookup<core::Device>(devices[i], "devices[i]"));
    api::checkOut(exec, "exec");
    api::publish(exec,
                 core::instantiateAcrossDevices(core::GraphProgram::flatten(*g->snapshot()), list));
  });
}

XPURT_API XpurtResult xpurtGraphExecGetNodeDevice(XpurtGraphExec exec, XpurtGraphNode node,
                                                  XpurtDevice *device) {
  return api::guarded("xpurtGraphExecGetNodeDevice", [&] {
    auto e = api::lookup<core::GraphExec>(exec, "exec");
    api::checkOut(device, "device");
    uint32_t count = static_cast<uint32_t>(e->program()->topLevel.size());
    if (node >= count)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                 "node {} is not a node of the graph: it has {} nodes", node, count);
    api::publish(device, Ref<core::Device>(&e->deviceOfNode(node)));
  });
}

XPURT_API XpurtResult xpurtQueueLaunchGraph(XpurtTaskQueue queue, XpurtGraphExec exec,
                                            XpurtFuture *future) {
  return api::guarded("xpurtQueueLaunchGraph", [&] {
    auto q = api::lookup<core::TaskQueue>(queue, "queue");
    auto e = api::lookup<core::GraphExec>(exec, "exec");
    Ref<core::Event> done = q->launchGraph(*e);
    if (future) api::publish(future, done);
  });
}

XPURT_API XpurtResult xpurtGraphExecRebindView(XpurtGraphExec exec, XpurtMemoryView from,
                                               XpurtMemoryView to) {
  return api::guarded("xpurtGraphExecRebindView", [&] {
    auto e = api::lookup<core::GraphExec>(exec, "exec");
    e->rebindView(*api::lookup<MemoryView>(from, "from"), *api::lookup<MemoryView>(to, "to"));
  });
}

XPURT_API XpurtResult xpurtGraphExecSetKernelArg(XpurtGraphExec exec, XpurtGraphNode node,
                                                 uint32_t index, const XpurtKernelArg *arg) {
  return api::guarded("xpurtGraphExecSetKernelArg", [&] {
    auto e = api::lookup<core::GraphExec>(exec, "exec");
    if (!arg) core::fail(XPURT_ERROR_INVALID_ARGUMENT, "arg is NULL");
    std::vector<Ref<MemoryView>> views;
    e->setKernelArg(node, index, argInput(*arg, views));
  });
}

}  // extern "C"
