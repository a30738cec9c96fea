// Task queues and futures.
#include "api_common.hpp"
#include "core/split_launch.hpp"
#include "core/task_queue.hpp"

#include <algorithm>
#include <cstring>

using namespace xpurt;

namespace {

using core::MemoryView;
using core::Ref;

// Looks up the queue, runs `enqueue` and hands its event out as a future if one was asked for.
template <class Enqueue>
XpurtResult command(const char *entry, XpurtTaskQueue queue, XpurtFuture *future, Enqueue enqueue) {
  return api::guarded(entry, [&] {
    auto q = api::lookup<core::TaskQueue>(queue, "queue");
    Ref<core::Event> done = enqueue(*q);
    if (future && done) api::publish(future, done);
    if (future && !done) *future = nullptr;  // captured into a graph: nothing to wait for
  });
}

XpurtResult launch(XpurtTaskQueue queue, XpurtKernel kernel, XpurtMemoryView params, size_t d0,
                   size_t d1, size_t d2, XpurtFuture *future) {
  return command("xpurtLaunch", queue, future, [&](core::TaskQueue &q) {
    auto k = api::lookup<core::Kernel>(kernel, "kernel");
    Ref<MemoryView> p = params ? api::lookup<MemoryView>(params, "params") : nullptr;
    return q.launch(*k, p.get(), nullptr, d0, d1, d2);
  });
}

}  // namespace

extern "C" {

XPURT_API XpurtResult xpurtNewTaskQueue(XpurtDevice device, XpurtTaskQueue *queue) {
  return api::guarded("xpurtNewTaskQueue", [&] {
    auto dev = api::lookup<core::Device>(device, "device");
    api::checkOut(queue, "queue");
    api::publish(queue, dev->createQueue(core::QueueOptions{}));
  });
}

XPURT_API XpurtResult xpurtNewTaskQueueWithOptions(XpurtDevice device,
                                                   const XpurtQueueOptions *options,
                                                   XpurtTaskQueue *queue) {
  return api::guarded("xpurtNewTaskQueueWithOptions", [&] {
    auto dev = api::lookup<core::Device>(device, "device");
    api::checkOut(queue, "queue");
    XpurtQueueOptions o = api::versionedInput(options, "XpurtQueueOptions");
    constexpr uint32_t known =
        XPURT_QUEUE_FLAG_OUT_OF_ORDER | XPURT_QUEUE_FLAG_PROFILING | XPURT_QUEUE_FLAG_BATCHED;
    if (o.flags & ~known)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                 "queue options: unknown flags {:#x}; use XPURT_QUEUE_FLAG_* values",
                 o.flags & ~known);
    core::QueueOptions q;
    q.engine = o.engine;
    q.outOfOrder = o.flags & XPURT_QUEUE_FLAG_OUT_OF_ORDER;
    q.profiling = o.flags & XPURT_QUEUE_FLAG_PROFILING;
    q.batched = o.flags & XPURT_QUEUE_FLAG_BATCHED;
    api::publish(queue, dev->createQueue(q));
  });
}

XPURT_API XpurtResult xpurtQueueWaitFutures(XpurtTaskQueue queue, uint32_t numFutures,
                                            const XpurtFuture *futures) {
  return api::guarded("xpurtQueueWaitFutures", [&] {
    auto q = api::lookup<core::TaskQueue>(queue, "queue");
    if (numFutures && !futures)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT, "{} futures announced but futures is NULL",
                 numFutures);
    std::vector<Ref<core::Event>> events;
    for (uint32_t i = 0; i < numFutures; ++i)
      events.push_back(api::lookup<core::Event>(futures[i], "futures[i]"));
    q->waitFor(events);
  });
}

XPURT_API XpurtResult xpurtLaunchWithAccess(XpurtTaskQueue queue, XpurtKernel kernel,
                                            XpurtMemoryView params, uint32_t numAccesses,
                                            const XpurtViewAccess *accesses, size_t d0, size_t d1,
                                            size_t d2, XpurtFuture *future) {
  return command("xpurtLaunchWithAccess", queue, future, [&](core::TaskQueue &q) {
    auto k = api::lookup<core::Kernel>(kernel, "kernel");
    Ref<MemoryView> p = params ? api::lookup<MemoryView>(params, "params") : nullptr;
    if (numAccesses && !accesses)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT, "{} accesses announced but accesses is NULL",
                 numAccesses);
    std::vector<Ref<MemoryView>> views;  // keep the looked-up views alive during the call
    std::vector<core::TaskQueue::AccessInput> inputs;
    for (uint32_t i = 0; i < numAccesses; ++i) {
      views.push_back(api::lookup<MemoryView>(accesses[i].view, "accesses[i].view"));
      inputs.push_back(
          {views.back().get(), accesses[i].offset, accesses[i].size, accesses[i].access});
    }
    std::span<const core::TaskQueue::AccessInput> declared(inputs);
    return q.launch(*k, p.get(), &declared, d0, d1, d2);
  });
}

