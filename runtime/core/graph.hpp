// Graphs: commands recorded once with the dependencies between them. A Graph is a list of
// nodes, each checked when it is added (the CommandBuilder's checks) and ordered after its
// explicit dependencies and after the earlier nodes whose declared memory it conflicts with.
// Instantiating it for a device flattens it (GraphProgram, graph_exec.hpp) and hands it to the
// device's lowering (GraphExec); instantiating it for several devices places each node on one
// of them (graph_across_devices.hpp). Nodes are numbered in the order they were added.
#pragma once

#include "command.hpp"

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace xpurt::core {

struct GraphBody;

struct GraphNode {
  enum class Kind : uint8_t { Command, Empty, Wait, Child };
  Kind kind = Kind::Empty;
  // Command: checked, without waits or event; shared by the graph's copies and programs.
  std::shared_ptr<const Command> cmd;
  std::vector<Ref<Event>> futures;         // Wait: what it waits for
  std::shared_ptr<const GraphBody> child;  // Child: the graph as it was when added
  std::vector<uint32_t> deps;              // nodes it runs after (no duplicates)
  std::vector<MemoryUse> uses;             // what it declares (a child graph: all of its nodes')
  // Where it runs in a graph instantiated for several devices (null: where the runtime
  // places it; graph_across_devices.hpp).
  Ref<Device> device;
  // What the node is, for messages and DOT: "kernel 'saxpy'", "a copy of 64 bytes".
  std::string description() const;
};

struct GraphBody {
  std::vector<GraphNode> nodes;
};

// Orders nodes by the memory they declare: read after write, write after read and write after
// write on overlapping bytes. With fences (capture from an out-of-order queue), a node that
// declares nothing orders against every node before it, as in the queue's HazardTracker.
class NodeHazards {
 public:
  explicit NodeHazards(bool withFences = false) : withFences_(withFences) {}
  // Appends to deps the earlier nodes the uses conflict with (and the last fence); records them.
  void addDeclared(std::span<const MemoryUse> uses, uint32_t node, std::vector<uint32_t> &deps);
  // A fence: depends on every node since the last fence, and every later node on it.
  void addFence(uint32_t node, std::vector<uint32_t> &deps);

 private:
  struct Record {
    MemoryUse use;
    uint32_t node;
  };
  static constexpr uint32_t kNone = ~0u;
  std::vector<Record> records_;
  std::vector<uint32_t> sinceFence_;  // every node since the fence (for the next fence)
  uint32_t fence_ = kNone;
  bool withFences_;
};

class Graph : public Object {
 public:
  static constexpr ObjectKind kKind = ObjectKind::Graph;
  Graph() : Object(kKind), body_(std::make_shared<GraphBody>()) {}

  // Adds the node after deps (each an earlier node; INVALID_ARGUMENT otherwise) and after the
  // earlier nodes its declared memory conflicts with. Returns its number.
  uint32_t add(GraphNode &&node, std::span<const uint32_t> deps);
  // A dependency of a node of addAll on the node at this index of the same call, or'd in.
  static constexpr uint32_t kCallNode = 0x80000000u;
  // Adds nodes in order, as add would one by one, numbered from the number it returns. Each
  // node's deps are earlier nodes of the graph, or kCallNode | i for nodes[i] (i before the
  // node). Nothing is added if a dependency is wrong (INVALID_ARGUMENT naming nodes[i]).
  uint32_t addAll(std::vector<GraphNode> &&nodes);
  // As add, with exactly the dependencies given (capture computes its own).
  uint32_t addWithDependencies(GraphNode &&node, std::vector<uint32_t> deps);
  // Edges from[i] -> to[i]; INVALID_ARGUMENT for an unknown node or an edge that closes a
  // cycle (nothing is added then).
  void addDependencies(std::span<const uint32_t> from, std::span<const uint32_t> to);
  // The nodes as they are now; later changes do not touch it.
  std::shared_ptr<const GraphBody> snapshot() const;
  uint32_t nodeCount() const;
  // Pins node to device (null: unpins it). INVALID_ARGUMENT for an unknown node.
  void pin(uint32_t node, Ref<Device> device);
  // The graph in Graphviz's DOT language: a node per node, labelled with its number and what
  // it does, an edge per dependency; a child graph is a cluster.
  std::string dot() const;

 private:
  GraphBody &writable();  // body_, copied first if a snapshot shares it
  void checkDeps(std::span<const uint32_t> deps, uint32_t count) const;

  mutable std::mutex mutex_;
  std::shared_ptr<GraphBody> body_;
  NodeHazards hazards_;
};

}  // namespace xpurt::core
