// Devices and contexts.
#include "api_common.hpp"
#include "core/device_selection.hpp"
#include "core/log.hpp"
#include "core/trace.hpp"

using namespace xpurt;

namespace {

// Device discovery is where configuration is (re)read, so a fixed environment variable takes
// effect without restarting the process.
// The variables read once for the process; a bad value fails the first device call.
void readConfig() {
  core::applyLogLevelFromEnv();
  core::trace::enabled();  // opens XPURT_TRACE's file, or says why it cannot
}

core::DeviceOptions deviceOptions(const XpurtDeviceOptions *given) {
  XpurtDeviceOptions options = api::versionedInput(given, "XpurtDeviceOptions");
  if (options.flags & ~XPURT_DEVICE_FLAG_SEPARATE_MEMORY)
    core::fail(XPURT_ERROR_INVALID_ARGUMENT, "XpurtDeviceOptions.flags has unknown bits {:#x}",
               options.flags & ~XPURT_DEVICE_FLAG_SEPARATE_MEMORY);
  core::DeviceOptions out;
  out.separateMemory = options.flags & XPURT_DEVICE_FLAG_SEPARATE_MEMORY;
  return out;
}

}  // namespace

extern "C" {

XPURT_API XpurtResult xpurtGetDeviceCount(XpurtDeviceType type, uint32_t *count) {
  return api::guarded("xpurtGetDeviceCount", [&] {
    api::checkOut(count, "count");
    readConfig();
    *count = core::deviceCount(type);
  });
}

XPURT_API XpurtResult xpurtGetDeviceInfo(XpurtDeviceType type, uint32_t index,
                                         XpurtDeviceInfo *info) {
  return api::guarded("xpurtGetDeviceInfo", [&] {
    readConfig();
    api::versionedOutput(info, core::deviceInfo(type, index), "info", "XpurtDeviceInfo");
  });
}

XPURT_API XpurtResult xpurtGetDeviceWithOptions(XpurtDeviceType type, uint32_t index,
                                                const XpurtDeviceOptions *options,
                                                XpurtDevice *device) {
  return api::guarded("xpurtGetDevice", [&] {
    api::checkOut(device, "device");
    readConfig();
    core::DeviceOptions opts = deviceOptions(options);
    core::DeviceAddress at = core::findDevice(type, index);
    api::publish(device, at.backend->device(at.index, opts));
  });
}

XPURT_API XpurtResult xpurtGetDevice(XpurtDeviceType type, uint32_t index, XpurtDevice *device) {
  return xpurtGetDeviceWithOptions(type, index, nullptr, device);
}

XPURT_API XpurtResult xpurtDeviceGetInfo(XpurtDevice device, XpurtDeviceInfo *info) {
  return api::guarded("xpurtDeviceGetInfo", [&] {
    auto dev = api::lookup<core::Device>(device, "device");
    api::versionedOutput(info, dev->info(), "info", "XpurtDeviceInfo");
  });
}

XPURT_API XpurtResult xpurtDeviceHasFeature(XpurtDevice device, XpurtDeviceFeature feature,
                                            bool *supported) {
  return api::guarded("xpurtDeviceHasFeature", [&] {
    auto dev = api::lookup<core::Device>(device, "device");
    api::checkOut(supported, "supported");
    switch (feature) {
      case XPURT_FEATURE_PARTIAL_WORK_GROUPS:
      case XPURT_FEATURE_GLOBAL_OFFSETS:
        // Every device runs both for SPIR-V kernels (CUDA and Level Zero as launches of whole
        // groups: core/launch_parts.hpp).
        *supported = true;
        return;
    }
    core::fail(XPURT_ERROR_INVALID_ARGUMENT,
               "device feature {} is not one of XPURT_FEATURE_PARTIAL_WORK_GROUPS or "
               "XPURT_FEATURE_GLOBAL_OFFSETS",
               static_cast<int>(feature));
  });
}

XPURT_API XpurtResult xpurtNewContext(XpurtDeviceType type, XpurtContext *context) {
  return api::guarded("xpurtNewContext", [&] {
    api::checkOut(context, "context");
    readConfig();
    api::publish(context, core::Context::create(type));
  });
}

XPURT_API XpurtResult xpurtDeviceGetContext(XpurtDevice device, XpurtContext *context) {
  return api::guarded("xpurtDeviceGetContext", [&] {
    auto dev = api::lookup<core::Device>(device, "device");
    api::checkOut(context, "context");
    api::publish(context, core::Context::ofDevice(*dev));
  });
}

XPURT_API XpurtResult xpurtDeviceGetNativeHandle(XpurtDevice device, XpurtNativeObject what,
                                                 void **handle) {
  return api::guarded("xpurtDeviceGetNativeHandle", [&] {
    auto dev = api::lookup<core::Device>(device, "device");
    api::checkOut(handle, "handle");
    if (what != XPURT_NATIVE_PLATFORM && what != XPURT_NATIVE_DEVICE &&
        what != XPURT_NATIVE_CONTEXT)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                 "{} is not an XpurtNativeObject (PLATFORM, DEVICE or CONTEXT)",
                 static_cast<int>(what));
    *handle = dev->nativeHandle(what);
  });
}

XPURT_API XpurtResult xpurtContextGetDeviceCount(XpurtContext context, uint32_t *count) {
  return api::guarded("xpurtContextGetDeviceCount", [&] {
    auto ctx = api::lookup<core::Context>(context, "context");
    api::checkOut(count, "count");
    *count = static_cast<uint32_t>(ctx->devices().size());
  });
}

XPURT_API XpurtResult xpurtContextGetDevice(XpurtContext context, uint32_t index,
                                            XpurtDevice *device) {
  return api::guarded("xpurtContextGetDevice", [&] {
    auto ctx = api::lookup<core::Context>(context, "context");
    api::checkOut(device, "device");
    if (index >= ctx->devices().size())
      core::fail(XPURT_ERROR_NOT_FOUND, "the context has {} device(s); there is no device {}",
                 ctx->devices().size(), index);
    api::publish(device, ctx->devices()[index]);
  });
}

}  // extern "C"
