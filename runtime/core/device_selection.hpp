// Finding devices across backends: counts, indices by type, and what AUTO and XPURT_DEVICE mean.
#pragma once

#include "backend.hpp"

namespace xpurt::core {

struct DeviceAddress {
  Backend *backend;
  uint32_t index;  // within the backend
};

uint32_t deviceCount(XpurtDeviceType type);
// Throws NOT_FOUND (naming what is available) or INVALID_CONFIG (a bad XPURT_DEVICE).
DeviceAddress findDevice(XpurtDeviceType type, uint32_t index);
XpurtDeviceInfo deviceInfo(XpurtDeviceType type, uint32_t index);

class Context : public Object {
 public:
  static constexpr ObjectKind kKind = ObjectKind::Context;
  // Every device of the backend that `type` selects.
  static Ref<Context> create(XpurtDeviceType type);
  // Every device of `device`'s backend.
  static Ref<Context> ofDevice(Device &device);

  Backend &backend() const { return *backend_; }
  const std::vector<Ref<Device>> &devices() const { return devices_; }

 private:
  Context() : Object(kKind) {}
  static Ref<Context> ofBackend(Backend &backend);
  Backend *backend_ = nullptr;
  std::vector<Ref<Device>> devices_;
};

}  // namespace xpurt::core
