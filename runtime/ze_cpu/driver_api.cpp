// zeInit, the driver and its devices: discovery and properties.
#include "api.hpp"
#include "cpu/cpu_backend.hpp"
#include "cpu/cpu_kernel.hpp"
#include "driver.hpp"
#include "entry.hpp"
#include "sync.hpp"

#include <xpurt/xpurt.h>

#include <oneapi/tbb/info.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>

namespace xpurt::ze_cpu {
namespace {

std::atomic<Driver *> theDriver{nullptr};

// The cores' top frequency in MHz (sysfs), else the current one (/proc/cpuinfo), else 0.
uint32_t cpuClockMHz() {
  std::ifstream maxFreq("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (uint64_t kHz = 0; maxFreq >> kHz && kHz > 0) return static_cast<uint32_t>(kHz / 1000);
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("cpu MHz", 0) == 0)
      if (auto colon = line.find(':'); colon != std::string::npos)
        return static_cast<uint32_t>(std::strtod(line.c_str() + colon + 1, nullptr));
  return 0;
}

// The last-level cache in bytes (sysfs: "32768K"), or 0.
size_t lastLevelCacheBytes() {
  for (int index = 4; index >= 0; --index) {
    std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) +
                       "/size");
    std::string text;
    if (!(file >> text) || text.empty()) continue;
    size_t scale = text.back() == 'K' ? 1024 : text.back() == 'M' ? 1024 * 1024 : 1;
    return std::strtoull(text.c_str(), nullptr, 10) * scale;
  }
  return 0;
}

// Bytes of a UUID from a name: stable for one machine and build, distinct between them.
template <size_t N>
void fillUuid(uint8_t (&id)[N], const std::string &text) {
  for (size_t i = 0; i < N; i += sizeof(size_t)) {
    size_t h = std::hash<std::string>{}(text + '#' + std::to_string(i));
    std::memcpy(id + i, &h, std::min(sizeof h, N - i));
  }
}

// The Level Zero convention for lists: *pCount 0 asks for the count; otherwise up to *pCount
// entries are written and *pCount becomes the number written.
template <class T, class Fill>
ze_result_t listOf(uint32_t total, uint32_t *pCount, T *out, Fill fill) {
  requirePointer(pCount);
  if (*pCount == 0 || !out) {
    *pCount = total;
    return ZE_RESULT_SUCCESS;
  }
  *pCount = std::min(*pCount, total);
  for (uint32_t i = 0; i < *pCount; ++i) fill(i, out[i]);
  return ZE_RESULT_SUCCESS;
}

constexpr ze_device_fp_flags_t kIeeeFlags =
    ZE_DEVICE_FP_FLAG_DENORM | ZE_DEVICE_FP_FLAG_INF_NAN | ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST |
    ZE_DEVICE_FP_FLAG_FMA | ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT;

constexpr ze_memory_access_cap_flags_t kFullAccess =
    ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC |
    ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT | ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC;

const ze_driver_extension_properties_t kExtensions[] = {
    {ZE_GLOBAL_OFFSET_EXP_NAME, ZE_GLOBAL_OFFSET_EXP_VERSION_CURRENT},
    {ZE_RELAXED_ALLOCATION_LIMITS_EXP_NAME, ZE_RELAXED_ALLOCATION_LIMITS_EXP_VERSION_CURRENT},
};

Driver &driverOf(ze_driver_handle_t handle) {
  requireHandle(handle);
  if (fromHandle<Driver>(handle) != &driver()) fail(ZE_RESULT_ERROR_INVALID_ARGUMENT);
  return driver();
}

}  // namespace

DeviceObject::DeviceObject(core::Ref<core::Device> cpuDevice, uint32_t index)
    : cpuDevice_(std::move(cpuDevice)) {
  XpurtDeviceInfo info = cpuDevice_->info();
  name_ = std::string("xpurt CPU (") + info.name + ")";
  // Several devices are told apart by name, as GPUs of one model are by their UUIDs.
  if (index > 0) name_ += " #" + std::to_string(index);
  threads_ = info.computeUnits;
  clockMHz_ = cpuClockMHz();
  memoryBytes_ = info.globalMemorySize;
  fillUuid(uuid_.id, "xpurt ze_cpu device " + name_);
}

