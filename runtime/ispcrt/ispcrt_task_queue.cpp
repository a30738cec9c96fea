// Task queues and futures.
#include "ispcrt_commands.hpp"

namespace xpurt::ispcrt {

void Future::bind(XFuture f, bool timed) {
  std::lock_guard lock(mutex_);
  future_ = std::move(f);
  timed_ = timed;
}

bool Future::valid() {
  std::lock_guard lock(mutex_);
  if (!future_.get()) return false;
  bool done = false;
  check(xpurtFutureIsValid(future_.get(), &done));
  // Completed; valid only if it succeeded (a completed future's wait does not block).
  return done && xpurtFutureWait(future_.get()) == XPURT_SUCCESS;
}

uint64_t Future::timeNs() {
  if (!valid()) return UINT64_MAX;
  std::lock_guard lock(mutex_);
  if (!timed_) return 0;
  uint64_t ns = 0;
  check(xpurtFutureTimeNs(future_.get(), &ns));
  return ns;
}

ISPCRTFuture TaskQueue::keep(Ref<Future> f) {
  Future *raw = f.get();
  std::lock_guard lock(mutex_);
  kept_.push_back(std::move(f));
  return borrowed<ISPCRTFuture>(raw);
}

void TaskQueue::sync() {
  XpurtResult r = xpurtSync(queue_.get());
  std::string message = r == XPURT_SUCCESS ? std::string() : xpurtLastErrorMessage();
  std::vector<Ref<Future>> done;
  {
    std::lock_guard lock(mutex_);
    done.swap(kept_);
  }
  if (r != XPURT_SUCCESS) throw Failure{ISPCRT_UNKNOWN_ERROR, message};
}

XQueue newQueue(const Device &device, XpurtEngine engine) {
  XpurtQueueOptions options{};
  options.structSize = sizeof options;
  options.engine = engine;
  options.flags = XPURT_QUEUE_FLAG_PROFILING;
  XpurtTaskQueue q = nullptr;
  check(xpurtNewTaskQueueWithOptions(device.handle(), &options, &q));
  return XQueue(q);
}

namespace {

// The view's xpurt handle (NULL for NULL), the view kept in `keep` for the command.
XpurtMemoryView viewOrNull(ISPCRTMemoryView view, const char *what,
                           std::vector<Ref<Object>> &keep) {
  if (!view) return nullptr;
  Ref<MemoryView> v = lookup<MemoryView>(view, what);
  XpurtMemoryView h = v->handle();
  keep.push_back(Ref<Object>(v.get()));
  return h;
}

}  // namespace

namespace {

// The whole view between its host copy and its device storage, by `copy` (xpurtCopyToDevice
// or xpurtCopyToHost).
using CopyWithin = XpurtResult (*)(XpurtTaskQueue, XpurtMemoryView, size_t, size_t, XpurtFuture *);
Enqueue copyWithin(ISPCRTMemoryView view, CopyWithin copy) {
  std::vector<Ref<Object>> keep;
  XpurtMemoryView v = viewOrNull(view, "view", keep);
  if (!v) fail(ISPCRT_INVALID_ARGUMENT, "the memory view handle is NULL");
  return [v, keep, copy](XpurtTaskQueue q, XpurtFuture *f) {
    return copy(q, v, 0, XPURT_WHOLE_SIZE, f);
  };
}

}  // namespace

Enqueue copyToDevice(ISPCRTMemoryView view) {
  return copyWithin(view, xpurtCopyToDevice);
}

Enqueue copyToHost(ISPCRTMemoryView view) {
  return copyWithin(view, xpurtCopyToHost);
}

Enqueue copyMemoryView(ISPCRTMemoryView dst, ISPCRTMemoryView src, size_t size) {
  std::vector<Ref<Object>> keep;
  XpurtMemoryView d = viewOrNull(dst, "destination view", keep);
  XpurtMemoryView s = viewOrNull(src, "source view", keep);
  if (!d || !s) fail(ISPCRT_INVALID_ARGUMENT, "a memory view handle is NULL");
  return [d, s, size, keep](XpurtTaskQueue q, XpurtFuture *f) {
    return xpurtCopyMemoryView(q, d, s, 0, 0, size, f);
  };
}

Enqueue launch(ISPCRTKernel kernel, ISPCRTMemoryView params, size_t d0, size_t d1, size_t d2) {
  std::vector<Ref<Object>> keep;
  Ref<Kernel> k = lookup<Kernel>(kernel, "kernel");
  XpurtKernel kh = k->handle();
  keep.push_back(Ref<Object>(k.get()));
  XpurtMemoryView p = viewOrNull(params, "params", keep);
  return [kh, p, d0, d1, d2, keep](XpurtTaskQueue q, XpurtFuture *f) {
    return xpurtLaunch3D(q, kh, p, d0, d1, d2, f);
  };
}

void *queueNativeHandle(const Device &device, XpurtTaskQueue queue) {
  if (device.type() == ISPCRT_DEVICE_TYPE_CPU) return nullptr;  // as ISPCRT's CPU device
  if (device.backend() == "level_zero")
    fail(ISPCRT_UNSUPPORTED,
         "xpurt's Level Zero queues run on immediate command lists and have no "
         "ze_command_queue_handle_t; the device's handles (ispcrtDeviceNativeHandle, "
         "ispcrtDeviceContextNativeHandle) are available");
  void *h = nullptr;
  check(xpurtQueueGetNativeHandle(queue, &h));  // CUDA: the CUstream
  return h;
}

namespace {

// Enqueues on the task queue now; the future, if any, is the queue's until it syncs.
ISPCRTFuture enqueue(ISPCRTTaskQueue queue, const Enqueue &command) {
  Ref<TaskQueue> q = lookup<TaskQueue>(queue, "queue");
  XpurtFuture f = nullptr;
  check(command(q->handle(), &f));
  return q->keep(make<Future>(XFuture(f), true));
}

}  // namespace
}  // namespace xpurt::ispcrt

