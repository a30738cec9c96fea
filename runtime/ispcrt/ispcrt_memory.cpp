// Memory views: ISPCRT's allocation types on xpurt's views.
#include "ispcrt_objects.hpp"

#include <mutex>
#include <unordered_set>

namespace xpurt::ispcrt {
namespace {

// The live views, for ispcrtGetMemoryAllocType (which is asked about a pointer).
struct Views {
  std::mutex mutex;
  std::unordered_set<MemoryView *> live;
};
Views &views() {
  static Views *v = new Views;
  return *v;
}

XpurtAllocationType xpurtType(ISPCRTAllocationType type) {
  switch (type) {
    case ISPCRT_ALLOC_TYPE_DEVICE:
      return XPURT_ALLOC_TYPE_DEVICE;
    case ISPCRT_ALLOC_TYPE_SHARED:
      return XPURT_ALLOC_TYPE_SHARED;
    case ISPCRT_ALLOC_TYPE_HOST:
      return XPURT_ALLOC_TYPE_HOST;
    default:
      fail(ISPCRT_INVALID_ARGUMENT,
           "allocType {} is not one to allocate: use ISPCRT_ALLOC_TYPE_DEVICE, _SHARED or _HOST",
           static_cast<int>(type));
  }
}

void checkHint(ISPCRTSharedMemoryAllocationHint hint) {
  if (hint < ISPCRT_SM_HOST_DEVICE_READ_WRITE || hint > ISPCRT_SM_APPLICATION_MANAGED_DEVICE)
    fail(ISPCRT_INVALID_ARGUMENT,
         "smHint {} is not an ISPCRTSharedMemoryAllocationHint: use one of "
         "ISPCRT_SM_HOST_DEVICE_READ_WRITE to ISPCRT_SM_APPLICATION_MANAGED_DEVICE",
         static_cast<int>(hint));
}

Ref<MemoryView> newView(XpurtMemoryView view, ISPCRTAllocationType type) {
  Ref<MemoryView> v = make<MemoryView>(XView(view), type);
  Views &all = views();
  std::lock_guard lock(all.mutex);
  all.live.insert(v.get());
  return v;
}

void *pointer(XpurtResult (*get)(XpurtMemoryView, void **), XpurtMemoryView view) {
  void *p = nullptr;
  check(get(view, &p));
  return p;
}

}  // namespace

MemoryView::~MemoryView() {
  Views &all = views();
  std::lock_guard lock(all.mutex);
  all.live.erase(this);
}

}  // namespace xpurt::ispcrt

using namespace xpurt::ispcrt;

