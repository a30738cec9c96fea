// CUDA events for xpurt's commands, and host flags for waits on work CUDA does not run.
// A command is followed by an event from its queue's pool (an in-order queue records one after
// several commands); any queue of any CUDA device that waits on the command waits on that
// event on the device (cuStreamWaitEvent), found among its queue's pending commands
// (Completions::withPending). cuStreamWaitEvent waits for the record made
// before the call, so an event may be recorded again once its command has completed: there is
// no cap on the commands between syncs. A wait on anything else (a host callback, another
// backend's future) is a 32-bit flag in page-locked host memory that the stream waits on
// (cuStreamWaitValue32) and the host sets when that work completes.
#pragma once

#include "core/event.hpp"
#include "cuda_device.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace xpurt::cuda {

struct EventSlot {
  CUevent handle = nullptr;
  // Seen reached, and synchronized with (the commands an in-order queue records one event
  // after share it: the driver is asked once).
  std::atomic<bool> reached{false};
  std::atomic<bool> synchronized{false};
};
// Back to its pool when the last reference goes.
using SlotRef = std::shared_ptr<EventSlot>;

class CudaEventPool {
 public:
  // timing: events that cuEventElapsedTime can read (profiling queues); others are cheaper.
  CudaEventPool(std::shared_ptr<PrimaryContext> context, bool timing);
  ~CudaEventPool();
  CudaEventPool(const CudaEventPool &) = delete;
  CudaEventPool &operator=(const CudaEventPool &) = delete;
  SlotRef acquire();  // throws on failure

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// A word of page-locked memory a stream waits on (cuStreamWaitValue32) until the host sets it.
// It goes back to its pool only when the command that waited on it has completed: reused
// before the device has seen it set, it would be cleared under the waiting stream.
struct HostFlag {
  volatile uint32_t *host = nullptr;
  CUdeviceptr device = 0;
  std::atomic<bool> armed{false};
  HostFlag(volatile uint32_t *h, CUdeviceptr d) : host(h), device(d) {}
  void arm() {  // before a stream is made to wait on it (armHostFlag)
    armHostFlag();
    armed = true;
  }
  void set() {
    __atomic_store_n(host, 1u, __ATOMIC_RELEASE);
    if (armed.exchange(false)) disarmHostFlag();
  }
};
using FlagRef = std::shared_ptr<HostFlag>;

class HostFlagPool {
 public:
  explicit HostFlagPool(std::shared_ptr<PrimaryContext> context);
  ~HostFlagPool();
  HostFlagPool(const HostFlagPool &) = delete;
  HostFlagPool &operator=(const HostFlagPool &) = delete;
  FlagRef acquire();  // a cleared flag; throws on failure

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace xpurt::cuda
