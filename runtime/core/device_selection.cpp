#include "device_selection.hpp"

#include "config.hpp"
#include "error.hpp"
#include "log.hpp"

#include <mutex>

namespace xpurt::core {

// Every backend name XPURT_DEVICE takes, built here or not (runtime/api/backend_list.cpp).
std::span<const char *const> backendNames();

namespace {

// XPURT_DEVICE: which device AUTO means.
struct DeviceSelector {
  std::string backend;  // a backend's name, "cpu" or "gpu" for a type, or "" for auto
  uint32_t index = 0;
};

std::optional<DeviceSelector> deviceSelectorFromEnv() {
  auto v = envValue("XPURT_DEVICE");
  if (!v) return std::nullopt;
  std::string text = lower(*v);
  DeviceSelector sel;
  auto colon = text.find(':');
  sel.backend = text.substr(0, colon);
  std::string names = "cpu, gpu, auto";
  bool known = sel.backend == "cpu" || sel.backend == "gpu" || sel.backend == "auto";
  for (const char *name : backendNames()) {
    known = known || sel.backend == name;
    if (std::string(name) != "cpu") names += fmt::format(", {}", name);
  }
  uint64_t index = 0;
  bool indexOk = colon == std::string::npos ||
                 (parseUnsigned(text.substr(colon + 1), index) && index <= UINT32_MAX);
  if (!known || !indexOk || (sel.backend == "auto" && colon != std::string::npos))
    fail(XPURT_ERROR_INVALID_CONFIG,
         "XPURT_DEVICE='{}' is not a device: use {}, optionally followed by :<index> (for "
         "example gpu:0)",
         *v, names);
  if (sel.backend == "auto") sel.backend.clear();
  sel.index = static_cast<uint32_t>(index);
  return sel;
}

}  // namespace

static std::string available() {
  std::string list;
  for (Backend *b : backends())
    for (uint32_t i = 0, n = b->deviceCount(); i < n; ++i)
      list += fmt::format("{}{}:{}", list.empty() ? "" : ", ", b->name(), i);
  return list.empty() ? "none" : list;
}

static const char *typeName(XpurtDeviceType type) {
  switch (type) {
    case XPURT_DEVICE_TYPE_CPU:
      return "CPU";
    case XPURT_DEVICE_TYPE_GPU:
      return "GPU";
    case XPURT_DEVICE_TYPE_AUTO:
      return "AUTO";
  }
  return "?";
}

static void checkType(XpurtDeviceType type) {
  if (type != XPURT_DEVICE_TYPE_CPU && type != XPURT_DEVICE_TYPE_GPU &&
      type != XPURT_DEVICE_TYPE_AUTO)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "device type {} is not one of XPURT_DEVICE_TYPE_CPU, _GPU or _AUTO",
         static_cast<int>(type));
}

// The devices of one type, in order: those of backends made for that type first (listed GPU
// backends first), then those other backends found (a Level Zero driver for the CPU), so the
// CPU backend stays cpu:0 and a real GPU stays gpu:0.
static std::vector<DeviceAddress> devicesOfType(XpurtDeviceType type) {
  std::vector<DeviceAddress> found;
  for (int ownKind = 1; ownKind >= 0; --ownKind)
    for (Backend *b : backends()) {
      if ((b->deviceType() == type) != bool(ownKind)) continue;
      for (uint32_t i = 0, n = b->deviceCount(); i < n; ++i)
        if (b->typeOfDevice(i) == type) found.push_back({b, i});
    }
  return found;
}

static uint32_t countOfType(XpurtDeviceType type) {
  return static_cast<uint32_t>(devicesOfType(type).size());
}

// AUTO without XPURT_DEVICE: the GPUs if there are any, else the CPUs (said once in the log).
static XpurtDeviceType autoType() {
  if (countOfType(XPURT_DEVICE_TYPE_GPU) > 0) return XPURT_DEVICE_TYPE_GPU;
  static std::once_flag said;
  std::call_once(said, [] {
    std::string why;
    for (Backend *b : backends())
      if (std::string reason = b->whyNoDevices(); !reason.empty())
        why += fmt::format("{}{}: {}", why.empty() ? " (" : "; ", b->name(), reason);
    log().info("AUTO: no GPU device was found{}{}; using the CPU", why, why.empty() ? "" : ")");
  });
  return XPURT_DEVICE_TYPE_CPU;
}

uint32_t deviceCount(XpurtDeviceType type) {
  checkType(type);
  return countOfType(type == XPURT_DEVICE_TYPE_AUTO ? autoType() : type);
}

static DeviceAddress byTypeAndIndex(XpurtDeviceType type, uint32_t index) {
  std::vector<DeviceAddress> all = devicesOfType(type);
  if (index < all.size()) return all[index];
  auto first = all.size();
  fail(XPURT_ERROR_NOT_FOUND, "there is no {} device {} ({} {} device{}; available: {})",
       typeName(type), index, first, typeName(type), first == 1 ? "" : "s", available());
}

static DeviceAddress bySelector(const DeviceSelector &sel) {
  if (sel.backend.empty()) return byTypeAndIndex(autoType(), sel.index);
  if (sel.backend == "cpu") return byTypeAndIndex(XPURT_DEVICE_TYPE_CPU, sel.index);
  if (sel.backend == "gpu") return byTypeAndIndex(XPURT_DEVICE_TYPE_GPU, sel.index);
  std::string why;
  for (Backend *b : backends())
    if (sel.backend == b->name()) {
      if (sel.index < b->deviceCount()) return {b, sel.index};
      if (std::string reason = b->whyNoDevices(); !reason.empty()) why = "; " + reason;
    }
  fail(XPURT_ERROR_NOT_FOUND,
       "XPURT_DEVICE={}:{} names no device of this machine (available: {}){}", sel.backend,
       sel.index, available(), why);
}

DeviceAddress findDevice(XpurtDeviceType type, uint32_t index) {
  checkType(type);
  if (type == XPURT_DEVICE_TYPE_AUTO) {
    if (auto sel = deviceSelectorFromEnv()) {
      if (index != 0) sel->index = index;
      return bySelector(*sel);
    }
    type = autoType();
  }
  return byTypeAndIndex(type, index);
}

XpurtDeviceInfo deviceInfo(XpurtDeviceType type, uint32_t index) {
  DeviceAddress at = findDevice(type, index);
  return at.backend->deviceInfo(at.index);
}

Ref<Context> Context::create(XpurtDeviceType type) {
  return ofBackend(*findDevice(type, 0).backend);
}

Ref<Context> Context::ofDevice(Device &device) {
  return ofBackend(device.backend());
}

Ref<Context> Context::ofBackend(Backend &backend) {
  Ref<Context> ctx = Ref<Context>::adopt(new Context);
  ctx->backend_ = &backend;
  for (uint32_t i = 0, n = backend.deviceCount(); i < n; ++i)
    ctx->devices_.push_back(backend.device(i, DeviceOptions{}));
  return ctx;
}

}  // namespace xpurt::core