// XPURT_ZE_CPU_DEVICES: how many devices the driver offers (1 unless set).
static uint32_t configuredDeviceCount() {
  const char *text = std::getenv("XPURT_ZE_CPU_DEVICES");
  if (!text || !*text) return 1;
  char *end = nullptr;
  unsigned long n = std::strtoul(text, &end, 10);
  if (*end != '\0' || n < 1 || n > kMaxDevices || text[0] == '-')
    core::fail(XPURT_ERROR_INVALID_CONFIG,
               "XPURT_ZE_CPU_DEVICES='{}': give the number of devices the Level Zero driver for "
               "the CPU offers, 1 to {}",
               text, kMaxDevices);
  return static_cast<uint32_t>(n);
}

// XPURT_ZE_CPU_PEER_ACCESS: 1 (the default) or 0.
static bool configuredPeerAccess() {
  const char *text = std::getenv("XPURT_ZE_CPU_PEER_ACCESS");
  if (!text || !*text) return true;
  if (std::strcmp(text, "0") != 0 && std::strcmp(text, "1") != 0)
    core::fail(XPURT_ERROR_INVALID_CONFIG,
               "XPURT_ZE_CPU_PEER_ACCESS='{}': give 1 (devices reach each other's memory) or 0 "
               "(they say they do not)",
               text);
  return text[0] == '1';
}

Driver::Driver() : backend_(cpu::createCpuBackend()) {
  uint32_t count = configuredDeviceCount();
  peerAccess_ = configuredPeerAccess();
  // One CPU device behind all: the devices share the cores, as sub-devices of a GPU share
  // its memory bus.
  core::Ref<core::Device> cpuDevice = backend_->device(0, core::DeviceOptions{});
  for (uint32_t i = 0; i < count; ++i)
    devices_.push_back(std::make_unique<DeviceObject>(cpuDevice, i));
  fillUuid(uuid_.id, "xpurt ze_cpu driver " + std::to_string(XPURT_VERSION_MAJOR) + "." +
                         std::to_string(XPURT_VERSION_MINOR));
}

Driver &driver() {
  return *theDriver.load(std::memory_order_acquire);
}

void createDriver() {
  static std::mutex creating;
  std::lock_guard lock(creating);
  if (!theDriver.load(std::memory_order_acquire)) theDriver.store(new Driver);
}

