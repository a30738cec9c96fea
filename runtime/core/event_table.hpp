// The device events of pending commands, by the core event (future) each completes: a command
// of any queue that waits for one of those futures waits on the device event, on the device,
// rather than on the host. Entries go when the command's queue releases it.
#pragma once

#include "event.hpp"

#include <memory>
#include <mutex>
#include <unordered_map>

namespace xpurt::core {

template <class Slot>
class EventTable {
 public:
  void add(const Event *event, std::shared_ptr<Slot> slot) {
    std::lock_guard lock(mutex_);
    slots_[event] = std::move(slot);
  }
  void remove(const Event *event) {
    std::shared_ptr<Slot> slot;  // released after the lock: its deleter takes its pool's
    std::lock_guard lock(mutex_);
    if (auto it = slots_.find(event); it != slots_.end()) {
      slot = std::move(it->second);
      slots_.erase(it);
    }
  }
  std::shared_ptr<Slot> find(const Event *event) const {
    std::lock_guard lock(mutex_);
    auto it = slots_.find(event);
    return it == slots_.end() ? nullptr : it->second;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<const Event *, std::shared_ptr<Slot>> slots_;
};

}  // namespace xpurt::core
