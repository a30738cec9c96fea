// The set of objects that handles currently name. Lets every API entry point tell a live handle
// from a NULL, released or foreign pointer without touching the memory behind it. A handle is
// a number, not the object's address: numbers are never reused, so a handle released and then
// used again is reported as released even when a new object lives at the old address.
#pragma once

#include "object.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace xpurt::core {

class HandleRegistry {
 public:
  static HandleRegistry &instance();

  // Adds one handle reference to obj (registering it if it had none) and returns the handle.
  void *publish(const Ref<Object> &obj);
  // A reference to the object the handle names, or null if it names no live object.
  Ref<Object> lookup(const void *handle);
  bool retainHandle(const void *handle);
  // Drops one handle reference; the object leaves the registry when the last one goes.
  bool releaseHandle(const void *handle);

 private:
  // Sharded so that threads working on different objects do not contend on one lock.
  struct alignas(64) Shard {
    std::mutex mutex;
    std::unordered_map<uintptr_t, Object *> live;  // handle -> object
  };
  Shard &shardFor(uintptr_t handle);
  std::array<Shard, 64> shards_;
  std::atomic<uintptr_t> nextSerial_{1};
};

}  // namespace xpurt::core
