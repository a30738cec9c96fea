// MemoryView: what a kernel sees. DEVICE views pair a host copy with device storage (the same
// memory where the device's memory is host memory); SHARED and HOST views are one allocation.
#pragma once

#include "backend.hpp"

namespace xpurt::core {

class MemoryView : public Object {
 public:
  static constexpr ObjectKind kKind = ObjectKind::MemoryView;
  // appMemory: the host copy of a DEVICE view (null: allocated here). Throws on bad input.
  static Ref<MemoryView> create(Ref<Device> device, void *appMemory, size_t size,
                                XpurtAllocationType type);
  ~MemoryView() override;

  Device &device() const { return *device_; }
  XpurtAllocationType type() const { return type_; }
  size_t size() const { return size_; }
  void *hostPtr() const { return host_; }
  void *devicePtr() const { return device_ptr_; }
  // Whether the host copy is memory the device allocated as HOST memory (page-locked on a
  // GPU), or the application's memory that the device locked; else plain pageable memory.
  bool hostCopyIsLocked() const {
    return ownsHost_ || pinnedHost_ || type_ != XPURT_ALLOC_TYPE_DEVICE;
  }

  // Resolves XPURT_WHOLE_SIZE and checks [offset, offset + size) lies inside the view.
  size_t checkedRange(size_t offset, size_t size, const char *what) const;

 private:
  MemoryView(Ref<Device> device, XpurtAllocationType type, size_t size);

  Ref<Device> device_;
  XpurtAllocationType type_;
  size_t size_;
  void *host_ = nullptr;
  void *device_ptr_ = nullptr;
  bool ownsHost_ = false;    // host_ was allocated here (not the application's memory)
  bool ownsDevice_ = false;  // device_ptr_ is storage of its own
  bool pinnedHost_ = false;  // the application's memory, page-locked by the device for copies
};

}  // namespace xpurt::core
