// Memory views.
#include "api_common.hpp"
#include "core/device_selection.hpp"
#include "core/memory_view.hpp"

using namespace xpurt;

namespace {

template <class Get>
XpurtResult viewProperty(const char *entry, XpurtMemoryView view, Get get) {
  return api::guarded(entry, [&] { get(*api::lookup<core::MemoryView>(view, "view")); });
}

}  // namespace

extern "C" {

XPURT_API XpurtResult xpurtNewMemoryView(XpurtDevice device, void *appMemory, size_t size,
                                         XpurtAllocationType type, XpurtMemoryView *view) {
  return api::guarded("xpurtNewMemoryView", [&] {
    auto dev = api::lookup<core::Device>(device, "device");
    api::checkOut(view, "view");
    api::publish(view, core::MemoryView::create(dev, appMemory, size, type));
  });
}

XPURT_API XpurtResult xpurtNewMemoryViewForContext(XpurtContext context, size_t size,
                                                   XpurtAllocationType type,
                                                   XpurtMemoryView *view) {
  return api::guarded("xpurtNewMemoryViewForContext", [&] {
    auto ctx = api::lookup<core::Context>(context, "context");
    api::checkOut(view, "view");
    if (type == XPURT_ALLOC_TYPE_DEVICE)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                 "a context view is SHARED or HOST memory; DEVICE views belong to one device "
                 "(use xpurtNewMemoryView)");
    // Shared and host memory of a backend is visible to all its devices.
    api::publish(view, core::MemoryView::create(ctx->devices().front(), nullptr, size, type));
  });
}

XPURT_API XpurtResult xpurtNewCoherentMemoryView(void *appMemory, size_t size,
                                                 XpurtMemoryView *view) {
  return api::guarded("xpurtNewCoherentMemoryView", [&] {
    api::checkOut(view, "view");
    api::publish(view, core::MemoryView::createCoherent(appMemory, size));
  });
}

XPURT_API XpurtResult xpurtHostPtr(XpurtMemoryView view, void **ptr) {
  return viewProperty("xpurtHostPtr", view, [&](core::MemoryView &v) {
    api::checkOut(ptr, "ptr");
    *ptr = v.hostPtr();
  });
}

XPURT_API XpurtResult xpurtDevicePtr(XpurtMemoryView view, void **ptr) {
  return viewProperty("xpurtDevicePtr", view, [&](core::MemoryView &v) {
    api::checkOut(ptr, "ptr");
    if (v.isCoherent())
      core::fail(XPURT_ERROR_UNSUPPORTED,
                 "a COHERENT memory view has a copy on every device that uses it, and no one "
                 "device pointer: pass the view itself to launches, which get their device's "
                 "copy");
    *ptr = v.devicePtr();
  });
}

XPURT_API XpurtResult xpurtSize(XpurtMemoryView view, size_t *size) {
  return viewProperty("xpurtSize", view, [&](core::MemoryView &v) {
    api::checkOut(size, "size");
    *size = v.size();
  });
}

XPURT_API XpurtResult xpurtGetAllocationType(XpurtMemoryView view, XpurtAllocationType *type) {
  return viewProperty("xpurtGetAllocationType", view, [&](core::MemoryView &v) {
    api::checkOut(type, "type");
    *type = v.type();
  });
}

}  // extern "C"
