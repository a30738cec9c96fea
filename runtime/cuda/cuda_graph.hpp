// The CUDA device's lowering of a graph: one CUDA graph, built and instantiated once, launched
// with cuGraphLaunch as one command of the launching queue. Kernels, copies and fills are
// kernel, memcpy and memset nodes; host callbacks host nodes; empty and wait nodes empty ones
// (the queue makes the launch wait for a wait node's futures). Rebinding updates the
// instantiated graph in place (cuGraphExec*SetParams); launches already made keep what they
// had. A host callback that fails is noted and fails the launch when it completes; later host
// callbacks after it do not run, while the device still runs the kernels and copies after it.
// Host nodes run on a thread of the driver: there, a callback must not use a CUDA queue.
#pragma once

#include "core/graph_exec.hpp"
#include "cuda_device.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xpurt::cuda {

class CudaGraphExec final : public core::GraphExec {
 public:
  CudaGraphExec(core::Ref<CudaDevice> device, std::shared_ptr<const core::GraphProgram> program);
  ~CudaGraphExec() override;

  bool runsAsOneCommand() const override { return true; }
  // Enqueues one launch of the graph on stream.
  void launch(CUstream stream);
  // The first failure of a host callback in the launch that has just completed, or an empty
  // string.
  std::string takeFailure();

 protected:
  void programChanged(const core::GraphProgram &program) override;

 private:
  struct HostNode {
    CudaGraphExec *exec;
    uint32_t node;
    XpurtHostFunc func;
    void *userData;
  };
  static void CUDA_CB runHostNode(void *data);
  static void CUDA_CB startLaunch(void *data);
  // Adds the CUDA nodes of program node k after deps into graph_.
  void addNodes(const core::GraphProgram &program, uint32_t k,
                const std::vector<CUgraphNode> &deps);
  // Sets the parameters of node k's CUDA nodes in the instantiated graph to cmd's.
  void update(uint32_t k, const core::Command &cmd);
  bool failedBefore(uint32_t node) const;

  core::Ref<CudaDevice> cuda_;
  std::shared_ptr<PrimaryContext> context_;
  std::mutex mutex_;  // graph objects are not thread-safe: launches and updates
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
  // Per program node: the CUDA nodes made for it (a fill may take several), the node its
  // successors follow, and the command they were made from.
  struct Built {
    std::vector<CUgraphNode> nodes;
    CUgraphNode exit = nullptr;
    std::shared_ptr<const core::Command> cmd;
  };
  std::vector<Built> built_;
  std::vector<std::vector<uint32_t>> preds_;
  std::vector<std::unique_ptr<HostNode>> hostNodes_;
  std::unique_ptr<std::atomic<uint8_t>[]> failed_;  // per node, in the current launch
  std::mutex failureMutex_;
  std::string failure_;
};

}  // namespace xpurt::cuda