XPURT_API XpurtResult xpurtCopyToDevice(XpurtTaskQueue queue, XpurtMemoryView v, size_t offset,
                                        size_t size, XpurtFuture *future) {
  return command("xpurtCopyToDevice", queue, future, [&](core::TaskQueue &q) {
    return q.copyToDevice(*api::lookup<MemoryView>(v, "view"), offset, size);
  });
}

XPURT_API XpurtResult xpurtCopyToHost(XpurtTaskQueue queue, XpurtMemoryView v, size_t offset,
                                      size_t size, XpurtFuture *future) {
  return command("xpurtCopyToHost", queue, future, [&](core::TaskQueue &q) {
    return q.copyToHost(*api::lookup<MemoryView>(v, "view"), offset, size);
  });
}

XPURT_API XpurtResult xpurtCopyMemoryView(XpurtTaskQueue queue, XpurtMemoryView dst,
                                          XpurtMemoryView src, size_t dstOffset, size_t srcOffset,
                                          size_t size, XpurtFuture *future) {
  return command("xpurtCopyMemoryView", queue, future, [&](core::TaskQueue &q) {
    return q.copyView(*api::lookup<MemoryView>(dst, "dst"), *api::lookup<MemoryView>(src, "src"),
                      dstOffset, srcOffset, size);
  });
}

XPURT_API XpurtResult xpurtFill(XpurtTaskQueue queue, XpurtMemoryView v, size_t offset, size_t size,
                                const void *pattern, size_t patternSize, XpurtFuture *future) {
  return command("xpurtFill", queue, future, [&](core::TaskQueue &q) {
    return q.fill(*api::lookup<MemoryView>(v, "view"), offset, size, pattern, patternSize);
  });
}

XPURT_API XpurtResult xpurtLaunch1D(XpurtTaskQueue queue, XpurtKernel kernel,
                                    XpurtMemoryView params, size_t d0, XpurtFuture *future) {
  return launch(queue, kernel, params, d0, 1, 1, future);
}

XPURT_API XpurtResult xpurtLaunch2D(XpurtTaskQueue queue, XpurtKernel kernel,
                                    XpurtMemoryView params, size_t d0, size_t d1,
                                    XpurtFuture *future) {
  return launch(queue, kernel, params, d0, d1, 1, future);
}

XPURT_API XpurtResult xpurtLaunch3D(XpurtTaskQueue queue, XpurtKernel kernel,
                                    XpurtMemoryView params, size_t d0, size_t d1, size_t d2,
                                    XpurtFuture *future) {
  return launch(queue, kernel, params, d0, d1, d2, future);
}

XPURT_API XpurtResult xpurtLaunchKernel(XpurtTaskQueue queue, XpurtKernel kernel, uint32_t numArgs,
                                        const XpurtKernelArg *args, uint32_t workDim,
                                        const size_t *globalOffset, const size_t *globalSize,
                                        const size_t *localSize, XpurtFuture *future) {
  return command("xpurtLaunchKernel", queue, future, [&](core::TaskQueue &q) {
    auto k = api::lookup<core::Kernel>(kernel, "kernel");
    if (numArgs && !args)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT, "{} arguments announced but args is NULL", numArgs);
    std::vector<Ref<MemoryView>> views;  // keep the looked-up views alive during the call
    std::vector<core::TaskQueue::ArgInput> inputs;
    for (uint32_t i = 0; i < numArgs; ++i) {
      const XpurtKernelArg &a = args[i];
      MemoryView *v = nullptr;
      if (a.kind == XPURT_KERNEL_ARG_MEMORY_VIEW && a.view) {
        views.push_back(api::lookup<MemoryView>(a.view, "args[i].view"));
        v = views.back().get();
      }
      inputs.push_back({a.kind, a.size, a.value, v, a.offset, a.access});
    }
    return q.launchKernel(*k, inputs, workDim, globalOffset, globalSize, localSize);
  });
}

