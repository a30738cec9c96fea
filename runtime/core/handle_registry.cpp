#include "handle_registry.hpp"

#include <functional>

namespace xpurt::core {

HandleRegistry &HandleRegistry::instance() {
  // Never destroyed: handles may be released from static destructors of the application.
  static auto *registry = new HandleRegistry;
  return *registry;
}

// A handle is (serial << 10) | (shard << 4): the shard is picked by the object's address, so
// every handle an object is ever given lives in the one shard that guards its handle count;
// the low bits are zero, so a handle looks like an aligned pointer and is never NULL.
static constexpr unsigned kShardShift = 4;
static constexpr unsigned kSerialShift = 10;

HandleRegistry::Shard &HandleRegistry::shardFor(uintptr_t handle) {
  return shards_[(handle >> kShardShift) % shards_.size()];
}

void *HandleRegistry::publish(const Ref<Object> &obj) {
  Object *o = obj.get();
  auto bits = reinterpret_cast<uintptr_t>(o);
  uintptr_t shardIndex = (bits >> 6 ^ bits >> 12) % shards_.size();
  Shard &shard = shards_[shardIndex];
  uintptr_t handle;
  {
    std::lock_guard lock(shard.mutex);
    if (o->handleRefs_++ == 0) {
      o->handle_ = nextSerial_.fetch_add(1, std::memory_order_relaxed) << kSerialShift |
                   shardIndex << kShardShift;
      shard.live.emplace(o->handle_, o);
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
  auto it = shard.live.find(h);
  if (it == shard.live.end()) return nullptr;
  return Ref<Object>(it->second);
}

bool HandleRegistry::retainHandle(const void *handle) {
  auto h = reinterpret_cast<uintptr_t>(handle);
  Shard &shard = shardFor(h);
  std::lock_guard lock(shard.mutex);
  auto it = shard.live.find(h);
  if (it == shard.live.end()) return false;
  it->second->handleRefs_++;
  it->second->retain();
  return true;
}

bool HandleRegistry::releaseHandle(const void *handle) {
  auto h = reinterpret_cast<uintptr_t>(handle);
  Shard &shard = shardFor(h);
  const Object *obj;
  {
    std::lock_guard lock(shard.mutex);
    auto it = shard.live.find(h);
    if (it == shard.live.end()) return false;
    obj = it->second;
    if (--it->second->handleRefs_ == 0) shard.live.erase(it);
  }
  obj->release();  // outside the lock: destruction may release other handles
  return true;
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
