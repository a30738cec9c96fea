// MemoryView: what a kernel sees. DEVICE views pair a host copy with device storage (the same
// memory where the device's memory is host memory); SHARED and HOST views are one allocation.
// COHERENT views belong to no device: a copy per device that uses them, kept up to date by the
// runtime (coherent_memory.hpp); queues run commands on their device's copy.
#pragma once

#include "backend.hpp"

#include <memory>

namespace xpurt::core {

class CoherentMemory;

class MemoryView : public Object {
 public:
  static constexpr ObjectKind kKind = ObjectKind::MemoryView;
  // appMemory: the host copy of a DEVICE view (null: allocated here). Throws on bad input.
  static Ref<MemoryView> create(Ref<Device> device, void *appMemory, size_t size,
                                XpurtAllocationType type);
  // A COHERENT view over appMemory (null: zeroed memory allocated here). Throws on bad input.
  static Ref<MemoryView> createCoherent(void *appMemory, size_t size);
  // A DEVICE view of `device` whose host copy is the coherent view's host memory, which it
  // keeps alive (commands may outlive the coherent view): a copy of a coherent view.
  static Ref<MemoryView> createCopyOf(Ref<Device> device, const CoherentMemory &coherent);
  ~MemoryView() override;

  // Throws INVALID_ARGUMENT for a COHERENT view, which has no device of its own.
  Device &device() const {
    if (!device_) failWithoutDevice();
    return *device_;
  }
  bool isCoherent() const { return type_ == XPURT_ALLOC_TYPE_COHERENT; }
  // A COHERENT view's copies and what is up to date where; null for other views.
  CoherentMemory *coherent() const { return coherent_.get(); }
  XpurtAllocationType type() const { return type_; }
  size_t size() const { return size_; }
  void *hostPtr() const { return host_; }
  void *devicePtr() const { return device_ptr_; }
  // Whether the host copy is memory the device allocated as HOST memory (page-locked on a
  // GPU), or the application's memory that the device locked; else plain pageable memory.
  bool hostCopyIsLocked() const {
    return ownsHost_ || pinnedHost_ || lockedHost_ || type_ != XPURT_ALLOC_TYPE_DEVICE;
  }
  // Whether this view locked the application's memory (and unlocks it when it goes), or found
  // it locked already.
  bool pinsHostCopy() const { return pinnedHost_; }
  bool hostCopyLockedElsewhere() const { return lockedHost_; }
  // Keeps `other` alive as long as this view: the view that locked the memory this one found
  // locked (see CoherentMemory::copyFor).
  void keepAlongside(Ref<MemoryView> other) { alongside_ = std::move(other); }

  // Resolves XPURT_WHOLE_SIZE and checks [offset, offset + size) lies inside the view.
  size_t checkedRange(size_t offset, size_t size, const char *what) const;

 private:
  MemoryView(Ref<Device> device, XpurtAllocationType type, size_t size);
  [[noreturn]] void failWithoutDevice() const;

  Ref<Device> device_;
  XpurtAllocationType type_;
  size_t size_;
  void *host_ = nullptr;
  void *device_ptr_ = nullptr;
  bool ownsHost_ = false;    // host_ was allocated here (not the application's memory)
  bool ownsDevice_ = false;  // device_ptr_ is storage of its own
  bool pinnedHost_ = false;  // the application's memory, page-locked by the device for copies
  bool lockedHost_ = false;  // the application's memory, page-locked already (not by this view)
  std::shared_ptr<CoherentMemory> coherent_;  // COHERENT views
  std::shared_ptr<void> hostOwner_;           // keeps host_ alive where another object owns it
  Ref<MemoryView> alongside_;                 // released after this view's own memory
};

}  // namespace xpurt::core
