#include "handle_registry.hpp"

#include "error.hpp"

namespace xpurt::core {

HandleRegistry &HandleRegistry::instance() {
  // Never destroyed: handles may be released from static destructors of the application.
  static auto *registry = new HandleRegistry;
  return *registry;
}

// A handle is (generation << 32) | (slot << 4): the low bits are zero, so a handle looks like an
// aligned pointer, and generations start at 1, so it is never NULL. The shard is the slot's
// index modulo kShards, picked by the object's address when the slot is taken: every handle an
// object is ever given lives in the one shard that guards its handle count.
static constexpr unsigned kSlotShift = 4;
static constexpr unsigned kGenerationShift = 32;
static_assert(sizeof(uintptr_t) == 8, "handles are 64-bit numbers");
static constexpr uintptr_t kMaxSlots = uintptr_t{1} << (kGenerationShift - kSlotShift);

static uintptr_t slotOf(uintptr_t handle) {
  return (handle >> kSlotShift) & (kMaxSlots - 1);
}

HandleRegistry::Shard &HandleRegistry::shardFor(uintptr_t handle) {
  return shards_[slotOf(handle) % kShards];
}

HandleRegistry::Slot *HandleRegistry::find(Shard &shard, uintptr_t handle) {
  if (handle & ((uintptr_t{1} << kSlotShift) - 1)) return nullptr;  // not a handle's bits
  uintptr_t local = slotOf(handle) / kShards;
  if (local >= shard.slots.size()) return nullptr;
  Slot &slot = shard.slots[local];
  if (!slot.object || slot.generation != handle >> kGenerationShift) return nullptr;
  return &slot;
}

void *HandleRegistry::publish(const Ref<Object> &obj) {
  Object *o = obj.get();
  auto bits = reinterpret_cast<uintptr_t>(o);
  uintptr_t shardIndex = (bits >> 6 ^ bits >> 12) % kShards;
  Shard &shard = shards_[shardIndex];
  uintptr_t handle;
  {
    std::lock_guard lock(shard.mutex);
    if (o->handleRefs_++ == 0) {
      uint32_t local;
      if (!shard.free.empty()) {
        local = shard.free.back();
        shard.free.pop_back();
      } else {
        if ((shard.slots.size() + 1) * kShards > kMaxSlots) {
          --o->handleRefs_;
          fail(XPURT_ERROR_OUT_OF_MEMORY,
               "{} handles are live at once, the most there can be: release handles that are no "
               "longer used",
               kMaxSlots);
        }
        local = static_cast<uint32_t>(shard.slots.size());
        shard.slots.emplace_back();
      }
      Slot &slot = shard.slots[local];
      if (++slot.generation == 0) slot.generation = 1;
      slot.object = o;
      o->handle_ = uintptr_t{slot.generation} << kGenerationShift |
                   (uintptr_t{local} * kShards + shardIndex) << kSlotShift;
    }
    handle = o->handle_;
  }
  o->retain();
  return reinterpret_cast<void *>(handle);
}

Ref<Object> HandleRegistry::lookup(const void *handle) {
  auto h = reinterpret_cast<uintptr_t>(handle);
  Shard &shard = shardFor(h);
  std::lock_guard lock(shard.mutex);
  Slot *slot = find(shard, h);
  return slot ? Ref<Object>(slot->object) : nullptr;
}

HandleRegistry::Change HandleRegistry::retainHandle(const void *handle,
                                                    std::optional<ObjectKind> kind,
                                                    ObjectKind *found) {
  auto h = reinterpret_cast<uintptr_t>(handle);
  Shard &shard = shardFor(h);
  std::lock_guard lock(shard.mutex);
  Slot *slot = find(shard, h);
  if (!slot) return Change::NotLive;
  *found = slot->object->kind();
  if (kind && *found != *kind) return Change::WrongKind;
  slot->object->handleRefs_++;
  slot->object->retain();
  return Change::Done;
}

HandleRegistry::Change HandleRegistry::releaseHandle(const void *handle,
                                                     std::optional<ObjectKind> kind,
                                                     ObjectKind *found) {
  auto h = reinterpret_cast<uintptr_t>(handle);
  Shard &shard = shardFor(h);
  const Object *obj;
  {
    std::lock_guard lock(shard.mutex);
    Slot *slot = find(shard, h);
    if (!slot) return Change::NotLive;
    *found = slot->object->kind();
    if (kind && *found != *kind) return Change::WrongKind;
    obj = slot->object;
    if (--slot->object->handleRefs_ == 0) {
      slot->object = nullptr;
      shard.free.push_back(static_cast<uint32_t>(slot - shard.slots.data()));
    }
  }
  obj->release();  // outside the lock: destruction may release other handles
  return Change::Done;
}

const char *objectKindName(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::Device:
      return "device";
    case ObjectKind::Context:
      return "context";
    case ObjectKind::MemoryView:
      return "memory view";
    case ObjectKind::TaskQueue:
      return "task queue";
    case ObjectKind::Module:
      return "module";
    case ObjectKind::Kernel:
      return "kernel";
    case ObjectKind::Event:
      return "future";
    case ObjectKind::Graph:
      return "graph";
    case ObjectKind::GraphExec:
      return "executable graph";
  }
  return "object";
}

}  // namespace xpurt::core