using namespace xpurt::ispcrt;

extern "C" {

ISPCRT_API ISPCRTTaskQueue ispcrtNewTaskQueue(ISPCRTDevice device) {
  return guarded("ispcrtNewTaskQueue", ISPCRTTaskQueue{}, [&] {
    Ref<Device> d = lookup<Device>(device, "device");
    XQueue q = newQueue(*d, XPURT_ENGINE_ANY);
    return handOut<ISPCRTTaskQueue>(make<TaskQueue>(d, std::move(q)));
  });
}

ISPCRT_API void ispcrtDeviceBarrier(ISPCRTTaskQueue queue) {
  guardedVoid("ispcrtDeviceBarrier",
              [&] { check(xpurtBarrier(lookup<TaskQueue>(queue, "queue")->handle())); });
}

ISPCRT_API void ispcrtCopyToDevice(ISPCRTTaskQueue queue, ISPCRTMemoryView view) {
  guardedVoid("ispcrtCopyToDevice", [&] { enqueue(queue, copyToDevice(view)); });
}

ISPCRT_API void ispcrtCopyToHost(ISPCRTTaskQueue queue, ISPCRTMemoryView view) {
  guardedVoid("ispcrtCopyToHost", [&] { enqueue(queue, copyToHost(view)); });
}

ISPCRT_API void ispcrtCopyMemoryView(ISPCRTTaskQueue queue, ISPCRTMemoryView dst,
                                     ISPCRTMemoryView src, const size_t size) {
  guardedVoid("ispcrtCopyMemoryView", [&] { enqueue(queue, copyMemoryView(dst, src, size)); });
}

ISPCRT_API ISPCRTFuture ispcrtLaunch1D(ISPCRTTaskQueue queue, ISPCRTKernel kernel,
                                       ISPCRTMemoryView params, size_t dim0) {
  return guarded("ispcrtLaunch1D", ISPCRTFuture{},
                 [&] { return enqueue(queue, launch(kernel, params, dim0, 1, 1)); });
}

ISPCRT_API ISPCRTFuture ispcrtLaunch2D(ISPCRTTaskQueue queue, ISPCRTKernel kernel,
                                       ISPCRTMemoryView params, size_t dim0, size_t dim1) {
  return guarded("ispcrtLaunch2D", ISPCRTFuture{},
                 [&] { return enqueue(queue, launch(kernel, params, dim0, dim1, 1)); });
}

ISPCRT_API ISPCRTFuture ispcrtLaunch3D(ISPCRTTaskQueue queue, ISPCRTKernel kernel,
                                       ISPCRTMemoryView params, size_t dim0, size_t dim1,
                                       size_t dim2) {
  return guarded("ispcrtLaunch3D", ISPCRTFuture{},
                 [&] { return enqueue(queue, launch(kernel, params, dim0, dim1, dim2)); });
}

ISPCRT_API void ispcrtSync(ISPCRTTaskQueue queue) {
  guardedVoid("ispcrtSync", [&] { lookup<TaskQueue>(queue, "queue")->sync(); });
}

ISPCRT_API uint64_t ispcrtFutureGetTimeNs(ISPCRTFuture future) {
  if (!future) return UINT64_MAX;  // as ISPCRT: no future, no time, no error
  return guarded("ispcrtFutureGetTimeNs", UINT64_MAX,
                 [&] { return lookup<Future>(future, "future")->timeNs(); });
}

ISPCRT_API bool ispcrtFutureIsValid(ISPCRTFuture future) {
  return guarded("ispcrtFutureIsValid", false,
                 [&] { return lookup<Future>(future, "future")->valid(); });
}

ISPCRT_API ISPCRTGenericHandle ispcrtTaskQueueNativeHandle(ISPCRTTaskQueue queue) {
  return guarded("ispcrtTaskQueueNativeHandle", ISPCRTGenericHandle{}, [&] {
    Ref<TaskQueue> q = lookup<TaskQueue>(queue, "queue");
    return queueNativeHandle(*q->device(), q->handle());
  });
}

}  // extern "C"
