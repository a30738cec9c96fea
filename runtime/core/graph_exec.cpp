#include "graph_exec.hpp"

#include "graph_across_devices.hpp"

#include "error.hpp"

#include <algorithm>
#include <cstring>

namespace xpurt::core {

// ---- flattening -------------------------------------------------------------------------

namespace {

// A graph being flattened: its nodes and edges in the order they come.
struct Flat {
  std::vector<GraphProgram::Node> nodes;
  std::vector<std::pair<uint32_t, uint32_t>> edges;  // from, to
};

// Appends the nodes of body to out; a node without dependencies gets rootPred (if any) as
// its predecessor. Returns, for each node of body, the flat node its successors follow.
std::vector<uint32_t> flattenInto(const GraphBody &body, uint32_t parent, const uint32_t *rootPred,
                                  Flat &out) {
  std::vector<uint32_t> exitOf(body.nodes.size());
  // A dependency added later may point forward (Graph::addDependencies): number every node
  // first, then connect.
  std::vector<uint32_t> entryOf(body.nodes.size());
  for (size_t i = 0; i < body.nodes.size(); ++i) {
    const GraphNode &g = body.nodes[i];
    GraphProgram::Node f;
    f.kind = g.kind == GraphNode::Kind::Child ? GraphNode::Kind::Empty : g.kind;
    f.cmd = g.cmd;
    f.futures = g.futures;
    f.pinned = g.device;
    f.number = static_cast<uint32_t>(i);
    f.parent = parent;
    entryOf[i] = exitOf[i] = static_cast<uint32_t>(out.nodes.size());
    out.nodes.push_back(std::move(f));
    if (g.kind != GraphNode::Kind::Child) continue;
    // A child graph: its entry node (this one), its nodes, and an exit node after its leaves.
    uint32_t entry = entryOf[i];
    std::vector<uint32_t> inner = flattenInto(*g.child, entry, &entry, out);
    std::vector<uint8_t> hasSucc(g.child->nodes.size());
    for (const GraphNode &c : g.child->nodes)
      for (uint32_t d : c.deps) hasSucc[d] = 1;
    uint32_t exit = static_cast<uint32_t>(out.nodes.size());
    GraphProgram::Node e;
    e.number = static_cast<uint32_t>(i);
    e.parent = parent;
    out.nodes.push_back(std::move(e));
    out.edges.push_back({entry, exit});
    for (size_t c = 0; c < inner.size(); ++c)
      if (!hasSucc[c]) out.edges.push_back({inner[c], exit});
    exitOf[i] = exit;
  }
  for (size_t i = 0; i < body.nodes.size(); ++i) {
    for (uint32_t d : body.nodes[i].deps) out.edges.push_back({exitOf[d], entryOf[i]});
    if (body.nodes[i].deps.empty() && rootPred) out.edges.push_back({*rootPred, entryOf[i]});
  }
  return exitOf;
}

}  // namespace

bool usesCoherentView(const Command &cmd) {
  bool any = false;
  cmd.forEachRef([&](const MemoryRef &r) { any = any || r.view->isCoherent(); });
  return any;
}

std::string GraphProgram::name(uint32_t node) const {
  std::string name = std::to_string(nodes[node].number);
  for (uint32_t p = nodes[node].parent; p != ~0u; p = nodes[p].parent)
    name = std::to_string(nodes[p].number) + "." + name;
  return name;
}

std::string GraphProgram::description(uint32_t node) const {
  const Node &n = nodes[node];
  if (n.kind == GraphNode::Kind::Command) return n.cmd->description();
  return n.kind == GraphNode::Kind::Wait ? "a wait" : "an empty node";
}

namespace {

// A graph without child graphs whose every dependency is on an earlier node (as every node's
// is unless Graph::addDependencies added one forward): its own order is an order where each
// node comes after its predecessors, so the program is its nodes in place, with no sort.
bool inOrderWithoutChildren(const GraphBody &body) {
  for (uint32_t i = 0; i < body.nodes.size(); ++i) {
    const GraphNode &g = body.nodes[i];
    if (g.kind == GraphNode::Kind::Child) return false;
    for (uint32_t d : g.deps)
      if (d >= i) return false;
  }
  return true;
}

}  // namespace

void GraphProgram::noteCommand(const Node &node) {
  if (node.kind != GraphNode::Kind::Command) return;
  if (node.cmd->isLaunch()) hasLaunches = true;
  if (usesCoherentView(*node.cmd)) usesCoherent = true;
}

std::shared_ptr<GraphProgram> GraphProgram::flattenInOrder(const GraphBody &body) {
  auto n = static_cast<uint32_t>(body.nodes.size());
  auto program = std::make_shared<GraphProgram>();
  // Successors of each node as ranges of one array: a counting sort of the edges by source.
  std::vector<uint32_t> first(n + 1);
  size_t edges = 0;
  for (const GraphNode &g : body.nodes) {
    for (uint32_t d : g.deps) ++first[d + 1];
    edges += g.deps.size();
  }
  for (uint32_t i = 0; i < n; ++i) first[i + 1] += first[i];
  program->succs.resize(edges);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t d : body.nodes[i].deps) program->succs[first[d]++] = i;
  // Each first[d] has moved to the end of d's range, which is where d + 1's begins.
  program->nodes.resize(n);
  program->topLevel.resize(n);
  for (uint32_t k = 0; k < n; ++k) {
    const GraphNode &g = body.nodes[k];
    Node &node = program->nodes[k];
    node.kind = g.kind;
    node.cmd = g.cmd;
    if (!g.futures.empty()) node.futures = g.futures;
    node.pinned = g.device;
    node.number = k;
    node.numPreds = static_cast<uint32_t>(g.deps.size());  // deps hold no duplicates
    node.firstSucc = k == 0 ? 0 : first[k - 1];
    node.numSuccs = first[k] - node.firstSucc;
    if (node.numPreds == 0) program->roots.push_back(k);
    program->topLevel[k] = k;
    program->noteCommand(node);
  }
  return program;
}

