#include "cuda_queue.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
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
  completions_ = std::make_shared<Completions>(*cudaDevice_, failures(), !options.outOfOrder);
  completionThread_ = std::thread([c = completions_] { c->run(); });
}

CudaQueue::~CudaQueue() {
  std::vector<CUstream> streams = std::move(streams_);
  auto destroy = [streams, context = context_] {
    try {
      ContextScope scope(context->handle());
      for (CUstream s : streams) cu().StreamDestroy(s);
    } catch (const core::Error &e) {
      core::log().warn("CUDA: streams not destroyed: {}", e.what());
    }
  };
  if (completions_->runningOnThisThread()) {
    // Released from one of its own host callbacks: the completion thread finishes the queue's
    // work alone, then destroys the streams.
    completions_->stop(destroy);
    completionThread_.detach();
    return;
  }
  completions_->drain();
  completions_->stop();
  completionThread_.join();
  destroy();
}

void CudaQueue::drain() {
  completions_->drain();
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
  if (SlotRef slot = EventTable::instance().find(event.get())) {
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
  check(cu().StreamWaitValue32(stream, flag->device, 1, CU_STREAM_WAIT_VALUE_GEQ),
        "cuStreamWaitValue32", "a wait on work outside CUDA");
  p.flags.push_back(flag);
  event->then([flag] { flag->set(); });
}

void CudaQueue::submit(core::Command &&cmd) {
  using Type = core::Command::Type;
  // What this command waits for may need a poll to be submitted (a batched queue).
  for (const core::Ref<core::Event> &e : cmd.waits)
    if (e->driver() != completions_.get()) e->ready();
  std::lock_guard lock(submitMutex_);
  bool inOrder = !options().outOfOrder;
  if (inOrder && afterHost_) {
    cmd.waits.push_back(std::move(afterHost_));
    afterHost_ = nullptr;
  }
  // An in-order queue's barrier orders nothing its stream does not already order.
  if (!cmd.done && cmd.waits.empty() && cmd.type == Type::Barrier) return;
  PendingCommand p;
  bool timed = cmd.done && cmd.done->timed();
  p.submitNs = timed ? core::steadyNowNs() : 0;
  if (cmd.type == Type::HostCallback) {
    // Runs on the completion thread once the commands before it have completed.
    p.func = cmd.func;
    p.userData = cmd.userData;
    p.hostWaits = std::move(cmd.waits);
    if (inOrder) afterHost_ = cmd.done;
  } else {
    try {
      ContextScope scope(context_->handle());
      CUstream stream = streamFor(cmd);
      for (const core::Ref<core::Event> &e : cmd.waits) waitOn(stream, e, p);
      if (timed && options().profiling) {
        p.start = timedEvents_.acquire();
        check(cu().EventRecord(p.start->handle, stream), "cuEventRecord");
      }
      p.keep = enqueue(cmd, stream);
      p.end = (p.start ? timedEvents_ : events_).acquire();
      check(cu().EventRecord(p.end->handle, stream), "cuEventRecord");
    } catch (const core::Error &e) {
      // Nothing will signal it: later commands must not wait for it forever.
      if (cmd.done) cmd.done->fail(e.what());
      throw;
    }
    if (cmd.done) EventTable::instance().add(cmd.done.get(), p.end);
  }
  if (cmd.done) {
    cmd.done->setDriver(completions_);
    p.done = cmd.done;
  }
  p.command = std::move(cmd);
  completions_->push(std::move(p));
}

std::shared_ptr<void> CudaQueue::enqueue(core::Command &cmd, CUstream stream) {
  using Type = core::Command::Type;
  using CopyKind = core::Command::CopyKind;
  const DriverApi &api = cu();
  switch (cmd.type) {
    case Type::Copy: {
      size_t n = cmd.dst.size;
      std::string what = fmt::format("{} bytes", n);
      if (cmd.copyKind == CopyKind::ToDevice)
        check(api.MemcpyHtoDAsync(devicePointer(cmd.dst.pointer()), cmd.src.pointer(), n, stream),
              "cuMemcpyHtoDAsync", what);
      else if (cmd.copyKind == CopyKind::ToHost)
        check(api.MemcpyDtoHAsync(cmd.dst.pointer(), devicePointer(cmd.src.pointer()), n, stream),
              "cuMemcpyDtoHAsync", what);
      else
        check(api.MemcpyDtoDAsync(devicePointer(cmd.dst.pointer()),
                                  devicePointer(cmd.src.pointer()), n, stream),
              "cuMemcpyDtoDAsync", what);
      return nullptr;
    }
    case Type::Fill:
      enqueueFill(cmd, stream);
      return nullptr;
    case Type::Launch:
    case Type::LaunchKernel:
      enqueueLaunch(cmd, stream);
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
  // Longer patterns: one copy of the pattern, then copies of what is filled so far, doubling.
  // The pattern is staged by the driver during the call.
  check(api.MemcpyHtoDAsync(dst, pattern, n, stream), "cuMemcpyHtoDAsync", "a fill's pattern");
  for (size_t done = n; done < size;) {
    size_t chunk = std::min(done, size - done);
    check(api.MemcpyDtoDAsync(dst + done, dst, chunk, stream), "cuMemcpyDtoDAsync", "a fill");
    done += chunk;
  }
}

void CudaQueue::enqueueLaunch(core::Command &cmd, CUstream stream) {
  auto &kernel = static_cast<CudaKernel &>(*cmd.kernel);
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  uint32_t shared = 0;
  std::vector<void *> params;
  void *taskParams = nullptr;
  std::vector<void *> pointers;
  std::vector<uint32_t> offsets;
  if (cmd.type == core::Command::Type::Launch) {
    const core::KernelSignature *signature = kernel.signature();
    if (signature) {
      core::NDRange range = kernel.taskRange(cmd.dims);
      for (int d = 0; d < 3; ++d) block[d] = static_cast<uint32_t>(range.localSize[d]);
    }
    for (int d = 0; d < 3; ++d) grid[d] = cmd.dims[d];
    taskParams = cmd.params();
    if (signature ? !signature->params.empty() : taskParams != nullptr)
      params.push_back(&taskParams);
  } else {
    const core::KernelArgs &args = *cmd.args;
    pointers.resize(args.args.size());
    for (const core::KernelArgs::ViewArg &v : args.views) pointers[v.index] = v.ref.pointer();
    uint64_t localBytes = layoutLocalArguments(args, &offsets);
    shared = static_cast<uint32_t>(localBytes);
    params.resize(args.args.size());
    for (uint32_t i = 0; i < args.args.size(); ++i) {
      const core::KernelArgs::Arg &a = args.args[i];
      if (a.kind == XPURT_KERNEL_ARG_LOCAL)
        params[i] = &offsets[i];
      else if (a.kind == XPURT_KERNEL_ARG_MEMORY_VIEW)
        params[i] = &pointers[i];
      else
        params[i] = const_cast<std::byte *>(args.data.data() + a.offset);
    }
    for (int d = 0; d < 3; ++d) {
      block[d] = static_cast<uint32_t>(cmd.range.localSize[d]);
      grid[d] = static_cast<uint32_t>(cmd.range.globalSize[d] / cmd.range.localSize[d]);
    }
  }
  const CudaDeviceDescription &d = cudaDevice_->description();
  for (int i = 0; i < 3; ++i)
    if (grid[i] > d.maxGridSize[i])
      core::fail(XPURT_ERROR_OUT_OF_RANGE,
                 "kernel '{}': {} blocks in dimension {}; {} runs at most {}: use larger "
                 "work-groups or split the launch",
                 kernel.name(), grid[i], i, cudaDevice_->label(), d.maxGridSize[i]);
  if (shared > 48 * 1024) kernel.allowDynamicShared(shared);
  check(
      cu().LaunchKernel(kernel.function(), grid[0], grid[1], grid[2], block[0], block[1], block[2],
                        shared, stream, params.empty() ? nullptr : params.data(), nullptr),
      "cuLaunchKernel",
      fmt::format("kernel '{}', {}x{}x{} blocks of {}x{}x{}, {} bytes of dynamic shared memory",
                  kernel.name(), grid[0], grid[1], grid[2], block[0], block[1], block[2], shared));
}

}  // namespace xpurt::cuda