DeviceObject &deviceOf(ze_device_handle_t handle) {
  requireHandle(handle);
  Driver &d = driver();
  auto *device = fromHandle<DeviceObject>(handle);
  for (uint32_t i = 0; i < d.deviceCount(); ++i)
    if (&d.device(i) == device) return *device;
  fail(ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

namespace api {

ze_result_t zeInit(ze_init_flags_t flags) {
  // Faults given in the environment apply from the first call on, this one included.
  static const bool faultsRead = [] {
    const char *spec = std::getenv("XPURT_ZE_CPU_FAULTS");
    return !spec || setFaults(spec);
  }();
  return entry(ApiId::zeInit, [&] {
    if (!faultsRead) return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // why is on stderr
    if (flags > (ZE_INIT_FLAG_GPU_ONLY | ZE_INIT_FLAG_VPU_ONLY))
      return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    // A driver without the kind of device asked for is not initialised, as GPU drivers do
    // for ZE_INIT_FLAG_VPU_ONLY: this one has a CPU only.
    if (flags != 0) return ZE_RESULT_ERROR_UNINITIALIZED;
    try {
      createDriver();
    } catch (const core::Error &e) {
      // The loader drops a driver whose zeInit fails without saying why: say it here.
      std::fprintf(stderr, "xpurt ze_cpu: %s\n", e.what());
      throw;
    }
    detail::initialized.store(true, std::memory_order_release);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers) {
  return entry(ApiId::zeDriverGet, [&] {
    return listOf(1, pCount, phDrivers, [](uint32_t, ze_driver_handle_t &out) {
      out = toHandle<ze_driver_handle_t>(&driver());
    });
  });
}

ze_result_t zeDriverGetApiVersion(ze_driver_handle_t hDriver, ze_api_version_t *version) {
  return entry(ApiId::zeDriverGetApiVersion, [&] {
    driverOf(hDriver);
    requirePointer(version);
    *version = ZE_API_VERSION_1_4;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDriverGetProperties(ze_driver_handle_t hDriver,
                                  ze_driver_properties_t *pDriverProperties) {
  return entry(ApiId::zeDriverGetProperties, [&] {
    Driver &d = driverOf(hDriver);
    requirePointer(pDriverProperties);
    pDriverProperties->uuid = d.uuid();
    pDriverProperties->driverVersion =
        (XPURT_VERSION_MAJOR << 24) | (XPURT_VERSION_MINOR << 16) | XPURT_VERSION_PATCH;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDriverGetIpcProperties(ze_driver_handle_t hDriver,
                                     ze_driver_ipc_properties_t *pIpcProperties) {
  return entry(ApiId::zeDriverGetIpcProperties, [&] {
    driverOf(hDriver);
    requirePointer(pIpcProperties);
    pIpcProperties->flags = 0;  // no memory or event pools shared between processes
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDriverGetExtensionProperties(ze_driver_handle_t hDriver, uint32_t *pCount,
                                           ze_driver_extension_properties_t *pExtensionProperties) {
  return entry(ApiId::zeDriverGetExtensionProperties, [&] {
    driverOf(hDriver);
    return listOf(static_cast<uint32_t>(std::size(kExtensions)), pCount, pExtensionProperties,
                  [](uint32_t i, ze_driver_extension_properties_t &out) { out = kExtensions[i]; });
  });
}

ze_result_t zeDriverGetExtensionFunctionAddress(ze_driver_handle_t hDriver, const char *name,
                                                void **ppFunctionAddress) {
  return entry(ApiId::zeDriverGetExtensionFunctionAddress, [&] {
    driverOf(hDriver);
    requirePointer(name);
    requirePointer(ppFunctionAddress);
    if (std::strcmp(name, "zeKernelSetGlobalOffsetExp") == 0)
      *ppFunctionAddress = reinterpret_cast<void *>(&api::zeKernelSetGlobalOffsetExp);
    else if (std::strcmp(name, "zeDriverGetLastErrorDescription") == 0)
      *ppFunctionAddress = reinterpret_cast<void *>(&api::zeDriverGetLastErrorDescription);
    else
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDriverGetLastErrorDescription(ze_driver_handle_t hDriver, const char **ppString) {
  return entry(ApiId::zeDriverGetLastErrorDescription, [&] {
    driverOf(hDriver);
    requirePointer(ppString);
    *ppString = lastErrorDescription().c_str();  // valid until this thread's next call
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount,
                        ze_device_handle_t *phDevices) {
  return entry(ApiId::zeDeviceGet, [&] {
    Driver &d = driverOf(hDriver);
    return listOf(d.deviceCount(), pCount, phDevices, [&](uint32_t i, ze_device_handle_t &out) {
      out = toHandle<ze_device_handle_t>(&d.device(i));
    });
  });
}

ze_result_t zeDeviceGetSubDevices(ze_device_handle_t hDevice, uint32_t *pCount,
                                  ze_device_handle_t *phSubdevices) {
  return entry(ApiId::zeDeviceGetSubDevices, [&] {
    deviceOf(hDevice);
    return listOf(0, pCount, phSubdevices, [](uint32_t, ze_device_handle_t &) {});
  });
}

ze_result_t zeDeviceGetProperties(ze_device_handle_t hDevice,
                                  ze_device_properties_t *pDeviceProperties) {
  return entry(ApiId::zeDeviceGetProperties, [&] {
    DeviceObject &device = deviceOf(hDevice);
    requirePointer(pDeviceProperties);
    ze_device_properties_t &p = *pDeviceProperties;
    p.type = ZE_DEVICE_TYPE_CPU;
    p.vendorId = 0;  // not a PCI device of any vendor
    p.deviceId = 0;
    p.flags = ZE_DEVICE_PROPERTY_FLAG_INTEGRATED;  // its memory is the host's
    p.subdeviceId = 0;
    p.coreClockRate = device.clockMHz();
    p.maxMemAllocSize = device.maxAllocBytes();
    p.maxHardwareContexts = 1;
    p.maxCommandQueuePriority = 0;
    // One "EU" per hardware thread, each as wide as the JIT's work-item loop.
    p.numThreadsPerEU = 1;
    p.physicalEUSimdWidth = kSubGroupSize;
    p.numEUsPerSubslice = 1;
    p.numSubslicesPerSlice = device.threads();
    p.numSlices = 1;
    // Version 1.2 of the structure gives the resolution in cycles per second; before it, in
    // nanoseconds per cycle. A tick is a nanosecond either way.
    p.timerResolution = p.stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 ? 1'000'000'000 : 1;
    p.timestampValidBits = kTimestampBits;
    p.kernelTimestampValidBits = kTimestampBits;
    p.uuid = device.uuid();
    std::memset(p.name, 0, sizeof p.name);
    std::strncpy(p.name, device.name().c_str(), sizeof p.name - 1);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDeviceGetComputeProperties(ze_device_handle_t hDevice,
                                         ze_device_compute_properties_t *pComputeProperties) {
  return entry(ApiId::zeDeviceGetComputeProperties, [&] {
    deviceOf(hDevice);
    requirePointer(pComputeProperties);
    ze_device_compute_properties_t &p = *pComputeProperties;
    p.maxTotalGroupSize = kMaxGroupSize;
    p.maxGroupSizeX = p.maxGroupSizeY = p.maxGroupSizeZ = kMaxGroupSize;
    p.maxGroupCountX = p.maxGroupCountY = p.maxGroupCountZ = kMaxGroupCount;
    p.maxSharedLocalMemory = static_cast<uint32_t>(cpu::kMaxLocalBytesPerGroup);
    // Sizes a kernel may require (intel_reqd_sub_group_size); 16 is what others get.
    constexpr uint32_t sizes[] = {8, 16, 32, 64, 128};
    p.numSubGroupSizes = static_cast<uint32_t>(std::size(sizes));
    std::copy(std::begin(sizes), std::end(sizes), p.subGroupSizes);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDeviceGetModuleProperties(ze_device_handle_t hDevice,
                                        ze_device_module_properties_t *pModuleProperties) {
  return entry(ApiId::zeDeviceGetModuleProperties, [&] {
    deviceOf(hDevice);
    requirePointer(pModuleProperties);
    ze_device_module_properties_t &p = *pModuleProperties;
    p.spirvVersionSupported = ZE_MAKE_VERSION(1, 4);  // what LLVM's SPIR-V translator 15 reads
    p.flags = ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_FP64 |
              ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS | ZE_DEVICE_MODULE_FLAG_DP4A;
    // Half precision is computed in single precision and rounded once.
    p.fp16flags = ZE_DEVICE_FP_FLAG_DENORM | ZE_DEVICE_FP_FLAG_INF_NAN |
                  ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST | ZE_DEVICE_FP_FLAG_SOFT_FLOAT;
    p.fp32flags = kIeeeFlags;
    p.fp64flags = kIeeeFlags;
    p.maxArgumentsSize = 4096;
    p.printfBufferSize = 1u << 20;  // printf writes straight to the process's stdout
    std::memset(&p.nativeKernelSupported, 0, sizeof p.nativeKernelSupported);  // SPIR-V only
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDeviceGetCommandQueueGroupProperties(
    ze_device_handle_t hDevice, uint32_t *pCount,
    ze_command_queue_group_properties_t *pCommandQueueGroupProperties) {
  return entry(ApiId::zeDeviceGetCommandQueueGroupProperties, [&] {
    deviceOf(hDevice);
    return listOf(kQueueGroupCount, pCount, pCommandQueueGroupProperties,
                  [](uint32_t ordinal, ze_command_queue_group_properties_t &p) {
                    p.flags = ordinal == kComputeOrdinal
                                  ? ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE |
                                        ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY
                                  : ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
                    p.maxMemoryFillPatternSize = kMaxFillPatternSize;
                    p.numQueues = kQueuesInGroup[ordinal];
                  });
  });
}

ze_result_t zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                        ze_device_memory_properties_t *pMemProperties) {
  return entry(ApiId::zeDeviceGetMemoryProperties, [&] {
    DeviceObject &device = deviceOf(hDevice);
    return listOf(1, pCount, pMemProperties, [&](uint32_t, ze_device_memory_properties_t &p) {
      p.flags = 0;
      p.maxClockRate = 0;  // not known to the driver
      p.maxBusWidth = 0;
      p.totalSize = device.memoryBytes();
      std::memset(p.name, 0, sizeof p.name);
      std::strncpy(p.name, "host memory", sizeof p.name - 1);
    });
  });
}

ze_result_t zeDeviceGetMemoryAccessProperties(
    ze_device_handle_t hDevice, ze_device_memory_access_properties_t *pMemAccessProperties) {
  return entry(ApiId::zeDeviceGetMemoryAccessProperties, [&] {
    deviceOf(hDevice);
    requirePointer(pMemAccessProperties);
    // Every allocation is host memory, and so is whatever the host allocates by itself.
    ze_device_memory_access_properties_t &p = *pMemAccessProperties;
    p.hostAllocCapabilities = kFullAccess;
    p.deviceAllocCapabilities = kFullAccess;
    p.sharedSingleDeviceAllocCapabilities = kFullAccess;
    p.sharedCrossDeviceAllocCapabilities = kFullAccess;
    p.sharedSystemAllocCapabilities = kFullAccess;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDeviceGetCacheProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                       ze_device_cache_properties_t *pCacheProperties) {
  return entry(ApiId::zeDeviceGetCacheProperties, [&] {
    deviceOf(hDevice);
    return listOf(1, pCount, pCacheProperties, [](uint32_t, ze_device_cache_properties_t &p) {
      p.flags = 0;  // no user control over the cache
      p.cacheSize = lastLevelCacheBytes();
    });
  });
}

ze_result_t zeDeviceGetImageProperties(ze_device_handle_t hDevice,
                                       ze_device_image_properties_t *pImageProperties) {
  return entry(ApiId::zeDeviceGetImageProperties, [&] {
    deviceOf(hDevice);
    requirePointer(pImageProperties);
    ze_device_image_properties_t &p = *pImageProperties;  // no images: every limit is 0
    p.maxImageDims1D = p.maxImageDims2D = p.maxImageDims3D = 0;
    p.maxImageBufferSize = 0;
    p.maxImageArraySlices = p.maxSamplers = p.maxReadImageArgs = p.maxWriteImageArgs = 0;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDeviceGetExternalMemoryProperties(
    ze_device_handle_t hDevice, ze_device_external_memory_properties_t *pExternalMemoryProperties) {
  return entry(ApiId::zeDeviceGetExternalMemoryProperties, [&] {
    deviceOf(hDevice);
    requirePointer(pExternalMemoryProperties);
    ze_device_external_memory_properties_t &p = *pExternalMemoryProperties;
    p.memoryAllocationImportTypes = p.memoryAllocationExportTypes = 0;
    p.imageImportTypes = p.imageExportTypes = 0;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDeviceGetP2PProperties(ze_device_handle_t hDevice, ze_device_handle_t hPeerDevice,
                                     ze_device_p2p_properties_t *pP2PProperties) {
  return entry(ApiId::zeDeviceGetP2PProperties, [&] {
    DeviceObject &device = deviceOf(hDevice);
    DeviceObject &peer = deviceOf(hPeerDevice);
    requirePointer(pP2PProperties);
    // Every device is the same CPU: where peers reach each other, they do with atomics.
    pP2PProperties->flags =
        driver().peerAccess(device, peer)
            ? ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS | ZE_DEVICE_P2P_PROPERTY_FLAG_ATOMICS
            : 0;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDeviceCanAccessPeer(ze_device_handle_t hDevice, ze_device_handle_t hPeerDevice,
                                  ze_bool_t *value) {
  return entry(ApiId::zeDeviceCanAccessPeer, [&] {
    DeviceObject &device = deviceOf(hDevice);
    DeviceObject &peer = deviceOf(hPeerDevice);
    requirePointer(value);
    *value = driver().peerAccess(device, peer);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeDeviceGetStatus(ze_device_handle_t hDevice) {
  return entry(ApiId::zeDeviceGetStatus, [&] {
    deviceOf(hDevice);
    return ZE_RESULT_SUCCESS;  // a failed launch does not take the CPU down (executor.hpp)
  });
}

ze_result_t zeDeviceGetGlobalTimestamps(ze_device_handle_t hDevice, uint64_t *hostTimestamp,
                                        uint64_t *deviceTimestamp) {
  return entry(ApiId::zeDeviceGetGlobalTimestamps, [&] {
    deviceOf(hDevice);
    requirePointer(hostTimestamp);
    requirePointer(deviceTimestamp);
    uint64_t now = core::steadyNowNs();
    *hostTimestamp = now;
    *deviceTimestamp = now & ((uint64_t{1} << kTimestampBits) - 1);
    return ZE_RESULT_SUCCESS;
  });
}

}  // namespace api
}  // namespace xpurt::ze_cpu