std::shared_ptr<GraphProgram> GraphProgram::flatten(const GraphBody &body) {
  if (inOrderWithoutChildren(body)) return flattenInOrder(body);
  Flat flat;
  flat.nodes.reserve(body.nodes.size());
  flat.edges.reserve(body.nodes.size());
  std::vector<uint32_t> top = flattenInto(body, ~0u, nullptr, flat);
  auto n = static_cast<uint32_t>(flat.nodes.size());
  // Successors of each node as ranges of one array (counting sort of the edges by source).
  std::vector<uint32_t> first(n + 1), unmet(n), succs(flat.edges.size());
  for (auto [from, to] : flat.edges) ++first[from + 1], ++unmet[to];
  for (uint32_t i = 0; i < n; ++i) first[i + 1] += first[i];
  {
    std::vector<uint32_t> at(first.begin(), first.end() - 1);
    for (auto [from, to] : flat.edges) succs[at[from]++] = to;
  }
  // Kahn's algorithm: a node goes once every predecessor has.
  std::vector<uint32_t> order;
  order.reserve(n);
  std::vector<uint32_t> preds(unmet);
  for (uint32_t i = 0; i < n; ++i)
    if (unmet[i] == 0) order.push_back(i);
  for (size_t k = 0; k < order.size(); ++k)
    for (uint32_t e = first[order[k]]; e < first[order[k] + 1]; ++e)
      if (--unmet[succs[e]] == 0) order.push_back(succs[e]);
  auto program = std::make_shared<GraphProgram>();
  if (order.size() != n) {
    uint32_t stuck = 0;
    while (unmet[stuck] == 0) ++stuck;
    program->nodes = std::move(flat.nodes);
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "the graph has a cycle through node {}: a node cannot run after itself; remove one of "
         "the cycle's edges",
         program->name(stuck));
  }
  std::vector<uint32_t> position(n);
  for (uint32_t k = 0; k < n; ++k) position[order[k]] = k;
  program->nodes.resize(n);
  program->succs.reserve(succs.size());
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t i = order[k];
    GraphProgram::Node &node = program->nodes[k];
    node = std::move(flat.nodes[i]);
    if (node.parent != ~0u) node.parent = position[node.parent];
    node.numPreds = preds[i];
    node.firstSucc = static_cast<uint32_t>(program->succs.size());
    node.numSuccs = first[i + 1] - first[i];
    for (uint32_t e = first[i]; e < first[i + 1]; ++e) program->succs.push_back(position[succs[e]]);
    if (node.numPreds == 0) program->roots.push_back(k);
    program->noteCommand(node);
  }
  program->topLevel.reserve(top.size());
  for (uint32_t t : top) program->topLevel.push_back(position[t]);
  return program;
}

