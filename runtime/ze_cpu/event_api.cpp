// Event pools, events and fences.
#include "api.hpp"
#include "command_list.hpp"
#include "context.hpp"
#include "driver.hpp"
#include "entry.hpp"
#include "events.hpp"

namespace xpurt::ze_cpu {
namespace {

EventObject &eventOf(ze_event_handle_t handle) {
  requireHandle(handle);
  return *fromHandle<EventObject>(handle);
}

Fence &fenceOf(ze_fence_handle_t handle) {
  requireHandle(handle);
  return *fromHandle<Fence>(handle);
}

// The outcome of a wait for an event or a fence, or of a query (timeout 0).
template <class Waitable>
ze_result_t waitFor(const Waitable &w, uint64_t timeout) {
  if (!w.wait(Deadline(timeout))) return ZE_RESULT_NOT_READY;
  if (!w.failed()) return ZE_RESULT_SUCCESS;
  describeError(w.failure());
  return ZE_RESULT_ERROR_DEVICE_LOST;
}

}  // namespace

EventPool::EventPool(ze_event_pool_flags_t flags, uint32_t count)
    : flags_(flags), count_(count), events_(new EventObject[count]) {
  for (uint32_t i = 0; i < count; ++i) events_[i].pool_ = this;
}

EventObject *EventPool::create(uint32_t index) {
  EventObject &event = events_[index];
  if (event.created_) return nullptr;
  event.created_ = true;
  event.reset();
  return &event;
}

void EventObject::signalFromHost() {
  uint64_t now = deviceTicks();
  signal(now, now, nullptr);
}

namespace api {

ze_result_t zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc,
                              uint32_t numDevices, ze_device_handle_t *phDevices,
                              ze_event_pool_handle_t *phEventPool) {
  return entry(ApiId::zeEventPoolCreate, [&] {
    contextOf(hContext);
    requirePointer(desc);
    requirePointer(phEventPool);
    if (desc->flags > 0x7) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->count == 0 || (numDevices > 0 && !phDevices)) return ZE_RESULT_ERROR_INVALID_SIZE;
    // Events live in this process's memory: they cannot be shared with another one.
    if (desc->flags & ZE_EVENT_POOL_FLAG_IPC) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    for (uint32_t i = 0; i < numDevices; ++i) deviceOf(phDevices[i]);
    *phEventPool = toHandle<ze_event_pool_handle_t>(new EventPool(desc->flags, desc->count));
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeEventPoolDestroy(ze_event_pool_handle_t hEventPool) {
  return entry(ApiId::zeEventPoolDestroy, [&] {
    requireHandle(hEventPool);
    delete fromHandle<EventPool>(hEventPool);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeEventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t *desc,
                          ze_event_handle_t *phEvent) {
  return entry(ApiId::zeEventCreate, [&] {
    requireHandle(hEventPool);
    requirePointer(desc);
    requirePointer(phEvent);
    if (desc->signal > 0x7 || desc->wait > 0x7) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    // Scopes need no flushes here: the CPU's caches are coherent with the host's.
    EventPool &pool = *fromHandle<EventPool>(hEventPool);
    if (desc->index >= pool.count()) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    EventObject *event = pool.create(desc->index);
    if (!event) return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // that slot holds a live event
    *phEvent = toHandle<ze_event_handle_t>(event);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeEventDestroy(ze_event_handle_t hEvent) {
  return entry(ApiId::zeEventDestroy, [&] {
    EventObject &event = eventOf(hEvent);
    event.pool().destroy(event);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeEventHostSignal(ze_event_handle_t hEvent) {
  return entry(ApiId::zeEventHostSignal, [&] {
    eventOf(hEvent).signalFromHost();
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout) {
  return entry(ApiId::zeEventHostSynchronize, [&] { return waitFor(eventOf(hEvent), timeout); });
}

ze_result_t zeEventQueryStatus(ze_event_handle_t hEvent) {
  return entry(ApiId::zeEventQueryStatus, [&] { return waitFor(eventOf(hEvent), 0); });
}

ze_result_t zeEventHostReset(ze_event_handle_t hEvent) {
  return entry(ApiId::zeEventHostReset, [&] {
    eventOf(hEvent).reset();
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeEventQueryKernelTimestamp(ze_event_handle_t hEvent,
                                        ze_kernel_timestamp_result_t *dstptr) {
  return entry(ApiId::zeEventQueryKernelTimestamp, [&] {
    EventObject &event = eventOf(hEvent);
    requirePointer(dstptr);
    if (!event.pool().hasTimestamps()) return ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT;
    if (!event.isSignalled()) return ZE_RESULT_NOT_READY;
    *dstptr = event.timestamps();
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeFenceCreate(ze_command_queue_handle_t hCommandQueue, const ze_fence_desc_t *desc,
                          ze_fence_handle_t *phFence) {
  return entry(ApiId::zeFenceCreate, [&] {
    requireHandle(hCommandQueue);
    requirePointer(desc);
    requirePointer(phFence);
    if (desc->flags > 0x1) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    auto *fence =
        new Fence(*fromHandle<CommandQueue>(hCommandQueue), desc->flags & ZE_FENCE_FLAG_SIGNALED);
    *phFence = toHandle<ze_fence_handle_t>(fence);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeFenceDestroy(ze_fence_handle_t hFence) {
  return entry(ApiId::zeFenceDestroy, [&] {
    delete &fenceOf(hFence);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeFenceHostSynchronize(ze_fence_handle_t hFence, uint64_t timeout) {
  return entry(ApiId::zeFenceHostSynchronize, [&] { return waitFor(fenceOf(hFence), timeout); });
}

ze_result_t zeFenceQueryStatus(ze_fence_handle_t hFence) {
  return entry(ApiId::zeFenceQueryStatus, [&] { return waitFor(fenceOf(hFence), 0); });
}

ze_result_t zeFenceReset(ze_fence_handle_t hFence) {
  return entry(ApiId::zeFenceReset, [&] {
    fenceOf(hFence).reset();
    return ZE_RESULT_SUCCESS;
  });
}

}  // namespace api
}  // namespace xpurt::ze_cpu
