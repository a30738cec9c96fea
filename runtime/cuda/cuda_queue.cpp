#include "cuda_queue.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "cuda_graph.hpp"
#include "cuda_launch.hpp"
#include "cuda_module.hpp"

#include <cstring>

namespace xpurt::cuda {
namespace {

constexpr size_t kOutOfOrderComputeStreams = 4;

CUstream createStream() {
  CUstream s = nullptr;
  check(cu().StreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  return s;
}

// The context of the device whose memory a view is (a peer copy's side).
CUcontext contextOf(const core::MemoryView &view) {
  return static_cast<const CudaDevice &>(view.device()).context();
}

CUdeviceptr devicePointer(const void *p) {
  return reinterpret_cast<CUdeviceptr>(p);
}

}  // namespace

CudaQueue::CudaQueue(core::Ref<CudaDevice> device, const core::QueueOptions &options)
    : core::TaskQueue(device, options),
      cudaDevice_(std::move(device)),
      context_(cudaDevice_->sharedContext()),
      events_(context_, false),
      timedEvents_(context_, true),
      flags_(context_) {
  ContextScope scope(context_->handle());
  try {
    streams_.push_back(createStream());
    if (options.outOfOrder) {
      computeStreams_ = kOutOfOrderComputeStreams;
      while (streams_.size() < computeStreams_) streams_.push_back(createStream());
      streams_.push_back(toDevice_ = createStream());
      streams_.push_back(toHost_ = createStream());
    }
  } catch (...) {
    for (CUstream s : streams_) cu().StreamDestroy(s);
    throw;
  }
  completions_ = std::make_shared<Completions>(
      *cudaDevice_, std::make_shared<CudaCompletionBackend>(*cudaDevice_), failures(),
      !options.outOfOrder);
  completions_->setFlush([this] { flush(); });
}

CudaQueue::~CudaQueue() {
  flush();  // what the queue holds completes before it goes
  completions_->setFlush(nullptr);
  std::vector<CUstream> streams = std::move(streams_);
  auto destroy = [streams, context = context_] {
    try {
      ContextScope scope(context->handle());
      for (CUstream s : streams) cu().StreamDestroy(s);
    } catch (const core::Error &e) {
      warnReleaseFailure(fmt::format("CUDA: streams not destroyed: {}", e.what()));
    }
  };
  if (completions_->runningOnThisThread()) {
    // Released from one of its own host callbacks, which cannot wait for the queue's work:
    // once its last command completes, the streams go, later (the completion poller must not
    // wait in the driver; cuda_events.cpp says why).
    completions_->finishThen([destroy] { releaseLater(destroy); });
    return;
  }
  completions_->drain();
  completions_->waitIdle();
  destroy();
}

void CudaQueue::drain() {
  completions_->drain();  // its flush signals what the queue holds
}

bool CudaQueue::pageableCopy(const core::Command &cmd) {
  using CopyKind = core::Command::CopyKind;
  if (cmd.type != core::Command::Type::Copy || cmd.dst.pointer() == cmd.src.pointer()) return false;
  if (cmd.copyKind == CopyKind::ToDevice) return !cmd.src.isLockedHostCopy();
  if (cmd.copyKind == CopyKind::ToHost) return !cmd.dst.isLockedHostCopy();
  return false;
}

CUstream CudaQueue::streamFor(const core::Command &cmd) {
  if (!options().outOfOrder) return streams_[0];
  if (cmd.type == core::Command::Type::Copy) {
    if (cmd.copyKind == core::Command::CopyKind::ToDevice) return toDevice_;
    if (cmd.copyKind == core::Command::CopyKind::ToHost) return toHost_;
  }
  if (cmd.type == core::Command::Type::Barrier) return streams_[0];
  CUstream s = streams_[nextCompute_];
  nextCompute_ = (nextCompute_ + 1) % computeStreams_;
  return s;
}

void CudaQueue::waitOn(CUstream stream, const core::Ref<core::Event> &event, PendingCommand &p) {
  if (event->isDone()) return;
  // A CUDA command (of any queue of any CUDA device): its device event, where recorded.
  SlotRef slot;
  if (auto *owner = dynamic_cast<Completions *>(event->sharedDriver().get()))
    owner->withPending(event.get(), [&](const PendingCommand &c) { slot = c.work.end; });
  if (slot) {
    check(cu().StreamWaitEvent(stream, slot->handle, 0), "cuStreamWaitEvent");
    return;
  }
  if (!cudaDevice_->description().streamWaitValue) {
    // No stream memory operations: the host waits (what it waits for was submitted before).
    event->wait();
    return;
  }
  // Work CUDA does not run: the stream waits on a flag that the host sets when it completes.
  FlagRef flag = flags_.acquire();
  flag->arm();
  check(cu().StreamWaitValue32(stream, flag->device, 1, CU_STREAM_WAIT_VALUE_GEQ),
        "cuStreamWaitValue32", "a wait on work outside CUDA");
  p.work.flags.push_back(flag);
  event->then([flag] { flag->set(); });
}

void CudaQueue::submit(core::Command &&cmd) {
  using Type = core::Command::Type;
  gatherWaits(cmd, completions_.get());
  // A device without stream memory operations cannot wait for the host executor to fill a
  // staging buffer: this thread fills it, once what the copy follows is done.
  bool fillHere = pageableCopy(cmd) && cmd.copyKind == core::Command::CopyKind::ToDevice &&
                  !cudaDevice_->description().streamWaitValue;
  if (fillHere) {
    for (const core::Ref<core::Event> &e : cmd.waits) e->wait();
    if (!options().outOfOrder) completions_->drain();
  }
  std::lock_guard lock(submitMutex_);
  Submitting submitting(submitter_);
  bool inOrder = !options().outOfOrder;
  core::Ref<core::Event> afterHost = std::move(afterHost_);
  afterHost_ = nullptr;
  if (afterHost) cmd.waits.push_back(afterHost);
  // An in-order queue's barrier orders nothing its stream does not already order.
  if (!cmd.done && cmd.waits.empty() && cmd.type == Type::Barrier) return;
  bool timed = cmd.done && cmd.done->timed();
  bool staged = pageableCopy(cmd);
  // An in-order queue records an event only where one is needed: its launches, copies, fills
  // and waits are held and pushed with the next event (holdUnsignalled). Host work, a measured
  // command and a graph (its completion reports its nodes' failures) are pushed at once, and
  // what is held before them gets its own event first: an event after a command with host
  // work would not be reached before that work runs, which waits for the commands before it.
  bool hold =
      inOrder && !timed && !staged && cmd.type != Type::Graph && cmd.type != Type::HostCallback;
  // A held command whose future is still held elsewhere when the next command comes (a
  // handle, another queue's wait) gets its own event first: a wait on it would otherwise wait
  // for what comes after it too, and devices that wait on each other's copies would take
  // turns instead of running side by side.
  if (!hold || (!unsignalled_.empty() && unsignalled_.back().done &&
                unsignalled_.back().done->referencedBeyond(1)))
    signalHeld();
  // Built where it is held: a command is large.
  PendingCommand &p = unsignalled_.emplace_back();
  p.submitNs = timed ? core::steadyNowNs() : 0;
  if (cmd.type == Type::HostCallback) {
    // Runs on the device's host executor once the commands before it have completed; what
    // comes after it in an in-order queue waits for it.
    p.hostWaits = std::move(cmd.waits);
    if (inOrder) afterHost_ = cmd.done;
  } else {
    try {
      ContextScope scope(context_->handle());
      CUstream stream = streamFor(cmd);
      CudaWork &w = p.work;
      if (staged) w.staging = stagingFor(cmd.dst.size);
      // A copy to the device: the host executor fills the staging buffer once what the copy
      // waits for is done (and every command before it), then sets a flag the stream waits
      // for. The buffer is as large as the copy (a copy the driver could not register in
      // place).
      if (fillHere) {
        std::memcpy(w.staging->host, cmd.src.pointer(), cmd.dst.size);
      } else if (staged && cmd.copyKind == core::Command::CopyKind::ToDevice) {
        p.hostWaits = cmd.waits;
        w.stagingFilled = flags_.acquire();
        w.stagingFilled->arm();
        check(cu().StreamWaitValue32(stream, w.stagingFilled->device, 1, CU_STREAM_WAIT_VALUE_GEQ),
              "cuStreamWaitValue32", "a copy from pageable host memory");
      }
      for (const core::Ref<core::Event> &e : cmd.waits) {
        // The queue's own earlier device work, which its stream orders already (and which may
        // have no event yet); the host callback before it is not.
        if (inOrder && e->driver() == completions_.get() && e != afterHost) continue;
        waitOn(stream, e, p);
      }
      if (timed && options().profiling) {
        w.start = timedEvents_.acquire();
        check(cu().EventRecord(w.start->handle, stream), "cuEventRecord");
      }
      p.keep = staged ? enqueueStagedCopy(cmd, stream, *w.staging) : enqueue(cmd, stream);
      if (!hold) {
        w.end = (w.start ? timedEvents_ : events_).acquire();
        check(cu().EventRecord(w.end->handle, stream), "cuEventRecord");
      }
    } catch (const core::Error &e) {
      // Nothing will signal it: later commands must not wait for it forever.
      if (p.work.stagingFilled) p.work.stagingFilled->set();
      unsignalled_.pop_back();
      if (cmd.done) cmd.done->fail(e.what());
      throw;
    }
  }
  if (cmd.done) {
    cmd.done->setDriver(completions_);
    p.done = std::move(cmd.done);  // the queue's one reference (see referencedBeyond above)
  }
  p.command = std::move(cmd);
  if (!hold) {
    pushHeld(nullptr);  // it alone: what was held before it is pushed
    return;
  }
  completions_->holdUnsignalled(unsignalled_.size() == 1);
  if (unsignalled_.size() >= kMaxUnsignalled) signalHeld();
}

void CudaQueue::signalHeld() {
  if (unsignalled_.empty()) return;
  SlotRef end;
  try {
    ContextScope scope(context_->handle());
    end = events_.acquire();
    check(cu().EventRecord(end->handle, streams_[0]), "cuEventRecord");
  } catch (const core::Error &e) {
    // Their work is enqueued, but nothing can tell when it ends: the stream is synchronized.
    core::log().warn("CUDA: {}; synchronizing the queue's stream instead", e.what());
    try {
      ContextScope scope(context_->handle());
      cu().StreamSynchronize(streams_[0]);
    } catch (const core::Error &) {
    }
    end = nullptr;
  }
  pushHeld(end);
}

void CudaQueue::pushHeld(const SlotRef &end) {
  for (PendingCommand &p : unsignalled_)
    if (!p.isHostCallback() && !p.work.end) p.work.end = end;
  completions_->pushAll(unsignalled_, options().outOfOrder ? 1 : kMaxUnsignalled);
}

void CudaQueue::flush() {
  // From the submitting thread itself, waiting under the lock (a device without stream
  // memory operations waits on the host): what it holds goes with its next event.
  if (submitter_.load(std::memory_order_relaxed) == std::this_thread::get_id()) return;
  std::lock_guard lock(submitMutex_);
  signalHeld();
}

std::shared_ptr<StagingBuffer> CudaQueue::stagingFor(size_t bytes) {
  // The queue's buffer when no copy in flight holds it and it is large enough; else a new one,
  // which the queue keeps if it is larger.
  if (staging_ && staging_.use_count() == 1 && staging_->size >= bytes) return staging_;
  core::Ref<CudaDevice> device = cudaDevice_;
  size_t size = std::max(bytes, size_t{1} << 20);
  void *host = device->allocate(size, XPURT_ALLOC_TYPE_HOST);
  auto buffer =
      std::shared_ptr<StagingBuffer>(new StagingBuffer{host, size}, [device](StagingBuffer *b) {
        device->deallocate(b->host, XPURT_ALLOC_TYPE_HOST);
        delete b;
      });
  if (!staging_ || staging_->size < size) staging_ = buffer;
  return buffer;
}

std::shared_ptr<void> CudaQueue::enqueueStagedCopy(core::Command &cmd, CUstream stream,
                                                   const StagingBuffer &staging) {
  size_t n = cmd.dst.size;
  if (cmd.copyKind == core::Command::CopyKind::ToDevice) {
    if (CUresult r =
            cu().MemcpyHtoDAsync(devicePointer(cmd.dst.pointer()), staging.host, n, stream);
        r != CUDA_SUCCESS)
      failCall("cuMemcpyHtoDAsync", r, fmt::format("a copy of {} bytes", n));
  } else {
    if (CUresult r =
            cu().MemcpyDtoHAsync(staging.host, devicePointer(cmd.src.pointer()), n, stream);
        r != CUDA_SUCCESS)
      failCall("cuMemcpyDtoHAsync", r, fmt::format("a copy of {} bytes", n));
  }
  return nullptr;
}

std::shared_ptr<void> CudaQueue::enqueue(core::Command &cmd, CUstream stream) {
  using Type = core::Command::Type;
  using CopyKind = core::Command::CopyKind;
  const DriverApi &api = cu();
  switch (cmd.type) {
    case Type::Copy: {
      size_t n = cmd.dst.size;
      CUdeviceptr dst = devicePointer(cmd.dst.pointer());
      CUdeviceptr src = devicePointer(cmd.src.pointer());
      if (dst == src) return nullptr;  // a SHARED or HOST view: one memory for both sides
      CUresult r;
      const char *call;
      if (cmd.copyKind == CopyKind::ToDevice) {
        call = "cuMemcpyHtoDAsync";
        r = api.MemcpyHtoDAsync(dst, cmd.src.pointer(), n, stream);
      } else if (cmd.copyKind == CopyKind::ToHost) {
        call = "cuMemcpyDtoHAsync";
        r = api.MemcpyDtoHAsync(cmd.dst.pointer(), src, n, stream);
      } else if (cmd.copyKind == CopyKind::Peer) {
        // Between the contexts of two devices: over NVLink or PCIe where peer access is on
        // (CudaDevice::copiesPeerWith enabled it), staged by the driver otherwise.
        call = "cuMemcpyPeerAsync";
        r = api.MemcpyPeerAsync(dst, contextOf(*cmd.dst.view), src, contextOf(*cmd.src.view), n,
                                stream);
      } else {
        call = "cuMemcpyDtoDAsync";
        r = api.MemcpyDtoDAsync(dst, src, n, stream);
      }
      if (r != CUDA_SUCCESS) failCall(call, r, fmt::format("a copy of {} bytes", n));
      return nullptr;
    }
    case Type::Fill:
      enqueueFill(cmd, stream);
      return nullptr;
    case Type::Launch:
    case Type::LaunchKernel:
      enqueueLaunch(cmd, stream);
      return nullptr;
    case Type::Graph:
      static_cast<CudaGraphExec &>(*cmd.graph).launch(stream);
      return nullptr;
    case Type::Barrier:  // its waits are all it does
    case Type::HostCallback:
      return nullptr;
  }
  return nullptr;
}

void CudaQueue::enqueueFill(core::Command &cmd, CUstream stream) {
  const DriverApi &api = cu();
  CUdeviceptr dst = devicePointer(cmd.dst.pointer());
  size_t size = cmd.dst.size;
  uint32_t n = cmd.patternSize;
  const std::byte *pattern = cmd.patternBytes();
  if (size == 0) return;
  if (n == 1) {
    check(api.MemsetD8Async(dst, std::to_integer<unsigned char>(pattern[0]), size, stream),
          "cuMemsetD8Async");
    return;
  }
  if (n == 2 && dst % 2 == 0) {
    uint16_t v;
    std::memcpy(&v, pattern, 2);
    check(api.MemsetD16Async(dst, v, size / 2, stream), "cuMemsetD16Async");
    return;
  }
  if (n == 4 && dst % 4 == 0) {
    uint32_t v;
    std::memcpy(&v, pattern, 4);
    check(api.MemsetD32Async(dst, v, size / 4, stream), "cuMemsetD32Async");
    return;
  }
  // Longer patterns (and unaligned ones): the fill as a 2-D memset per 32-bit word (or byte) of
  // the pattern, each writing that word at the pattern's pitch. Nothing is staged from
  // pageable memory, which would make this thread wait for the stream.
  size_t rows = size / n;
  if (n % 4 == 0 && dst % 4 == 0) {
    for (uint32_t w = 0; w < n; w += 4) {
      uint32_t v;
      std::memcpy(&v, pattern + w, 4);
      check(api.MemsetD2D32Async(dst + w, n, v, 1, rows, stream), "cuMemsetD2D32Async");
    }
    return;
  }
  for (uint32_t k = 0; k < n; ++k)
    check(api.MemsetD2D8Async(dst + k, n, std::to_integer<unsigned char>(pattern[k]), 1, rows,
                              stream),
          "cuMemsetD2D8Async");
}

void CudaQueue::enqueueLaunch(core::Command &cmd, CUstream stream) {
  KernelLaunch &l = launch_;  // its vectors allocate once for the queue, not per launch
  prepareLaunch(*cudaDevice_, cmd, l);
  for (size_t part = 0; part < l.parts.size(); ++part) {
    if (part > 0) l.select(part);
    CUresult r = cu().LaunchKernel(l.function, l.grid[0], l.grid[1], l.grid[2], l.block[0],
                                   l.block[1], l.block[2], l.shared, stream,
                                   l.params.empty() ? nullptr : l.params.data(), nullptr);
    if (r != CUDA_SUCCESS)  // the message is made only then: formatting costs a launch's time
      failCall("cuLaunchKernel", r, l.describe(cmd));
  }
}

}  // namespace xpurt::cuda
