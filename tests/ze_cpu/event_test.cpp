// Events, fences and timestamps.
#include "ze_cpu_fixture.hpp"

#include <chrono>
#include <thread>

namespace xpurt::ze_cpu::test {
namespace {

using EventTest = ZeCpuTest;

// Ticks from start to end on a 32-bit device clock that wraps.
uint64_t ticksBetween(uint64_t start, uint64_t end) {
  return (end - start) & 0xffffffffu;
}

TEST_F(EventTest, ListWaitsForAnotherListsEvent) {
  constexpr size_t size = 1 << 16;
  ze_event_pool_handle_t pool = eventPool(3);
  ze_event_handle_t gate = event(pool, 0), copied = event(pool, 1), done = event(pool, 2);
  auto *a = static_cast<int *>(allocShared(size * sizeof(int)));
  auto *b = static_cast<int *>(allocDevice(size * sizeof(int)));
  auto *c = static_cast<int *>(allocShared(size * sizeof(int)));
  for (size_t i = 0; i < size; ++i) a[i] = int(i);
  ze_command_list_handle_t first = immediateList(0, 0), second = immediateList(1, 0);
  // first: waits for the host's gate, then copies a -> b; second: copies b -> c after that.
  ZE_OK(zeCommandListAppendWaitOnEvents(first, 1, &gate));
  ZE_OK(zeCommandListAppendMemoryCopy(first, b, a, size * sizeof(int), copied, 0, nullptr));
  ZE_OK(zeCommandListAppendMemoryCopy(second, c, b, size * sizeof(int), done, 1, &copied));
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(zeEventQueryStatus(copied), ZE_RESULT_NOT_READY);
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
  ZE_OK(zeEventHostSignal(gate));
  ZE_OK(await(done));
  ZE_OK(zeEventQueryStatus(copied));
  for (size_t i = 0; i < size; ++i) ASSERT_EQ(c[i], int(i));
}

TEST_F(EventTest, HostSignalResetAndTimeouts) {
  ze_event_handle_t e = event(eventPool(1), 0);
  EXPECT_EQ(zeEventQueryStatus(e), ZE_RESULT_NOT_READY);
  EXPECT_EQ(zeEventHostSynchronize(e, 0), ZE_RESULT_NOT_READY);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(zeEventHostSynchronize(e, 3'000'000), ZE_RESULT_NOT_READY);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(3));
  ZE_OK(zeEventHostSignal(e));
  ZE_OK(zeEventQueryStatus(e));
  ZE_OK(zeEventHostSynchronize(e, 0));
  ZE_OK(zeEventHostReset(e));
  EXPECT_EQ(zeEventQueryStatus(e), ZE_RESULT_NOT_READY);
  // A sleeping waiter is woken by another thread's signal.
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_ZE_OK(zeEventHostSignal(e));
  });
  ZE_OK(zeEventHostSynchronize(e, UINT64_MAX));
  signaller.join();
}

