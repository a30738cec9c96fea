// Creating and destroying Level Zero handles safely while the loader serves several drivers.
//
// The Level Zero loader, once it serves more than one driver, wraps each driver handle in an
// object of its own that it finds again by the handle's value, and forgets that object only
// after the driver has destroyed the handle. A create on another thread in between may get the
// same value from the driver and, with it, the object about to be forgotten: a later call
// through that handle uses freed memory. So while several drivers are loaded, creates share one
// lock and destroys take it alone; with one driver the loader wraps nothing and nothing locks.
#pragma once

#include <atomic>
#include <mutex>
#include <shared_mutex>

namespace xpurt::level_zero {

class HandleLifetimes {
 public:
  // From now on creates and destroys exclude each other (several drivers are loaded).
  static void guard() { guarded().store(true, std::memory_order_release); }

 protected:
  static std::atomic<bool> &guarded() {
    static std::atomic<bool> value{false};
    return value;
  }
  static std::shared_mutex &mutex() {
    static std::shared_mutex value;
    return value;
  }
};

// Held around zeXxxCreate calls: any number at once.
class CreatingHandles : HandleLifetimes {
 public:
  CreatingHandles() {
    if (guarded().load(std::memory_order_acquire)) lock_ = std::shared_lock(mutex());
  }

 private:
  std::shared_lock<std::shared_mutex> lock_;
};

// Held around zeXxxDestroy calls (never around a wait: creates wait for it).
class DestroyingHandles : HandleLifetimes {
 public:
  DestroyingHandles() {
    if (guarded().load(std::memory_order_acquire)) lock_ = std::unique_lock(mutex());
  }

 private:
  std::unique_lock<std::shared_mutex> lock_;
};

// A zeXxxCreate call made under CreatingHandles: createHandle([&] { return zeFenceCreate(...); }).
template <class Call>
auto createHandle(Call &&call) {
  CreatingHandles creating;
  return call();
}

}  // namespace xpurt::level_zero
