// Command queues, command lists and fences. A list records its commands and, at each
// submission, enqueues them in order on its command queue (an in-order xpurt queue); the fence
// is the submission's last command.
#include "ispcrt_commands.hpp"

namespace xpurt::ispcrt {

void Fence::bind(XFuture last) {
  std::lock_guard lock(mutex_);
  last_ = std::move(last);
  reset_ = false;
}

bool Fence::doneLocked() {
  bool done = true;
  if (last_.get()) check(xpurtFutureIsValid(last_.get(), &done));
  return done;
}

void Fence::sync() {
  XpurtFuture f;
  {
    std::lock_guard lock(mutex_);
    if (reset_)
      fail(ISPCRT_INVALID_OPERATION,
           "the fence was reset and its command list has not been submitted since: nothing "
           "would signal it; submit the list, then wait");
    f = last_.get();
    if (!f) return;  // an empty submission
    xpurtRetainFuture(f);
  }
  XFuture keep(f);
  XpurtResult r = xpurtFutureWait(f);
  if (r != XPURT_SUCCESS) throw Failure{ISPCRT_UNKNOWN_ERROR, xpurtLastErrorMessage()};
}

bool Fence::signalled() {
  std::lock_guard lock(mutex_);
  return !reset_ && doneLocked();
}

bool Fence::done() {
  std::lock_guard lock(mutex_);
  return doneLocked();
}

void Fence::reset() {
  std::lock_guard lock(mutex_);
  if (!doneLocked())
    fail(ISPCRT_INVALID_OPERATION,
         "the fence's submission is still running: reset it once it has signalled "
         "(ispcrtFenceSync)");
  reset_ = true;
}

CommandQueue::CommandQueue(Ref<Device> device, XQueue queue)
    : Object(kKind),
      device_(std::move(device)),
      queue_(std::move(queue)),
      link_(std::make_shared<QueueLink>()) {
  link_->queue = this;
}

CommandQueue::~CommandQueue() {
  {
    std::lock_guard lock(link_->mutex);
    link_->queue = nullptr;
  }
  for (auto [list, serial] : lists_)
    if (Ref<Object> alive = ifAlive(list, serial)) alive->release();  // the queue's reference
}

void CommandQueue::own(Object *list) {
  std::lock_guard lock(mutex_);
  lists_.emplace_back(list, list->serial());
}

void CommandList::checkOpen(const char *what) {
  if (closed_)
    fail(ISPCRT_INVALID_OPERATION,
         "the command list is closed: {} needs an open list; reset it (ispcrtCommandListReset) "
         "to record again",
         what);
}

ISPCRTFuture CommandList::record(Command command) {
  std::lock_guard lock(mutex_);
  checkOpen("recording a command");
  Ref<Future> f = make<Future>();
  Future *raw = f.get();
  commands_.push_back({std::move(command), std::move(f), timestamps_});
  return borrowed<ISPCRTFuture>(raw);
}

void CommandList::recordBarrier() {
  std::lock_guard lock(mutex_);
  checkOpen("recording a barrier");
  commands_.push_back({});
}

void CommandList::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
}

ISPCRTFence CommandList::submit() {
  std::lock_guard lock(mutex_);
  std::lock_guard queueLock(queue_->mutex);
  CommandQueue *queue = queue_->queue;
  if (!queue)
    fail(ISPCRT_INVALID_OPERATION,
         "the list's command queue was released: nothing can run the list any more");
  closed_ = true;
  XpurtTaskQueue q = queue->handle();
  Ref<Fence> fence = make<Fence>();
  XpurtFuture last = nullptr;
  for (Recorded &r : commands_) {
    if (!r.command) {  // a barrier: the queue runs in order already
      check(xpurtBarrier(q));
      continue;
    }
    XpurtFuture f = nullptr;
    XpurtResult result = r.command(q, &f);
    if (result != XPURT_SUCCESS) {
      // What was enqueued runs; the fence signals when it is done.
      std::string message = xpurtLastErrorMessage();
      fence->bind(XFuture(last));
      fences_.push_back(std::move(fence));
      throw Failure{ISPCRT_UNKNOWN_ERROR, message};
    }
    if (last) xpurtReleaseFuture(last);
    last = f;
    xpurtRetainFuture(f);
    r.future->bind(XFuture(f), r.timed);
  }
  fence->bind(XFuture(last));
  Fence *raw = fence.get();
  fences_.push_back(std::move(fence));
  return borrowed<ISPCRTFence>(raw);
}

