#include "ze_events.hpp"

#include "core/log.hpp"
#include "ze_call.hpp"
#include "ze_handles.hpp"

namespace xpurt::level_zero {

// Pools of kEventsPerPool events, created as needed; free events are reused before a new pool
// is made. Shared by the slots, so a slot released after its ZeEventPool still finds its pool.
class ZeEventPoolState {
 public:
  static constexpr uint32_t kEventsPerPool = 256;

  ZeEventPoolState(std::shared_ptr<ZeContext> context, ze_device_handle_t device, bool timestamps)
      : context_(std::move(context)), device_(device), timestamps_(timestamps) {}

  ~ZeEventPoolState() {
    DestroyingHandles destroying;
    for (ze_event_handle_t e : all_) zeEventDestroy(e);
    for (ze_event_pool_handle_t p : pools_) zeEventPoolDestroy(p);
  }

  ze_event_handle_t take() {
    std::lock_guard lock(mutex_);
    if (!free_.empty()) {
      ze_event_handle_t e = free_.back();
      free_.pop_back();
      return e;
    }
    if (pools_.empty() || nextIndex_ == kEventsPerPool) addPool();
    auto desc = zeStruct<ze_event_desc_t>(ZE_STRUCTURE_TYPE_EVENT_DESC);
    desc.index = nextIndex_;
    // Host scope: the host (the queue's completion thread) reads every event.
    desc.signal = ZE_EVENT_SCOPE_FLAG_HOST;
    desc.wait = ZE_EVENT_SCOPE_FLAG_HOST;
    ze_event_handle_t e = nullptr;
    check(createHandle([&] { return zeEventCreate(pools_.back(), &desc, &e); }), "zeEventCreate");
    ++nextIndex_;
    all_.push_back(e);
    return e;
  }

  void giveBack(ze_event_handle_t e) noexcept {
    // An event that cannot be reset is not reused (it would look signalled at once).
    if (ze_result_t r = zeEventHostReset(e); r != ZE_RESULT_SUCCESS) {
      core::log().warn("Level Zero: zeEventHostReset failed with {}; the event is not reused",
                       resultName(r));
      return;
    }
    std::lock_guard lock(mutex_);
    free_.push_back(e);
  }

 private:
  void addPool() {
    auto desc = zeStruct<ze_event_pool_desc_t>(ZE_STRUCTURE_TYPE_EVENT_POOL_DESC);
    desc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
    if (timestamps_) desc.flags |= ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
    desc.count = kEventsPerPool;
    ze_event_pool_handle_t pool = nullptr;
    ze_device_handle_t device = device_;
    check(createHandle(
              [&] { return zeEventPoolCreate(context_->handle(), &desc, 1, &device, &pool); }),
          "zeEventPoolCreate");
    pools_.push_back(pool);
    nextIndex_ = 0;
  }

  std::shared_ptr<ZeContext> context_;
  ze_device_handle_t device_;
  bool timestamps_;
  std::mutex mutex_;
  std::vector<ze_event_pool_handle_t> pools_;
  uint32_t nextIndex_ = 0;  // in the last pool
  std::vector<ze_event_handle_t> all_;
  std::vector<ze_event_handle_t> free_;
};

ZeEventPool::ZeEventPool(std::shared_ptr<ZeContext> context, ze_device_handle_t device,
                         bool timestamps)
    : state_(std::make_shared<ZeEventPoolState>(std::move(context), device, timestamps)) {}

ZeEventPool::~ZeEventPool() = default;

SlotRef ZeEventPool::acquire() {
  ze_event_handle_t e = state_->take();
  std::shared_ptr<ZeEventPoolState> state = state_;
  return SlotRef(new EventSlot{e}, [state](EventSlot *slot) {
    state->giveBack(slot->handle);
    delete slot;
  });
}

}  // namespace xpurt::level_zero
