#include "ze_events.hpp"

#include "core/log.hpp"
#include "ze_call.hpp"
#include "ze_handles.hpp"

#include <deque>
#include <mutex>
#include <vector>

namespace xpurt::level_zero {

// Pools of kEventsPerPool events, created as needed; free events are reused before a new pool
// is made. Events given back go onto a lock-free list that the taking side empties when it has
// none left of its own. Counted by its ZeEventPool and by each slot taken and not given back, so a
// slot released after its ZeEventPool still finds its pool.
class ZeEventPoolState final : public SlotOwner {
 public:
  static constexpr uint32_t kEventsPerPool = 256;

  ZeEventPoolState(std::shared_ptr<ZeContext> context, ze_device_handle_t device, bool timestamps)
      : context_(std::move(context)), device_(device), timestamps_(timestamps) {
    // Where the driver has several devices (all of the one context), its events are visible
    // to every one of them, so that a queue of one waits on another's commands on the device
    // (ZeQueue::deviceEventOf).
    uint32_t devices = 0;
    allDevices_ =
        zeDeviceGet(context_->driver(), &devices, nullptr) == ZE_RESULT_SUCCESS && devices > 1;
  }

  ~ZeEventPoolState() {
    DestroyingHandles destroying;
    for (EventSlot &s : slots_) zeEventDestroy(s.handle);
    for (ze_event_pool_handle_t p : pools_) zeEventPoolDestroy(p);
  }

  void retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void release() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  EventSlot *take() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) {
      // The slots given back since the last look, taken all at once: no other thread pops.
      for (EventSlot *s = returned_.exchange(nullptr, std::memory_order_acquire); s;
           s = s->nextReturned)
        free_.push_back(s);
    }
    if (!free_.empty()) {
      EventSlot *s = free_.back();
      free_.pop_back();
      retain();
      return s;
    }
    if (pools_.empty() || nextIndex_ == kEventsPerPool) addPool();
    auto desc = zeStruct<ze_event_desc_t>(ZE_STRUCTURE_TYPE_EVENT_DESC);
    desc.index = nextIndex_;
    // Host scope: the host (the device's completion poller) reads every event.
    desc.signal = ZE_EVENT_SCOPE_FLAG_HOST;
    desc.wait = ZE_EVENT_SCOPE_FLAG_HOST;
    ze_event_handle_t e = nullptr;
    check(createHandle([&] { return zeEventCreate(pools_.back(), &desc, &e); }), "zeEventCreate");
    ++nextIndex_;
    EventSlot &s = slots_.emplace_back();
    s.handle = e;
    s.owner = this;
    retain();
    return &s;
  }

  // On any thread (the device's poller, mostly): pushed onto returned_ without a lock, so that
  // it never contends with the queue taking events.
  void slotReleased(EventSlot &slot) noexcept override {
    // An event that cannot be reset is not reused (it would look signalled at once).
    if (ze_result_t r = zeEventHostReset(slot.handle); r != ZE_RESULT_SUCCESS) {
      core::log().warn("Level Zero: zeEventHostReset failed with {}; the event is not reused",
                       resultName(r));
    } else {
      slot.nextReturned = returned_.load(std::memory_order_relaxed);
      while (!returned_.compare_exchange_weak(slot.nextReturned, &slot, std::memory_order_release,
                                              std::memory_order_relaxed)) {
      }
    }
    release();
  }

 private:
  void addPool() {
    auto desc = zeStruct<ze_event_pool_desc_t>(ZE_STRUCTURE_TYPE_EVENT_POOL_DESC);
    desc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
    if (timestamps_) desc.flags |= ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
    desc.count = kEventsPerPool;
    ze_event_pool_handle_t pool = nullptr;
    ze_device_handle_t device = device_;
    check(createHandle([&] {
            return zeEventPoolCreate(context_->handle(), &desc, allDevices_ ? 0 : 1,
                                     allDevices_ ? nullptr : &device, &pool);
          }),
          "zeEventPoolCreate");
    pools_.push_back(pool);
    nextIndex_ = 0;
  }

  std::atomic<uint32_t> refs_{1};
  std::shared_ptr<ZeContext> context_;
  ze_device_handle_t device_;
  bool timestamps_;
  bool allDevices_ = false;  // its pools are visible to every device of the context
  std::mutex mutex_;         // taken by the threads that take events (one queue's, in turn)
  std::atomic<EventSlot *> returned_{nullptr};
  std::vector<ze_event_pool_handle_t> pools_;
  uint32_t nextIndex_ = 0;       // in the last pool
  std::deque<EventSlot> slots_;  // every event made; a deque does not move them
  std::vector<EventSlot *> free_;
};

ZeEventPool::ZeEventPool(std::shared_ptr<ZeContext> context, ze_device_handle_t device,
                         bool timestamps)
    : state_(new ZeEventPoolState(std::move(context), device, timestamps)) {}

ZeEventPool::~ZeEventPool() {
  state_->release();
}

SlotRef ZeEventPool::acquire() {
  return SlotRef(state_->take());  // counted by the pool until it comes back
}

}  // namespace xpurt::level_zero
