// Level Zero events for xpurt's commands. Each command signals an event from a pool that is
// recycled, so there is no cap on the commands between syncs: an event goes back to its pool
// once its command has completed and every command that waits on it has too (a reset event
// that a queued command still waits on would never be signalled again).
#pragma once

#include "core/event.hpp"
#include "core/event_table.hpp"
#include "ze_context.hpp"

#include <level_zero/ze_api.h>

#include <memory>
#include <mutex>
#include <vector>

namespace xpurt::level_zero {

class ZeEventPoolState;

// One event of a pool; back to the pool (reset) when the last SlotRef to it goes.
struct EventSlot {
  ze_event_handle_t handle = nullptr;
};
using SlotRef = std::shared_ptr<EventSlot>;

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
  std::shared_ptr<ZeEventPoolState> state_;
};

// The events of a device's pending commands (core/event_table.hpp).
using EventTable = core::EventTable<EventSlot>;

}  // namespace xpurt::level_zero
