// Devices and contexts: which xpurt devices ISPCRT's device types name, and their native
// handles.
#include "ispcrt_objects.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace xpurt::ispcrt {
namespace {

struct Address {
  XpurtDeviceType type;  // xpurt's
  uint32_t index;
  std::string backend;
};

XpurtDeviceInfo infoOf(XpurtDeviceType type, uint32_t index) {
  XpurtDeviceInfo info{};
  info.structSize = sizeof info;
  check(xpurtGetDeviceInfo(type, index, &info));
  return info;
}

std::vector<Address> devicesOfXpurtType(XpurtDeviceType type) {
  uint32_t n = 0;
  check(xpurtGetDeviceCount(type, &n));
  std::vector<Address> out;
  for (uint32_t i = 0; i < n; ++i) out.push_back({type, i, infoOf(type, i).backend});
  return out;
}

// The devices of an ISPCRT type, and the type AUTO stands for (CPU or GPU).
struct Listing {
  ISPCRTDeviceType type;
  std::vector<Address> devices;
};

// ISPCRT's CPU: xpurt's CPU device. ISPCRT's GPU: the devices ISPCRT offloads to, whatever
// type their driver reports: Level Zero's (its GPUs first), then CUDA's. AUTO: GPU, if there
// is one, else CPU.
Listing devicesOf(ISPCRTDeviceType type) {
  std::vector<Address> cpus = devicesOfXpurtType(XPURT_DEVICE_TYPE_CPU);
  Listing out{ISPCRT_DEVICE_TYPE_GPU, {}};
  if (type != ISPCRT_DEVICE_TYPE_CPU) {
    std::vector<Address> gpus = devicesOfXpurtType(XPURT_DEVICE_TYPE_GPU);
    for (const Address &a : gpus)
      if (a.backend == "level_zero") out.devices.push_back(a);
    for (const Address &a : cpus)
      if (a.backend == "level_zero") out.devices.push_back(a);
    for (const Address &a : gpus)
      if (a.backend != "level_zero") out.devices.push_back(a);
    if (type == ISPCRT_DEVICE_TYPE_GPU || !out.devices.empty()) return out;
  }
  out.type = ISPCRT_DEVICE_TYPE_CPU;
  for (const Address &a : cpus)
    if (a.backend == "cpu") out.devices.push_back(a);
  return out;
}

void checkType(ISPCRTDeviceType type) {
  if (type != ISPCRT_DEVICE_TYPE_CPU && type != ISPCRT_DEVICE_TYPE_GPU &&
      type != ISPCRT_DEVICE_TYPE_AUTO)
    fail(ISPCRT_INVALID_ARGUMENT,
         "{} is not an ISPCRTDeviceType: use ISPCRT_DEVICE_TYPE_CPU, _GPU or _AUTO",
         static_cast<int>(type));
}

const char *typeName(ISPCRTDeviceType type) {
  return type == ISPCRT_DEVICE_TYPE_CPU ? "CPU" : type == ISPCRT_DEVICE_TYPE_GPU ? "GPU" : "AUTO";
}

// An index from an ISPCRT environment variable, if it is set.
std::optional<uint32_t> indexFromEnvironment(const char *name) {
  const char *v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  char *end = nullptr;
  unsigned long n = std::strtoul(v, &end, 10);
  if (*end || n > UINT32_MAX)
    fail(ISPCRT_INVALID_ARGUMENT, "{}='{}' is not an index: set it to 0, 1, …", name, v);
  return static_cast<uint32_t>(n);
}

// The driver of each GPU device: a Level Zero driver's handle, or CUDA (one driver, last).
void *driverOf(const Address &a) {
  if (a.backend != "level_zero") return nullptr;
  XpurtDevice d = nullptr;
  check(xpurtGetDevice(a.type, a.index, &d));
  XDevice owned(d);
  void *driver = nullptr;
  check(xpurtDeviceGetNativeHandle(d, XPURT_NATIVE_PLATFORM, &driver));
  return driver;
}

// ISPCRT_GPU_DRIVER: only the devices of that driver (Level Zero's drivers in the order the
// loader lists them, then CUDA's).
std::vector<Address> ofSelectedDriver(std::vector<Address> devices) {
  std::optional<uint32_t> want = indexFromEnvironment("ISPCRT_GPU_DRIVER");
  if (!want) return devices;
  std::vector<void *> drivers;
  std::vector<void *> driverOfDevice;
  for (const Address &a : devices) {
    void *d = driverOf(a);
    driverOfDevice.push_back(d);
    if (std::find(drivers.begin(), drivers.end(), d) == drivers.end()) drivers.push_back(d);
  }
  if (*want >= drivers.size())
    fail(ISPCRT_INVALID_ARGUMENT,
         "ISPCRT_GPU_DRIVER={} names no driver: the GPU devices come from {} driver(s)", *want,
         drivers.size());
  std::vector<Address> out;
  for (size_t i = 0; i < devices.size(); ++i)
    if (driverOfDevice[i] == drivers[*want]) out.push_back(devices[i]);
  return out;
}

// The device of `index` among those of `type`, and the type AUTO stood for.
std::pair<Address, ISPCRTDeviceType> addressOf(ISPCRTDeviceType type, uint32_t index) {
  checkType(type);
  auto [resolved, devices] = devicesOf(type);
  if (devices.empty())
    fail(ISPCRT_INVALID_ARGUMENT, "there is no {} device{}", typeName(type),
         type == ISPCRT_DEVICE_TYPE_GPU
             ? ": no Level Zero or CUDA device was found (xpurt-info lists the devices); use "
               "ISPCRT_DEVICE_TYPE_AUTO to fall back to the CPU"
             : "");
  if (resolved == ISPCRT_DEVICE_TYPE_GPU) {
    devices = ofSelectedDriver(std::move(devices));
    // ISPCRT_GPU_DEVICE: the index of the GPU device to use, whatever index is asked for.
    if (std::optional<uint32_t> forced = indexFromEnvironment("ISPCRT_GPU_DEVICE")) {
      if (*forced >= devices.size())
        fail(ISPCRT_INVALID_ARGUMENT,
             "ISPCRT_GPU_DEVICE={} names no device: there are {} GPU "
             "device(s)",
             *forced, devices.size());
      index = *forced;
    }
  }
  if (index >= devices.size())
    fail(ISPCRT_INVALID_ARGUMENT, "there are {} {} device(s); there is no device {}",
         devices.size(), typeName(resolved), index);
  return {devices[index], resolved};
}

void *nativeHandleOf(const Device &device, XpurtNativeObject what) {
  if (device.type() == ISPCRT_DEVICE_TYPE_CPU) return nullptr;  // as ISPCRT's CPU device
  void *h = nullptr;
  check(xpurtDeviceGetNativeHandle(device.handle(), what, &h));
  return h;
}

Ref<Device> deviceAt(ISPCRTDeviceType type, uint32_t index) {
  auto [a, resolved] = addressOf(type, index);
  XpurtDevice d = nullptr;
  check(xpurtGetDevice(a.type, a.index, &d));
  return make<Device>(XDevice(d), resolved, a.backend);
}

}  // namespace
}  // namespace xpurt::ispcrt

