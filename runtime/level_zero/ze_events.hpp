// Level Zero events for xpurt's commands. Each command signals an event from a pool that is
// recycled, so there is no cap on the commands between syncs: an event goes back to its pool
// once its command has completed and every command that waits on it has too (a reset event
// that a queued command still waits on would never be signalled again). A command of any queue
// of the same device that waits for another's future waits on that command's event, found
// among its queue's pending commands (Completions::withPending).
#pragma once

#include "ze_context.hpp"

#include <level_zero/ze_api.h>

#include <atomic>
#include <memory>
#include <utility>

namespace xpurt::level_zero {

struct EventSlot;

// What a slot goes back to when its last SlotRef goes: its pool, or a graph's recording.
class SlotOwner {
 public:
  virtual void slotReleased(EventSlot &slot) noexcept = 0;

 protected:
  ~SlotOwner() = default;
};

// One event, counted by the SlotRefs to it: the slot objects live as long as their owner, so
// taking and giving back one allocates nothing.
struct EventSlot {
  ze_event_handle_t handle = nullptr;
  SlotOwner *owner = nullptr;
  std::atomic<uint32_t> refs{0};
  EventSlot *nextReturned = nullptr;  // its pool's list of slots given back
};

class SlotRef {
 public:
  SlotRef() = default;
  SlotRef(std::nullptr_t) {}
  // Takes a reference to slot.
  explicit SlotRef(EventSlot *slot) : slot_(slot) {
    if (slot_) slot_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  SlotRef(const SlotRef &o) : SlotRef(o.slot_) {}
  SlotRef(SlotRef &&o) noexcept : slot_(std::exchange(o.slot_, nullptr)) {}
  SlotRef &operator=(SlotRef o) noexcept {
    std::swap(slot_, o.slot_);
    return *this;
  }
  ~SlotRef() {
    if (slot_ && slot_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
      slot_->owner->slotReleased(*slot_);
  }
  EventSlot *operator->() const { return slot_; }
  EventSlot *get() const { return slot_; }
  explicit operator bool() const { return slot_ != nullptr; }
  bool operator==(const SlotRef &o) const { return slot_ == o.slot_; }

 private:
  EventSlot *slot_ = nullptr;
};

class ZeEventPoolState;

class ZeEventPool {
 public:
  // timestamps: the events record kernel timestamps (for profiling queues). The pools keep
  // the context alive while any of their events is held (a continuation of another
  // backend's future may signal one after its queue and device are gone).
  ZeEventPool(std::shared_ptr<ZeContext> context, ze_device_handle_t device, bool timestamps);
  ~ZeEventPool();
  ZeEventPool(const ZeEventPool &) = delete;
  ZeEventPool &operator=(const ZeEventPool &) = delete;

  // An unsignalled event; throws on failure.
  SlotRef acquire();

 private:
  ZeEventPoolState *state_;  // goes once this pool and every slot taken from it have
};

}  // namespace xpurt::level_zero
