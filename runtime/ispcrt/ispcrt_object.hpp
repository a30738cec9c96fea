// The objects behind ISPCRT's handles: reference counted, registered while alive so that every
// entry point can tell a live handle of the right kind from a released or foreign one, and the
// guard that turns failures into calls of the error function (ispcrtSetErrorFunc).
#pragma once

#include <ispcrt/ispcrt.h>
#include <xpurt/xpurt.h>

#include <fmt/format.h>

#include <atomic>
#include <string>
#include <utility>

namespace xpurt::ispcrt {

enum class Kind {
  Context,
  Device,
  MemoryView,
  TaskQueue,
  Module,
  ModuleOptions,
  Kernel,
  Future,
  Fence,
  CommandQueue,
  CommandList
};
const char *kindName(Kind kind);

class Object {
 public:
  explicit Object(Kind kind);  // one reference, the creator's; registered
  virtual ~Object();
  Object(const Object &) = delete;
  Object &operator=(const Object &) = delete;

  Kind kind() const { return kind_; }
  // Tells this object from a later one at the same address.
  uint64_t serial() const { return serial_; }
  void retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  // A reference unless the last one has gone (the object is being destroyed).
  bool tryRetain() {
    long long n = refs_.load(std::memory_order_relaxed);
    while (n != 0 && !refs_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) {
    }
    return n != 0;
  }
  void release();
  long long useCount() const { return refs_.load(std::memory_order_relaxed); }

 private:
  const Kind kind_;
  const uint64_t serial_;
  std::atomic<long long> refs_{1};
};

// An owning pointer to an Object (one reference).
template <class T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  static Ref adopt(T *p) {  // takes over a reference already held
    Ref r;
    r.p_ = p;
    return r;
  }
  explicit Ref(T *p) : p_(p) {
    if (p_) p_->retain();
  }
  Ref(const Ref &o) : Ref(o.p_) {}
  Ref(Ref &&o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Ref &operator=(Ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~Ref() {
    if (p_) p_->release();
  }
  T *get() const { return p_; }
  T *operator->() const { return p_; }
  T &operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  // Hands the reference to the caller (as a handle).
  T *detach() { return std::exchange(p_, nullptr); }

 private:
  T *p_ = nullptr;
};

template <class T, class... Args>
Ref<T> make(Args &&...args) {
  return Ref<T>::adopt(new T(std::forward<Args>(args)...));
}

// A failure of an entry point: its ISPCRT error and what to tell the program.
struct Failure {
  ISPCRTError code;
  std::string message;
};

template <class... Args>
[[noreturn]] void fail(ISPCRTError code, fmt::format_string<Args...> format, Args &&...args) {
  throw Failure{code, fmt::format(format, std::forward<Args>(args)...)};
}

// The ISPCRT error of an xpurt result.
ISPCRTError fromXpurt(XpurtResult result);
// Throws the failure of an xpurt call, with xpurt's message.
void check(XpurtResult result);

// The live object of kind `kind` that `handle` names, with a reference; `what` names the
// argument in the message of the failure otherwise.
Ref<Object> lookupKind(const void *handle, Kind kind, const char *what);
template <class T>
Ref<T> lookup(const void *handle, const char *what) {
  return Ref<T>(static_cast<T *>(lookupKind(handle, T::kKind, what).get()));
}
// The live object that `handle` names, of any kind.
Ref<Object> lookupAny(const void *handle, const char *what);
// obj, if it is still alive (and not a later object at its address); else null.
Ref<Object> ifAlive(const Object *obj, uint64_t serial);

// Hands the caller a reference to obj as a handle of type H.
template <class H, class T>
H handOut(Ref<T> obj) {
  return reinterpret_cast<H>(static_cast<Object *>(obj.detach()));
}
// A handle for an object something else keeps alive (a borrowed handle).
template <class H, class T>
H borrowed(T *obj) {
  return reinterpret_cast<H>(static_cast<Object *>(obj));
}

// Reports a failure to the error function, the entry point's name first.
void report(const char *entry, ISPCRTError code, const std::string &message) noexcept;

// Runs body, which returns the entry point's result; a failure is reported and `otherwise`
// returned instead.
template <class R, class Body>
R guarded(const char *entry, R otherwise, Body &&body) noexcept {
  try {
    return body();
  } catch (const Failure &f) {
    report(entry, f.code, f.message);
  } catch (const std::bad_alloc &) {
    report(entry, ISPCRT_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception &e) {
    report(entry, ISPCRT_UNKNOWN_ERROR, e.what());
  } catch (...) {
    report(entry, ISPCRT_UNKNOWN_ERROR, "an unknown failure");
  }
  return otherwise;
}
template <class Body>
void guardedVoid(const char *entry, Body &&body) noexcept {
  guarded(entry, 0, [&] {
    body();
    return 0;
  });
}

}  // namespace xpurt::ispcrt
