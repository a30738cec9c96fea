// The driver's inspection functions (ze_cpu_inspect.h): per-command records, the call counter
// and fault injection; and a long run of launches without a synchronisation.
#include "ze_cpu_fixture.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>

extern char **environ;

namespace xpurt::ze_cpu::test {
namespace {

using InspectTest = ZeCpuTest;

TEST_F(InspectTest, RecordsSayWhereEachCommandRanAndWhatItWaitedFor) {
  const Inspect &inspect = Inspect::get();
  ze_event_pool_handle_t pool = eventPool(8);
  std::vector<ze_event_handle_t> e;
  for (uint32_t i = 0; i < 8; ++i) e.push_back(event(pool, i));
  int a = 1, b = 0, c = 0;
  ze_command_list_handle_t compute = immediateList(0, 1, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  ze_command_list_handle_t copy = immediateList(1, 1, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  for (uint32_t i = 2; i < 8; ++i) ZE_OK(zeEventHostSignal(e[i]));
  inspect.recordClear();
  inspect.recordStart();
  ZE_OK(zeCommandListAppendMemoryCopy(compute, &b, &a, sizeof a, e[0], 0, nullptr));
  ze_event_handle_t waits[] = {e[0], e[2], e[3], e[4], e[5], e[6]};
  ZE_OK(zeCommandListAppendMemoryCopy(copy, &c, &b, sizeof b, e[1], 6, waits));
  ze_command_queue_handle_t q = queue(0, 2);
  ze_command_list_handle_t regular = regularList(0);
  ZE_OK(zeCommandListAppendBarrier(regular, nullptr, 1, &e[1]));
  ZE_OK(zeCommandListClose(regular));
  ZE_OK(zeCommandQueueExecuteCommandLists(q, 1, &regular, nullptr));
  ZE_OK(zeCommandQueueSynchronize(q, UINT64_MAX));
  inspect.recordStop();
  ZE_OK(zeCommandListAppendBarrier(compute, nullptr, 0, nullptr));  // not recorded
  EXPECT_EQ(c, 1);

  std::vector<XpurtZeCpuRecord> records = inspect.records();
  ASSERT_EQ(records.size(), 3u);
  for (uint64_t i = 0; i < records.size(); ++i) EXPECT_EQ(records[i].sequence, i);
  EXPECT_EQ(records[0].kind, uint32_t{XPURT_ZE_CPU_COMMAND_COPY});
  EXPECT_EQ(records[0].ordinal, 0u);
  EXPECT_EQ(records[0].queueIndex, 1u);
  EXPECT_EQ(records[0].commandList, compute);
  EXPECT_EQ(records[0].signalEvent, e[0]);
  EXPECT_EQ(records[0].numWaitEvents, 0u);
  EXPECT_EQ(records[0].result, ZE_RESULT_SUCCESS);
  EXPECT_EQ(records[1].kind, uint32_t{XPURT_ZE_CPU_COMMAND_COPY});
  EXPECT_EQ(records[1].ordinal, 1u);
  EXPECT_EQ(records[1].commandList, copy);
  EXPECT_EQ(records[1].signalEvent, e[1]);
  EXPECT_EQ(records[1].numWaitEvents, 6u);  // the first four of them kept
  for (int i = 0; i < XPURT_ZE_CPU_RECORD_INLINE_WAITS; ++i)
    EXPECT_EQ(records[1].waitEvents[i], waits[i]);
  EXPECT_EQ(records[2].kind, uint32_t{XPURT_ZE_CPU_COMMAND_BARRIER});
  EXPECT_EQ(records[2].ordinal, 0u);
  EXPECT_EQ(records[2].queueIndex, 2u);
  EXPECT_EQ(records[2].commandList, regular);
  EXPECT_EQ(records[2].numWaitEvents, 1u);
  EXPECT_EQ(records[2].waitEvents[0], e[1]);
  XpurtZeCpuRecord none{};
  EXPECT_NE(inspect.recordGet(3, &none), 0);
}

TEST_F(InspectTest, CallCounterCountsEveryDriverCall) {
  const Inspect &inspect = Inspect::get();
  ze_device_properties_t p{ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
  uint64_t before = inspect.callCount();
  ZE_OK(zeDeviceGetProperties(device, &p));
  ZE_OK(zeDeviceGetStatus(device));
  int x = 0, y = 1;
  ze_command_list_handle_t list = immediateList(0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  uint64_t afterList = inspect.callCount();
  EXPECT_EQ(afterList - before, 3u);
  ZE_OK(zeCommandListAppendMemoryCopy(list, &x, &y, sizeof x, nullptr, 0, nullptr));
  EXPECT_EQ(inspect.callCount() - afterList, 1u);
}

TEST_F(InspectTest, EveryCallFaultFailsWithoutEffect) {
  const Inspect &inspect = Inspect::get();
  void *first = allocDevice(64);
  ze_memory_allocation_properties_t p{ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
  ZE_OK(zeMemGetAllocProperties(context, first, &p, nullptr));
  uint64_t firstId = p.id;
  ASSERT_EQ(inspect.setFaults("zeMemAllocDevice=ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"), 0);
  ze_device_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  void *sentinel = &desc, *ptr = sentinel;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(zeMemAllocDevice(context, &desc, 64, 0, device, &ptr),
              ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    EXPECT_EQ(ptr, sentinel);  // nothing written
  }
  ASSERT_EQ(inspect.setFaults(""), 0);
  // Nothing was allocated by the failed calls: the next allocation is the next one.
  void *second = allocDevice(64);
  ZE_OK(zeMemGetAllocProperties(context, second, &p, nullptr));
  EXPECT_EQ(p.id, firstId + 1);
}

TEST_F(InspectTest, NthCallFaultFailsThatCallOnly) {
  const Inspect &inspect = Inspect::get();
  ze_command_list_handle_t list = immediateList(0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  int x = 0, y = 1;
  ASSERT_EQ(inspect.setFaults(" zeCommandListAppendMemoryCopy = ZE_RESULT_ERROR_DEVICE_LOST@2 ,"
                              "zeDeviceGetStatus=ZE_RESULT_ERROR_DEVICE_LOST"),
            0);
  inspect.recordStart();
  ZE_OK(zeCommandListAppendMemoryCopy(list, &x, &y, sizeof x, nullptr, 0, nullptr));
  EXPECT_EQ(zeCommandListAppendMemoryCopy(list, &x, &y, sizeof x, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_DEVICE_LOST);
  ZE_OK(zeCommandListAppendMemoryCopy(list, &x, &y, sizeof x, nullptr, 0, nullptr));
  EXPECT_EQ(inspect.recordCount(), 2u);  // the failed call ran nothing
  EXPECT_EQ(zeDeviceGetStatus(device), ZE_RESULT_ERROR_DEVICE_LOST);
  EXPECT_EQ(zeDeviceGetStatus(device), ZE_RESULT_ERROR_DEVICE_LOST);
}

TEST_F(InspectTest, BadFaultListsAreRefusedAndChangeNothing) {
  const Inspect &inspect = Inspect::get();
  ASSERT_EQ(inspect.setFaults("zeDeviceGetStatus=ZE_RESULT_ERROR_DEVICE_LOST"), 0);
  EXPECT_NE(inspect.setFaults("zeNoSuchFunction=ZE_RESULT_ERROR_UNKNOWN"), 0);
  EXPECT_NE(inspect.setFaults("zeImageCreate=ZE_RESULT_ERROR_UNKNOWN"), 0);  // not implemented
  EXPECT_NE(inspect.setFaults("zeDeviceGetStatus=ZE_RESULT_NO_SUCH_RESULT"), 0);
  EXPECT_NE(inspect.setFaults("zeDeviceGetStatus=ZE_RESULT_SUCCESS"), 0);
  EXPECT_NE(inspect.setFaults("zeDeviceGetStatus=ZE_RESULT_ERROR_UNKNOWN@0"), 0);
  EXPECT_NE(inspect.setFaults("zeDeviceGetStatus=ZE_RESULT_ERROR_UNKNOWN@x"), 0);
  EXPECT_NE(inspect.setFaults("zeDeviceGetStatus"), 0);
  EXPECT_EQ(zeDeviceGetStatus(device), ZE_RESULT_ERROR_DEVICE_LOST);  // still the first list
  ASSERT_EQ(inspect.setFaults(nullptr), 0);
  ZE_OK(zeDeviceGetStatus(device));
}

// XPURT_ZE_CPU_FAULTS is read when zeInit is first called: a child process of this program
// runs the test below with it set.
TEST_F(InspectTest, FaultsFromTheEnvironment) {
  std::string program = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string filter = "--gtest_filter=InspectTest.EnvironmentFaultsSeenAtInit";
  char *argv[] = {program.data(), filter.data(), nullptr};
  std::vector<std::string> env = {
      "XPURT_ZE_CPU_FAULTS=zeDeviceGetStatus=ZE_RESULT_ERROR_NOT_AVAILABLE@1",
      "XPURT_ZE_CPU_TEST_CHILD=1"};
  for (char **e = environ; *e; ++e) env.push_back(*e);
  std::vector<char *> envp;
  for (std::string &e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t child = 0;
  ASSERT_EQ(posix_spawn(&child, program.c_str(), nullptr, nullptr, argv, envp.data()), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

TEST_F(InspectTest, EnvironmentFaultsSeenAtInit) {
  if (!std::getenv("XPURT_ZE_CPU_TEST_CHILD")) GTEST_SKIP() << "run by FaultsFromTheEnvironment";
  EXPECT_EQ(zeDeviceGetStatus(device), ZE_RESULT_ERROR_NOT_AVAILABLE);
  ZE_OK(zeDeviceGetStatus(device));
}

// 200,000 launches on an immediate list without a synchronisation: each adds one to every
// element in place, and signals one of a few events, which the list itself resets before the
// event is used again. The driver keeps no count of appended commands to run out of.
TEST_F(InspectTest, TwoHundredThousandLaunchesWithoutSynchronising) {
  constexpr uint32_t launches = 200'000, n = 64, events = 16;
  ze_kernel_handle_t k = kernel(kernelsModule(), "add_int");
  auto *data = static_cast<int *>(allocShared(n * sizeof(int)));
  std::fill(data, data + n, 0);
  ZE_OK(zeKernelSetArgumentValue(k, 0, sizeof data, &data));
  ZE_OK(zeKernelSetArgumentValue(k, 1, sizeof data, &data));
  int one = 1;
  ZE_OK(zeKernelSetArgumentValue(k, 2, sizeof one, &one));
  ZE_OK(zeKernelSetGroupSize(k, n, 1, 1));
  ze_event_pool_handle_t pool = eventPool(events + 1);
  std::vector<ze_event_handle_t> e;
  for (uint32_t i = 0; i < events; ++i) e.push_back(event(pool, i));
  ze_event_handle_t done = event(pool, events);  // never reused: signalled once, at the end
  ze_command_list_handle_t list = immediateList();
  ze_group_count_t groups{1, 1, 1};
  for (uint32_t i = 0; i < launches; ++i) {
    ze_event_handle_t signal = e[i % events];
    if (i >= events) {
      ZE_OK(zeCommandListAppendEventReset(list, signal));
    }
    ZE_OK(zeCommandListAppendLaunchKernel(list, k, &groups, signal, 0, nullptr));
  }
  ZE_OK(zeCommandListAppendBarrier(list, done, 0, nullptr));
  ZE_OK(await(done));
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(data[i], int(launches)) << i;
}

}  // namespace
}  // namespace xpurt::ze_cpu::test
