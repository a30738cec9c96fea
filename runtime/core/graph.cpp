#include "graph.hpp"

#include "error.hpp"

#include <algorithm>
#include <iterator>

namespace xpurt::core {

std::string GraphNode::description() const {
  switch (kind) {
    case Kind::Command:
      return cmd->description();
    case Kind::Empty:
      return "an empty node";
    case Kind::Wait:
      return fmt::format("a wait for {} future{}", futures.size(), futures.size() == 1 ? "" : "s");
    case Kind::Child:
      return fmt::format("a graph of {} node{}", child->nodes.size(),
                         child->nodes.size() == 1 ? "" : "s");
  }
  return "a node";
}

// ---- NodeHazards ----------------------------------------------------------------------

static void addOnce(std::vector<uint32_t> &deps, uint32_t node) {
  if (std::find(deps.begin(), deps.end(), node) == deps.end()) deps.push_back(node);
}

void NodeHazards::addDeclared(std::span<const MemoryUse> uses, uint32_t node,
                              std::vector<uint32_t> &deps) {
  if (fence_ != kNone) addOnce(deps, fence_);
  for (const MemoryUse &use : uses)
    for (const Record &r : records_)
      if (use.begin < r.use.end && r.use.begin < use.end && (use.write || r.use.write))
        addOnce(deps, r.node);
  // A record that a new write covers whole can order nothing more: whatever would conflict
  // with it conflicts with the write, which comes after it.
  for (const MemoryUse &use : uses)
    if (use.write && use.begin < use.end)
      std::erase_if(records_, [&](const Record &r) {
        return r.node != node && use.begin <= r.use.begin && r.use.end <= use.end;
      });
  for (const MemoryUse &use : uses)
    if (use.begin < use.end) records_.push_back({use, node});
  if (withFences_) sinceFence_.push_back(node);
}

void NodeHazards::addFence(uint32_t node, std::vector<uint32_t> &deps) {
  if (fence_ != kNone) addOnce(deps, fence_);
  for (uint32_t n : sinceFence_) addOnce(deps, n);
  records_.clear();
  sinceFence_.clear();
  fence_ = node;
}

// ---- Graph ----------------------------------------------------------------------------

GraphBody &Graph::writable() {
  // Snapshots only ever drop their references without the mutex, so a count of one cannot
  // grow behind our back: the body is ours to change.
  if (body_.use_count() > 1) body_ = std::make_shared<GraphBody>(*body_);
  return *body_;
}

// The message for a dependency d that names no node of a graph of count nodes.
static std::string unknownDependency(uint32_t d, uint32_t count) {
  if (d & Graph::kCallNode)
    return fmt::format(
        "dependency XPURT_GRAPH_BATCH_NODE({}) names a node of a call to xpurtGraphAddNodes, "
        "which only that call's later nodes may name; name it by the number the call gave it",
        d & ~Graph::kCallNode);
  return fmt::format(
      "dependency {} is not a node of the graph: it has {} node{} (numbered from 0 in the order "
      "they were added)",
      d, count, count == 1 ? "" : "s");
}

void Graph::checkDeps(std::span<const uint32_t> deps, uint32_t count) const {
  for (uint32_t d : deps)
    if (d >= count) fail(XPURT_ERROR_INVALID_ARGUMENT, "{}", unknownDependency(d, count));
}

// Drops repeated entries of deps, keeping the first of each.
static void dropRepeats(std::vector<uint32_t> &deps) {
  auto end = deps.begin();
  for (auto it = deps.begin(); it != deps.end(); ++it)
    if (std::find(deps.begin(), end, *it) == end) *end++ = *it;
  deps.erase(end, deps.end());
}

uint32_t Graph::add(GraphNode &&node, std::span<const uint32_t> deps) {
  std::lock_guard lock(mutex_);
  uint32_t id = static_cast<uint32_t>(body_->nodes.size());
  checkDeps(deps, id);
  node.deps.assign(deps.begin(), deps.end());
  dropRepeats(node.deps);
  if (!node.uses.empty()) hazards_.addDeclared(node.uses, id, node.deps);
  writable().nodes.push_back(std::move(node));
  return id;
}

uint32_t Graph::addAll(std::vector<GraphNode> &&nodes) {
  std::lock_guard lock(mutex_);
  auto first = static_cast<uint32_t>(body_->nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    for (uint32_t &d : nodes[i].deps) {
      uint32_t own = d & ~kCallNode;
      if ((d & kCallNode) && own < i) {
        d = first + own;
        continue;
      }
      if (d & kCallNode)
        fail(XPURT_ERROR_INVALID_ARGUMENT,
             "nodes[{}]: dependency XPURT_GRAPH_BATCH_NODE({}) is not a node before it in the "
             "call; a node may run after the call's earlier nodes only",
             i, own);
      if (d >= first)
        fail(XPURT_ERROR_INVALID_ARGUMENT,
             "nodes[{}]: {}; name a node of this call with "
             "XPURT_GRAPH_BATCH_NODE(i)",
             i, unknownDependency(d, first));
    }
  for (size_t i = 0; i < nodes.size(); ++i) {
    GraphNode &node = nodes[i];
    dropRepeats(node.deps);
    if (!node.uses.empty())
      hazards_.addDeclared(node.uses, first + static_cast<uint32_t>(i), node.deps);
  }
  GraphBody &body = writable();
  if (body.nodes.empty()) {  // the graph's first nodes: the list itself
    body.nodes = std::move(nodes);
    return first;
  }
  // Grown as push_back grows it, so that many small calls stay linear.
  size_t needed = first + nodes.size();
  if (body.nodes.capacity() < needed)
    body.nodes.reserve(std::max(needed, 2 * body.nodes.capacity()));
  std::move(nodes.begin(), nodes.end(), std::back_inserter(body.nodes));
  return first;
}

uint32_t Graph::addWithDependencies(GraphNode &&node, std::vector<uint32_t> deps) {
  std::lock_guard lock(mutex_);
  uint32_t id = static_cast<uint32_t>(body_->nodes.size());
  checkDeps(deps, id);
  node.deps = std::move(deps);
  writable().nodes.push_back(std::move(node));
  return id;
}

void Graph::addDependencies(std::span<const uint32_t> from, std::span<const uint32_t> to) {
  std::lock_guard lock(mutex_);
  uint32_t count = static_cast<uint32_t>(body_->nodes.size());
  checkDeps(from, count);
  checkDeps(to, count);
  // Successor lists of the graph with the new edges, to look for a path back.
  std::vector<std::vector<uint32_t>> succs(count);
  for (uint32_t n = 0; n < count; ++n)
    for (uint32_t d : body_->nodes[n].deps) succs[d].push_back(n);
  for (size_t i = 0; i < from.size(); ++i) succs[from[i]].push_back(to[i]);
  for (size_t i = 0; i < from.size(); ++i) {
    // A cycle through the edge: from[i] reachable from to[i].
    std::vector<uint8_t> seen(count);
    std::vector<uint32_t> stack{to[i]};
    while (!stack.empty()) {
      uint32_t n = stack.back();
      stack.pop_back();
      if (n == from[i])
        fail(XPURT_ERROR_INVALID_ARGUMENT,
             "the edge from node {} to node {} closes a cycle: node {} already runs after node "
             "{}. A graph must be acyclic; no edge was added",
             from[i], to[i], from[i], to[i]);
      if (seen[n]) continue;
      seen[n] = 1;
      for (uint32_t s : succs[n]) stack.push_back(s);
    }
  }
  GraphBody &body = writable();
  for (size_t i = 0; i < from.size(); ++i) addOnce(body.nodes[to[i]].deps, from[i]);
}

void Graph::pin(uint32_t node, Ref<Device> device) {
  std::lock_guard lock(mutex_);
  uint32_t count = static_cast<uint32_t>(body_->nodes.size());
  if (node >= count)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "node {} is not a node of the graph: it has {} node{} (numbered from 0 in the order they "
         "were added)",
         node, count, count == 1 ? "" : "s");
  writable().nodes[node].device = std::move(device);
}

std::shared_ptr<const GraphBody> Graph::snapshot() const {
  std::lock_guard lock(mutex_);
  return body_;
}

uint32_t Graph::nodeCount() const {
  std::lock_guard lock(mutex_);
  return static_cast<uint32_t>(body_->nodes.size());
}

static std::string dotQuoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Writes the nodes of body as DOT statements, named prefix + number; returns the names a
// node's successors connect to (a child graph: its last nodes) and from (its first nodes).
static void writeDot(const GraphBody &body, const std::string &prefix, std::string &out,
                     int depth) {
  std::string indent(2 * depth, ' ');
  for (size_t n = 0; n < body.nodes.size(); ++n) {
    const GraphNode &node = body.nodes[n];
    std::string name = prefix + std::to_string(n);
    if (node.kind == GraphNode::Kind::Child) {
      out += fmt::format("{}subgraph cluster_{} {{\n{}  label={};\n", indent, name, indent,
                         dotQuoted(fmt::format("{}: {}", n, node.description())));
      // An invisible point stands for the child graph in edges.
      out += fmt::format("{}  {} [shape=point];\n", indent, name);
      writeDot(*node.child, name + "_", out, depth + 1);
      for (size_t c = 0; c < node.child->nodes.size(); ++c)
        if (node.child->nodes[c].deps.empty())
          out += fmt::format("{}  {} -> {}_{} [style=dotted];\n", indent, name, name, c);
      out += indent + "}\n";
    } else {
      const char *shape = node.kind == GraphNode::Kind::Command ? "box" : "ellipse";
      out += fmt::format("{}{} [shape={}, label={}];\n", indent, name, shape,
                         dotQuoted(fmt::format("{}: {}", n, node.description())));
    }
    for (uint32_t d : node.deps) out += fmt::format("{}{}{} -> {};\n", indent, prefix, d, name);
  }
}

std::string Graph::dot() const {
  std::shared_ptr<const GraphBody> body = snapshot();
  std::string out = "digraph xpurt_graph {\n";
  writeDot(*body, "n", out, 1);
  return out + "}\n";
}

}  // namespace xpurt::core