// ---- GraphExec --------------------------------------------------------------------------

Ref<Event> GraphExec::exchangeLastLaunch(const Ref<Event> &next) {
  std::lock_guard lock(mutex_);
  Ref<Event> last = std::exchange(lastLaunch_, next);
  return last && !last->isDone() ? last : nullptr;
}

void GraphExec::replaceProgram(std::shared_ptr<const GraphProgram> program) {
  // The lowering first: if it refuses the change, the program stays as it was.
  programChanged(*program);
  std::lock_guard lock(mutex_);
  program_ = std::move(program);
}

void GraphExec::rebindView(MemoryView &from, MemoryView &to) {
  if (to.size() != from.size())
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "rebinding a view of {} bytes to one of {} bytes: the graph's copies, fills and "
         "launches were checked against the first size; rebind to a view of the same size",
         from.size(), to.size());
  if (to.type() != from.type())
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "rebinding a view of allocation type {} to one of type {}: rebind to a view of the same "
         "type",
         static_cast<int>(from.type()), static_cast<int>(to.type()));
  std::lock_guard update(updateMutex_);
  auto program = std::make_shared<GraphProgram>(*this->program());
  bool used = false;
  auto rebind = [&](MemoryRef &ref) {
    if (ref.view.get() != &from) return false;
    ref.view = Ref<MemoryView>(&to);
    used = true;
    return true;
  };
  for (uint32_t k = 0; k < program->nodes.size(); ++k) {
    GraphProgram::Node &node = program->nodes[k];
    if (node.kind != GraphNode::Kind::Command) continue;
    Command cmd = *node.cmd;
    bool changed = rebind(cmd.dst) | rebind(cmd.src);
    if (cmd.accesses) {
      auto accesses = std::make_shared<std::vector<MemoryRef>>(*cmd.accesses);
      bool any = false;
      for (MemoryRef &r : *accesses) any |= rebind(r);
      if (any) cmd.accesses = std::move(accesses);
      changed |= any;
    }
    if (cmd.args) {
      auto args = std::make_shared<KernelArgs>(*cmd.args);
      bool any = false;
      for (KernelArgs::ViewArg &v : args->views) any |= rebind(v.ref);
      if (any) cmd.args = std::move(args);
      changed |= any;
    }
    if (!changed) continue;
    checkRebound(k, cmd);
    node.cmd = std::make_shared<const Command>(std::move(cmd));
  }
  if (!used)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "rebinding a view that no node of the graph uses: name a view the graph was built with "
         "(or last rebound to)");
  replaceProgram(std::move(program));
}

