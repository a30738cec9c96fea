#include "cuda_completions.hpp"

#include "core/spin_wait.hpp"
#include "cuda_graph.hpp"
#include "cuda_module.hpp"

#include <chrono>
#include <cstring>
#include <thread>

namespace xpurt::cuda {

void CudaCompletionBackend::runHostStep(Pending &p) {
  // A copy to the device from pageable host memory, whose waits are done: the buffer filled,
  // then the stream let go.
  const core::Command &cmd = p.command;
  std::memcpy(p.work.staging->host, cmd.src.pointer(), cmd.dst.size);
  p.work.stagingFilled->set();  // kept until the command completes (HostFlag)
}

core::Reached CudaCompletionBackend::status(Pending &p, CUresult r, std::string &failure) const {
  if (r == CUDA_ERROR_NOT_READY) return core::Reached::No;
  if (r == CUDA_SUCCESS) return core::Reached::Yes;
  failure = fmt::format("{} on {} failed: cuEventQuery returned {}{}", p.command.description(),
                        device_.label(), resultName(r),
                        toXpurtResult(r) == XPURT_ERROR_DEVICE_LOST
                            ? " (the CUDA context is lost: release the device's objects and "
                              "create the device again)"
                            : "");
  return core::Reached::Failed;
}

core::Reached CudaCompletionBackend::query(Pending &p, std::string &failure) {
  return wait(p, 0, failure);
}

core::Reached CudaCompletionBackend::wait(Pending &p, uint64_t timeoutNs, std::string &failure) {
  // Held commands whose event could not be recorded: their queue synchronized its stream.
  if (!p.work.end) return core::Reached::Yes;
  EventSlot &end = *p.work.end;
  if (end.reached.load(std::memory_order_relaxed)) return core::Reached::Yes;
  try {
    ContextScope scope(device_.context());
    // cuEventSynchronize cannot stop waiting: the event is looked at until the time is up.
    auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeoutNs);
    for (unsigned i = 0;; ++i) {
      core::Reached r = status(p, cu().EventQuery(end.handle), failure);
      if (r == core::Reached::Yes) end.reached.store(true, std::memory_order_relaxed);
      if (r != core::Reached::No || timeoutNs == 0 || std::chrono::steady_clock::now() > until)
        return r;
      if (i % 16 == 15) std::this_thread::yield();
      core::cpuRelax();
    }
  } catch (const core::Error &e) {  // the context could not be made current
    failure =
        fmt::format("{} on {} failed: {}", p.command.description(), device_.label(), e.what());
    return core::Reached::Failed;
  }
}

std::optional<uint64_t> CudaCompletionBackend::deviceTimeNs(Pending &p) {
  float ms = 0;
  try {
    ContextScope scope(device_.context());
    if (!p.work.start || !p.work.end ||
        cu().EventElapsedTime(&ms, p.work.start->handle, p.work.end->handle) != CUDA_SUCCESS)
      return std::nullopt;
  } catch (const core::Error &) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(static_cast<double>(ms) * 1e6);
}

// Whether the command runs a kernel that may print.
static bool printsOutput(const core::Command &cmd) {
  if (cmd.isLaunch()) return static_cast<const CudaKernel &>(*cmd.kernel).prints();
  if (cmd.type != core::Command::Type::Graph) return false;
  for (const core::GraphProgram::Node &node : cmd.program->nodes)
    if (node.cmd && node.cmd->isLaunch() && printsOutput(*node.cmd)) return true;
  return false;
}

std::string CudaCompletionBackend::reached(Pending &p, core::Reached r) {
  // A copy that failed before its buffer was filled must not hold its stream forever.
  if (p.work.stagingFilled) p.work.stagingFilled->set();
  if (r != core::Reached::Yes) return {};
  const core::Command &cmd = p.command;
  // The driver writes what kernels printed at a synchronisation, not when an event is queried:
  // a launch's output is out before its future completes. The event is reached already.
  if (printsOutput(cmd) && p.work.end &&
      !p.work.end->synchronized.exchange(true, std::memory_order_relaxed)) {
    try {
      ContextScope scope(device_.context());
      cu().EventSynchronize(p.work.end->handle);
    } catch (const core::Error &) {
      // Not current: its output comes at the next synchronisation.
    }
  }
  if (p.work.staging && cmd.copyKind == core::Command::CopyKind::ToHost)
    std::memcpy(cmd.dst.pointer(), p.work.staging->host, cmd.dst.size);
  // A graph whose host callback failed completes on the device all the same.
  if (cmd.type == core::Command::Type::Graph)
    return static_cast<CudaGraphExec &>(*cmd.graph).takeFailure();
  return {};
}

}  // namespace xpurt::cuda
