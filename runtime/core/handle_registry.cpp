#include "handle_registry.hpp"

#include <functional>

namespace xpurt::core {

HandleRegistry &HandleRegistry::instance() {
  // Never destroyed: handles may be released from static destructors of the application.
  static auto *registry = new HandleRegistry;
  return *registry;
}

HandleRegistry::Shard &HandleRegistry::shardFor(const void *handle) {
  auto bits = reinterpret_cast<uintptr_t>(handle);
  return shards_[(bits >> 6 ^ bits >> 12) % shards_.size()];
}

void *HandleRegistry::publish(const Ref<Object> &obj) {
  Object *o = obj.get();
  Shard &shard = shardFor(o);
  {
    std::lock_guard lock(shard.mutex);
    if (o->handleRefs_++ == 0) shard.live.insert(o);
  }
  o->retain();
  return o;
}

Ref<Object> HandleRegistry::lookup(const void *handle) {
  Shard &shard = shardFor(handle);
  std::lock_guard lock(shard.mutex);
  auto it = shard.live.find(static_cast<const Object *>(handle));
  if (it == shard.live.end()) return nullptr;
  return Ref<Object>(const_cast<Object *>(*it));
}

bool HandleRegistry::retainHandle(const void *handle) {
  Shard &shard = shardFor(handle);
  std::lock_guard lock(shard.mutex);
  auto it = shard.live.find(static_cast<const Object *>(handle));
  if (it == shard.live.end()) return false;
  const_cast<Object *>(*it)->handleRefs_++;
  (*it)->retain();
  return true;
}

bool HandleRegistry::releaseHandle(const void *handle) {
  Shard &shard = shardFor(handle);
  const Object *obj;
  {
    std::lock_guard lock(shard.mutex);
    auto it = shard.live.find(static_cast<const Object *>(handle));
    if (it == shard.live.end()) return false;
    obj = *it;
    if (--const_cast<Object *>(obj)->handleRefs_ == 0) shard.live.erase(it);
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
    case ObjectKind::Future:
      return "future";
  }
  return "object";
}

}  // namespace xpurt::core