void GraphExec::setKernelArg(uint32_t node, uint32_t index, const CommandBuilder::ArgInput &arg) {
  std::lock_guard update(updateMutex_);
  std::shared_ptr<const GraphProgram> current = program();
  if (node >= current->topLevel.size())
    fail(XPURT_ERROR_INVALID_ARGUMENT, "node {} is not a node of the graph: it has {} nodes", node,
         current->topLevel.size());
  const GraphProgram::Node &target = current->nodes[current->topLevel[node]];
  if (target.kind != GraphNode::Kind::Command || target.cmd->type != Command::Type::LaunchKernel)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "node {} is not a general launch (xpurtGraphAddLaunchKernel): only those have "
         "arguments to set; rebind a task launch's params view with xpurtGraphExecRebindView",
         node);
  const Command &cmd = *target.cmd;
  const KernelArgs &args = *cmd.args;
  if (index >= args.args.size())
    fail(XPURT_ERROR_INVALID_ARGUMENT, "node {} launches '{}' with {} arguments; there is no {}",
         node, cmd.kernel->name(), args.args.size(), index);
  // The launch's arguments as they were given, with the one replaced; built and checked anew.
  std::vector<CommandBuilder::ArgInput> inputs;
  for (uint32_t i = 0; i < args.args.size(); ++i) {
    const KernelArgs::Arg &a = args.args[i];
    CommandBuilder::ArgInput in{a.kind,  a.size, args.data.data() + a.offset,
                                nullptr, 0,      XPURT_ACCESS_READ_WRITE};
    if (a.kind == XPURT_KERNEL_ARG_LOCAL)
      std::memcpy(&in.size, args.data.data() + a.offset, sizeof(uint64_t));
    for (const KernelArgs::ViewArg &v : args.views)
      if (v.index == i)
        in = {a.kind, v.ref.size, nullptr, v.ref.view.get(), v.ref.offset, v.ref.access};
    inputs.push_back(in);
  }
  inputs[index] = arg;
  const NDRange &r = cmd.range;
  size_t offset[3], global[3], local[3];
  for (int d = 0; d < 3; ++d)
    offset[d] = r.globalOffset[d], global[d] = r.globalSize[d], local[d] = r.localSize[d];
  // Built as the node was, by its kernel's device, then checked where the node runs.
  CommandBuilder builder(Ref<Device>(&cmd.kernel->module().device()), XPURT_ENGINE_ANY);
  Command rebuilt = builder.launchKernel(*cmd.kernel, inputs, r.workDim, offset, global, local);
  auto program = std::make_shared<GraphProgram>(*current);
  Command updated = cmd;
  updated.args = std::move(rebuilt.args);
  checkRebound(current->topLevel[node], updated);
  program->nodes[current->topLevel[node]].cmd = std::make_shared<const Command>(std::move(updated));
  replaceProgram(std::move(program));
}

void GraphExec::checkRebound(uint32_t node, const Command &cmd) const {
  (void)node;
  CommandBuilder(device_, XPURT_ENGINE_ANY).checkCommand(cmd, "rebinding");
}

// ---- instantiation ----------------------------------------------------------------------

Ref<GraphExec> Device::lowerGraph(std::shared_ptr<const GraphProgram> program) {
  return makeRef<GraphExec>(Ref<Device>(this), std::move(program));
}

Ref<GraphExec> instantiateGraph(const Graph &graph, Device &device) {
  std::shared_ptr<GraphProgram> program = GraphProgram::flatten(*graph.snapshot());
  if (program->usesCoherent) {
    std::vector<Ref<Device>> devices{Ref<Device>(&device)};
    return instantiateAcrossDevices(std::move(program), devices);
  }
  CommandBuilder builder(Ref<Device>(&device), XPURT_ENGINE_ANY);
  for (uint32_t k = 0; k < program->nodes.size(); ++k) {
    const GraphProgram::Node &node = program->nodes[k];
    if (node.pinned && node.pinned.get() != &device)
      fail(XPURT_ERROR_INVALID_ARGUMENT,
           "node {} ({}) is pinned to {}, but the graph is instantiated for {} alone; instantiate "
           "it for both (xpurtGraphInstantiateOnDevices), or unpin the node",
           program->name(k), program->description(k), node.pinned->label(), device.label());
    if (node.kind != GraphNode::Kind::Command) continue;
    try {
      builder.checkCommand(*node.cmd, "");
    } catch (const Error &e) {
      fail(e.code(), "node {} ({}){}", program->name(k), program->description(k), e.what());
    }
  }
  return device.lowerGraph(std::move(program));
}

}  // namespace xpurt::core
