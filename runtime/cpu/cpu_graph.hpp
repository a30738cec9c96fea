// The CPU's lowering of a graph: the flattened program run as a DAG of dependency counters in
// the device's oneTBB arena. A node that completes counts down its successors; the one that
// reaches zero first runs next on the same thread (a chain costs a decrement per node), the
// others become tasks of one task group. A node of many successors has them counted down in
// parallel instead: the range is halved, one half handed to another task, down to a few edges
// that a task counts down and runs itself, so a wide fan-out costs spawns spread over every
// thread rather than one thread spawning a task per node. Counters and flags are the executable
// graph's own, reset at each launch: a replay allocates nothing but oneTBB's tasks. Launches of one
// executable graph are ordered by the queue (each waits for the one before), so one set of
// counters serves them all.
#pragma once

#include "core/graph_exec.hpp"
#include "cpu_device.hpp"

#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

namespace xpurt::cpu {

class CpuGraphExec final : public core::GraphExec {
 public:
  CpuGraphExec(core::Ref<CpuDevice> device, std::shared_ptr<const core::GraphProgram> program);

  bool runsAsOneCommand() const override { return true; }
  // Runs every node of program (this graph's, as bound at the launch) and returns the first
  // failure ("graph node 3 (kernel 'k'): ..."), or an empty string. Nodes after a failed one
  // do not run; the others do.
  std::string run(const core::GraphProgram &program);

 private:
  // Runs node and what it makes ready as a task of group.
  void spawn(const core::GraphProgram &program, uint32_t node, tbb::task_group &group);
  // depth: fan-outs this thread is inside of, which bounds its stack.
  void runFrom(const core::GraphProgram &program, uint32_t node, tbb::task_group &group,
               uint32_t depth = 0);
  // Counts down the successors in succs[begin, end) of a node, after a failure or not, and runs
  // those it makes ready, splitting the range over tasks.
  void releaseRange(const core::GraphProgram &program, uint32_t begin, uint32_t end,
                    bool afterFailure, tbb::task_group &group, uint32_t depth);
  // Runs the node, or not if it is a host callback after a failure (the graph contract of
  // xpurt.h); returns whether it ran and succeeded.
  bool runNode(const core::GraphProgram &program, uint32_t node, bool afterFailure);

  CpuDevice &cpu_;
  size_t count_;
  std::unique_ptr<std::atomic<uint32_t>[]> unmet_;  // predecessors still to complete
  // A predecessor failed, or came after a failure.
  std::unique_ptr<std::atomic<uint8_t>[]> afterFailure_;
  std::mutex failureMutex_;
  std::string failure_;
  char joinToken_ = 0;  // tasks' ends, for ThreadSanitizer (TbbHandOff)
};

}  // namespace xpurt::cpu
