// What the core's completion engine (core/completions.hpp) needs of a CUDA queue: the event
// each command records when it ends (cuEventQuery), device time from a start event when the
// command is measured, and copies of pageable host memory, which go through a page-locked
// staging buffer: filled on the host once what the copy follows is done (the stream waits on
// a host flag until then), or emptied into the application's memory once the copy is reached.
// Its driver calls run on the device's poller, its host executor and threads that wait, each
// with the device's context made current for the call (ContextScope).
#pragma once

#include "core/completions.hpp"
#include "cuda_events.hpp"

#include <memory>
#include <vector>

namespace xpurt::cuda {

// Page-locked memory, xpurt's own, that copies of pageable host memory go through: the driver
// refuses a copy whose host range is only partly registered (two views of one application
// page, or a page whose view has just gone).
struct StagingBuffer {
  void *host = nullptr;
  size_t size = 0;
};

struct CudaWork {
  SlotRef end;                 // recorded after the command (null for a host callback)
  SlotRef start;               // recorded before it, when it is measured
  std::vector<FlagRef> flags;  // host flags its stream waits on
  // A copy of pageable host memory: the buffer it goes through; for a copy to the device, the
  // flag its stream waits on until the buffer is filled.
  std::shared_ptr<StagingBuffer> staging;
  FlagRef stagingFilled;
};
using PendingCommand = core::PendingCommand<CudaWork>;
using Completions = core::Completions<CudaWork>;

class CudaCompletionBackend final : public core::CompletionBackend<CudaWork> {
 public:
  explicit CudaCompletionBackend(CudaDevice &device) : device_(device) {}
  ~CudaCompletionBackend() override = default;

  bool needsHostStep(const Pending &p) const override { return bool(p.work.stagingFilled); }
  void runHostStep(Pending &p) override;
  core::Reached query(Pending &p, std::string &failure) override;
  core::Reached wait(Pending &p, uint64_t timeoutNs, std::string &failure) override;
  std::optional<uint64_t> deviceTimeNs(Pending &p) override;
  std::string reached(Pending &p, core::Reached r) override;

 private:
  core::Reached status(Pending &p, CUresult r, std::string &failure) const;
  CudaDevice &device_;  // outlives the queue's commands (Completions::waitIdle)
};

}  // namespace xpurt::cuda
