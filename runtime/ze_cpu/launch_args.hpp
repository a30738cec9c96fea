// A kernel's argument values as launches capture them. The launches appended since the last
// zeKernelSetArgumentValue share one LaunchArgs; the next change writes into it in place when
// no launch holds it any more, and copies it otherwise, so steady-state appends allocate
// nothing and an appended launch never sees a later change.
#pragma once

#include "core/command.hpp"

#include <atomic>
#include <cstdint>
#include <utility>

namespace xpurt::ze_cpu {

struct LaunchArgs {
  core::Ref<core::Kernel> kernel;  // keeps the code alive while launches wait
  core::KernelArgs args;           // pointers as 8-byte values; __local sizes as uint64_t
  // Whether these values passed the device's own checks (the __local memory total).
  std::atomic<bool> checked{false};
  std::atomic<uint32_t> refs{1};

  LaunchArgs(core::Ref<core::Kernel> k, core::KernelArgs a)
      : kernel(std::move(k)), args(std::move(a)) {}
};

class LaunchArgsRef {
 public:
  LaunchArgsRef() = default;
  explicit LaunchArgsRef(LaunchArgs *adopted) : p_(adopted) {}
  LaunchArgsRef(const LaunchArgsRef &o) : p_(o.p_) {
    if (p_) p_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  LaunchArgsRef(LaunchArgsRef &&o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  LaunchArgsRef &operator=(LaunchArgsRef o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~LaunchArgsRef() {
    if (p_ && p_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p_;
  }

  LaunchArgs *get() const { return p_; }
  LaunchArgs *operator->() const { return p_; }
  // Whether this is the only reference: then nothing else reads the values (a launch that
  // held them released them after it ran; the acquire orders its reads before our writes).
  bool unique() const { return p_->refs.load(std::memory_order_acquire) == 1; }

 private:
  LaunchArgs *p_ = nullptr;
};

}  // namespace xpurt::ze_cpu
