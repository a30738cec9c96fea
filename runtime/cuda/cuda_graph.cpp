#include "cuda_graph.hpp"

#include "core/error.hpp"
#include "core/host_callback.hpp"
#include "core/log.hpp"
#include "cuda_driver.hpp"
#include "cuda_launch.hpp"

#include <cstring>

namespace xpurt::cuda {

using core::Command;
using core::GraphNode;
using core::GraphProgram;

namespace {

CUdeviceptr devicePointer(const void *p) {
  return reinterpret_cast<CUdeviceptr>(p);
}

// A copy as a memcpy node takes it: the host copy of a DEVICE view is host memory, every
// other side device memory (HOST and SHARED views have device pointers too).
CUDA_MEMCPY3D copyParams(const Command &cmd) {
  CUDA_MEMCPY3D c{};
  auto side = [](const core::MemoryRef &ref, CUmemorytype &type, const void *&host,
                 CUdeviceptr &device) {
    type = ref.hostCopy ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    if (ref.hostCopy)
      host = ref.pointer();
    else
      device = devicePointer(ref.pointer());
  };
  const void *srcHost = nullptr, *dstHost = nullptr;
  side(cmd.src, c.srcMemoryType, srcHost, c.srcDevice);
  side(cmd.dst, c.dstMemoryType, dstHost, c.dstDevice);
  c.srcHost = srcHost;
  c.dstHost = const_cast<void *>(dstHost);
  c.WidthInBytes = cmd.dst.size;
  c.Height = 1;
  c.Depth = 1;
  return c;
}

// A fill as memset nodes: one for a pattern of 1, 2 or 4 bytes; else one per 32-bit word (or
// byte) of the pattern, each writing it at the pattern's pitch, as the queue's fills do.
std::vector<CUDA_MEMSET_NODE_PARAMS> fillParams(const Command &cmd) {
  CUdeviceptr dst = devicePointer(cmd.dst.pointer());
  size_t size = cmd.dst.size;
  uint32_t n = cmd.patternSize;
  const std::byte *pattern = cmd.patternBytes();
  std::vector<CUDA_MEMSET_NODE_PARAMS> out;
  auto one = [&](CUdeviceptr at, uint32_t elementSize, uint32_t value, size_t width, size_t height,
                 size_t pitch) {
    CUDA_MEMSET_NODE_PARAMS p{};
    p.dst = at;
    p.elementSize = elementSize;
    p.value = value;
    p.width = width;
    p.height = height;
    p.pitch = pitch;
    out.push_back(p);
  };
  if (n == 1 || (n == 2 && dst % 2 == 0) || (n == 4 && dst % 4 == 0)) {
    uint32_t v = 0;
    std::memcpy(&v, pattern, n);
    one(dst, n, v, size / n, 1, size);
  } else if (n % 4 == 0 && dst % 4 == 0) {
    for (uint32_t w = 0; w < n; w += 4) {
      uint32_t v;
      std::memcpy(&v, pattern + w, 4);
      one(dst + w, 4, v, 1, size / n, n);
    }
  } else {
    for (uint32_t k = 0; k < n; ++k)
      one(dst + k, 1, std::to_integer<uint32_t>(pattern[k]), 1, size / n, n);
  }
  return out;
}

CUDA_KERNEL_NODE_PARAMS kernelParams(const KernelLaunch &l) {
  CUDA_KERNEL_NODE_PARAMS p{};
  p.func = l.function;
  p.gridDimX = l.grid[0], p.gridDimY = l.grid[1], p.gridDimZ = l.grid[2];
  p.blockDimX = l.block[0], p.blockDimY = l.block[1], p.blockDimZ = l.block[2];
  p.sharedMemBytes = l.shared;
  p.kernelParams = l.params.empty() ? nullptr : const_cast<void **>(l.params.data());
  return p;
}

bool sameMemory(const Command &cmd) {
  return cmd.type == Command::Type::Copy && cmd.dst.pointer() == cmd.src.pointer();
}

}  // namespace

CudaGraphExec::CudaGraphExec(core::Ref<CudaDevice> device,
                             std::shared_ptr<const GraphProgram> program)
    : core::GraphExec(device, program), cuda_(std::move(device)), context_(cuda_->sharedContext()) {
  const GraphProgram &p = *program;
  size_t n = p.nodes.size();
  built_.resize(n);
  preds_ = p.predecessors();
  failed_.reset(new std::atomic<uint8_t>[n]);
  for (uint32_t k = 0; k < n; ++k) failed_[k].store(0, std::memory_order_relaxed);
  bool hasHostNodes = false;
  for (const GraphProgram::Node &node : p.nodes)
    hasHostNodes |=
        node.kind == GraphNode::Kind::Command && node.cmd->type == Command::Type::HostCallback;
  ContextScope scope(context_->handle());
  check(cu().GraphCreate(&graph_, 0), "cuGraphCreate");
  try {
    // With host callbacks, a first host node clears what the last launch's callbacks noted.
    CUgraphNode start = nullptr;
    if (hasHostNodes) {
      CUDA_HOST_NODE_PARAMS h{&CudaGraphExec::startLaunch, this};
      check(cu().GraphAddHostNode(&start, graph_, nullptr, 0, &h), "cuGraphAddHostNode");
    }
    std::vector<CUgraphNode> deps;
    for (uint32_t k = 0; k < n; ++k) {  // in topological order: predecessors are built
      deps.clear();
      for (uint32_t pred : preds_[k]) deps.push_back(built_[pred].exit);
      if (deps.empty() && start) deps.push_back(start);
      addNodes(p, k, deps);
    }
    check(cu().GraphInstantiate(&exec_, graph_, 0), "cuGraphInstantiate");
  } catch (...) {
    cu().GraphDestroy(graph_);
    throw;
  }
}

CudaGraphExec::~CudaGraphExec() {
  ContextScope scope(context_->handle());
  if (exec_) cu().GraphExecDestroy(exec_);
  if (graph_) cu().GraphDestroy(graph_);
}

void CudaGraphExec::addNodes(const GraphProgram &program, uint32_t k,
                             const std::vector<CUgraphNode> &deps) {
  const GraphProgram::Node &node = program.nodes[k];
  Built &b = built_[k];
  b.cmd = node.cmd;
  const CUgraphNode *d = deps.empty() ? nullptr : deps.data();
  CUgraphNode made = nullptr;
  auto what = [&] {
    return fmt::format("graph node {} ({})", program.name(k), program.description(k));
  };
  if (node.kind != GraphNode::Kind::Command || sameMemory(*node.cmd)) {
    check(cu().GraphAddEmptyNode(&made, graph_, d, deps.size()), "cuGraphAddEmptyNode", what());
    b.nodes.push_back(made);
    b.exit = made;
    return;
  }
  const Command &cmd = *node.cmd;
  switch (cmd.type) {
    case Command::Type::Launch:
    case Command::Type::LaunchKernel: {
      KernelLaunch l;
      prepareLaunch(*cuda_, cmd, l);
      for (size_t part = 0; part < l.parts.size(); ++part) {
        l.select(part);
        CUDA_KERNEL_NODE_PARAMS p = kernelParams(l);
        check(cu().GraphAddKernelNode(&made, graph_, d, deps.size(), &p), "cuGraphAddKernelNode",
              l.describe(cmd));
        b.nodes.push_back(made);
      }
      if (b.nodes.size() == 1) {
        b.exit = made;
      } else {  // successors follow every part of the launch
        check(cu().GraphAddEmptyNode(&b.exit, graph_, b.nodes.data(), b.nodes.size()),
              "cuGraphAddEmptyNode", what());
      }
      return;
    }
    case Command::Type::Copy: {
      CUDA_MEMCPY3D c = copyParams(cmd);
      check(cu().GraphAddMemcpyNode(&made, graph_, d, deps.size(), &c, context_->handle()),
            "cuGraphAddMemcpyNode", what());
      break;
    }
    case Command::Type::Fill: {
      std::vector<CUDA_MEMSET_NODE_PARAMS> fills = fillParams(cmd);
      for (const CUDA_MEMSET_NODE_PARAMS &f : fills) {
        check(cu().GraphAddMemsetNode(&made, graph_, d, deps.size(), &f, context_->handle()),
              "cuGraphAddMemsetNode", what());
        b.nodes.push_back(made);
      }
      if (fills.size() == 1) {
        b.exit = made;
      } else {  // successors follow every part of the fill
        check(cu().GraphAddEmptyNode(&b.exit, graph_, b.nodes.data(), b.nodes.size()),
              "cuGraphAddEmptyNode", what());
      }
      return;
    }
    case Command::Type::HostCallback: {
      hostNodes_.push_back(std::make_unique<HostNode>(HostNode{this, k, cmd.func, cmd.userData}));
      CUDA_HOST_NODE_PARAMS h{&CudaGraphExec::runHostNode, hostNodes_.back().get()};
      check(cu().GraphAddHostNode(&made, graph_, d, deps.size(), &h), "cuGraphAddHostNode", what());
      break;
    }
    case Command::Type::Barrier:
    case Command::Type::Graph:
      check(cu().GraphAddEmptyNode(&made, graph_, d, deps.size()), "cuGraphAddEmptyNode", what());
      break;
  }
  b.nodes.push_back(made);
  b.exit = made;
}

void CudaGraphExec::launch(CUstream stream) {
  std::lock_guard lock(mutex_);
  check(cu().GraphLaunch(exec_, stream), "cuGraphLaunch");
}

void CUDA_CB CudaGraphExec::startLaunch(void *data) {
  auto *self = static_cast<CudaGraphExec *>(data);
  for (size_t k = 0; k < self->built_.size(); ++k)
    self->failed_[k].store(0, std::memory_order_relaxed);
}

bool CudaGraphExec::failedBefore(uint32_t node) const {
  return GraphProgram::findAncestor(
             preds_, node,
             [&](uint32_t k) { return failed_[k].load(std::memory_order_acquire) != 0; })
      .has_value();
}

void CUDA_CB CudaGraphExec::runHostNode(void *data) {
  auto *h = static_cast<HostNode *>(data);
  CudaGraphExec &self = *h->exec;
  // A callback after a failed one does not run; it counts as failed for those after it.
  if (self.failedBefore(h->node)) {
    self.failed_[h->node].store(1, std::memory_order_release);
    return;
  }
  std::string failure = core::runHostCallback(h->func, h->userData);
  if (failure.empty()) return;
  self.failed_[h->node].store(1, std::memory_order_release);
  std::shared_ptr<const GraphProgram> program = self.program();
  std::string message =
      fmt::format("graph node {} (a host callback): {}", program->name(h->node), failure);
  core::log().error("{}", message);
  std::lock_guard lock(self.failureMutex_);
  if (self.failure_.empty()) self.failure_ = std::move(message);
}

std::string CudaGraphExec::takeFailure() {
  std::lock_guard lock(failureMutex_);
  return std::exchange(failure_, std::string());
}

void CudaGraphExec::update(uint32_t k, const Command &cmd) {
  const std::vector<CUgraphNode> &nodes = built_[k].nodes;
  switch (cmd.type) {
    case Command::Type::Launch:
    case Command::Type::LaunchKernel: {
      KernelLaunch l;
      prepareLaunch(*cuda_, cmd, l);
      if (l.parts.size() != nodes.size())
        core::fail(XPURT_ERROR_UNSUPPORTED,
                   "node {}: the launch's new range splits into {} launches of whole "
                   "work-groups where the first split into {}; keep the partial groups as they "
                   "were, or record the graph again",
                   k, l.parts.size(), nodes.size());
      for (size_t part = 0; part < l.parts.size(); ++part) {
        l.select(part);
        CUDA_KERNEL_NODE_PARAMS p = kernelParams(l);
        check(cu().GraphExecKernelNodeSetParams(exec_, nodes[part], &p),
              "cuGraphExecKernelNodeSetParams", l.describe(cmd));
      }
      return;
    }
    case Command::Type::Copy: {
      if (sameMemory(cmd) != sameMemory(*built_[k].cmd))
        core::fail(XPURT_ERROR_UNSUPPORTED,
                   "node {}: the copy's two sides became one memory, or stopped being one", k);
      if (sameMemory(cmd)) return;
      CUDA_MEMCPY3D c = copyParams(cmd);
      check(cu().GraphExecMemcpyNodeSetParams(exec_, nodes[0], &c, context_->handle()),
            "cuGraphExecMemcpyNodeSetParams");
      return;
    }
    case Command::Type::Fill: {
      std::vector<CUDA_MEMSET_NODE_PARAMS> fills = fillParams(cmd);
      if (fills.size() != nodes.size())
        core::fail(XPURT_ERROR_UNSUPPORTED,
                   "node {}: the fill's new memory is aligned differently; rebind to memory "
                   "aligned as the first",
                   k);
      for (size_t i = 0; i < fills.size(); ++i)
        check(cu().GraphExecMemsetNodeSetParams(exec_, nodes[i], &fills[i], context_->handle()),
              "cuGraphExecMemsetNodeSetParams");
      return;
    }
    default:
      return;  // host callbacks, barriers: nothing a rebinding changes
  }
}

void CudaGraphExec::programChanged(const GraphProgram &program) {
  std::lock_guard lock(mutex_);
  ContextScope scope(context_->handle());
  for (uint32_t k = 0; k < program.nodes.size(); ++k) {
    const std::shared_ptr<const Command> &cmd = program.nodes[k].cmd;
    if (!cmd || cmd == built_[k].cmd) continue;
    update(k, *cmd);
    built_[k].cmd = cmd;
  }
}

core::Ref<core::GraphExec> CudaDevice::lowerGraph(std::shared_ptr<const GraphProgram> program) {
  return core::makeRef<CudaGraphExec>(core::Ref<CudaDevice>(this), std::move(program));
}

}  // namespace xpurt::cuda
