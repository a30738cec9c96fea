// Reference-counted base of every object a handle can name, and the smart pointer over it.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace xpurt::core {

// What a handle names. Inside the runtime a command's completion is an Event; the API calls its
// handle a future (XpurtFuture), the name messages use.
enum class ObjectKind : uint8_t {
  Device,
  Context,
  MemoryView,
  TaskQueue,
  Module,
  Kernel,
  Event,
  Graph,
  GraphExec
};

const char *objectKindName(ObjectKind kind);

class Object {
 public:
  explicit Object(ObjectKind kind) : kind_(kind) {}
  Object(const Object &) = delete;
  Object &operator=(const Object &) = delete;
  virtual ~Object() = default;

  ObjectKind kind() const { return kind_; }

  void retain() const noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  // A reference to an object that may be in its last release: false once the count is 0.
  bool tryRetain() const noexcept {
    uint32_t n = refs_.load(std::memory_order_relaxed);
    while (n != 0)
      if (refs_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) return true;
    return false;
  }
  void release() const noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // Whether references beyond `owned` exist (a handle, a command waiting for it), as a hint:
  // one may go or come the next moment.
  bool referencedBeyond(uint32_t owned) const noexcept {
    return refs_.load(std::memory_order_relaxed) > owned;
  }

 private:
  friend class HandleRegistry;
  mutable std::atomic<uint32_t> refs_{1};  // internal and handle references together
  uint32_t handleRefs_ = 0;                // references held by handles; guarded by the registry
  uintptr_t handle_ = 0;                   // the handle while handleRefs_ > 0
  const ObjectKind kind_;
};

// Intrusive shared pointer. Ref<T>::adopt takes over a reference; the constructor adds one.
template <class T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  explicit Ref(T *p) : p_(p) {
    if (p_) p_->retain();
  }
  static Ref adopt(T *p) {
    Ref r;
    r.p_ = p;
    return r;
  }
  Ref(const Ref &o) : Ref(o.p_) {}
  Ref(Ref &&o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
  Ref(const Ref<U> &o) : Ref(static_cast<T *>(o.get())) {}
  template <class U>
  Ref(Ref<U> &&o) noexcept : p_(static_cast<T *>(o.detach())) {}
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
  T *detach() { return std::exchange(p_, nullptr); }
  friend bool operator==(const Ref &a, const Ref &b) { return a.p_ == b.p_; }

 private:
  T *p_ = nullptr;
};

template <class T, class... Args>
Ref<T> makeRef(Args &&...args) {
  return Ref<T>::adopt(new T(std::forward<Args>(args)...));
}

template <class T, class U>
Ref<T> staticRefCast(Ref<U> r) {
  return Ref<T>::adopt(static_cast<T *>(r.detach()));
}

}  // namespace xpurt::core
