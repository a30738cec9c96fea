// xpurt — the C++ API of graphs (included by xpurt/xpurt.hpp).
//
//   xpurt::Graph graph;
//   auto up = graph.copyToDevice(in);                      // dependencies inferred from
//   auto run = graph.launch(kernel, xpurt::Range(n),       // what each node reads and writes
//                           {xpurt::Arg::read(in), xpurt::Arg::write(out)});
//   graph.copyToHost(out);
//   xpurt::GraphExec exec = graph.instantiate(device);
//   for (int frame = 0; frame < 100; ++frame) queue.launch(exec);
//   queue.sync();
//
// Across devices: graph.pin(run, gpu) or leave nodes to the runtime, then
// graph.instantiate({cpu, gpu}); COHERENT views (CoherentArray) follow the nodes.
#pragma once

#include <xpurt/xpurt.hpp>

namespace xpurt {

// A node of a graph: its number, from 0 in the order nodes were added.
struct GraphNode {
  XpurtGraphNode id;
};

// Nodes a new node runs after, besides those its declared memory orders it after.
using Deps = std::vector<GraphNode>;

class GraphExec : public detail::Handle<XpurtGraphExec> {
 public:
  GraphExec() = default;
  static GraphExec adopt(XpurtGraphExec h) { return GraphExec(h); }

  // For later launches: every use of `from` becomes a use of `to` (same size and type).
  void rebind(const MemoryView &from, const MemoryView &to) {
    detail::check(xpurtGraphExecRebindView(h_, from.handle(), to.handle()));
  }
  // For later launches: argument `index` of general launch `node` becomes arg.
  void setArg(GraphNode node, uint32_t index, const Arg &arg) {
    XpurtKernelArg c = arg.toC();
    detail::check(xpurtGraphExecSetKernelArg(h_, node.id, index, &c));
  }
  // The device node runs on (placed at instantiation).
  Device deviceOf(GraphNode node) const {
    XpurtDevice d = nullptr;
    detail::check(xpurtGraphExecGetNodeDevice(h_, node.id, &d));
    return Device::adopt(d);
  }

 private:
  explicit GraphExec(XpurtGraphExec h) : Handle(h) {}
};

// Nodes made in one call to the graph (Graph::add(batch), xpurtGraphAddNodes): empty nodes and
// launches, taking the arguments of Graph's functions of the same name, for graphs of many
// nodes. A node's deps name nodes of the graph or earlier nodes of the batch (what the batch's
// functions return). Like Arg and ViewAccess, a batch names kernels and views by their handles:
// keep them alive until it is added.
//
//   xpurt::GraphBatch batch;
//   auto a = batch.launch(kernel, params, n);
//   batch.launch(kernel, params, n, 1, 1, {a});
//   std::vector<xpurt::GraphNode> nodes = graph.add(batch);  // the graph's numbers, in order
class GraphBatch {
 public:
  GraphNode empty(const Deps &deps = {}) {
    newDesc();
    return finish(XPURT_GRAPH_NODE_EMPTY, deps);
  }
  // A task launch; accesses declare what it reads and writes through params.
  GraphNode launch(const Kernel &kernel, const MemoryView &params,
                   std::initializer_list<ViewAccess> accesses, size_t d0, size_t d1 = 1,
                   size_t d2 = 1, const Deps &deps = {}) {
    XpurtGraphNodeDesc &c = newDesc();
    c.kernel = kernel.handle();
    c.params = params.handle();
    c.numAccesses = static_cast<uint32_t>(accesses.size());
    c.d[0] = d0;
    c.d[1] = d1;
    c.d[2] = d2;
    for (const ViewAccess &a : accesses) accesses_.push_back(a.c);
    return finish(XPURT_GRAPH_NODE_LAUNCH, deps);
  }
  GraphNode launch(const Kernel &kernel, const MemoryView &params, size_t d0, size_t d1 = 1,
                   size_t d2 = 1, const Deps &deps = {}) {
    return launch(kernel, params, {}, d0, d1, d2, deps);
  }
  // A general launch: arguments by position, checked against the kernel's signature.
  GraphNode launch(const Kernel &kernel, const Range &range, std::initializer_list<Arg> args,
                   const Deps &deps = {}) {
    XpurtGraphNodeDesc &c = newDesc();
    c.kernel = kernel.handle();
    c.numArgs = static_cast<uint32_t>(args.size());
    args_.insert(args_.end(), args.begin(), args.end());
    ranges_.push_back(range);
    return finish(XPURT_GRAPH_NODE_LAUNCH_KERNEL, deps);
  }
  size_t size() const { return descs_.size(); }
  void clear() {
    descs_.clear();
    at_.clear();
    deps_.clear();
    accesses_.clear();
    args_.clear();
    ranges_.clear();
  }