void CommandList::reset() {
  std::lock_guard lock(mutex_);
  for (const Ref<Fence> &f : fences_)
    if (!f->done())
      fail(ISPCRT_INVALID_OPERATION,
           "a submission of the list is still running: wait for its fence, then reset the list");
  commands_.clear();
  fences_.clear();
  closed_ = false;
}

void CommandList::enableTimestamps() {
  std::lock_guard lock(mutex_);
  timestamps_ = true;
}

namespace {

XpurtEngine engineOf(uint32_t ordinal) {
  switch (ordinal) {
    case 0:
      return XPURT_ENGINE_ANY;
    case 1:
      return XPURT_ENGINE_COMPUTE;
    case 2:
      return XPURT_ENGINE_COPY;
    default:
      fail(ISPCRT_INVALID_ARGUMENT,
           "ordinal {} names no queue group: use 0 (any engine), 1 (compute) or 2 (copy)", ordinal);
  }
}

ISPCRTFuture record(ISPCRTCommandList list, const Enqueue &command) {
  return lookup<CommandList>(list, "command list")->record(command);
}

}  // namespace
}  // namespace xpurt::ispcrt

using namespace xpurt::ispcrt;

extern "C" {

ISPCRT_API ISPCRTCommandQueue ispcrtNewCommandQueue(ISPCRTDevice device, uint32_t ordinal) {
  return guarded("ispcrtNewCommandQueue", ISPCRTCommandQueue{}, [&] {
    Ref<Device> d = lookup<Device>(device, "device");
    XQueue q = newQueue(*d, engineOf(ordinal));
    return handOut<ISPCRTCommandQueue>(make<CommandQueue>(d, std::move(q)));
  });
}

ISPCRT_API ISPCRTCommandList ispcrtCommandQueueCreateCommandList(ISPCRTCommandQueue queue) {
  return guarded("ispcrtCommandQueueCreateCommandList", ISPCRTCommandList{}, [&] {
    Ref<CommandQueue> q = lookup<CommandQueue>(queue, "command queue");
    // Borrowed, as ISPCRT's: the queue holds the list's one reference until it goes.
    CommandList *list = make<CommandList>(q->link()).detach();
    q->own(list);
    return borrowed<ISPCRTCommandList>(list);
  });
}

ISPCRT_API void ispcrtCommandQueueSync(ISPCRTCommandQueue queue) {
  guardedVoid("ispcrtCommandQueueSync", [&] {
    XpurtResult r = xpurtSync(lookup<CommandQueue>(queue, "command queue")->handle());
    if (r != XPURT_SUCCESS) throw Failure{ISPCRT_UNKNOWN_ERROR, xpurtLastErrorMessage()};
  });
}

ISPCRT_API ISPCRTGenericHandle ispcrtCommandQueueNativeHandle(ISPCRTCommandQueue queue) {
  return guarded("ispcrtCommandQueueNativeHandle", ISPCRTGenericHandle{}, [&] {
    Ref<CommandQueue> q = lookup<CommandQueue>(queue, "command queue");
    return queueNativeHandle(*q->device(), q->handle());
  });
}

ISPCRT_API void ispcrtCommandListBarrier(ISPCRTCommandList list) {
  guardedVoid("ispcrtCommandListBarrier",
              [&] { lookup<CommandList>(list, "command list")->recordBarrier(); });
}

ISPCRT_API ISPCRTFuture ispcrtCommandListCopyToDevice(ISPCRTCommandList list,
                                                      ISPCRTMemoryView view) {
  return guarded("ispcrtCommandListCopyToDevice", ISPCRTFuture{},
                 [&] { return record(list, copyToDevice(view)); });
}

ISPCRT_API ISPCRTFuture ispcrtCommandListCopyToHost(ISPCRTCommandList list, ISPCRTMemoryView view) {
  return guarded("ispcrtCommandListCopyToHost", ISPCRTFuture{},
                 [&] { return record(list, copyToHost(view)); });
}

ISPCRT_API ISPCRTFuture ispcrtCommandListCopyMemoryView(ISPCRTCommandList list,
                                                        ISPCRTMemoryView dst, ISPCRTMemoryView src,
                                                        const size_t size) {
  return guarded("ispcrtCommandListCopyMemoryView", ISPCRTFuture{},
                 [&] { return record(list, copyMemoryView(dst, src, size)); });
}

ISPCRT_API ISPCRTFuture ispcrtCommandListLaunch1D(ISPCRTCommandList list, ISPCRTKernel kernel,
                                                  ISPCRTMemoryView params, size_t dim0) {
  return guarded("ispcrtCommandListLaunch1D", ISPCRTFuture{},
                 [&] { return record(list, launch(kernel, params, dim0, 1, 1)); });
}

ISPCRT_API ISPCRTFuture ispcrtCommandListLaunch2D(ISPCRTCommandList list, ISPCRTKernel kernel,
                                                  ISPCRTMemoryView params, size_t dim0,
                                                  size_t dim1) {
  return guarded("ispcrtCommandListLaunch2D", ISPCRTFuture{},
                 [&] { return record(list, launch(kernel, params, dim0, dim1, 1)); });
}

ISPCRT_API ISPCRTFuture ispcrtCommandListLaunch3D(ISPCRTCommandList list, ISPCRTKernel kernel,
                                                  ISPCRTMemoryView params, size_t dim0, size_t dim1,
                                                  size_t dim2) {
  return guarded("ispcrtCommandListLaunch3D", ISPCRTFuture{},
                 [&] { return record(list, launch(kernel, params, dim0, dim1, dim2)); });
}

ISPCRT_API void ispcrtCommandListClose(ISPCRTCommandList list) {
  guardedVoid("ispcrtCommandListClose",
              [&] { lookup<CommandList>(list, "command list")->close(); });
}

ISPCRT_API ISPCRTFence ispcrtCommandListSubmit(ISPCRTCommandList list) {
  return guarded("ispcrtCommandListSubmit", ISPCRTFence{},
                 [&] { return lookup<CommandList>(list, "command list")->submit(); });
}

ISPCRT_API void ispcrtCommandListReset(ISPCRTCommandList list) {
  guardedVoid("ispcrtCommandListReset",
              [&] { lookup<CommandList>(list, "command list")->reset(); });
}

ISPCRT_API void ispcrtCommandListEnableTimestamps(ISPCRTCommandList list) {
  guardedVoid("ispcrtCommandListEnableTimestamps",
              [&] { lookup<CommandList>(list, "command list")->enableTimestamps(); });
}

ISPCRT_API ISPCRTGenericHandle ispcrtCommandListNativeHandle(ISPCRTCommandList list) {
  return guarded("ispcrtCommandListNativeHandle", ISPCRTGenericHandle{}, [&]() -> void * {
    lookup<CommandList>(list, "command list");
    fail(ISPCRT_UNSUPPORTED,
         "a command list has no native handle: xpurt records its commands and enqueues them on "
         "its command queue at each submission; use ispcrtCommandQueueNativeHandle for the "
         "queue's");
  });
}

ISPCRT_API void ispcrtFenceSync(ISPCRTFence fence) {
  guardedVoid("ispcrtFenceSync", [&] { lookup<Fence>(fence, "fence")->sync(); });
}

ISPCRT_API ISPCRTFenceStatus ispcrtFenceStatus(ISPCRTFence fence) {
  return guarded("ispcrtFenceStatus", ISPCRT_FENCE_UNSIGNALED, [&] {
    return lookup<Fence>(fence, "fence")->signalled() ? ISPCRT_FENCE_SIGNALED
                                                      : ISPCRT_FENCE_UNSIGNALED;
  });
}

ISPCRT_API void ispcrtFenceReset(ISPCRTFence fence) {
  guardedVoid("ispcrtFenceReset", [&] { lookup<Fence>(fence, "fence")->reset(); });
}

ISPCRT_API ISPCRTGenericHandle ispcrtFenceNativeHandle(ISPCRTFence fence) {
  return guarded("ispcrtFenceNativeHandle", ISPCRTGenericHandle{}, [&]() -> void * {
    lookup<Fence>(fence, "fence");
    fail(ISPCRT_UNSUPPORTED,
         "a fence has no native handle: it is the future of its submission's last command; "
         "wait with ispcrtFenceSync");
  });
}

}  // extern "C"