extern "C" {

ISPCRT_API ISPCRTMemoryView ispcrtNewMemoryView(ISPCRTDevice device, void *appMemory,
                                                size_t numBytes, ISPCRTNewMemoryViewFlags *flags) {
  return guarded("ispcrtNewMemoryView", ISPCRTMemoryView{}, [&] {
    Ref<Device> d = lookup<Device>(device, "device");
    ISPCRTAllocationType type = flags ? flags->allocType : ISPCRT_ALLOC_TYPE_DEVICE;
    XpurtAllocationType x = xpurtType(type);
    if (type == ISPCRT_ALLOC_TYPE_SHARED) checkHint(flags->smHint);
    XpurtMemoryView view = nullptr;
    check(xpurtNewMemoryView(d->handle(), type == ISPCRT_ALLOC_TYPE_DEVICE ? appMemory : nullptr,
                             numBytes, x, &view));
    return handOut<ISPCRTMemoryView>(newView(view, type));
  });
}

ISPCRT_API ISPCRTMemoryView ispcrtNewMemoryViewForContext(ISPCRTContext context, void *appMemory,
                                                          size_t numBytes,
                                                          ISPCRTNewMemoryViewFlags *flags) {
  (void)appMemory;  // a context's views are shared memory, which the runtime allocates
  return guarded("ispcrtNewMemoryViewForContext", ISPCRTMemoryView{}, [&] {
    Ref<Context> c = lookup<Context>(context, "context");
    ISPCRTAllocationType type = flags ? flags->allocType : ISPCRT_ALLOC_TYPE_SHARED;
    if (type != ISPCRT_ALLOC_TYPE_SHARED)
      fail(ISPCRT_INVALID_ARGUMENT,
           "a context's memory views are SHARED (flags->allocType is {}): make DEVICE views "
           "with ispcrtNewMemoryView on one device",
           static_cast<int>(type));
    if (flags) checkHint(flags->smHint);
    XpurtMemoryView view = nullptr;
    check(xpurtNewMemoryViewForContext(c->handle(), numBytes, XPURT_ALLOC_TYPE_SHARED, &view));
    return handOut<ISPCRTMemoryView>(newView(view, type));
  });
}

ISPCRT_API void *ispcrtHostPtr(ISPCRTMemoryView view) {
  return guarded("ispcrtHostPtr", static_cast<void *>(nullptr),
                 [&] { return pointer(xpurtHostPtr, lookup<MemoryView>(view, "view")->handle()); });
}

ISPCRT_API void *ispcrtDevicePtr(ISPCRTMemoryView view) {
  return guarded("ispcrtDevicePtr", static_cast<void *>(nullptr), [&] {
    return pointer(xpurtDevicePtr, lookup<MemoryView>(view, "view")->handle());
  });
}

ISPCRT_API void *ispcrtSharedPtr(ISPCRTMemoryView view) {
  // As ISPCRT's: the device pointer, whatever the view's type.
  return guarded("ispcrtSharedPtr", static_cast<void *>(nullptr), [&] {
    return pointer(xpurtDevicePtr, lookup<MemoryView>(view, "view")->handle());
  });
}

ISPCRT_API size_t ispcrtSize(ISPCRTMemoryView view) {
  return guarded("ispcrtSize", size_t{0}, [&] {
    size_t size = 0;
    check(xpurtSize(lookup<MemoryView>(view, "view")->handle(), &size));
    return size;
  });
}

ISPCRT_API ISPCRTAllocationType ispcrtGetMemoryViewAllocType(ISPCRTMemoryView view) {
  return guarded("ispcrtGetMemoryViewAllocType", ISPCRT_ALLOC_TYPE_UNKNOWN,
                 [&] { return lookup<MemoryView>(view, "view")->type(); });
}

ISPCRT_API ISPCRTAllocationType ispcrtGetMemoryAllocType(ISPCRTDevice device, void *memBuffer) {
  return guarded("ispcrtGetMemoryAllocType", ISPCRT_ALLOC_TYPE_UNKNOWN, [&] {
    Ref<Device> d = lookup<Device>(device, "device");
    if (!memBuffer) return ISPCRT_ALLOC_TYPE_UNKNOWN;
    auto *p = static_cast<const std::byte *>(memBuffer);
    Views &all = views();
    std::lock_guard lock(all.mutex);
    for (MemoryView *v : all.live) {
      void *base = nullptr;
      size_t size = 0;
      if (xpurtDevicePtr(v->handle(), &base) != XPURT_SUCCESS ||
          xpurtSize(v->handle(), &size) != XPURT_SUCCESS || !base)
        continue;
      auto *b = static_cast<const std::byte *>(base);
      if (p < b || p >= b + size) continue;
      // A DEVICE view's storage aliases its host copy on the CPU: that memory is the host's.
      if (v->type() == ISPCRT_ALLOC_TYPE_DEVICE) {
        void *host = nullptr;
        if (xpurtHostPtr(v->handle(), &host) == XPURT_SUCCESS && host == base)
          return ISPCRT_ALLOC_TYPE_HOST;
      }
      return v->type();
    }
    return ISPCRT_ALLOC_TYPE_UNKNOWN;
  });
}

}  // extern "C"
