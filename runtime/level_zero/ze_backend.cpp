#include "ze_backend.hpp"

#include "core/log.hpp"
#include "ze_call.hpp"
#include "ze_device.hpp"
#include "ze_handles.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

namespace xpurt::level_zero {
namespace {

std::string vendorName(uint32_t vendorId) {
  switch (vendorId) {
    case 0x8086:
      return "Intel";
    case 0x10de:
      return "NVIDIA";
    case 0x1002:
      return "AMD";
    case 0:
      return "unknown";
    default:
      return fmt::format("vendor 0x{:04x}", vendorId);
  }
}

// Everything discovery needs from one device; nothing if a query fails (logged, skipped).
std::optional<ZeDeviceDescription> describe(ze_driver_handle_t driver, ze_device_handle_t device) {
  ZeDeviceDescription d{};
  d.driver = driver;
  d.device = device;
  d.properties = zeStruct<ze_device_properties_t>(ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
  d.compute = zeStruct<ze_device_compute_properties_t>(ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES);
  if (ze_result_t r = zeDeviceGetProperties(device, &d.properties); r != ZE_RESULT_SUCCESS) {
    core::log().warn("Level Zero: zeDeviceGetProperties failed with {}; device skipped",
                     resultName(r));
    return std::nullopt;
  }
  if (ze_result_t r = zeDeviceGetComputeProperties(device, &d.compute); r != ZE_RESULT_SUCCESS) {
    core::log().warn("Level Zero: zeDeviceGetComputeProperties failed with {}; device skipped",
                     resultName(r));
    return std::nullopt;
  }
  // With this structure type the resolution is in nanoseconds per tick.
  d.nsPerTimestampTick = static_cast<double>(std::max<uint64_t>(d.properties.timerResolution, 1));
  d.kernelTimestampValidBits = d.properties.kernelTimestampValidBits;

  uint32_t groups = 0;
  zeDeviceGetCommandQueueGroupProperties(device, &groups, nullptr);
  std::vector<ze_command_queue_group_properties_t> props(
      groups, zeStruct<ze_command_queue_group_properties_t>(
                  ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES));
  if (groups == 0 ||
      zeDeviceGetCommandQueueGroupProperties(device, &groups, props.data()) != ZE_RESULT_SUCCESS) {
    core::log().warn("Level Zero: device '{}' reports no command queue groups; skipped",
                     d.properties.name);
    return std::nullopt;
  }
  std::optional<uint32_t> compute;
  for (uint32_t i = 0; i < groups; ++i) {
    auto flags = props[i].flags;
    bool isCompute = flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE;
    bool isCopy = flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
    if (isCompute && !compute) {
      compute = i;
      d.computeQueues = std::max(1u, props[i].numQueues);
      d.maxFillPatternSize[0] = static_cast<uint32_t>(props[i].maxMemoryFillPatternSize);
    }
    if (isCopy && !isCompute && !d.copyOrdinal) {
      d.copyOrdinal = i;
      d.maxFillPatternSize[1] = static_cast<uint32_t>(props[i].maxMemoryFillPatternSize);
    }
  }
  if (!compute) {
    core::log().warn("Level Zero: device '{}' has no compute queue group; skipped",
                     d.properties.name);
    return std::nullopt;
  }
  d.computeOrdinal = *compute;
  if (!d.copyOrdinal) d.maxFillPatternSize[1] = d.maxFillPatternSize[0];

  uint64_t memory = 0;
  uint32_t memories = 0;
  zeDeviceGetMemoryProperties(device, &memories, nullptr);
  std::vector<ze_device_memory_properties_t> mem(
      memories,
      zeStruct<ze_device_memory_properties_t>(ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES));
  if (memories && zeDeviceGetMemoryProperties(device, &memories, mem.data()) == ZE_RESULT_SUCCESS)
    for (const auto &m : mem) memory += m.totalSize;

  XpurtDeviceInfo &info = d.info;
  info = {};
  info.type =
      d.properties.type == ZE_DEVICE_TYPE_GPU ? XPURT_DEVICE_TYPE_GPU : XPURT_DEVICE_TYPE_CPU;
  std::snprintf(info.backend, sizeof info.backend, "level_zero");
  std::snprintf(info.name, sizeof info.name, "%s", d.properties.name);
  std::snprintf(info.vendor, sizeof info.vendor, "%s", vendorName(d.properties.vendorId).c_str());
  info.vendorId = d.properties.vendorId;
  info.deviceId = d.properties.deviceId;
  info.computeUnits = std::max(1u, d.properties.numSlices * d.properties.numSubslicesPerSlice *
                                       d.properties.numEUsPerSubslice);
  info.globalMemorySize = memory;
  uint64_t groupsMax = uint64_t{d.compute.maxGroupCountX} * d.compute.maxGroupCountY;
  info.maxTaskCount = groupsMax > UINT64_MAX / std::max(1u, d.compute.maxGroupCountZ)
                          ? UINT64_MAX
                          : groupsMax * d.compute.maxGroupCountZ;
  info.maxWorkGroupSize = d.compute.maxTotalGroupSize;
  info.deviceMemoryIsHostMemory = false;
  return d;
}

class LevelZeroBackend final : public core::Backend {
 public:
  const char *name() const override { return "level_zero"; }
  XpurtDeviceType deviceType() const override { return XPURT_DEVICE_TYPE_GPU; }
  XpurtDeviceType typeOfDevice(uint32_t index) override { return discovered().at(index).info.type; }
  uint32_t deviceCount() override { return static_cast<uint32_t>(discovered().size()); }
  XpurtDeviceInfo deviceInfo(uint32_t index) override {
    const auto &all = discovered();
    if (index >= all.size())
      core::fail(XPURT_ERROR_NOT_FOUND, "there is no Level Zero device {} ({} found)", index,
                 all.size());
    return all[index].info;
  }

 protected:
  core::Ref<core::Device> createDevice(uint32_t index, const core::DeviceOptions &) override {
    const ZeDeviceDescription &d = discovered().at(index);
    return core::makeRef<ZeDevice>(*this, d, contextFor(d.driver));
  }

 private:
  // Every device of every driver, GPUs first (the loader's order otherwise): found once, as
  // the loader itself initialises once per process.
  const std::vector<ZeDeviceDescription> &discovered() {
    std::call_once(discoverOnce_, [this] { discover(); });
    return devices_;
  }

  void discover() {
    if (ze_result_t r = zeInit(0); r != ZE_RESULT_SUCCESS) {
      core::log().info(
          "Level Zero: zeInit failed with {}: the loader found no driver with a device (a "
          "GPU driver without its GPU reports none), so there are no Level Zero devices",
          resultName(r));
      return;
    }
    uint32_t driverCount = 0;
    if (zeDriverGet(&driverCount, nullptr) != ZE_RESULT_SUCCESS || driverCount == 0) return;
    std::vector<ze_driver_handle_t> drivers(driverCount);
    if (zeDriverGet(&driverCount, drivers.data()) != ZE_RESULT_SUCCESS) return;
    if (driverCount > 1) HandleLifetimes::guard();
    for (ze_driver_handle_t driver : drivers) {
      uint32_t count = 0;
      if (zeDeviceGet(driver, &count, nullptr) != ZE_RESULT_SUCCESS || count == 0) continue;
      std::vector<ze_device_handle_t> handles(count);
      if (zeDeviceGet(driver, &count, handles.data()) != ZE_RESULT_SUCCESS) continue;
      for (ze_device_handle_t h : handles) {
        if (auto d = describe(driver, h)) devices_.push_back(std::move(*d));
      }
    }
    std::stable_partition(devices_.begin(), devices_.end(), [](const ZeDeviceDescription &d) {
      return d.properties.type == ZE_DEVICE_TYPE_GPU;
    });
    std::map<XpurtDeviceType, uint32_t> perType;
    for (ZeDeviceDescription &d : devices_) {
      d.info.index = perType[d.info.type]++;
      core::log().info("Level Zero: device {} '{}' ({})", &d - devices_.data(), d.properties.name,
                       d.properties.type == ZE_DEVICE_TYPE_GPU ? "GPU" : "not a GPU");
    }
    if (devices_.empty())
      core::log().info("Level Zero: {} driver{} found, reporting no device", driverCount,
                       driverCount == 1 ? "" : "s");
  }

  // One context per driver, for all its devices, while any device of it lives.
  std::shared_ptr<ZeContext> contextFor(ze_driver_handle_t driver) {
    std::lock_guard lock(contextMutex_);
    std::weak_ptr<ZeContext> &slot = contexts_[driver];
    if (auto living = slot.lock()) return living;
    auto context = std::make_shared<ZeContext>(driver);
    slot = context;
    return context;
  }

  std::once_flag discoverOnce_;
  std::vector<ZeDeviceDescription> devices_;
  std::mutex contextMutex_;
  std::map<ze_driver_handle_t, std::weak_ptr<ZeContext>> contexts_;
};

}  // namespace

std::unique_ptr<core::Backend> createLevelZeroBackend() {
  return std::make_unique<LevelZeroBackend>();
}

}  // namespace xpurt::level_zero
