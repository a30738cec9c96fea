// Discovery and properties: one driver, one CPU device, two command queue groups.
#include "ze_cpu_fixture.hpp"

#include <cstring>
#include <string>

namespace xpurt::ze_cpu::test {
namespace {

using DiscoveryTest = ZeCpuTest;

TEST_F(DiscoveryTest, OneDriverOfApiVersion14) {
  uint32_t count = 0;
  ZE_OK(zeDriverGet(&count, nullptr));
  EXPECT_EQ(count, 1u);
  ze_api_version_t version{};
  ZE_OK(zeDriverGetApiVersion(driver, &version));
  EXPECT_EQ(version, ZE_API_VERSION_1_4);
  ze_driver_properties_t properties{ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES};
  ZE_OK(zeDriverGetProperties(driver, &properties));
  ze_driver_ipc_properties_t ipc{ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES};
  ZE_OK(zeDriverGetIpcProperties(driver, &ipc));
  EXPECT_EQ(ipc.flags, 0u);
}

TEST_F(DiscoveryTest, ExtensionsListedAndLookedUp) {
  uint32_t count = 0;
  ZE_OK(zeDriverGetExtensionProperties(driver, &count, nullptr));
  std::vector<ze_driver_extension_properties_t> extensions(count);
  ZE_OK(zeDriverGetExtensionProperties(driver, &count, extensions.data()));
  bool globalOffset = false;
  for (const auto &e : extensions) globalOffset |= std::string(e.name) == ZE_GLOBAL_OFFSET_EXP_NAME;
  EXPECT_TRUE(globalOffset);
  void *function = nullptr;
  ZE_OK(zeDriverGetExtensionFunctionAddress(driver, "zeKernelSetGlobalOffsetExp", &function));
  EXPECT_NE(function, nullptr);
  EXPECT_EQ(zeDriverGetExtensionFunctionAddress(driver, "zeNoSuchFunction", &function),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

TEST_F(DiscoveryTest, OneCpuDeviceWithoutSubDevices) {
  uint32_t count = 0;
  ZE_OK(zeDeviceGet(driver, &count, nullptr));
  EXPECT_EQ(count, 1u);
  ze_device_properties_t p{ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
  ZE_OK(zeDeviceGetProperties(device, &p));
  EXPECT_EQ(p.type, ZE_DEVICE_TYPE_CPU);
  EXPECT_NE(p.vendorId, 0x8086u);
  EXPECT_EQ(std::string(p.name).rfind("xpurt CPU (", 0), 0u) << p.name;
  EXPECT_GT(p.maxMemAllocSize, 0u);
  EXPECT_GT(p.numSubslicesPerSlice, 0u);
  EXPECT_EQ(p.timestampValidBits, 32u);
  EXPECT_EQ(p.kernelTimestampValidBits, 32u);
  EXPECT_EQ(p.timerResolution, 1u);  // nanoseconds per tick
  ze_device_properties_t p12{ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
  ZE_OK(zeDeviceGetProperties(device, &p12));
  EXPECT_EQ(p12.timerResolution, 1'000'000'000u);  // ticks per second
  count = 5;
  ZE_OK(zeDeviceGetSubDevices(device, &count, nullptr));
  EXPECT_EQ(count, 0u);
  ZE_OK(zeDeviceGetStatus(device));
}

TEST_F(DiscoveryTest, ComputeAndCopyQueueGroups) {
  uint32_t count = 0;
  ZE_OK(zeDeviceGetCommandQueueGroupProperties(device, &count, nullptr));
  ASSERT_EQ(count, 2u);
  std::vector<ze_command_queue_group_properties_t> groups(
      count, {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES});
  ZE_OK(zeDeviceGetCommandQueueGroupProperties(device, &count, groups.data()));
  EXPECT_EQ(groups[0].flags, ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE |
                                 ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY);
  EXPECT_EQ(groups[0].numQueues, 4u);
  EXPECT_EQ(groups[1].flags, ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY);
  EXPECT_EQ(groups[1].numQueues, 2u);
  for (const auto &g : groups) EXPECT_EQ(g.maxMemoryFillPatternSize, 128u);
  // Asking for fewer gives fewer.
  count = 1;
  ZE_OK(zeDeviceGetCommandQueueGroupProperties(device, &count, groups.data()));
  EXPECT_EQ(count, 1u);
}

TEST_F(DiscoveryTest, ComputeModuleAndMemoryProperties) {
  ze_device_compute_properties_t compute{ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
  ZE_OK(zeDeviceGetComputeProperties(device, &compute));
  EXPECT_EQ(compute.maxTotalGroupSize, 1024u);
  EXPECT_EQ(compute.maxSharedLocalMemory, 1u << 30);
  EXPECT_GT(compute.numSubGroupSizes, 0u);
  ze_device_module_properties_t module{ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
  ZE_OK(zeDeviceGetModuleProperties(device, &module));
  EXPECT_GE(module.spirvVersionSupported, ZE_MAKE_VERSION(1, 2));
  EXPECT_TRUE(module.flags & ZE_DEVICE_MODULE_FLAG_FP64);
  uint32_t count = 0;
  ZE_OK(zeDeviceGetMemoryProperties(device, &count, nullptr));
  ASSERT_EQ(count, 1u);
  ze_device_memory_properties_t memory{ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
  ZE_OK(zeDeviceGetMemoryProperties(device, &count, &memory));
  EXPECT_GT(memory.totalSize, 0u);
  ze_device_memory_access_properties_t access{ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES};
  ZE_OK(zeDeviceGetMemoryAccessProperties(device, &access));
  EXPECT_TRUE(access.sharedSystemAllocCapabilities & ZE_MEMORY_ACCESS_CAP_FLAG_RW);
  count = 0;
  ZE_OK(zeDeviceGetCacheProperties(device, &count, nullptr));
  ze_device_image_properties_t image{ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES};
  ZE_OK(zeDeviceGetImageProperties(device, &image));
  EXPECT_EQ(image.maxImageDims2D, 0u);
  ze_device_external_memory_properties_t external{
      ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES};
  ZE_OK(zeDeviceGetExternalMemoryProperties(device, &external));
  ze_device_p2p_properties_t p2p{ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES};
  ZE_OK(zeDeviceGetP2PProperties(device, device, &p2p));
  ze_bool_t peer = 0;
  ZE_OK(zeDeviceCanAccessPeer(device, device, &peer));
  EXPECT_TRUE(peer);
}

TEST_F(DiscoveryTest, GlobalTimestampsWrapAt32Bits) {
  uint64_t host = 0, deviceTime = 0;
  ZE_OK(zeDeviceGetGlobalTimestamps(device, &host, &deviceTime));
  EXPECT_GT(host, 0u);
  EXPECT_LT(deviceTime, uint64_t{1} << 32);
  EXPECT_EQ(deviceTime, host & 0xffffffffu);  // one tick per nanosecond of the same clock
}

TEST_F(DiscoveryTest, BadArgumentsGetTheSpecificationsCodes) {
  ze_device_properties_t p{ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
  EXPECT_EQ(zeDeviceGetProperties(nullptr, &p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeDeviceGetProperties(device, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeDriverGet(nullptr, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeContextCreate(driver, nullptr, &context), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

TEST_F(DiscoveryTest, GpuOnlyInitialisationFindsNoDeviceHere) {
  // The loader passes zeInit on to the driver, which has no GPU to offer; the driver stays
  // initialised for those who asked for any device.
  EXPECT_EQ(zeInit(ZE_INIT_FLAG_GPU_ONLY), ZE_RESULT_ERROR_UNINITIALIZED);
  ze_device_properties_t p{ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
  ZE_OK(zeDeviceGetProperties(device, &p));
}

}  // namespace
}  // namespace xpurt::ze_cpu::test