using namespace xpurt::ispcrt;

extern "C" {

ISPCRT_API ISPCRTDevice ispcrtGetDevice(ISPCRTDeviceType type, uint32_t deviceIdx) {
  return guarded("ispcrtGetDevice", ISPCRTDevice{},
                 [&] { return handOut<ISPCRTDevice>(deviceAt(type, deviceIdx)); });
}

ISPCRT_API uint32_t ispcrtGetDeviceCount(ISPCRTDeviceType type) {
  return guarded("ispcrtGetDeviceCount", 0u, [&] {
    checkType(type);
    return static_cast<uint32_t>(devicesOf(type).devices.size());
  });
}

ISPCRT_API void ispcrtGetDeviceInfo(ISPCRTDeviceType type, uint32_t deviceIdx,
                                    ISPCRTDeviceInfo *info) {
  guardedVoid("ispcrtGetDeviceInfo", [&] {
    if (!info) fail(ISPCRT_INVALID_ARGUMENT, "the ISPCRTDeviceInfo pointer is NULL");
    Address a = addressOf(type, deviceIdx).first;
    XpurtDeviceInfo x = infoOf(a.type, a.index);
    info->vendorId = x.vendorId;
    info->deviceId = x.deviceId;
  });
}

ISPCRT_API ISPCRTDeviceType ispcrtGetDeviceType(ISPCRTDevice d) {
  return guarded("ispcrtGetDeviceType", ISPCRT_DEVICE_TYPE_AUTO,
                 [&] { return lookup<Device>(d, "device")->type(); });
}

ISPCRT_API ISPCRTContext ispcrtNewContext(ISPCRTDeviceType type) {
  return guarded("ispcrtNewContext", ISPCRTContext{}, [&] {
    Ref<Device> first = deviceAt(type, 0);
    XpurtContext c = nullptr;
    check(xpurtDeviceGetContext(first->handle(), &c));
    return handOut<ISPCRTContext>(make<Context>(XContext(c), first->type()));
  });
}

ISPCRT_API ISPCRTDevice ispcrtGetDeviceFromContext(ISPCRTContext context, uint32_t deviceIdx) {
  return guarded("ispcrtGetDeviceFromContext", ISPCRTDevice{}, [&] {
    Ref<Context> c = lookup<Context>(context, "context");
    uint32_t n = 0;
    check(xpurtContextGetDeviceCount(c->handle(), &n));
    if (deviceIdx >= n)
      fail(ISPCRT_INVALID_ARGUMENT, "the context has {} device(s); there is no device {}", n,
           deviceIdx);
    XpurtDevice d = nullptr;
    check(xpurtContextGetDevice(c->handle(), deviceIdx, &d));
    XDevice owned(d);
    XpurtDeviceInfo info{};
    info.structSize = sizeof info;
    check(xpurtDeviceGetInfo(d, &info));
    return handOut<ISPCRTDevice>(make<Device>(std::move(owned), c->type(), info.backend));
  });
}

ISPCRT_API ISPCRTDevice ispcrtGetDeviceFromNativeHandle(ISPCRTContext context,
                                                        ISPCRTGenericHandle native) {
  return guarded("ispcrtGetDeviceFromNativeHandle", ISPCRTDevice{}, [&] {
    Ref<Context> c = lookup<Context>(context, "context");
    uint32_t n = 0;
    check(xpurtContextGetDeviceCount(c->handle(), &n));
    // A CPU context's devices have no native handles: its device, as ISPCRT's.
    if (c->type() == ISPCRT_DEVICE_TYPE_CPU) n = std::min(n, 1u);
    for (uint32_t i = 0; i < n; ++i) {
      XpurtDevice d = nullptr;
      check(xpurtContextGetDevice(c->handle(), i, &d));
      XDevice owned(d);
      // (A CUDA device's native handle is its ordinal: device 0's is NULL.)
      void *h = nullptr;
      if (c->type() != ISPCRT_DEVICE_TYPE_CPU &&
          (xpurtDeviceGetNativeHandle(d, XPURT_NATIVE_DEVICE, &h) != XPURT_SUCCESS || h != native))
        continue;
      XpurtDeviceInfo info{};
      info.structSize = sizeof info;
      check(xpurtDeviceGetInfo(d, &info));
      return handOut<ISPCRTDevice>(make<Device>(std::move(owned), c->type(), info.backend));
    }
    fail(ISPCRT_INVALID_ARGUMENT,
         "no device of the context has the native handle {}: pass a handle that "
         "ispcrtDeviceNativeHandle gave for a device of this context",
         native);
  });
}

ISPCRT_API ISPCRTContext ispcrtGetContextFromNativeHandle(ISPCRTDeviceType type,
                                                          ISPCRTGenericHandle native) {
  return guarded("ispcrtGetContextFromNativeHandle", ISPCRTContext{}, [&] {
    checkType(type);
    Listing listing = devicesOf(type);
    if (listing.type == ISPCRT_DEVICE_TYPE_CPU) {  // no native context: ISPCRT's CPU's
      Ref<Device> cpu = deviceAt(ISPCRT_DEVICE_TYPE_CPU, 0);
      XpurtContext c = nullptr;
      check(xpurtDeviceGetContext(cpu->handle(), &c));
      return handOut<ISPCRTContext>(make<Context>(XContext(c), ISPCRT_DEVICE_TYPE_CPU));
    }
    if (!native) fail(ISPCRT_INVALID_ARGUMENT, "the native context handle is NULL");
    for (const Address &a : listing.devices) {
      XpurtDevice d = nullptr;
      check(xpurtGetDevice(a.type, a.index, &d));
      XDevice owned(d);
      void *h = nullptr;
      if (xpurtDeviceGetNativeHandle(d, XPURT_NATIVE_CONTEXT, &h) != XPURT_SUCCESS || h != native)
        continue;
      XpurtContext c = nullptr;
      check(xpurtDeviceGetContext(d, &c));
      return handOut<ISPCRTContext>(make<Context>(XContext(c), listing.type));
    }
    fail(ISPCRT_INVALID_ARGUMENT,
         "no {} device is in the native context {}: xpurt takes the contexts it made itself "
         "(ispcrtContextNativeHandle), not contexts made by the program",
         typeName(type), native);
  });
}

ISPCRT_API ISPCRTGenericHandle ispcrtPlatformNativeHandle(ISPCRTDevice d) {
  return guarded("ispcrtPlatformNativeHandle", ISPCRTGenericHandle{}, [&] {
    return nativeHandleOf(*lookup<Device>(d, "device"), XPURT_NATIVE_PLATFORM);
  });
}

ISPCRT_API ISPCRTGenericHandle ispcrtDeviceNativeHandle(ISPCRTDevice d) {
  return guarded("ispcrtDeviceNativeHandle", ISPCRTGenericHandle{},
                 [&] { return nativeHandleOf(*lookup<Device>(d, "device"), XPURT_NATIVE_DEVICE); });
}

ISPCRT_API ISPCRTGenericHandle ispcrtDeviceContextNativeHandle(ISPCRTDevice d) {
  return guarded("ispcrtDeviceContextNativeHandle", ISPCRTGenericHandle{}, [&] {
    return nativeHandleOf(*lookup<Device>(d, "device"), XPURT_NATIVE_CONTEXT);
  });
}

ISPCRT_API ISPCRTGenericHandle ispcrtContextNativeHandle(ISPCRTContext context) {
  return guarded("ispcrtContextNativeHandle", ISPCRTGenericHandle{}, [&]() -> void * {
    Ref<Context> c = lookup<Context>(context, "context");
    if (c->type() == ISPCRT_DEVICE_TYPE_CPU) return nullptr;  // as ISPCRT's CPU context
    XpurtDevice d = nullptr;
    check(xpurtContextGetDevice(c->handle(), 0, &d));
    XDevice owned(d);
    void *h = nullptr;
    check(xpurtDeviceGetNativeHandle(d, XPURT_NATIVE_CONTEXT, &h));
    return h;
  });
}

}  // extern "C"
