#include "ispcrt_object.hpp"

#include <cstdio>
#include <mutex>
#include <unordered_set>

namespace xpurt::ispcrt {
namespace {

// Every live object. A handle is looked up here before it is used, so that a released, NULL or
// foreign handle is an error that says so rather than a crash.
struct Registry {
  std::mutex mutex;
  std::unordered_set<const Object *> live;
};
Registry &registry() {
  static Registry *r = new Registry;  // never destroyed: objects may outlive static teardown
  return *r;
}

void printError(ISPCRTError code, const char *message) {
  std::fprintf(stderr, "ISPCRT Error (%d): %s\n", static_cast<int>(code), message);
}
std::atomic<ISPCRTErrorFunc> errorFunc{&printError};

}  // namespace

ISPCRTError fromXpurt(XpurtResult r) {
  switch (r) {
    case XPURT_SUCCESS:
      return ISPCRT_NO_ERROR;
    case XPURT_ERROR_INVALID_ARGUMENT:
    case XPURT_ERROR_INVALID_HANDLE:
    case XPURT_ERROR_OUT_OF_RANGE:
    case XPURT_ERROR_NOT_FOUND:
    case XPURT_ERROR_INVALID_MODULE:
    case XPURT_ERROR_INVALID_CONFIG:
      return ISPCRT_INVALID_ARGUMENT;
    case XPURT_ERROR_UNSUPPORTED:
      return ISPCRT_UNSUPPORTED;
    case XPURT_ERROR_OUT_OF_MEMORY:
      return ISPCRT_OUT_OF_MEMORY;
    case XPURT_ERROR_DEVICE_LOST:
      return ISPCRT_DEVICE_LOST;
    case XPURT_ERROR_EXECUTION_FAILED:
    case XPURT_ERROR_UNKNOWN:
      return ISPCRT_UNKNOWN_ERROR;
  }
  return ISPCRT_UNKNOWN_ERROR;
}

const char *kindName(Kind kind) {
  switch (kind) {
    case Kind::Context:
      return "context";
    case Kind::Device:
      return "device";
    case Kind::MemoryView:
      return "memory view";
    case Kind::TaskQueue:
      return "task queue";
    case Kind::Module:
      return "module";
    case Kind::ModuleOptions:
      return "module options";
    case Kind::Kernel:
      return "kernel";
    case Kind::Future:
      return "future";
    case Kind::Fence:
      return "fence";
    case Kind::CommandQueue:
      return "command queue";
    case Kind::CommandList:
      return "command list";
  }
  return "object";
}

namespace {
std::atomic<uint64_t> nextSerial{1};
}  // namespace

Object::Object(Kind kind)
    : kind_(kind), serial_(nextSerial.fetch_add(1, std::memory_order_relaxed)) {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  r.live.insert(this);
}

Object::~Object() = default;

void Object::release() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  {
    Registry &r = registry();
    std::lock_guard lock(r.mutex);
    r.live.erase(this);
  }
  delete this;
}

namespace {

// Under the registry's lock: a reference to a live object, unless its count has reached zero
// (its last release is about to unregister and destroy it).
Ref<Object> find(const void *handle) {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.live.find(static_cast<const Object *>(handle));
  if (it == r.live.end()) return nullptr;
  auto *obj = const_cast<Object *>(*it);
  if (!obj->tryRetain()) return nullptr;
  return Ref<Object>::adopt(obj);
}

}  // namespace

Ref<Object> ifAlive(const Object *obj, uint64_t serial) {
  Ref<Object> found = find(obj);
  if (found && found->serial() != serial) return nullptr;
  return found;
}

Ref<Object> lookupAny(const void *handle, const char *what) {
  if (!handle) fail(ISPCRT_INVALID_ARGUMENT, "the {} handle is NULL", what);
  Ref<Object> obj = find(handle);
  if (!obj)
    fail(ISPCRT_INVALID_ARGUMENT,
         "{} ({}) is not a live ISPCRT handle: it was released, or never created", what, handle);
  return obj;
}

Ref<Object> lookupKind(const void *handle, Kind kind, const char *what) {
  if (!handle) fail(ISPCRT_INVALID_ARGUMENT, "the {} handle ({}) is NULL", kindName(kind), what);
  Ref<Object> obj = lookupAny(handle, what);
  if (obj->kind() != kind)
    fail(ISPCRT_INVALID_ARGUMENT, "{} is a {} handle where a {} handle was expected", what,
         kindName(obj->kind()), kindName(kind));
  return obj;
}

void check(XpurtResult result) {
  if (result != XPURT_SUCCESS) throw Failure{fromXpurt(result), xpurtLastErrorMessage()};
}

void report(const char *entry, ISPCRTError code, const std::string &message) noexcept {
  ISPCRTErrorFunc f = errorFunc.load(std::memory_order_acquire);
  if (!f) return;
  try {
    std::string text = fmt::format("{}: {}", entry, message);
    f(code, text.c_str());
  } catch (...) {
    f(code, message.c_str());
  }
}

}  // namespace xpurt::ispcrt

using namespace xpurt::ispcrt;

extern "C" {

ISPCRT_API void ispcrtSetErrorFunc(ISPCRTErrorFunc func) {
  errorFunc.store(func, std::memory_order_release);
}

ISPCRT_API long long ispcrtUseCount(ISPCRTGenericHandle handle) {
  return guarded("ispcrtUseCount", 0LL, [&] {
    return lookupAny(handle, "handle")->useCount() - 1;  // less the lookup's own reference
  });
}

ISPCRT_API void ispcrtRelease(ISPCRTGenericHandle handle) {
  guardedVoid("ispcrtRelease", [&] {
    Ref<Object> obj = lookupAny(handle, "handle");
    obj->release();  // the program's reference; the lookup's goes with obj
  });
}

ISPCRT_API void ispcrtRetain(ISPCRTGenericHandle handle) {
  guardedVoid("ispcrtRetain", [&] { lookupAny(handle, "handle")->retain(); });
}

}  // extern "C"
