#include "ze_device.hpp"

#include "core/log.hpp"
#include "ze_call.hpp"
#include "ze_handles.hpp"
#include "ze_module.hpp"
#include "ze_queue.hpp"

#include <dlfcn.h>

#include <string_view>

namespace xpurt::level_zero {

ZeContext::ZeContext(ze_driver_handle_t driver) : driver_(driver) {
  auto desc = zeStruct<ze_context_desc_t>(ZE_STRUCTURE_TYPE_CONTEXT_DESC);
  check(createHandle([&] { return zeContextCreate(driver, &desc, &context_); }), "zeContextCreate");
  // Extensions the driver names, and entry points of Level Zero versions newer than 1.4 that
  // the loader in this process may export.
  uint32_t count = 0;
  if (zeDriverGetExtensionProperties(driver, &count, nullptr) == ZE_RESULT_SUCCESS && count) {
    std::vector<ze_driver_extension_properties_t> ext(count);
    if (zeDriverGetExtensionProperties(driver, &count, ext.data()) == ZE_RESULT_SUCCESS)
      for (uint32_t i = 0; i < count; ++i)
        if (std::string_view(ext[i].name) == ZE_GLOBAL_OFFSET_EXP_NAME)
          extensions_.globalOffset = true;
  }
  // Newer loaders export it; a driver may offer it as an extension function before that.
  extensions_.lastErrorDescription = reinterpret_cast<ZeExtensions::LastErrorDescription>(
      dlsym(RTLD_DEFAULT, "zeDriverGetLastErrorDescription"));
  void *fn = nullptr;
  if (!extensions_.lastErrorDescription &&
      zeDriverGetExtensionFunctionAddress(driver, "zeDriverGetLastErrorDescription", &fn) ==
          ZE_RESULT_SUCCESS)
    extensions_.lastErrorDescription = reinterpret_cast<ZeExtensions::LastErrorDescription>(fn);
  core::log().debug("Level Zero: global offsets {}, zeDriverGetLastErrorDescription {}",
                    extensions_.globalOffset ? "supported" : "not supported",
                    extensions_.lastErrorDescription ? "present" : "absent");
}

std::string ZeContext::lastError() const {
  const char *text = nullptr;
  if (!extensions_.lastErrorDescription ||
      extensions_.lastErrorDescription(driver_, &text) != ZE_RESULT_SUCCESS || !text)
    return {};
  return text;
}

ZeContext::~ZeContext() {
  DestroyingHandles destroying;
  if (ze_result_t r = zeContextDestroy(context_); r != ZE_RESULT_SUCCESS)
    core::log().warn("Level Zero: zeContextDestroy failed with {}", resultName(r));
}

ZeDevice::ZeDevice(core::Backend &backend, const ZeDeviceDescription &description,
                   std::shared_ptr<ZeContext> context)
    : core::Device(backend), description_(description), context_(std::move(context)) {}

ZeDevice::~ZeDevice() = default;

bool ZeDevice::copiesPeerWith(core::Device &other) {
  auto &peer = static_cast<ZeDevice &>(other);
  if (&peer.context() != context_.get()) return false;
  std::lock_guard lock(peersMutex_);
  for (const auto &[device, reaches] : peers_)
    if (device == peer.handle()) return reaches;
  // Both ways: the append on this device's list reads or writes the peer's memory.
  ze_bool_t to = 0, from = 0;
  check(zeDeviceCanAccessPeer(handle(), peer.handle(), &to), "zeDeviceCanAccessPeer");
  check(zeDeviceCanAccessPeer(peer.handle(), handle(), &from), "zeDeviceCanAccessPeer");
  bool reaches = to && from;
  if (!reaches)
    core::log().info(
        "Level Zero: {} and {} have no peer access; copies between them go through "
        "the host",
        label(), peer.label());
  peers_.emplace_back(peer.handle(), reaches);
  return reaches;
}

void *ZeDevice::allocate(size_t size, XpurtAllocationType type) {
  void *ptr = nullptr;
  // Vector loads of 64 bytes are aligned on every allocation.
  constexpr size_t kAlignment = 64;
  auto deviceDesc = zeStruct<ze_device_mem_alloc_desc_t>(ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC);
  auto hostDesc = zeStruct<ze_host_mem_alloc_desc_t>(ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC);
  ze_result_t r;
  const char *call;
  switch (type) {
    case XPURT_ALLOC_TYPE_DEVICE:
      call = "zeMemAllocDevice";
      r = zeMemAllocDevice(context_->handle(), &deviceDesc, size, kAlignment, handle(), &ptr);
      break;
    case XPURT_ALLOC_TYPE_SHARED:
      call = "zeMemAllocShared";
      r = zeMemAllocShared(context_->handle(), &deviceDesc, &hostDesc, size, kAlignment, handle(),
                           &ptr);
      break;
    default:
      call = "zeMemAllocHost";
      r = zeMemAllocHost(context_->handle(), &hostDesc, size, kAlignment, &ptr);
      break;
  }
  if (r == ZE_RESULT_ERROR_UNSUPPORTED_SIZE || r == ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY ||
      r == ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
    core::fail(XPURT_ERROR_OUT_OF_MEMORY,
               "{} failed with {}: {} bytes cannot be allocated on {} (the device's largest "
               "allocation is {} bytes)",
               call, resultName(r), size, label(), description_.properties.maxMemAllocSize);
  check(r, call, fmt::format("{} bytes on {}", size, label()));
  return ptr;
}

void ZeDevice::deallocate(void *ptr, XpurtAllocationType) noexcept {
  if (!ptr) return;
  if (ze_result_t r = zeMemFree(context_->handle(), ptr); r != ZE_RESULT_SUCCESS)
    core::log().warn("Level Zero: zeMemFree failed with {}", resultName(r));
}

void ZeDevice::checkApplicationMemory(const void *memory, size_t size) const {
  auto props =
      zeStruct<ze_memory_allocation_properties_t>(ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES);
  ze_device_handle_t owner = nullptr;
  ze_result_t r = zeMemGetAllocProperties(context_->handle(), memory, &props, &owner);
  if (r != ZE_RESULT_SUCCESS) {
    core::log().debug("Level Zero: zeMemGetAllocProperties failed with {}", resultName(r));
    return;  // nothing known: ordinary host memory, copied through the driver
  }
  if (props.type == ZE_MEMORY_TYPE_DEVICE)
    core::fail(XPURT_ERROR_INVALID_ARGUMENT,
               "the {} bytes given as a DEVICE view's host copy are Level Zero device memory "
               "(zeMemGetAllocProperties), which the host cannot read; give host memory, or "
               "make a view of that memory's own",
               size);
  core::log().debug("Level Zero: a host copy of {} bytes is {} memory", size,
                    props.type == ZE_MEMORY_TYPE_HOST     ? "USM host"
                    : props.type == ZE_MEMORY_TYPE_SHARED ? "USM shared"
                                                          : "pageable host");
}

core::Ref<core::TaskQueue> ZeDevice::createQueue(const core::QueueOptions &options) {
  return core::makeRef<ZeQueue>(core::Ref<ZeDevice>(this), options);
}

void *ZeDevice::nativeHandle(XpurtNativeObject what) const {
  switch (what) {
    case XPURT_NATIVE_PLATFORM:
      return description_.driver;
    case XPURT_NATIVE_DEVICE:
      return description_.device;
    case XPURT_NATIVE_CONTEXT:
      return context_->handle();
  }
  core::fail(XPURT_ERROR_INVALID_ARGUMENT, "{} is not an XpurtNativeObject",
             static_cast<int>(what));
}

core::Ref<core::Module> ZeDevice::loadSpirv(std::span<const std::byte> bytes,
                                            const std::string &name,
                                            const core::ModuleOptions &options) {
  return loadZeSpirvModule(core::Ref<ZeDevice>(this), bytes, name, options);
}

core::Ref<core::Module> ZeDevice::loadNativeLibrary(const core::NativeLibrary &library,
                                                    const core::ModuleOptions &options) {
  return loadZeNativeModule(core::Ref<ZeDevice>(this), library, options);
}

}  // namespace xpurt::level_zero
