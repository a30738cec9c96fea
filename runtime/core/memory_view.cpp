#include "memory_view.hpp"

#include "coherent_memory.hpp"
#include "error.hpp"

namespace xpurt::core {

static const char *typeName(XpurtAllocationType type) {
  switch (type) {
    case XPURT_ALLOC_TYPE_DEVICE:
      return "DEVICE";
    case XPURT_ALLOC_TYPE_SHARED:
      return "SHARED";
    case XPURT_ALLOC_TYPE_HOST:
      return "HOST";
    case XPURT_ALLOC_TYPE_COHERENT:
      return "COHERENT";
  }
  return "?";
}

MemoryView::MemoryView(Ref<Device> device, XpurtAllocationType type, size_t size)
    : Object(kKind), device_(std::move(device)), type_(type), size_(size) {}

Ref<MemoryView> MemoryView::create(Ref<Device> device, void *appMemory, size_t size,
                                   XpurtAllocationType type) {
  if (type == XPURT_ALLOC_TYPE_COHERENT)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "a COHERENT memory view belongs to no one device: make it with "
         "xpurtNewCoherentMemoryView, which takes no device");
  if (type != XPURT_ALLOC_TYPE_DEVICE && type != XPURT_ALLOC_TYPE_SHARED &&
      type != XPURT_ALLOC_TYPE_HOST)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "allocation type {} is not one of XPURT_ALLOC_TYPE_DEVICE, _SHARED or _HOST",
         static_cast<int>(type));
  if (size == 0)
    fail(XPURT_ERROR_INVALID_ARGUMENT, "a memory view needs a size of at least 1 byte");
  if (appMemory && type != XPURT_ALLOC_TYPE_DEVICE)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "{} memory views allocate their own memory: pass NULL as the application memory, or "
         "use a DEVICE view to wrap existing memory",
         typeName(type));

  if (appMemory) device->checkApplicationMemory(appMemory, size);
  // Built before allocating, so its destructor frees whatever was allocated if a later step
  // throws.
  Ref<MemoryView> view = Ref<MemoryView>::adopt(new MemoryView(device, type, size));
  Device &dev = *view->device_;
  if (type == XPURT_ALLOC_TYPE_DEVICE) {
    view->host_ = appMemory;
    if (appMemory) {
      Device::Pinning pinning = dev.pinApplicationMemory(appMemory, size);
      view->pinnedHost_ = pinning == Device::Pinning::Pinned;
      view->lockedHost_ = pinning == Device::Pinning::Locked;
    }
    if (!appMemory) {
      view->host_ = dev.allocate(size, XPURT_ALLOC_TYPE_HOST);
      view->ownsHost_ = true;
    }
    if (dev.deviceMemoryIsHostMemory()) {
      view->device_ptr_ = view->host_;
    } else {
      view->device_ptr_ = dev.allocate(size, XPURT_ALLOC_TYPE_DEVICE);
      view->ownsDevice_ = true;
    }
  } else {
    view->host_ = view->device_ptr_ = dev.allocate(size, type);
    view->ownsDevice_ = true;
  }
  return view;
}

Ref<MemoryView> MemoryView::createCoherent(void *appMemory, size_t size) {
  if (size == 0)
    fail(XPURT_ERROR_INVALID_ARGUMENT, "a memory view needs a size of at least 1 byte");
  Ref<MemoryView> view =
      Ref<MemoryView>::adopt(new MemoryView(nullptr, XPURT_ALLOC_TYPE_COHERENT, size));
  view->coherent_ = std::make_shared<CoherentMemory>(appMemory, size);
  view->host_ = view->coherent_->host();
  return view;
}

Ref<MemoryView> MemoryView::createCopyOf(Ref<Device> device, const CoherentMemory &coherent) {
  Ref<MemoryView> view =
      create(std::move(device), coherent.host(), coherent.size(), XPURT_ALLOC_TYPE_DEVICE);
  view->hostOwner_ = coherent.hostOwner();
  return view;
}

void MemoryView::failWithoutDevice() const {
  fail(XPURT_ERROR_INVALID_ARGUMENT,
       "a COHERENT memory view belongs to no one device (it has a copy on every device that "
       "uses it): graph nodes and calls that name one device's memory take a view of that "
       "device");
}

MemoryView::~MemoryView() {
  if (ownsDevice_) device_->deallocate(device_ptr_, type_);
  if (ownsHost_) device_->deallocate(host_, XPURT_ALLOC_TYPE_HOST);
  if (pinnedHost_) device_->unpinApplicationMemory(host_, std::move(hostOwner_));
}

size_t MemoryView::checkedRange(size_t offset, size_t size, const char *what) const {
  if (offset > size_)
    fail(XPURT_ERROR_OUT_OF_RANGE, "{}: offset {} is past the end of the {}-byte memory view", what,
         offset, size_);
  if (size == XPURT_WHOLE_SIZE) return size_ - offset;
  if (size > size_ - offset)
    fail(XPURT_ERROR_OUT_OF_RANGE,
         "{}: {} bytes from offset {} run past the end of the {}-byte memory view (the last "
         "valid size from there is {})",
         what, size, offset, size_, size_ - offset);
  return size;
}

}  // namespace xpurt::core
