// Memory views, copies and fills: the same expectations on every device.
#include "device_param.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>
#include <vector>

namespace xpurt::test {
namespace {

class MemoryTest : public DeviceTest {
 protected:
  bool aliased() const { return device.info().deviceMemoryIsHostMemory; }
  void addOnDevice(float *data, int count, float value) {
    Array<AddParams> params(device);
    *params.hostPtr() = {data, count, value};
    queue.copyToDevice(params);
    queue.launch(Kernel(module, "add_value"), params, 4);
    queue.sync();  // params lives only in this scope
  }
};

TEST_P(MemoryTest, DeviceArrayRoundTripsThroughAKernel) {
  std::vector<float> values(1000);
  std::iota(values.begin(), values.end(), 0.0f);
  Array<float> array(device, values);
  EXPECT_EQ(array.hostPtr(), values.data());
  EXPECT_EQ(array.size(), values.size());
  EXPECT_EQ(array.bytes(), values.size() * sizeof(float));
  queue.copyToDevice(array);
  addOnDevice(array.devicePtr(), 1000, 0.5f);
  queue.copyToHost(array);
  queue.sync();
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(values[i], i + 0.5f) << i;
}

TEST_P(MemoryTest, DeviceStorageIsSeparateOnlyWhereTheDeviceSaysSo) {
  std::vector<int32_t> values(64, 42);
  Array<int32_t> array(device, values);
  if (aliased()) {
    EXPECT_EQ(array.devicePtr(), array.hostPtr());
    return;
  }
  EXPECT_NE(array.devicePtr(), array.hostPtr());
  // Without copyToDevice the device never saw the 42s: what comes back is not them.
  queue.copyToHost(array);
  queue.sync();
  EXPECT_NE(values[0], 42);
}

TEST_P(MemoryTest, PartialCopiesMoveOnlyTheirRange) {
  std::vector<float> values(8, 1.0f);
  Array<float> array(device, values);
  queue.copyToDevice(array);
  queue.fill(array, 7.0f);                                        // device storage
  queue.copyToHost(array, 2 * sizeof(float), 3 * sizeof(float));  // elements 2..4
  queue.sync();
  for (int i = 0; i < 8; ++i) {
    bool copied = i >= 2 && i < 5;
    EXPECT_EQ(values[i], copied || aliased() ? 7.0f : 1.0f) << i;
  }
  std::fill(values.begin(), values.end(), 3.0f);
  queue.copyToDevice(array, 6 * sizeof(float), XPURT_WHOLE_SIZE);  // elements 6..7
  queue.sync();
  std::fill(values.begin(), values.end(), 0.0f);
  queue.copyToHost(array);
  queue.sync();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(values[i], aliased() ? 0.0f : (i >= 6 ? 3.0f : 7.0f)) << i;
}

TEST_P(MemoryTest, LargeCopiesAtOddOffsetsMoveTheirBytesAndNoOthers) {
  if (aliased()) GTEST_SKIP() << "device memory is the host's here: a copy has nothing to move";
  // Above the size from which the CPU device's copies bypass the caches, starting and ending
  // off any alignment, so the unaligned head and tail of such a copy are checked too.
  const size_t size = (size_t{9} << 20) + 37, offset = 3, length = (size_t{8} << 20) + 61;
  auto pattern = [](size_t i) { return static_cast<uint8_t>(i * 7 + 1); };
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = pattern(i);
  Array<uint8_t> array(device, bytes);
  queue.fill(array, uint8_t{0xEE});
  queue.copyToDevice(array, offset, length);
  queue.sync();
  std::fill(bytes.begin(), bytes.end(), uint8_t{0});
  queue.copyToHost(array);
  queue.sync();
  size_t wrong = 0;
  for (size_t i = 0; i < size; ++i) {
    uint8_t expected = i >= offset && i < offset + length ? pattern(i) : uint8_t{0xEE};
    if (bytes[i] != expected && wrong++ < 5)
      ADD_FAILURE() << "byte " << i << " is " << int{bytes[i]} << ", expected " << int{expected};
  }
  EXPECT_EQ(wrong, 0u);
}

TEST_P(MemoryTest, CopyMemoryViewCopiesDeviceStorageWithOffsets) {
  std::vector<int32_t> src(16), dst(16, -1);
  std::iota(src.begin(), src.end(), 0);
  Array<int32_t> srcView(device, src), dstView(device, dst);
  queue.copyToDevice(srcView);
  queue.copyToDevice(dstView);
  Future f = queue.copyMemoryView(dstView, srcView, 8 * sizeof(int32_t), 2 * sizeof(int32_t),
                                  4 * sizeof(int32_t));
  queue.copyToHost(dstView);
  queue.sync();
  EXPECT_TRUE(f.valid());
  for (int i = 0; i < 16; ++i) EXPECT_EQ(dst[i], i >= 8 && i < 12 ? i - 6 : -1) << i;
}

TEST_P(MemoryTest, FillRepeatsPatternsOfAnySize) {
  struct Triple {
    int32_t a, b, c;
  };
  Array<Triple> triples(device, 5);
  queue.fill(triples, Triple{1, 2, 3});
  Array<uint8_t> bytes(device, 100);
  queue.fill(bytes, uint8_t{0});
  queue.fill(bytes, uint8_t{9}, 10, 80);
  queue.copyToHost(triples);
  queue.copyToHost(bytes);
  queue.sync();
  for (size_t i = 0; i < triples.size(); ++i) {
    EXPECT_EQ(triples.hostPtr()[i].a, 1);
    EXPECT_EQ(triples.hostPtr()[i].c, 3);
  }
  for (int i = 0; i < 100; ++i) EXPECT_EQ(bytes.hostPtr()[i], i >= 10 && i < 90 ? 9 : 0) << i;
}

TEST_P(MemoryTest, SharedAndHostViewsNeedNoCopies) {
  Array<float, AllocType::Shared> shared(device, 256);
  Array<float, AllocType::Host> host(device, 256);
  EXPECT_EQ(shared.hostPtr(), shared.devicePtr());
  EXPECT_EQ(host.hostPtr(), host.devicePtr());
  EXPECT_EQ(shared.type(), AllocType::Shared);
  EXPECT_EQ(host.type(), AllocType::Host);
  std::fill_n(shared.hostPtr(), 256, 1.0f);
  std::fill_n(host.hostPtr(), 256, 2.0f);
  addOnDevice(shared.devicePtr(), 256, 1.0f);
  addOnDevice(host.devicePtr(), 256, 1.0f);
  for (int i = 0; i < 256; ++i) {
    ASSERT_EQ(shared.hostPtr()[i], 2.0f);
    ASSERT_EQ(host.hostPtr()[i], 3.0f);
  }
}

TEST_P(MemoryTest, SharedVectorLivesInContextMemory) {
  Context context(GetParam().type);
  ASSERT_GE(context.deviceCount(), 1u);
  EXPECT_EQ(context.device(0).info().type, static_cast<XpurtDeviceType>(GetParam().type));
  SharedVector<float> v(1024, 4.0f, SharedMemoryAllocator<float>(context));
  v.push_back(4.0f);  // reallocates through the allocator
  addOnDevice(v.data(), static_cast<int>(v.size()), -1.5f);
  for (float x : v) ASSERT_EQ(x, 2.5f);
  Array<int32_t, AllocType::Shared> fromContext(context, 8);
  EXPECT_EQ(fromContext.hostPtr(), fromContext.devicePtr());
}

// Every handle to one device names one device object, whose device memory it shares.
TEST_P(MemoryTest, EveryHandleToTheDeviceSharesItsDeviceMemory) {
  Device same(GetParam().type, GetParam().index, GetParam().flags);
  EXPECT_EQ(same.handle(), device.handle());
  std::vector<int32_t> values(16, 3);
  Array<int32_t> mine(same, values);
  queue.copyToDevice(mine);
  queue.fill(mine, int32_t{8});
  queue.copyToHost(mine);
  queue.sync();
  EXPECT_EQ(values[15], 8);
}

// Device memory belongs to its device; shared memory serves every device of its context.
// "Another device": a second one of the backend where there is one, else this one with the
// other memory arrangement, which is a device of its own (storage of its own or none).
TEST_P(MemoryTest, ADeviceViewOfAnotherDeviceIsRefusedAndSharedViewsServeBoth) {
  std::string backend = device.info().backend;
  std::optional<uint32_t> second;  // another device of the same type and backend
  for (uint32_t i = 0, n = Device::count(GetParam().type); i < n && !second; ++i)
    if (i != GetParam().index && backend == Device::info(GetParam().type, i).backend) second = i;
  Device other(GetParam().type, second ? *second : GetParam().index,
               second ? GetParam().flags : GetParam().flags ^ XPURT_DEVICE_FLAG_SEPARATE_MEMORY);
  ASSERT_NE(other.handle(), device.handle());
  auto expectRefused = [](auto &&enqueue) {
    try {
      enqueue();
      ADD_FAILURE() << "a view of another device was accepted";
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find("device memory of"), std::string::npos) << e.what();
    }
  };
  Array<int32_t> foreign(other, 16);
  expectRefused([&] { queue.copyToDevice(foreign); });
  expectRefused([&] { queue.fill(foreign, int32_t{1}); });
  Array<AddParams> foreignParams(other);
  expectRefused([&] { queue.launch(Kernel(module, "add_value"), foreignParams, 1); });

  // Nothing was queued by the refusals; shared memory of the other device works here when
  // both are of one context. A device of another driver (another context) refuses it, saying
  // why; then the same device with the other memory arrangement, which shares the context.
  std::optional<Array<int32_t, AllocType::Shared>> shared;
  shared.emplace(other, 16);
  try {
    queue.fill(*shared, int32_t{5});
  } catch (const Error &e) {
    ASSERT_TRUE(second) << e.what();
    EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("another driver's context"), std::string::npos)
        << e.what();
    Device sibling(GetParam().type, GetParam().index,
                   GetParam().flags ^ XPURT_DEVICE_FLAG_SEPARATE_MEMORY);
    shared.emplace(sibling, 16);
    queue.fill(*shared, int32_t{5});
  }
  queue.sync();
  for (int i = 0; i < 16; ++i) EXPECT_EQ(shared->hostPtr()[i], 5) << i;
}

XPURT_INSTANTIATE_CONFORMANCE(MemoryTest);

}  // namespace
}  // namespace xpurt::test
