// The CPU device's cores, shared between kernels and copy engines.
//
// On a GPU the copy engine is hardware of its own; on the CPU a copy engine (a copy queue's
// turn, a copy queue of the Level Zero driver on the CPU) is a thread that needs a core.
// (An out-of-order queue runs its copies as tasks of the arena, in its host turn only when no
// arena thread takes one.) Kernels run on
// every thread of the device's arena, so while a copy engine has copies to do, one kernel
// thread per such engine steps aside between two pieces of its launch and sleeps until the
// engine runs out of copies (or the launch runs out of work): the copies get a core to
// themselves without time-slicing against the kernel, which the operating system does in
// slices of milliseconds, and the kernel gets the core back as soon as the copies are done
// rather than at its next launch. At least one kernel thread of the device always keeps
// running.
//
// A thread steps aside only between pieces, and the pieces of a launch are small and all
// stealable (see runWorkGroups), so a sleeping thread holds no work back from the others.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace xpurt::cpu {

class CoreShare {
 public:
  explicit CoreShare(int cores) : cores_(cores) {}
  CoreShare(const CoreShare &) = delete;
  CoreShare &operator=(const CoreShare &) = delete;

  // A copy engine's claim on a core: raised from the moment it has a copy or fill ready (before
  // its thread even wakes) until it has none, so kernel threads step aside in time and do not
  // take the core back between two of its copies. Raised only for copies whose waits are over,
  // and never while the engine runs a callback or waits: a copy waiting for a kernel must not
  // hold that kernel's core. Not thread-safe: its engine serialises the calls.
  class EngineClaim {
   public:
    explicit EngineClaim(CoreShare *share) : share_(share) {}
    ~EngineClaim() { set(false); }
    EngineClaim(const EngineClaim &) = delete;
    EngineClaim &operator=(const EngineClaim &) = delete;
    // Whether this engine claims cores at all (a claim without a share never does).
    bool canClaim() const { return share_ != nullptr; }
    void set(bool claimed) {
      if (!share_ || claimed == claimed_) return;
      claimed_ = claimed;
      if (claimed) {
        share_->copying_.fetch_add(1, std::memory_order_seq_cst);
      } else {
        share_->copying_.fetch_sub(1, std::memory_order_seq_cst);
        share_->wakeSteppedAside();
      }
    }

   private:
    CoreShare *share_;
    bool claimed_ = false;
  };

  // A claim for one copy, for engines that run one command at a time.
  class Copying {
   public:
    explicit Copying(CoreShare *share) : claim_(share) { claim_.set(true); }

   private:
    EngineClaim claim_;
  };

  // A kernel thread runs a piece of a launch for as long as one lives.
  class KernelThread {
   public:
    explicit KernelThread(CoreShare *share) : share_(share) {
      if (share_) share_->kernelThreads_.fetch_add(1, std::memory_order_seq_cst);
    }
    ~KernelThread() {
      if (share_) share_->kernelThreads_.fetch_sub(1, std::memory_order_seq_cst);
    }
    KernelThread(const KernelThread &) = delete;
    KernelThread &operator=(const KernelThread &) = delete;

   private:
    CoreShare *share_;
  };

  // Called by a kernel thread (inside a KernelThread) between two pieces of its launch: sleeps
  // while copy engines copy and more kernel threads run than the cores they leave, until a copy
  // ends or launchOutOfWork() holds (every piece of the launch has run, or it was cancelled).
  // Returns at once when no copy engine copies.
  template <class OutOfWork>
  void stepAsideWhileCopying(OutOfWork &&launchOutOfWork) {
    for (;;) {
      if (copying_.load(std::memory_order_relaxed) == 0) return;
      // The epoch is read before what it guards, so a change after these reads ends the wait.
      uint32_t epoch = epoch_.load(std::memory_order_seq_cst);
      int allowed = std::max(1, cores_ - copying_.load(std::memory_order_seq_cst));
      int running = kernelThreads_.load(std::memory_order_seq_cst);
      if (running <= allowed || launchOutOfWork()) return;
      if (!kernelThreads_.compare_exchange_weak(running, running - 1, std::memory_order_seq_cst))
        continue;
      epoch_.wait(epoch, std::memory_order_seq_cst);
      kernelThreads_.fetch_add(1, std::memory_order_seq_cst);
    }
  }

  // Kernel threads running a piece now, those stepped aside not counted.
  int kernelThreadsRunning() const { return kernelThreads_.load(std::memory_order_seq_cst); }

  // Every piece of a launch has run, or it was cancelled: its threads that stepped aside return.
  // Without a claim nobody sleeps on a current epoch (ending the last claim moved it on), so the
  // wake, which every launch makes, is skipped.
  void launchOutOfWork() {
    if (copying_.load(std::memory_order_seq_cst) > 0) wakeSteppedAside();
  }

  // The share of the device whose launch the calling thread runs (null outside a launch): the
  // code that spreads a launch over the arena takes it from the launching thread.
  static CoreShare *current() { return current_; }
  class Launching {
   public:
    explicit Launching(CoreShare *share) : previous_(current_) { current_ = share; }
    ~Launching() { current_ = previous_; }
    Launching(const Launching &) = delete;
    Launching &operator=(const Launching &) = delete;

   private:
    CoreShare *previous_;
  };

 private:
  void wakeSteppedAside() {
    epoch_.fetch_add(1, std::memory_order_seq_cst);
    epoch_.notify_all();
  }

  static inline thread_local CoreShare *current_ = nullptr;

  const int cores_;
  std::atomic<int> copying_{0};        // copy engines holding a claim
  std::atomic<int> kernelThreads_{0};  // threads running a piece of a launch, not stepped aside
  std::atomic<uint32_t> epoch_{0};     // changes when a claim ends or a launch runs out of work
};

}  // namespace xpurt::cpu