TEST_F(EventTest, ListsSignalAndResetEvents) {
  ze_event_pool_handle_t pool = eventPool(2);
  ze_event_handle_t a = event(pool, 0), b = event(pool, 1);
  ze_command_list_handle_t list = immediateList(0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  ZE_OK(zeCommandListAppendSignalEvent(list, a));
  ZE_OK(zeEventQueryStatus(a));
  ZE_OK(zeCommandListAppendEventReset(list, a));
  EXPECT_EQ(zeEventQueryStatus(a), ZE_RESULT_NOT_READY);
  ZE_OK(zeCommandListAppendBarrier(list, b, 0, nullptr));
  ZE_OK(zeEventQueryStatus(b));
}

TEST_F(EventTest, EventCreationChecksItsSlot) {
  ze_event_pool_handle_t pool = eventPool(2);
  event(pool, 0);
  ze_event_desc_t desc{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, 0, 0, 0};
  ze_event_handle_t e = nullptr;
  EXPECT_EQ(zeEventCreate(pool, &desc, &e), ZE_RESULT_ERROR_INVALID_ARGUMENT);  // in use
  desc.index = 2;
  EXPECT_EQ(zeEventCreate(pool, &desc, &e), ZE_RESULT_ERROR_INVALID_ARGUMENT);  // past the end
  ze_event_pool_desc_t ipc{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr, ZE_EVENT_POOL_FLAG_IPC, 1};
  ze_event_pool_handle_t p = nullptr;
  EXPECT_EQ(zeEventPoolCreate(context, &ipc, 1, &device, &p), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
}

TEST_F(EventTest, KernelTimestamps) {
  ze_module_handle_t m = kernelsModule();
  ze_kernel_handle_t k = kernel(m, "busy");
  auto *out = static_cast<int *>(allocShared(4096 * sizeof(int)));
  ZE_OK(zeKernelSetArgumentValue(k, 0, sizeof out, &out));
  int rounds = 20000;
  ZE_OK(zeKernelSetArgumentValue(k, 1, sizeof rounds, &rounds));
  ZE_OK(zeKernelSetGroupSize(k, 64, 1, 1));
  ze_event_pool_handle_t timed =
      eventPool(2, ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
  ze_event_handle_t launched = event(timed, 0), queried = event(timed, 1);
  ze_event_handle_t gate = event(eventPool(1), 0);
  auto *results = static_cast<ze_kernel_timestamp_result_t *>(
      allocShared(sizeof(ze_kernel_timestamp_result_t)));
  auto *written = static_cast<uint64_t *>(allocShared(sizeof(uint64_t)));
  ze_command_list_handle_t list = immediateList();
  ze_group_count_t groups{4096 / 64, 1, 1};
  ZE_OK(zeCommandListAppendLaunchKernel(list, k, &groups, launched, 1, &gate));
  ZE_OK(zeCommandListAppendQueryKernelTimestamps(list, 1, &launched, results, nullptr, nullptr, 0,
                                                 nullptr));
  ZE_OK(zeCommandListAppendWriteGlobalTimestamp(list, written, queried, 0, nullptr));
  ze_kernel_timestamp_result_t before{};
  EXPECT_EQ(zeEventQueryKernelTimestamp(launched, &before), ZE_RESULT_NOT_READY);
  ZE_OK(zeEventHostSignal(gate));
  ZE_OK(await(queried));
  ze_kernel_timestamp_result_t t{};
  ZE_OK(zeEventQueryKernelTimestamp(launched, &t));
  for (uint64_t v : {t.global.kernelStart, t.global.kernelEnd, *written})
    EXPECT_LT(v, uint64_t{1} << 32);
  uint64_t duration = ticksBetween(t.global.kernelStart, t.global.kernelEnd);
  EXPECT_GT(duration, 0u);
  EXPECT_LT(duration, uint64_t{1} << 31) << "end before start";
  EXPECT_EQ(t.context.kernelStart, t.global.kernelStart);
  EXPECT_EQ(t.context.kernelEnd, t.global.kernelEnd);
  EXPECT_EQ(results->global.kernelStart, t.global.kernelStart);
  EXPECT_EQ(results->global.kernelEnd, t.global.kernelEnd);
  // The timestamp written afterwards is later, within a second (on the same wrapping clock).
  EXPECT_LT(ticksBetween(t.global.kernelEnd, *written), 1'000'000'000u);
  uint64_t host = 0, now = 0;
  ZE_OK(zeDeviceGetGlobalTimestamps(device, &host, &now));
  EXPECT_LT(ticksBetween(*written, now), 1'000'000'000u);
  // Only events of timestamp pools have kernel timestamps.
  EXPECT_EQ(zeEventQueryKernelTimestamp(gate, &t), ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
}

TEST_F(EventTest, Fences) {
  ze_command_queue_handle_t q = queue(1, 1);
  ze_fence_handle_t f = fence(q);
  EXPECT_EQ(zeFenceQueryStatus(f), ZE_RESULT_NOT_READY);
  EXPECT_EQ(zeFenceHostSynchronize(f, 0), ZE_RESULT_NOT_READY);
  ze_event_handle_t gate = event(eventPool(1), 0);
  ze_command_list_handle_t list = regularList(1);
  ZE_OK(zeCommandListAppendBarrier(list, nullptr, 1, &gate));
  ZE_OK(zeCommandListClose(list));
  ZE_OK(zeCommandQueueExecuteCommandLists(q, 1, &list, f));
  EXPECT_EQ(zeFenceHostSynchronize(f, 1'000'000), ZE_RESULT_NOT_READY);
  ZE_OK(zeEventHostSignal(gate));
  ZE_OK(zeFenceHostSynchronize(f, UINT64_MAX));
  ZE_OK(zeFenceQueryStatus(f));
  ZE_OK(zeFenceReset(f));
  EXPECT_EQ(zeFenceQueryStatus(f), ZE_RESULT_NOT_READY);
  ZE_OK(zeFenceQueryStatus(fence(q, true)));  // created signalled
  // A fence belongs to its queue.
  ze_fence_handle_t other = fence(queue(1, 0));
  EXPECT_EQ(zeCommandQueueExecuteCommandLists(q, 1, &list, other),
            ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
}

}  // namespace
}  // namespace xpurt::ze_cpu::test
