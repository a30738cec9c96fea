// A queue on a CUDA device: commands go to streams of their own (non-blocking, so the legacy
// default stream orders nothing), each followed by an event record; what a command waits on is
// a cuStreamWaitEvent for another CUDA command, or a host flag for anything else (a host
// callback, another backend's future). An in-order queue is one stream. An out-of-order queue
// puts copies to the device and copies to the host on streams of their own (the GPU's copy
// engines run them beside kernels and beside each other) and spreads launches over four
// streams, ordered only by the dependencies the core works out. The core's completion engine
// completes the futures (cuda_completions.hpp).
#pragma once

#include "core/task_queue.hpp"
#include "cuda_completions.hpp"
#include "cuda_device.hpp"
#include "cuda_events.hpp"
#include "cuda_launch.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace xpurt::cuda {

class CudaQueue final : public core::TaskQueue {
 public:
  CudaQueue(core::Ref<CudaDevice> device, const core::QueueOptions &options);
  // Waits for the queued work, then destroys the streams.
  ~CudaQueue() override;

 protected:
  void submit(core::Command &&cmd) override;
  void drain() override;
  void *nativeHandle() const override { return streams_[0]; }

 private:
  CUstream streamFor(const core::Command &cmd);
  // A copy between the device and pageable host memory (application memory the driver could
  // not register, or registered only in part): it goes through a page-locked staging buffer,
  // which the device's host executor fills before the copy to the device, and the completion
  // engine empties after the copy to the host.
  static bool pageableCopy(const core::Command &cmd);
  std::shared_ptr<StagingBuffer> stagingFor(size_t bytes);
  std::shared_ptr<void> enqueueStagedCopy(core::Command &cmd, CUstream stream,
                                          const StagingBuffer &staging);
  // Makes `stream` wait for `event` before what is enqueued next.
  void waitOn(CUstream stream, const core::Ref<core::Event> &event, PendingCommand &p);
  // Enqueues the command's work; returns what must stay alive until it completes.
  std::shared_ptr<void> enqueue(core::Command &cmd, CUstream stream);
  void enqueueFill(core::Command &cmd, CUstream stream);
  void enqueueLaunch(core::Command &cmd, CUstream stream);  // submitMutex_ held
  // submitMutex_ held. Records an event after the commands held unsignalled and pushes them
  // to the completion engine.
  void signalHeld();
  // submitMutex_ held. Pushes the held commands, those without an event of their own given
  // `end`.
  void pushHeld(const SlotRef &end);
  // signalHeld, for the completion engine: a held command's future is waited for.
  void flush();

  core::Ref<CudaDevice> cudaDevice_;
  std::shared_ptr<PrimaryContext> context_;
  std::mutex submitMutex_;
  std::vector<CUstream> streams_;  // [0]: in order, or an out-of-order queue's first compute
  CUstream toDevice_ = nullptr, toHost_ = nullptr;  // out-of-order queues' copy streams
  size_t nextCompute_ = 0;
  size_t computeStreams_ = 1;
  CudaEventPool events_;
  CudaEventPool timedEvents_;
  HostFlagPool flags_;
  KernelLaunch launch_;  // enqueueLaunch's, under submitMutex_
  // The staging buffer pageable copies reuse when none in flight holds it.
  std::shared_ptr<StagingBuffer> staging_;
  // In-order queues: a host callback the next command must wait for (it runs on the host).
  core::Ref<core::Event> afterHost_;
  std::shared_ptr<Completions> completions_;
  // In-order queues: commands enqueued with no event after them yet, in order; pushed with
  // the next event recorded (signalHeld), at the latest after kMaxUnsignalled of them.
  static constexpr size_t kMaxUnsignalled = 64;
  Completions::Batch unsignalled_;
  // The thread in submit(), holding submitMutex_ (flush() from it must not take the lock).
  std::atomic<std::thread::id> submitter_{};
  struct Submitting {
    explicit Submitting(std::atomic<std::thread::id> &s) : s_(s) {
      s_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    }
    ~Submitting() { s_.store(std::thread::id(), std::memory_order_relaxed); }
    Submitting(const Submitting &) = delete;
    Submitting &operator=(const Submitting &) = delete;
    std::atomic<std::thread::id> &s_;
  };
};

}  // namespace xpurt::cuda
