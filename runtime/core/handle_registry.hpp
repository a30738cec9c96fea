// The set of objects that handles currently name. Lets every API entry point tell a live handle
// from a NULL, released or foreign pointer without touching the memory behind it.
#pragma once

#include "object.hpp"

#include <array>
#include <mutex>
#include <unordered_set>

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
    std::unordered_set<const Object *> live;
  };
  Shard &shardFor(const void *handle);
  std::array<Shard, 64> shards_;
};

}  // namespace xpurt::core
