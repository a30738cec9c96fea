// Modules and kernels: SPIR-V through the CPU JIT, arguments, group sizes, specialization
// constants, build logs, and what is refused.
#include "ze_cpu_fixture.hpp"

#include <cstring>
#include <numeric>

namespace xpurt::ze_cpu::test {
namespace {

class KernelTest : public ZeCpuTest {
 protected:
  // zeModuleCreate with its build log's text.
  ze_result_t build(ze_module_format_t format, const std::vector<uint8_t> &bytes,
                    const ze_module_constants_t *constants, std::string &log,
                    ze_module_handle_t &m) {
    ze_module_desc_t desc{ZE_STRUCTURE_TYPE_MODULE_DESC,
                          nullptr,
                          format,
                          bytes.size(),
                          bytes.data(),
                          nullptr,
                          constants};
    ze_module_build_log_handle_t logHandle = nullptr;
    m = reinterpret_cast<ze_module_handle_t>(&desc);  // to see it cleared on failure
    ze_result_t result = zeModuleCreate(context, device, &desc, &m, &logHandle);
    log = takeLog(logHandle);
    return result;
  }
};

template <class T>
void setArg(ze_kernel_handle_t kernel, uint32_t index, const T &value) {
  ZE_OK(zeKernelSetArgumentValue(kernel, index, sizeof value, &value));
}

TEST_F(KernelTest, ModuleListsItsKernels) {
  ze_module_handle_t m = kernelsModule();
  uint32_t count = 0;
  ZE_OK(zeModuleGetKernelNames(m, &count, nullptr));
  std::vector<const char *> names(count);
  ZE_OK(zeModuleGetKernelNames(m, &count, names.data()));
  std::vector<std::string> list(names.begin(), names.end());
  EXPECT_NE(std::find(list.begin(), list.end(), "add_int"), list.end());
  EXPECT_NE(std::find(list.begin(), list.end(), "group_sums"), list.end());
  ze_module_properties_t properties{ZE_STRUCTURE_TYPE_MODULE_PROPERTIES};
  ZE_OK(zeModuleGetProperties(m, &properties));
  EXPECT_EQ(properties.flags, 0u);
  ze_kernel_desc_t desc{ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, "no_such_kernel"};
  ze_kernel_handle_t k = nullptr;
  EXPECT_EQ(zeKernelCreate(m, &desc, &k), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
  size_t size = 0;
  EXPECT_EQ(zeModuleGetNativeBinary(m, &size, nullptr), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
  ze_module_build_log_handle_t linkLog = nullptr;
  EXPECT_EQ(zeModuleDynamicLink(1, &m, &linkLog), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_NE(takeLog(linkLog), "");
}

TEST_F(KernelTest, LaunchOnImmediateList) {
  constexpr uint32_t n = 1000;
  ze_kernel_handle_t k = kernel(kernelsModule(), "add_int");
  auto *in = static_cast<int *>(allocShared(n * sizeof(int)));
  auto *out = static_cast<int *>(allocDevice(n * sizeof(int)));
  auto *result = static_cast<int *>(allocHost(n * sizeof(int)));
  std::iota(in, in + n, 0);
  setArg(k, 0, in);
  setArg(k, 1, out);
  setArg(k, 2, 5);
  uint32_t x = 0, y = 0, z = 0;
  ZE_OK(zeKernelSuggestGroupSize(k, n, 1, 1, &x, &y, &z));
  EXPECT_EQ(n % x, 0u);
  EXPECT_EQ(y, 1u);
  ZE_OK(zeKernelSetGroupSize(k, x, y, z));
  ze_command_list_handle_t list = immediateList();
  ze_event_handle_t done = event(eventPool(1), 0);
  ze_group_count_t groups{n / x, 1, 1};
  ZE_OK(zeCommandListAppendLaunchKernel(list, k, &groups, nullptr, 0, nullptr));
  ZE_OK(zeCommandListAppendMemoryCopy(list, result, out, n * sizeof(int), done, 0, nullptr));
  ZE_OK(await(done));
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(result[i], int(i) + 5) << i;

  ze_kernel_properties_t properties{ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
  ZE_OK(zeKernelGetProperties(k, &properties));
  EXPECT_EQ(properties.numKernelArgs, 3u);
  EXPECT_EQ(properties.requiredGroupSizeX, 0u);
  EXPECT_EQ(properties.maxSubgroupSize, 16u);
  size_t size = 0;
  ZE_OK(zeKernelGetName(k, &size, nullptr));
  std::string name(size, '\0');
  ZE_OK(zeKernelGetName(k, &size, name.data()));
  EXPECT_STREQ(name.c_str(), "add_int");
}

TEST_F(KernelTest, ArgumentsAreCheckedAgainstTheSignature) {
  ze_kernel_handle_t k = kernel(kernelsModule(), "add_int");
  int value = 1;
  EXPECT_EQ(zeKernelSetArgumentValue(k, 3, sizeof value, &value),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
  EXPECT_EQ(zeKernelSetArgumentValue(k, 2, 8, &value),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
  EXPECT_EQ(zeKernelSetArgumentValue(k, 0, 4, &value),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
  // Launching before every argument is set is refused.
  ze_group_count_t groups{1, 1, 1};
  EXPECT_EQ(zeCommandListAppendLaunchKernel(immediateList(), k, &groups, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

TEST_F(KernelTest, ArgumentsAreCapturedWhenAppended) {
  constexpr uint32_t n = 64;
  ze_kernel_handle_t k = kernel(kernelsModule(), "add_int");
  auto *in = static_cast<int *>(allocShared(n * sizeof(int)));
  auto *first = static_cast<int *>(allocShared(n * sizeof(int)));
  auto *second = static_cast<int *>(allocShared(n * sizeof(int)));
  std::iota(in, in + n, 0);
  ZE_OK(zeKernelSetGroupSize(k, 16, 1, 1));
  ze_group_count_t groups{n / 16, 1, 1};
  ze_command_list_handle_t list = regularList();
  setArg(k, 0, in);
  setArg(k, 1, first);
  setArg(k, 2, 1);
  ZE_OK(zeCommandListAppendLaunchKernel(list, k, &groups, nullptr, 0, nullptr));
  setArg(k, 1, second);
  setArg(k, 2, 2);
  ZE_OK(zeCommandListAppendLaunchKernel(list, k, &groups, nullptr, 0, nullptr));
  setArg(k, 2, 3);  // after the last append: affects nothing appended
  ZE_OK(zeCommandListClose(list));
  ze_command_queue_handle_t q = queue();
  ZE_OK(zeCommandQueueExecuteCommandLists(q, 1, &list, nullptr));
  ZE_OK(zeCommandQueueSynchronize(q, UINT64_MAX));
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(first[i], int(i) + 1);
    ASSERT_EQ(second[i], int(i) + 2);
  }
}

TEST_F(KernelTest, LocalMemoryArguments) {
  constexpr uint32_t group = 64, groups = 40;
  ze_kernel_handle_t k = kernel(kernelsModule(), "group_sums");
  auto *in = static_cast<int *>(allocShared(group * groups * sizeof(int)));
  auto *sums = static_cast<int *>(allocShared(groups * sizeof(int)));
  std::iota(in, in + group * groups, 0);
  setArg(k, 0, in);
  setArg(k, 1, sums);
  ZE_OK(zeKernelSetArgumentValue(k, 2, group * sizeof(int), nullptr));  // __local: a size
  ZE_OK(zeKernelSetGroupSize(k, group, 1, 1));
  ze_command_list_handle_t list = immediateList(0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  ze_group_count_t count{groups, 1, 1};
  ZE_OK(zeCommandListAppendLaunchKernel(list, k, &count, nullptr, 0, nullptr));
  for (uint32_t g = 0; g < groups; ++g) {
    int first = int(g * group), last = first + int(group) - 1;
    ASSERT_EQ(sums[g], (first + last) * int(group) / 2) << g;
  }
  // More __local memory than the device has is refused when the launch is appended.
  ZE_OK(zeKernelSetArgumentValue(k, 2, size_t{2} << 30, nullptr));
  EXPECT_EQ(zeCommandListAppendLaunchKernel(list, k, &count, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
}

TEST_F(KernelTest, GroupSizesFollowLimitsAndRequirements) {
  ze_kernel_handle_t k = kernel(kernelsModule(), "add_int");
  EXPECT_EQ(zeKernelSetGroupSize(k, 2048, 1, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
  EXPECT_EQ(zeKernelSetGroupSize(k, 64, 64, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
  EXPECT_EQ(zeKernelSetGroupSize(k, 0, 1, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
  uint32_t x, y, z;
  EXPECT_EQ(zeKernelSuggestGroupSize(k, 0, 1, 1, &x, &y, &z),
            ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION);
  ZE_OK(zeKernelSuggestGroupSize(k, 3 * 7 * 64, 6, 10, &x, &y, &z));
  EXPECT_EQ(3 * 7 * 64 % x, 0u);
  EXPECT_EQ(6 % y, 0u);
  EXPECT_EQ(10 % z, 0u);
  EXPECT_LE(x * y * z, 1024u);

  ze_kernel_handle_t fixed = kernel(kernelsModule(), "fixed_groups");
  ze_kernel_properties_t properties{ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
  ZE_OK(zeKernelGetProperties(fixed, &properties));
  EXPECT_EQ(properties.requiredGroupSizeX, 8u);
  EXPECT_EQ(zeKernelSetGroupSize(fixed, 4, 1, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
  ZE_OK(zeKernelSuggestGroupSize(fixed, 64, 1, 1, &x, &y, &z));
  EXPECT_EQ(x, 8u);
  ZE_OK(zeKernelSetGroupSize(fixed, 8, 1, 1));
  auto *out = static_cast<uint32_t *>(allocShared(64 * sizeof(uint32_t)));
  setArg(fixed, 0, out);
  ze_group_count_t groups{8, 1, 1};
  ZE_OK(zeCommandListAppendLaunchKernel(immediateList(0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS),
                                        fixed, &groups, nullptr, 0, nullptr));
  for (int i = 0; i < 64; ++i) ASSERT_EQ(out[i], 8u);
}

TEST_F(KernelTest, GlobalOffsetAndIndirectLaunch) {
  ze_kernel_handle_t k = kernel(kernelsModule(), "global_ids");
  auto *out = static_cast<uint32_t *>(allocShared(256 * sizeof(uint32_t)));
  setArg(k, 0, out);
  ZE_OK(zeKernelSetGroupSize(k, 32, 1, 1));
  ZE_OK(zeKernelSetGlobalOffsetExp(k, 1000, 0, 0));
  auto *counts = static_cast<ze_group_count_t *>(allocShared(sizeof(ze_group_count_t)));
  *counts = {1, 1, 1};
  ze_command_list_handle_t list = regularList();
  ZE_OK(zeCommandListAppendLaunchKernelIndirect(list, k, counts, nullptr, 0, nullptr));
  ZE_OK(zeCommandListClose(list));
  *counts = {8, 1, 1};  // read when the launch runs, not when it was appended
  ze_command_queue_handle_t q = queue();
  ZE_OK(zeCommandQueueExecuteCommandLists(q, 1, &list, nullptr));
  ZE_OK(zeCommandQueueSynchronize(q, UINT64_MAX));
  for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(out[i], 1000 + i) << i;
}

TEST_F(KernelTest, SpecializationConstantsOfEveryWidth) {
  int8_t c = -5;
  int16_t s = 300;
  int32_t i = -7;
  int64_t l = int64_t{1} << 40;
  float f = 1.25f;
  uint8_t b = 1;
  uint32_t ids[] = {1, 2, 3, 4, 5, 6};
  const void *values[] = {&c, &s, &i, &l, &f, &b};
  ze_module_constants_t constants{6, ids, values};
  ze_module_handle_t m = module(readBesideProgram("xpurt_ze_cpu_kernels.spv"), &constants);
  ze_kernel_handle_t k = kernel(m, "spec_constants");
  auto *out = static_cast<int64_t *>(allocShared(6 * sizeof(int64_t)));
  setArg(k, 0, out);
  ze_group_count_t one{1, 1, 1};
  ZE_OK(zeCommandListAppendLaunchKernel(immediateList(0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS), k,
                                        &one, nullptr, 0, nullptr));
  EXPECT_EQ(out[0], -5);
  EXPECT_EQ(out[1], 300);
  EXPECT_EQ(out[2], -7);
  EXPECT_EQ(out[3], int64_t{1} << 40);
  EXPECT_EQ(out[4], 2);  // 1.25 * 2 as a long
  EXPECT_EQ(out[5], 1);
}

TEST_F(KernelTest, BuildLogs) {
  std::string log;
  ze_module_handle_t m = nullptr;
  // A successful build: an empty log.
  ZE_OK(build(ZE_MODULE_FORMAT_IL_SPIRV, readBesideProgram("xpurt_ze_cpu_kernels.spv"), nullptr,
              log, m));
  EXPECT_EQ(log, "");
  ZE_OK(zeModuleDestroy(m));
  // Bytes that are not SPIR-V.
  std::vector<uint8_t> garbage(64, 0x5a);
  EXPECT_EQ(build(ZE_MODULE_FORMAT_IL_SPIRV, garbage, nullptr, log, m),
            ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(log.find("SPIR-V"), std::string::npos) << log;
  // A module the translator would abort on: the JIT's worker process reports it.
  EXPECT_EQ(build(ZE_MODULE_FORMAT_IL_SPIRV, readBesideProgram("xpurt_test_translator_abort.spv"),
                  nullptr, log, m),
            ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
  EXPECT_NE(log, "");
  // A specialization constant the module does not declare.
  uint32_t id = 99;
  int value = 1;
  const void *values[] = {&value};
  ze_module_constants_t constants{1, &id, values};
  EXPECT_EQ(build(ZE_MODULE_FORMAT_IL_SPIRV, readBesideProgram("xpurt_ze_cpu_kernels.spv"),
                  &constants, log, m),
            ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
  EXPECT_NE(log.find("99"), std::string::npos) << log;
}

TEST_F(KernelTest, NativeBinariesAreRefused) {
  std::string log;
  ze_module_handle_t m = nullptr;
  std::vector<uint8_t> elf = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
  EXPECT_EQ(build(ZE_MODULE_FORMAT_NATIVE, elf, nullptr, log, m),
            ZE_RESULT_ERROR_INVALID_NATIVE_BINARY);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(log.find("SPIR-V modules only"), std::string::npos) << log;
}

TEST_F(KernelTest, CopyEngineRefusesLaunches) {
  ze_kernel_handle_t k = kernel(kernelsModule(), "global_ids");
  auto *out = static_cast<uint32_t *>(allocShared(64 * sizeof(uint32_t)));
  setArg(k, 0, out);
  ze_group_count_t groups{1, 1, 1};
  ze_command_list_handle_t copyImmediate = immediateList(1);
  EXPECT_EQ(zeCommandListAppendLaunchKernel(copyImmediate, k, &groups, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
  EXPECT_EQ(zeCommandListAppendLaunchKernel(regularList(1), k, &groups, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
  // It still copies.
  ze_event_handle_t done = event(eventPool(1), 0);
  uint32_t value = 9;
  ZE_OK(zeCommandListAppendMemoryFill(copyImmediate, out, &value, sizeof value, 64, done, 0,
                                      nullptr));
  ZE_OK(await(done));
  EXPECT_EQ(out[15], 9u);
}

TEST_F(KernelTest, FailedLaunchIsReportedAndTheDeviceGoesOn) {
  ze_kernel_handle_t bad = kernel(kernelsModule(), "divergent_barrier");
  auto *out = static_cast<int *>(allocShared(64 * sizeof(int)));
  setArg(bad, 0, out);
  ZE_OK(zeKernelSetGroupSize(bad, 32, 1, 1));
  ze_group_count_t groups{2, 1, 1};
  ze_event_pool_handle_t pool = eventPool(2);
  ze_event_handle_t failed = event(pool, 0);
  // On an immediate list: the event is signalled, carrying the failure until reset.
  ze_command_list_handle_t list = immediateList();
  ZE_OK(zeCommandListAppendLaunchKernel(list, bad, &groups, failed, 0, nullptr));
  EXPECT_EQ(await(failed), ZE_RESULT_ERROR_DEVICE_LOST);
  // Why, for the thread that got the error (zeDriverGetLastErrorDescription of spec 1.10,
  // reached as an extension function through this loader).
  using Describe = ze_result_t (*)(ze_driver_handle_t, const char **);
  void *describe = nullptr;
  ZE_OK(zeDriverGetExtensionFunctionAddress(driver, "zeDriverGetLastErrorDescription", &describe));
  const char *why = nullptr;
  ZE_OK(reinterpret_cast<Describe>(describe)(driver, &why));
  EXPECT_NE(std::string(why).find("divergent_barrier"), std::string::npos) << why;
  EXPECT_NE(std::string(why).find("did not all reach the same barrier"), std::string::npos) << why;
  EXPECT_EQ(zeEventQueryStatus(failed), ZE_RESULT_ERROR_DEVICE_LOST);
  ZE_OK(zeEventHostReset(failed));
  EXPECT_EQ(zeEventQueryStatus(failed), ZE_RESULT_NOT_READY);
  // On a queue: its next synchronisation and the submission's fence report it.
  ze_command_queue_handle_t q = queue();
  ze_fence_handle_t f = fence(q);
  ze_command_list_handle_t regular = regularList();
  ZE_OK(zeCommandListAppendLaunchKernel(regular, bad, &groups, nullptr, 0, nullptr));
  ZE_OK(zeCommandListClose(regular));
  ZE_OK(zeCommandQueueExecuteCommandLists(q, 1, &regular, f));
  EXPECT_EQ(zeFenceHostSynchronize(f, UINT64_MAX), ZE_RESULT_ERROR_DEVICE_LOST);
  EXPECT_EQ(zeCommandQueueSynchronize(q, UINT64_MAX), ZE_RESULT_ERROR_DEVICE_LOST);
  ZE_OK(zeCommandQueueSynchronize(q, UINT64_MAX));  // reported once
  ZE_OK(zeFenceReset(f));
  // Synchronous lists return it from the append.
  EXPECT_EQ(zeCommandListAppendLaunchKernel(immediateList(0, 1, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS),
                                            bad, &groups, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_DEVICE_LOST);
  // The device, the context and the lists go on working.
  ZE_OK(zeDeviceGetStatus(device));
  ZE_OK(zeContextGetStatus(context));
  ze_kernel_handle_t good = kernel(kernelsModule(), "global_ids");
  setArg(good, 0, out);
  ZE_OK(zeKernelSetGroupSize(good, 32, 1, 1));
  ze_event_handle_t done = event(pool, 1);
  ZE_OK(zeCommandListAppendLaunchKernel(list, good, &groups, done, 0, nullptr));
  ZE_OK(await(done));
  EXPECT_EQ(out[63], 63);
}

}  // namespace
}  // namespace xpurt::ze_cpu::test