 private:
  friend class Graph;
  // Where a node's dependencies, accesses, arguments and range start in the arrays below (the
  // descs point into them once they no longer grow).
  struct At {
    size_t deps, accesses, args, range;
  };
  // A new node's desc, its parts to start where the arrays end now; finish completes it.
  XpurtGraphNodeDesc &newDesc() {
    at_.push_back({deps_.size(), accesses_.size(), args_.size(), ranges_.size()});
    return descs_.emplace_back(XpurtGraphNodeDesc{});
  }
  GraphNode finish(XpurtGraphNodeType type, const Deps &deps) {
    XpurtGraphNodeDesc &c = descs_.back();
    c.structSize = sizeof(XpurtGraphNodeDesc);
    c.type = type;
    c.numDeps = static_cast<uint32_t>(deps.size());
    for (GraphNode d : deps) deps_.push_back(d.id);
    return GraphNode{XPURT_GRAPH_BATCH_NODE(descs_.size() - 1)};
  }
  // Points each desc at its parts; cArgs_ gets the C form of args_.
  const XpurtGraphNodeDesc *prepared() {
    cArgs_.clear();
    for (const Arg &a : args_) cArgs_.push_back(a.toC());
    for (size_t i = 0; i < descs_.size(); ++i) {
      XpurtGraphNodeDesc &c = descs_[i];
      const At &at = at_[i];
      c.deps = deps_.data() + at.deps;
      c.accesses = accesses_.data() + at.accesses;
      c.args = cArgs_.data() + at.args;
      if (c.type == XPURT_GRAPH_NODE_LAUNCH_KERNEL) {
        const Range &r = ranges_[at.range];
        c.workDim = r.dims_;
        c.globalOffset = r.offset_;
        c.globalSize = r.global_;
        c.localSize = r.hasLocal_ ? r.local_ : nullptr;
      }
    }
    return descs_.data();
  }

  std::vector<XpurtGraphNodeDesc> descs_;
  std::vector<At> at_;
  std::vector<XpurtGraphNode> deps_;
  std::vector<XpurtViewAccess> accesses_;
  std::vector<Arg> args_;
  std::vector<XpurtKernelArg> cArgs_;
  std::vector<Range> ranges_;
};

// Unlike the other handles, a default-constructed Graph is a new graph with no nodes: a graph
// needs no device, and building one is all it is for.
class Graph : public detail::Handle<XpurtGraph> {
 public:
  Graph() { detail::check(xpurtNewGraph(&h_)); }

