// Allocations, and copies and fills on immediate lists and on regular lists run by queues of
// both queue groups.
#include "ze_cpu_fixture.hpp"

#include <chrono>
#include <cstring>
#include <numeric>
#include <thread>

namespace xpurt::ze_cpu::test {
namespace {

using MemoryTest = ZeCpuTest;

ze_memory_allocation_properties_t propertiesOf(ze_context_handle_t context, const void *ptr,
                                               ze_device_handle_t *owner = nullptr) {
  ze_memory_allocation_properties_t p{ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
  EXPECT_ZE_OK(zeMemGetAllocProperties(context, ptr, &p, owner));
  return p;
}

TEST_F(MemoryTest, AllocationKindsAlignmentAndProperties) {
  auto *d = static_cast<char *>(allocDevice(1000, 4096));
  auto *s = static_cast<char *>(allocShared(1000));
  auto *h = static_cast<char *>(allocHost(1000, 256));
  ASSERT_TRUE(d && s && h);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d) % 4096, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(h) % 256, 0u);
  ze_device_handle_t owner = nullptr;
  auto pd = propertiesOf(context, d + 999, &owner);  // any byte inside names the allocation
  EXPECT_EQ(pd.type, ZE_MEMORY_TYPE_DEVICE);
  EXPECT_EQ(owner, device);
  auto ps = propertiesOf(context, s, &owner);
  EXPECT_EQ(ps.type, ZE_MEMORY_TYPE_SHARED);
  EXPECT_EQ(owner, device);
  auto ph = propertiesOf(context, h, &owner);
  EXPECT_EQ(ph.type, ZE_MEMORY_TYPE_HOST);
  EXPECT_EQ(owner, nullptr);
  EXPECT_NE(pd.id, ps.id);
  EXPECT_NE(ps.id, ph.id);
  EXPECT_EQ(propertiesOf(context, d).id, pd.id);
  int onTheStack = 0;
  EXPECT_EQ(propertiesOf(context, &onTheStack).type, ZE_MEMORY_TYPE_UNKNOWN);
  EXPECT_EQ(propertiesOf(context, d + 1000).type, ZE_MEMORY_TYPE_UNKNOWN);  // one past the end
  void *base = nullptr;
  size_t size = 0;
  ZE_OK(zeMemGetAddressRange(context, d + 10, &base, &size));
  EXPECT_EQ(base, d);
  EXPECT_EQ(size, 1000u);
  EXPECT_EQ(zeMemGetAddressRange(context, &onTheStack, &base, &size),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

TEST_F(MemoryTest, BadSizesAndAlignmentsAreRefused) {
  ze_device_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  void *p = nullptr;
  EXPECT_EQ(zeMemAllocDevice(context, &desc, 0, 0, device, &p), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
  EXPECT_EQ(zeMemAllocDevice(context, &desc, 64, 3, device, &p),
            ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
  ze_device_properties_t properties{ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
  ZE_OK(zeDeviceGetProperties(device, &properties));
  EXPECT_EQ(zeMemAllocDevice(context, &desc, properties.maxMemAllocSize + 1, 0, device, &p),
            ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
  // Past the limit by the experimental extension's leave, then more than there is.
  ze_relaxed_allocation_limits_exp_desc_t relaxed{
      ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC, nullptr,
      ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE};
  desc.pNext = &relaxed;
  EXPECT_EQ(zeMemAllocDevice(context, &desc, SIZE_MAX / 2, 0, device, &p),
            ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
  ze_host_mem_alloc_desc_t hostDesc{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
  EXPECT_EQ(zeMemAllocHost(context, &hostDesc, 0, 0, &p), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
  auto *d = static_cast<char *>(allocDevice(64));
  EXPECT_EQ(zeMemFree(context, d + 1), ZE_RESULT_ERROR_INVALID_ARGUMENT);  // not its start
}

// Fills with every pattern size up to 128 bytes, the last pattern cut short, then copies.
void fillAndCopy(ze_command_list_handle_t list, void *a, void *b, size_t size,
                 ze_event_handle_t done) {
  uint8_t pattern[128];
  std::iota(pattern, pattern + 128, uint8_t{1});
  for (size_t patternSize = 1; patternSize <= 128; patternSize *= 2) {
    ZE_OK(zeCommandListAppendMemoryFill(list, a, pattern, patternSize, size, nullptr, 0, nullptr));
    ZE_OK(zeCommandListAppendMemoryCopy(list, static_cast<char *>(b) + patternSize * size, a, size,
                                        nullptr, 0, nullptr));
  }
  ZE_OK(zeCommandListAppendBarrier(list, done, 0, nullptr));
}

void checkFilled(const void *b, size_t size) {
  for (size_t patternSize = 1; patternSize <= 128; patternSize *= 2) {
    const auto *bytes = static_cast<const uint8_t *>(b) + patternSize * size;
    for (size_t i = 0; i < size; ++i)
      ASSERT_EQ(bytes[i], static_cast<uint8_t>(1 + i % patternSize))
          << "pattern of " << patternSize << " bytes, byte " << i;
  }
}

TEST_F(MemoryTest, FillsAndCopiesOnImmediateListsOfBothGroups) {
  constexpr size_t size = 1000;  // not a multiple of the longer patterns
  ze_event_pool_handle_t pool = eventPool(2);
  for (uint32_t ordinal : {0u, 1u}) {
    SCOPED_TRACE("ordinal " + std::to_string(ordinal));
    ze_command_list_handle_t list = immediateList(ordinal, 1);
    ze_event_handle_t done = event(pool, ordinal);
    void *a = allocDevice(size);
    void *b = allocShared(size * 256);
    fillAndCopy(list, a, b, size, done);
    ZE_OK(await(done));
    checkFilled(b, size);
  }
}

TEST_F(MemoryTest, FillPatternSizesFollowTheSpecification) {
  ze_command_list_handle_t list = immediateList();
  void *a = allocDevice(1024);
  uint8_t pattern[256] = {};
  EXPECT_EQ(zeCommandListAppendMemoryFill(list, a, pattern, 3, 1024, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(zeCommandListAppendMemoryFill(list, a, pattern, 256, 1024, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(zeCommandListAppendMemoryFill(list, a, pattern, 0, 1024, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_SIZE);
}

TEST_F(MemoryTest, RegularListsOnQueuesOfBothGroups) {
  constexpr size_t size = 1000;
  for (uint32_t ordinal : {0u, 1u}) {
    SCOPED_TRACE("ordinal " + std::to_string(ordinal));
    ze_command_queue_handle_t q = queue(ordinal, 1);
    ze_fence_handle_t f = fence(q);
    ze_command_list_handle_t list = regularList(ordinal);
    void *a = allocDevice(size);
    void *b = allocHost(size * 256);
    fillAndCopy(list, a, b, size, nullptr);
    ZE_OK(zeCommandListClose(list));
    ZE_OK(zeCommandQueueExecuteCommandLists(q, 1, &list, f));
    ZE_OK(zeFenceHostSynchronize(f, UINT64_MAX));
    checkFilled(b, size);
    // Again, after clearing the results, waiting on the queue this time.
    std::memset(b, 0, size * 256);
    ZE_OK(zeCommandQueueExecuteCommandLists(q, 1, &list, nullptr));
    ZE_OK(zeCommandQueueSynchronize(q, UINT64_MAX));
    checkFilled(b, size);
  }
}

TEST_F(MemoryTest, QueuesRunOnlyClosedListsOfTheirGroup) {
  ze_command_queue_handle_t compute = queue(0);
  ze_command_list_handle_t copyList = regularList(1);
  ze_command_list_handle_t open = regularList(0);
  ZE_OK(zeCommandListClose(copyList));
  EXPECT_EQ(zeCommandQueueExecuteCommandLists(compute, 1, &copyList, nullptr),
            ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
  EXPECT_EQ(zeCommandQueueExecuteCommandLists(compute, 1, &open, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ze_command_list_handle_t immediate = immediateList(0);
  EXPECT_EQ(zeCommandQueueExecuteCommandLists(compute, 1, &immediate, nullptr),
            ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
  // A closed list takes no more commands until it is reset.
  int x = 0, y = 1;
  ZE_OK(zeCommandListClose(open));
  EXPECT_EQ(zeCommandListAppendMemoryCopy(open, &x, &y, sizeof x, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ZE_OK(zeCommandListReset(open));
  ZE_OK(zeCommandListAppendMemoryCopy(open, &x, &y, sizeof x, nullptr, 0, nullptr));
  ZE_OK(zeCommandListClose(open));
  ZE_OK(zeCommandQueueExecuteCommandLists(compute, 1, &open, nullptr));
  ZE_OK(zeCommandQueueSynchronize(compute, UINT64_MAX));
  EXPECT_EQ(x, 1);  // system memory: the CPU device reaches it too
  ze_command_queue_desc_t bad{
      ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, 1, 2, 0, ZE_COMMAND_QUEUE_MODE_DEFAULT,
      ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_command_queue_handle_t q = nullptr;
  EXPECT_EQ(zeCommandQueueCreate(context, device, &bad, &q), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  bad.ordinal = 2;
  bad.index = 0;
  EXPECT_EQ(zeCommandQueueCreate(context, device, &bad, &q), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

TEST_F(MemoryTest, CopyRegion) {
  constexpr uint32_t pitch = 16, rows = 8;
  auto *src = static_cast<uint8_t *>(allocShared(pitch * rows));
  auto *dst = static_cast<uint8_t *>(allocShared(pitch * rows));
  std::iota(src, src + pitch * rows, uint8_t{0});
  std::memset(dst, 0xff, pitch * rows);
  ze_command_list_handle_t list = immediateList(1, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  ze_copy_region_t from{2, 1, 0, 4, 3, 1}, to{8, 4, 0, 4, 3, 1};
  ZE_OK(zeCommandListAppendMemoryCopyRegion(list, dst, &to, pitch, 0, src, &from, pitch, 0, nullptr,
                                            0, nullptr));
  for (uint32_t y = 0; y < rows; ++y)
    for (uint32_t x = 0; x < pitch; ++x) {
      bool inside = y >= 4 && y < 7 && x >= 8 && x < 12;
      uint8_t want = inside ? src[(y - 3) * pitch + (x - 6)] : 0xff;
      ASSERT_EQ(dst[y * pitch + x], want) << x << "," << y;
    }
  ze_copy_region_t overlapping{3, 1, 0, 4, 3, 1};
  EXPECT_EQ(zeCommandListAppendMemoryCopyRegion(list, src, &overlapping, pitch, 0, src, &from,
                                                pitch, 0, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_OVERLAPPING_REGIONS);
}

TEST_F(MemoryTest, SynchronousImmediateListReturnsWhenDone) {
  ze_command_list_handle_t list = immediateList(0, 2, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  auto *a = static_cast<int *>(allocShared(4096));
  int pattern = 42;
  ZE_OK(
      zeCommandListAppendMemoryFill(list, a, &pattern, sizeof pattern, 4096, nullptr, 0, nullptr));
  EXPECT_EQ(a[1023], 42);
}

TEST_F(MemoryTest, QueueSynchronizeTimeouts) {
  ze_command_queue_handle_t q = queue(0, 3);
  ze_event_handle_t gate = event(eventPool(1), 0);
  ze_command_list_handle_t list = regularList(0);
  int x = 0, y = 7;
  ZE_OK(zeCommandListAppendMemoryCopy(list, &x, &y, sizeof x, nullptr, 1, &gate));
  ZE_OK(zeCommandListClose(list));
  ZE_OK(zeCommandQueueExecuteCommandLists(q, 1, &list, nullptr));
  EXPECT_EQ(zeCommandQueueSynchronize(q, 0), ZE_RESULT_NOT_READY);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(zeCommandQueueSynchronize(q, 2'000'000), ZE_RESULT_NOT_READY);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2));
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_ZE_OK(zeEventHostSignal(gate));
  });
  ZE_OK(zeCommandQueueSynchronize(q, UINT64_MAX));  // sleeps until the host signals
  opener.join();
  EXPECT_EQ(x, 7);
}

}  // namespace
}  // namespace xpurt::ze_cpu::test
