// Executable graphs. Instantiation checks every node against the device, flattens child
// graphs and sorts the nodes (GraphProgram), then lets the device lower the program
// (Device::lowerGraph): the CPU runs it as a DAG of dependency counters; a device that
// has no lowering of its own gets the GraphExec here, whose launches the queue submits node by
// node. Rebinding makes a new program, so a launch already made keeps the bindings it had.
#pragma once

#include "command_builder.hpp"
#include "graph.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace xpurt::core {

// A graph flattened for execution: nodes in an order where each comes after its predecessors,
// successors as ranges of one array, child graphs replaced by their nodes between an entry
// and an exit node.
struct GraphProgram {
  struct Node {
    GraphNode::Kind kind = GraphNode::Kind::Empty;  // Command, Empty or Wait
    std::shared_ptr<const Command> cmd;             // Command
    std::vector<Ref<Event>> futures;                // Wait
    uint32_t numPreds = 0;
    uint32_t firstSucc = 0;  // into succs
    uint32_t numSuccs = 0;
    uint32_t number = 0;    // in the graph the node was added to
    uint32_t parent = ~0u;  // inside a child graph: the child's entry node
    Ref<Device> pinned;     // GraphNode::device
  };
  std::vector<Node> nodes;
  std::vector<uint32_t> succs;
  std::vector<uint32_t> roots;     // nodes without predecessors
  std::vector<uint32_t> topLevel;  // a node of the instantiated graph -> its index in nodes
  bool hasLaunches = false;
  bool usesCoherent = false;  // some node uses a COHERENT memory view

  std::span<const uint32_t> successors(uint32_t node) const {
    return {succs.data() + nodes[node].firstSucc, nodes[node].numSuccs};
  }
  // Each node's predecessors, for lowerings that walk the graph backwards.
  std::vector<std::vector<uint32_t>> predecessors() const {
    std::vector<std::vector<uint32_t>> preds(nodes.size());
    for (uint32_t k = 0; k < nodes.size(); ++k)
      for (uint32_t s : successors(k)) preds[s].push_back(k);
    return preds;
  }
  // The first ancestor of node (by preds) for which match holds, searching depth first.
  template <class Match>
  static std::optional<uint32_t> findAncestor(const std::vector<std::vector<uint32_t>> &preds,
                                              uint32_t node, Match match) {
    std::vector<uint8_t> seen(preds.size());
    std::vector<uint32_t> stack(preds[node]);
    while (!stack.empty()) {
      uint32_t k = stack.back();
      stack.pop_back();
      if (seen[k]) continue;
      seen[k] = 1;
      if (match(k)) return k;
      stack.insert(stack.end(), preds[k].begin(), preds[k].end());
    }
    return std::nullopt;
  }
  // The node as its graphs numbered it, for messages: "3", or "5.2" inside child graph 5.
  std::string name(uint32_t node) const;
  // What the node does, for messages: "kernel 'k'", "an empty node".
  std::string description(uint32_t node) const;
  // INVALID_ARGUMENT naming a node of the cycle if the graph has one.
  static std::shared_ptr<GraphProgram> flatten(const GraphBody &body);

 private:
  // flatten's way for a graph without child graphs whose nodes come after their dependencies.
  static std::shared_ptr<GraphProgram> flattenInOrder(const GraphBody &body);
  // Sets hasLaunches and usesCoherent for a node of the program.
  void noteCommand(const Node &node);
};

class GraphExec : public Object {
 public:
  static constexpr ObjectKind kKind = ObjectKind::GraphExec;
  GraphExec(Ref<Device> device, std::shared_ptr<const GraphProgram> program)
      : Object(kKind), device_(std::move(device)), program_(std::move(program)) {}

  // The device it was instantiated for (the first, for several).
  Device &device() const { return *device_; }
  // Whether a queue of `device` may launch it.
  virtual bool runsOn(const Device &device) const { return &device == device_.get(); }
  // The device node (a node of the instantiated graph) runs on.
  virtual Device &deviceOfNode(uint32_t node) const {
    (void)node;
    return *device_;
  }
  // The program as bound now.
  std::shared_ptr<const GraphProgram> program() const {
    std::lock_guard lock(mutex_);
    return program_;
  }
  // Whether launches run the whole program as one command (Command::Type::Graph) that the
  // device's queues run; otherwise the queue submits the nodes as commands.
  virtual bool runsAsOneCommand() const { return false; }
  // The event of the launch before (null if none or complete): each launch of one executable
  // graph runs after the one before it, from whatever queue.
  Ref<Event> exchangeLastLaunch(const Ref<Event> &next);
  // Held from exchangeLastLaunch until the launch is submitted: a lowering that queues each
  // launch's work on queues of its own gets the launches in the order they follow each other.
  std::mutex &launchMutex() { return launchMutex_; }

  // Every use of `from` by the graph's nodes becomes a use of `to` (same size and type) for
  // later launches. INVALID_ARGUMENT if the graph does not use `from`.
  void rebindView(MemoryView &from, MemoryView &to);
  // Argument `index` of general launch `node` (a node of the instantiated graph) becomes arg,
  // checked against the kernel's signature, for later launches.
  void setKernelArg(uint32_t node, uint32_t index, const CommandBuilder::ArgInput &arg);

 protected:
  // A new binding, for lowerings that keep the program in a form of their own.
  virtual void programChanged(const GraphProgram &program) { (void)program; }
  // Throws if the rebound command of program node `node` cannot run where the node runs.
  virtual void checkRebound(uint32_t node, const Command &cmd) const;

 private:
  void replaceProgram(std::shared_ptr<const GraphProgram> program);

  Ref<Device> device_;
  std::mutex launchMutex_;
  std::mutex updateMutex_;  // one rebinding at a time: each starts from the last one's program
  mutable std::mutex mutex_;
  std::shared_ptr<const GraphProgram> program_;
  Ref<Event> lastLaunch_;
};

// Whether the command uses a COHERENT memory view.
bool usesCoherentView(const Command &cmd);

// Checks every node of graph for device, flattens it and has the device lower it; a graph on
// COHERENT views runs as one across devices does (graph_across_devices.hpp), on one.
Ref<GraphExec> instantiateGraph(const Graph &graph, Device &device);

}  // namespace xpurt::core