XPURT_API XpurtResult xpurtLaunchKernelSplit(uint32_t numQueues, const XpurtTaskQueue *queues,
                                             const XpurtKernel *kernels, uint32_t numArgs,
                                             const XpurtSplitArg *args, uint32_t workDim,
                                             const size_t *globalOffset, const size_t *globalSize,
                                             const size_t *localSize, XpurtFuture *future) {
  return api::guarded("xpurtLaunchKernelSplit", [&] {
    if (numQueues && (!queues || !kernels))
      core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                 "{} queues announced but queues or kernels is NULL (give a kernel per queue)",
                 numQueues);
    if (numArgs && !args)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT, "{} arguments announced but args is NULL", numArgs);
    std::vector<Ref<core::TaskQueue>> qs;
    std::vector<Ref<core::Kernel>> ks;
    for (uint32_t i = 0; i < numQueues; ++i) {
      qs.push_back(api::lookup<core::TaskQueue>(queues[i], "queues[i]"));
      ks.push_back(api::lookup<core::Kernel>(kernels[i], "kernels[i]"));
    }
    std::vector<Ref<MemoryView>> views;  // keep the looked-up views alive during the call
    std::vector<core::SplitArgInput> inputs;
    for (uint32_t i = 0; i < numArgs; ++i) {
      const XpurtKernelArg &a = args[i].arg;
      MemoryView *v = nullptr;
      if (a.kind == XPURT_KERNEL_ARG_MEMORY_VIEW && a.view) {
        views.push_back(api::lookup<MemoryView>(a.view, "args[i].arg.view"));
        v = views.back().get();
      }
      // The mapper as the application's bytes: a value outside the enum is an error to report,
      // not one to load as the enum.
      uint32_t mapper = 0;
      static_assert(sizeof(XpurtRangeMapper) == sizeof(mapper));
      std::memcpy(&mapper, &args[i].mapper, sizeof mapper);
      inputs.push_back(
          {{a.kind, a.size, a.value, v, a.offset, a.access}, mapper, args[i].pitch, args[i].halo});
    }
    std::vector<core::TaskQueue *> qp;
    std::vector<core::Kernel *> kp;
    for (uint32_t i = 0; i < numQueues; ++i) {
      qp.push_back(qs[i].get());
      kp.push_back(ks[i].get());
    }
    Ref<core::Event> done =
        core::launchSplit(qp, kp, inputs, workDim, globalOffset, globalSize, localSize);
    if (future) api::publish(future, done);
  });
}

XPURT_API XpurtResult xpurtHostCallback(XpurtTaskQueue queue, XpurtHostFunc func, void *userData,
                                        XpurtFuture *future) {
  return command("xpurtHostCallback", queue, future,
                 [&](core::TaskQueue &q) { return q.hostCallback(func, userData); });
}

XPURT_API XpurtResult xpurtHostCallbackWithDestructor(XpurtTaskQueue queue, XpurtHostFunc func,
                                                      void *userData, XpurtDestroyFunc destroy,
                                                      XpurtFuture *future) {
  return command("xpurtHostCallbackWithDestructor", queue, future, [&](core::TaskQueue &q) {
    std::shared_ptr<void> owned;
    if (destroy) owned = std::shared_ptr<void>(userData, destroy);
    return q.hostCallback(func, userData, std::move(owned));
  });
}

XPURT_API XpurtResult xpurtBarrier(XpurtTaskQueue queue) {
  return api::guarded("xpurtBarrier",
                      [&] { api::lookup<core::TaskQueue>(queue, "queue")->barrier(); });
}

XPURT_API XpurtResult xpurtSync(XpurtTaskQueue queue) {
  return api::guarded("xpurtSync", [&] { api::lookup<core::TaskQueue>(queue, "queue")->sync(); });
}

XPURT_API XpurtResult xpurtQueueGetNativeHandle(XpurtTaskQueue queue, void **handle) {
  return api::guarded("xpurtQueueGetNativeHandle", [&] {
    auto q = api::lookup<core::TaskQueue>(queue, "queue");
    api::checkOut(handle, "handle");
    *handle = q->nativeHandle();
  });
}

XPURT_API XpurtResult xpurtFutureIsValid(XpurtFuture future, bool *valid) {
  return api::guarded("xpurtFutureIsValid", [&] {
    auto f = api::lookup<core::Event>(future, "future");
    api::checkOut(valid, "valid");
    *valid = f->ready();
  });
}

XPURT_API XpurtResult xpurtFutureWait(XpurtFuture future) {
  return api::guarded("xpurtFutureWait", [&] {
    auto f = api::lookup<core::Event>(future, "future");
    f->wait();
    if (f->failed()) core::fail(XPURT_ERROR_EXECUTION_FAILED, "{}", f->errorMessage());
  });
}

XPURT_API XpurtResult xpurtFutureTimeNs(XpurtFuture future, uint64_t *ns) {
  return api::guarded("xpurtFutureTimeNs", [&] {
    auto f = api::lookup<core::Event>(future, "future");
    api::checkOut(ns, "ns");
    if (!f->profiled())
      core::fail(XPURT_ERROR_UNSUPPORTED,
                 "the future's queue was created without XPURT_QUEUE_FLAG_PROFILING, so its "
                 "commands are not timed; create the queue with that flag (or with "
                 "xpurtNewTaskQueue)");
    f->wait();
    *ns = f->deviceTimeNs();
  });
}

}  // extern "C"
