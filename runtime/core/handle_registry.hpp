// The set of objects that handles currently name. Lets every API entry point tell a live handle
// from a NULL, released or foreign pointer without touching the memory behind it. A handle is
// a number, not the object's address: a slot of the registry and the slot's generation, which
// grows each time the slot is given to another object, so a handle released and then used
// again is reported as released even when a new object lives at the old address (until its
// slot has been reused 2^32 times).
#pragma once

#include "object.hpp"

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace xpurt::core {

class HandleRegistry {
 public:
  static HandleRegistry &instance();

  // Adds one handle reference to obj (registering it if it had none) and returns the handle.
  void *publish(const Ref<Object> &obj);
  // A reference to the object the handle names, or null if it names no live object.
  Ref<Object> lookup(const void *handle);
  enum class Change { Done, NotLive, WrongKind };
  // Adds one handle reference to the object the handle names, if it is live and, where `kind`
  // is given, of that kind (else *found says what it is).
  Change retainHandle(const void *handle, std::optional<ObjectKind> kind, ObjectKind *found);
  // Drops one handle reference, as retainHandle checks; the object leaves the registry when
  // the last one goes.
  Change releaseHandle(const void *handle, std::optional<ObjectKind> kind, ObjectKind *found);

 private:
  struct Slot {
    Object *object = nullptr;  // null while free
    uint32_t generation = 0;
  };
  // Sharded so that threads working on different objects do not contend on one lock. Slot i of
  // a shard is the registry's slot i * kShards + shard; a slot is looked up by index, and freed
  // slots are reused: publishing and releasing a handle allocate nothing in the steady state.
  struct alignas(64) Shard {
    std::mutex mutex;
    std::vector<Slot> slots;
    std::vector<uint32_t> free;  // indices into slots
  };
  static constexpr size_t kShards = 64;
  // The slot a handle names, its shard's mutex held; null if it names none live.
  Slot *find(Shard &shard, uintptr_t handle);
  Shard &shardFor(uintptr_t handle);
  std::array<Shard, kShards> shards_;
};

}  // namespace xpurt::core
