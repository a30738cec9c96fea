// Graphs across devices. An executable graph made for several devices (or for one, when the
// graph uses COHERENT memory views) runs each node on one of them: where the node is pinned
// (Graph::pin), else where the placement (graph_placement.hpp) expects it to finish first,
// from what its kernel cost on each device before (kernel_time_model.hpp) and where the
// COHERENT data it reads is up to date. A launch kernel moves by loading its module's SPIR-V
// on the node's device (Module::loadedOn); a node on memory of one device runs there.
//
// A launch submits the nodes in order, each to an in-order queue of its device that the
// executable graph owns, after its predecessors' events (waits across devices where they are
// on others); COHERENT views get their copies as on any queue (TaskQueue::submitCoherent), so
// the transfers between devices are the runtime's. Every launch measures its kernels and
// teaches the time model, which the next instantiation places by.
#pragma once

#include "graph_exec.hpp"
#include "kernel_time_model.hpp"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace xpurt::core {

class TaskQueue;

class DevicesGraphExec : public GraphExec {
 public:
  // What a launch runs: the program, each node's device (an index into devices()) and each
  // command node's command with its kernel loaded on that device.
  struct Binding {
    std::shared_ptr<const GraphProgram> program;
    std::vector<uint32_t> placement;
    std::vector<std::shared_ptr<const Command>> commands;
  };

  // placement, kernelKeys: per program node (a key for launches alone); deviceKeys: per
  // device (KernelTimeModel's keys).
  DevicesGraphExec(std::vector<Ref<Device>> devices, std::shared_ptr<const GraphProgram> program,
                   std::vector<uint32_t> placement, std::vector<std::string> deviceKeys,
                   std::vector<std::string> kernelKeys);
  ~DevicesGraphExec() override;

  const std::vector<Ref<Device>> &devices() const { return devices_; }
  bool runsOn(const Device &device) const override;
  Device &deviceOfNode(uint32_t node) const override;
  std::shared_ptr<const Binding> binding() const;
  // The in-order queue of devices()[index] that launches submit its nodes to.
  TaskQueue &queueOn(uint32_t index) const { return *queues_[index]; }
  // Launches in flight: a launch's submission first waits for the launch two before it (its
  // last command), so that the queued work of back-to-back launches stays bounded. Unbounded,
  // a driver's command buffer can fill while a queue waits for host work (a host callback
  // node, the check that ends each launch), and the thread that submits blocks inside the
  // driver holding the queue, which that host work needs (seen on CUDA: six launches of 65
  // nodes enqueued back to back). Called with launchMutex() held: waits, then records `end`
  // (the launch's last command) as in flight; a wait that throws records nothing.
  void admit(const Ref<Event> &end);
  static constexpr size_t kLaunchesInFlight = 2;

  // What the time model learns from a launch node when it has run (nothing for other nodes).
  struct Sample {
    std::string kernel;
    std::string device;
    uint64_t items;
  };
  std::optional<Sample> sampleOf(const Binding &binding, uint32_t node) const;

 protected:
  void programChanged(const GraphProgram &program) override;
  void checkRebound(uint32_t node, const Command &cmd) const override;

 private:
  std::shared_ptr<const Binding> bind(std::shared_ptr<const GraphProgram> program) const;

  std::vector<Ref<Device>> devices_;
  std::vector<std::string> deviceKeys_;
  std::vector<uint32_t> placement_;
  std::vector<std::string> kernelKeys_;  // per program node; empty for all but launches
  std::vector<Ref<TaskQueue>> queues_;
  std::vector<Ref<Event>> inFlight_;  // the last launches' last commands (launchMutex())
  mutable std::mutex bindingMutex_;
  std::shared_ptr<const Binding> binding_;
};

// The command as device runs it: its kernel loaded there if it is another device's.
Command commandOnDevice(const Command &cmd, Device &device);

// Places every node of program on one of devices (distinct; at least one) and makes the
// executable graph. INVALID_ARGUMENT (naming the node) for a node pinned to a device not
// among them, or that can run on none of them, with the reason.
Ref<GraphExec> instantiateAcrossDevices(std::shared_ptr<GraphProgram> program,
                                        std::span<const Ref<Device>> devices);

}  // namespace xpurt::core