  // Each node takes the arguments of the queue's command of the same name, in the same order,
  // then the nodes it runs after (deps); an overload takes deps right after the objects.
  GraphNode copyToDevice(const MemoryView &view, size_t offset = 0, size_t bytes = XPURT_WHOLE_SIZE,
                         const Deps &deps = {}) {
    return addNode(deps, [&](uint32_t n, const XpurtGraphNode *d, XpurtGraphNode *out) {
      return xpurtGraphAddCopyToDevice(h_, view.handle(), offset, bytes, n, d, out);
    });
  }
  GraphNode copyToDevice(const MemoryView &view, const Deps &deps) {
    return copyToDevice(view, 0, XPURT_WHOLE_SIZE, deps);
  }
  GraphNode copyToHost(const MemoryView &view, size_t offset = 0, size_t bytes = XPURT_WHOLE_SIZE,
                       const Deps &deps = {}) {
    return addNode(deps, [&](uint32_t n, const XpurtGraphNode *d, XpurtGraphNode *out) {
      return xpurtGraphAddCopyToHost(h_, view.handle(), offset, bytes, n, d, out);
    });
  }
  GraphNode copyToHost(const MemoryView &view, const Deps &deps) {
    return copyToHost(view, 0, XPURT_WHOLE_SIZE, deps);
  }
  GraphNode copyMemoryView(const MemoryView &dst, const MemoryView &src, size_t dstOffset = 0,
                           size_t srcOffset = 0, size_t bytes = XPURT_WHOLE_SIZE,
                           const Deps &deps = {}) {
    return addNode(deps, [&](uint32_t n, const XpurtGraphNode *d, XpurtGraphNode *out) {
      return xpurtGraphAddCopyMemoryView(h_, dst.handle(), src.handle(), dstOffset, srcOffset,
                                         bytes, n, d, out);
    });
  }
  GraphNode copyMemoryView(const MemoryView &dst, const MemoryView &src, const Deps &deps) {
    return copyMemoryView(dst, src, 0, 0, XPURT_WHOLE_SIZE, deps);
  }
  template <class T>
  GraphNode fill(const MemoryView &view, const T &value, size_t offset = 0,
                 size_t bytes = XPURT_WHOLE_SIZE, const Deps &deps = {}) {
    return addNode(deps, [&](uint32_t n, const XpurtGraphNode *d, XpurtGraphNode *out) {
      return xpurtGraphAddFill(h_, view.handle(), offset, bytes, &value, sizeof(T), n, d, out);
    });
  }
  template <class T>
  GraphNode fill(const MemoryView &view, const T &value, const Deps &deps) {
    return fill(view, value, 0, XPURT_WHOLE_SIZE, deps);
  }
  // A task launch; accesses declare what it reads and writes through params.
  GraphNode launch(const Kernel &kernel, const MemoryView &params,
                   std::initializer_list<ViewAccess> accesses, size_t d0, size_t d1 = 1,
                   size_t d2 = 1, const Deps &deps = {}) {
    std::vector<XpurtViewAccess> c;
    for (const ViewAccess &a : accesses) c.push_back(a.c);
    return addNode(deps, [&](uint32_t n, const XpurtGraphNode *d, XpurtGraphNode *out) {
      return xpurtGraphAddLaunch(h_, kernel.handle(), params.handle(),
                                 static_cast<uint32_t>(c.size()), c.data(), d0, d1, d2, n, d, out);
    });
  }
  GraphNode launch(const Kernel &kernel, const MemoryView &params, size_t d0, size_t d1 = 1,
                   size_t d2 = 1, const Deps &deps = {}) {
    return launch(kernel, params, {}, d0, d1, d2, deps);
  }
  // A general launch: arguments by position, checked against the kernel's signature.
  GraphNode launch(const Kernel &kernel, const Range &range, std::initializer_list<Arg> args,
                   const Deps &deps = {}) {
    std::vector<XpurtKernelArg> c;
    for (const Arg &a : args) c.push_back(a.toC());
    return addNode(deps, [&](uint32_t n, const XpurtGraphNode *d, XpurtGraphNode *out) {
      return xpurtGraphAddLaunchKernel(h_, kernel.handle(), static_cast<uint32_t>(c.size()),
                                       c.data(), range.dims_, range.offset_, range.global_,
                                       range.hasLocal_ ? range.local_ : nullptr, n, d, out);
    });
  }
  // fn on a host thread at each launch, kept as long as the graph or an executable graph made
  // from it lives; an exception fails the launch. accesses order it by the host copies it uses.
  GraphNode hostCallback(std::function<void()> fn, std::initializer_list<ViewAccess> accesses,
                         const Deps &deps = {}) {
    std::vector<XpurtViewAccess> c;
    for (const ViewAccess &a : accesses) c.push_back(a.c);
    auto *owned = new std::function<void()>(std::move(fn));
    return addNode(deps, [&](uint32_t n, const XpurtGraphNode *d, XpurtGraphNode *out) {
      // The runtime owns fn from here, even when the call fails.
      return xpurtGraphAddHostCallback(h_, &detail::runFunction, owned, &detail::deleteFunction,
                                       static_cast<uint32_t>(c.size()), c.data(), n, d, out);
    });
  }
  GraphNode hostCallback(std::function<void()> fn, const Deps &deps = {}) {
    return hostCallback(std::move(fn), {}, deps);
  }
  // Waits for futures of other queues.
  GraphNode wait(std::initializer_list<std::reference_wrapper<const Future>> futures,
                 const Deps &deps = {}) {
    std::vector<XpurtFuture> c;
    for (const Future &f : futures) c.push_back(f.handle());
    return addNode(deps, [&](uint32_t n, const XpurtGraphNode *d, XpurtGraphNode *out) {
      return xpurtGraphAddWait(h_, static_cast<uint32_t>(c.size()), c.data(), n, d, out);
    });
  }
  // Does nothing: a join point.
  GraphNode empty(const Deps &deps = {}) {
    return addNode(deps, [&](uint32_t n, const XpurtGraphNode *d, XpurtGraphNode *out) {
      return xpurtGraphAddEmpty(h_, n, d, out);
    });
  }
  // Every node of child as it is now, as one node.
  GraphNode child(const Graph &child, const Deps &deps = {}) {
    return addNode(deps, [&](uint32_t n, const XpurtGraphNode *d, XpurtGraphNode *out) {
      return xpurtGraphAddChildGraph(h_, child.handle(), n, d, out);
    });
  }
  // The batch's nodes, in one call (xpurtGraphAddNodes): their numbers in the graph, in the
  // order they were made. All or none: a refused node leaves the graph as it was.
  std::vector<GraphNode> add(GraphBatch &batch) {
    XpurtGraphNode first = 0;
    auto count = static_cast<uint32_t>(batch.size());
    detail::check(xpurtGraphAddNodes(h_, count, batch.prepared(), &first));
    std::vector<GraphNode> nodes(count);
    for (uint32_t i = 0; i < count; ++i) nodes[i].id = first + i;
    return nodes;
  }
  // `to` runs after `from`; throws for an edge that closes a cycle.
  void addDependency(GraphNode from, GraphNode to) {
    detail::check(xpurtGraphAddDependencies(h_, 1, &from.id, &to.id));
  }
  uint32_t size() const {
    uint32_t n = 0;
    detail::check(xpurtGraphGetNodeCount(h_, &n));
    return n;
  }
  // The graph in Graphviz's DOT language.
  std::string dot() const {
    size_t size = 0;
    detail::check(xpurtGraphExportDot(h_, nullptr, &size));
    std::string text(size, '\0');
    detail::check(xpurtGraphExportDot(h_, text.data(), &size));
    text.resize(size - 1);
    return text;
  }
  GraphExec instantiate(const Device &device) const {
    XpurtGraphExec e = nullptr;
    detail::check(xpurtGraphInstantiate(h_, device.handle(), &e));
    return GraphExec::adopt(e);
  }
  // Across devices: each node on one of them, where pinned or where the runtime places it
  // (xpurtGraphInstantiateOnDevices).
  GraphExec instantiate(const std::vector<Device> &devices) const {
    std::vector<XpurtDevice> handles;
    for (const Device &d : devices) handles.push_back(d.handle());
    XpurtGraphExec e = nullptr;
    detail::check(xpurtGraphInstantiateOnDevices(h_, static_cast<uint32_t>(handles.size()),
                                                 handles.data(), &e));
    return GraphExec::adopt(e);
  }
  // Runs node on device in graphs instantiated across devices; an empty Device unpins it.
  void pin(GraphNode node, const Device &device) {
    detail::check(xpurtGraphSetNodeDevice(h_, node.id, device ? device.handle() : nullptr));
  }

 private:
  template <class Call>
  GraphNode addNode(const Deps &deps, Call call) {
    static_assert(sizeof(GraphNode) == sizeof(XpurtGraphNode), "a GraphNode is its number");
    GraphNode node{0};
    detail::check(call(static_cast<uint32_t>(deps.size()),
                       reinterpret_cast<const XpurtGraphNode *>(deps.data()), &node.id));
    return node;
  }
};

inline Future TaskQueue::launch(const GraphExec &exec) {
  return enqueue([&](XpurtFuture *f) { return xpurtQueueLaunchGraph(h_, exec.handle(), f); });
}

inline void TaskQueue::beginCapture(const Graph &graph) {
  detail::check(xpurtQueueBeginCapture(h_, graph.handle()));
}

}  // namespace xpurt
