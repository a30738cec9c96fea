#include "cpu_graph.hpp"

#include "command_execution.hpp"
#include "core/log.hpp"
#include "tbb_hand_off.hpp"

namespace xpurt::cpu {

using core::GraphNode;
using core::GraphProgram;

CpuGraphExec::CpuGraphExec(core::Ref<CpuDevice> device, std::shared_ptr<const GraphProgram> program)
    : core::GraphExec(device, program),
      cpu_(*device),
      count_(program->nodes.size()),
      unmet_(new std::atomic<uint32_t>[count_]),
      afterFailure_(new std::atomic<uint8_t>[count_]) {}

bool CpuGraphExec::runNode(const GraphProgram &program, uint32_t index, bool afterFailure) {
  const GraphProgram::Node &node = program.nodes[index];
  // After a failure only host callbacks are held back: a GPU runs the kernels, copies and fills
  // after it without the host in between, and the contract is the same on every device.
  if (afterFailure && node.kind == GraphNode::Kind::Command &&
      node.cmd->type == core::Command::Type::HostCallback)
    return false;
  std::string failure;
  switch (node.kind) {
    case GraphNode::Kind::Empty:
    case GraphNode::Kind::Child:
      return true;
    case GraphNode::Kind::Wait:
      // A future of another queue: waiting helps a CPU queue run its work meanwhile.
      for (const core::Ref<core::Event> &f : node.futures) {
        f->wait();
        if (f->failed() && failure.empty())
          failure = "the future it waits for failed: " + f->errorMessage();
      }
      break;
    case GraphNode::Kind::Command:
      failure = runCommandBody(*node.cmd, &cpu_.cores());
      break;
  }
  if (failure.empty()) return true;
  std::string message = fmt::format("graph node {} ({}): {}", program.name(index),
                                    program.description(index), failure);
  core::log().error("{}", message);
  std::lock_guard lock(failureMutex_);
  if (failure_.empty()) failure_ = std::move(message);
  return false;
}

void CpuGraphExec::spawn(const GraphProgram &program, uint32_t node, tbb::task_group &group) {
  struct Spawned {
    CpuGraphExec *self;
    const GraphProgram *program;
    uint32_t node;
    tbb::task_group *group;
  };
  group.run(group.defer([sent = TbbHandOff::Captures(Spawned{this, &program, node, &group})] {
    const Spawned &s = sent.received();
    s.self->runFrom(*s.program, s.node, *s.group);
    TbbHandOff::sendTask(&s.self->joinToken_);
  }));
}

namespace {

// Successors past which a node's are counted down in parallel, and the edges a task counts down
// itself.
constexpr uint32_t kSplitAbove = 16;
constexpr uint32_t kLeafEdges = 4;
// Fan-outs one thread runs nodes inside of before it hands ready nodes to tasks instead.
constexpr uint32_t kMaxInlineDepth = 32;

}  // namespace

void CpuGraphExec::releaseRange(const GraphProgram &program, uint32_t begin, uint32_t end,
                                bool afterFailure, tbb::task_group &group, uint32_t depth) {
  while (end - begin > kLeafEdges) {
    uint32_t mid = begin + (end - begin) / 2;
    struct Range {
      CpuGraphExec *self;
      const GraphProgram *program;
      uint32_t begin, end;
      bool afterFailure;
      tbb::task_group *group;
    };
    group.run(group.defer(
        [sent = TbbHandOff::Captures(Range{this, &program, mid, end, afterFailure, &group})] {
          const Range &r = sent.received();
          r.self->releaseRange(*r.program, r.begin, r.end, r.afterFailure, *r.group, 0);
          TbbHandOff::sendTask(&r.self->joinToken_);
        }));
    end = mid;
  }
  for (uint32_t e = begin; e < end; ++e) {
    uint32_t s = program.succs[e];
    // The flag is published by the decrement that follows it.
    if (afterFailure) afterFailure_[s].store(1, std::memory_order_relaxed);
    if (unmet_[s].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
    if (depth < kMaxInlineDepth)
      runFrom(program, s, group, depth + 1);
    else
      spawn(program, s, group);
  }
}

void CpuGraphExec::runFrom(const GraphProgram &program, uint32_t node, tbb::task_group &group,
                           uint32_t depth) {
  constexpr uint32_t kNone = ~0u;
  for (;;) {
    bool after = afterFailure_[node].load(std::memory_order_relaxed) != 0;
    after = !runNode(program, node, after) || after;
    const GraphProgram::Node &done = program.nodes[node];
    if (done.numSuccs > kSplitAbove) {
      releaseRange(program, done.firstSucc, done.firstSucc + done.numSuccs, after, group, depth);
      return;
    }
    uint32_t next = kNone;
    for (uint32_t s : program.successors(node)) {
      // The flag is published by the decrement that follows it.
      if (after) afterFailure_[s].store(1, std::memory_order_relaxed);
      if (unmet_[s].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
      if (next == kNone) {
        next = s;  // continues on this thread
        continue;
      }
      spawn(program, s, group);
    }
    if (next == kNone) return;
    node = next;
  }
}

std::string CpuGraphExec::run(const GraphProgram &program) {
  if (program.nodes.size() != count_)
    return "graph: the program does not match the executable graph";  // cannot happen
  for (size_t i = 0; i < count_; ++i) {
    unmet_[i].store(program.nodes[i].numPreds, std::memory_order_relaxed);
    afterFailure_[i].store(0, std::memory_order_relaxed);
  }
  failure_.clear();
  if (program.roots.empty()) return {};
  auto body = [&] {
    tbb::task_group group;
    const std::vector<uint32_t> &roots = program.roots;
    for (size_t r = 1; r < roots.size(); ++r) spawn(program, roots[r], group);
    runFrom(program, roots[0], group);
    group.wait();
    TbbHandOff::receiveTask(&joinToken_);
  };
  TbbHandOff handOff;
  handOff.handOver([&] { cpu_.arena().execute(handOff.wrap(body)); });
  std::lock_guard lock(failureMutex_);
  return std::move(failure_);
}

core::Ref<core::GraphExec> CpuDevice::lowerGraph(std::shared_ptr<const GraphProgram> program) {
  return core::makeRef<CpuGraphExec>(core::Ref<CpuDevice>(this), std::move(program));
}

}  // namespace xpurt::cpu
