#include "graph_exec.hpp"

#include "error.hpp"

#include <algorithm>

namespace xpurt::core {

// ---- flattening -------------------------------------------------------------------------

namespace {

struct FlatNode {
  GraphProgram::Node node;
  std::vector<uint32_t> preds;
};

// Appends the nodes of body to out; a node without dependencies gets rootPred (if any) as
// its predecessor. Returns, for each node of body, the flat node its successors follow.
std::vector<uint32_t> flattenInto(const GraphBody &body, const std::string &prefix,
                                  const uint32_t *rootPred, std::vector<FlatNode> &out) {
  std::vector<uint32_t> exitOf(body.nodes.size(), ~0u);
  // A dependency added later may point forward (Graph::addDependencies): number every node
  // first, then connect.
  std::vector<uint32_t> entryOf(body.nodes.size());
  for (size_t i = 0; i < body.nodes.size(); ++i) {
    const GraphNode &g = body.nodes[i];
    std::string name = prefix + std::to_string(i);
    FlatNode f;
    f.node.kind = g.kind == GraphNode::Kind::Child ? GraphNode::Kind::Empty : g.kind;
    f.node.cmd = g.cmd;
    f.node.futures = g.futures;
    f.node.name = name;
    entryOf[i] = static_cast<uint32_t>(out.size());
    out.push_back(std::move(f));
    if (g.kind != GraphNode::Kind::Child) {
      exitOf[i] = entryOf[i];
      continue;
    }
    // A child graph: its entry node (this one), its nodes, and an exit node after its leaves.
    uint32_t entry = entryOf[i];
    std::vector<uint32_t> inner = flattenInto(*g.child, name + ".", &entry, out);
    std::vector<uint8_t> hasSucc(g.child->nodes.size());
    for (const GraphNode &c : g.child->nodes)
      for (uint32_t d : c.deps) hasSucc[d] = 1;
    FlatNode exit;
    exit.node.kind = GraphNode::Kind::Empty;
    exit.node.name = name;
    exit.preds.push_back(entry);
    for (size_t c = 0; c < inner.size(); ++c)
      if (!hasSucc[c]) exit.preds.push_back(inner[c]);
    exitOf[i] = static_cast<uint32_t>(out.size());
    out.push_back(std::move(exit));
  }
  for (size_t i = 0; i < body.nodes.size(); ++i) {
    std::vector<uint32_t> &preds = out[entryOf[i]].preds;
    for (uint32_t d : body.nodes[i].deps) preds.push_back(exitOf[d]);
    if (body.nodes[i].deps.empty() && rootPred) preds.push_back(*rootPred);
  }
  return exitOf;
}

}  // namespace

std::shared_ptr<GraphProgram> GraphProgram::flatten(const GraphBody &body) {
  std::vector<FlatNode> flat;
  std::vector<uint32_t> top = flattenInto(body, "", nullptr, flat);
  size_t n = flat.size();
  // Kahn's algorithm: a node goes once every predecessor has.
  std::vector<uint32_t> unmet(n);
  std::vector<std::vector<uint32_t>> succs(n);
  for (uint32_t i = 0; i < n; ++i) {
    unmet[i] = static_cast<uint32_t>(flat[i].preds.size());
    for (uint32_t p : flat[i].preds) succs[p].push_back(i);
  }
  std::vector<uint32_t> order;
  order.reserve(n);
  for (uint32_t i = 0; i < n; ++i)
    if (unmet[i] == 0) order.push_back(i);
  for (size_t k = 0; k < order.size(); ++k)
    for (uint32_t s : succs[order[k]])
      if (--unmet[s] == 0) order.push_back(s);
  if (order.size() != n) {
    uint32_t stuck = 0;
    while (unmet[stuck] == 0) ++stuck;
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "the graph has a cycle through node {}: a node cannot run after itself; remove one of "
         "the cycle's edges",
         flat[stuck].node.name);
  }
  std::vector<uint32_t> position(n);
  for (uint32_t k = 0; k < n; ++k) position[order[k]] = k;

  auto program = std::make_shared<GraphProgram>();
  program->nodes.reserve(n);
  for (uint32_t k = 0; k < n; ++k) {
    FlatNode &f = flat[order[k]];
    f.node.numPreds = static_cast<uint32_t>(f.preds.size());
    f.node.firstSucc = static_cast<uint32_t>(program->succs.size());
    f.node.numSuccs = static_cast<uint32_t>(succs[order[k]].size());
    for (uint32_t s : succs[order[k]]) program->succs.push_back(position[s]);
    if (f.node.numPreds == 0) program->roots.push_back(k);
    if (f.node.kind == GraphNode::Kind::Command && f.node.cmd.isLaunch())
      program->hasLaunches = true;
    program->nodes.push_back(std::move(f.node));
  }
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
  {
    std::lock_guard lock(mutex_);
    program_ = program;
  }
  programChanged(*program);
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
  auto program = std::make_shared<GraphProgram>(*this->program());
  CommandBuilder builder(device_, XPURT_ENGINE_ANY);
  bool used = false;
  auto rebind = [&](MemoryRef &ref) {
    if (ref.view.get() != &from) return false;
    ref.view = Ref<MemoryView>(&to);
    used = true;
    return true;
  };
  for (GraphProgram::Node &node : program->nodes) {
    Command &cmd = node.cmd;
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
    if (changed) builder.checkCommand(cmd, "rebinding a view");
  }
  if (!used)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "rebinding a view that no node of the graph uses: name a view the graph was built with "
         "(or last rebound to)");
  replaceProgram(std::move(program));
}

void GraphExec::setKernelArg(uint32_t node, uint32_t index, const CommandBuilder::ArgInput &arg) {
  std::shared_ptr<const GraphProgram> current = program();
  if (node >= current->topLevel.size())
    fail(XPURT_ERROR_INVALID_ARGUMENT, "node {} is not a node of the graph: it has {} nodes", node,
         current->topLevel.size());
  const Command &cmd = current->nodes[current->topLevel[node]].cmd;
  if (current->nodes[current->topLevel[node]].kind != GraphNode::Kind::Command ||
      cmd.type != Command::Type::LaunchKernel)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "node {} is not a general launch (xpurtGraphAddLaunchKernel): only those have "
         "arguments to set; rebind a task launch's params view with xpurtGraphExecRebindView",
         node);
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
  CommandBuilder builder(device_, XPURT_ENGINE_ANY);
  Command rebuilt = builder.launchKernel(*cmd.kernel, inputs, r.workDim, offset, global, local);
  auto program = std::make_shared<GraphProgram>(*current);
  program->nodes[current->topLevel[node]].cmd.args = std::move(rebuilt.args);
  replaceProgram(std::move(program));
}

// ---- instantiation ----------------------------------------------------------------------

Ref<GraphExec> Device::lowerGraph(std::shared_ptr<const GraphProgram> program) {
  return makeRef<GraphExec>(Ref<Device>(this), std::move(program));
}

Ref<GraphExec> instantiateGraph(const Graph &graph, Device &device) {
  std::shared_ptr<GraphProgram> program = GraphProgram::flatten(*graph.snapshot());
  CommandBuilder builder(Ref<Device>(&device), XPURT_ENGINE_ANY);
  for (const GraphProgram::Node &node : program->nodes) {
    if (node.kind != GraphNode::Kind::Command) continue;
    std::string what = fmt::format("node {} ({})", node.name, node.cmd.description());
    builder.checkCommand(node.cmd, what.c_str());
  }
  return device.lowerGraph(std::move(program));
}

}  // namespace xpurt::core
