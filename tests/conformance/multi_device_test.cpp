// Several devices in one program: copies between views of any two devices, on a queue of
// either, ordered in both queues as any copy is. The partner devices are every other device
// of the suite (each GPU, the CPU with and without storage of its own, Level Zero's CPU
// devices); ctest also runs this suite with xpurt's Level Zero driver for the CPU offering
// three devices, and two without peer access (tests/CMakeLists.txt), so that copies between
// devices of one backend take each route: peer, through the other device, through the host.
#include "device_param.hpp"

#include <xpurt/graph.hpp>

#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

namespace xpurt::test {
namespace {

using namespace std::chrono_literals;

constexpr size_t kCopyN = 4096;
constexpr size_t kCopyBytes = kCopyN * sizeof(int32_t);
constexpr auto kHeldFor = 30ms;

class MultiDeviceTest : public DeviceTest {
 protected:
  Module spirv{device, "xpurt_test_spirv"};
  Kernel gatedFill{spirv, "gated_fill"};
  Kernel addInt{spirv, "add_int"};

  // Every other device of the suite (a device with the other memory arrangement counts).
  std::vector<DeviceParam> partners() const {
    std::vector<DeviceParam> out;
    for (const DeviceParam &p : conformanceDevices())
      if (p.name != GetParam().name) out.push_back(p);
    return out;
  }
  static Device open(const DeviceParam &p) { return Device(p.type, p.index, p.flags); }

  // The view's device storage, read through a queue of its own device.
  static std::vector<int32_t> read(const Device &d, const Array<int32_t> &a) {
    TaskQueue q(d);
    q.copyToHost(a);
    q.sync();
    return std::vector<int32_t>(a.hostPtr(), a.hostPtr() + a.size());
  }
  static Array<int32_t> filledView(const Device &d, int32_t first) {
    std::vector<int32_t> values(kCopyN);
    std::iota(values.begin(), values.end(), first);
    Array<int32_t> a(d, kCopyN);
    std::copy(values.begin(), values.end(), a.hostPtr());
    TaskQueue q(d);
    q.copyToDevice(a);
    q.sync();
    return a;
  }
};

// A copy from `from` to `to` of n ints, element i of the result being: from's, in
// [dstAt, dstAt + n), else to's.
void expectCopied(const std::vector<int32_t> &got, int32_t fromFirst, int32_t toFirst, size_t dstAt,
                  size_t srcAt, size_t n, const std::string &what) {
  for (size_t i = 0; i < got.size(); ++i) {
    int32_t want = i >= dstAt && i < dstAt + n ? fromFirst + static_cast<int32_t>(srcAt + i - dstAt)
                                               : toFirst + static_cast<int32_t>(i);
    ASSERT_EQ(got[i], want) << what << ", element " << i;
  }
}

TEST_P(MultiDeviceTest, CopiesToAndFromEveryOtherDeviceOnAQueueOfEither) {
  for (const DeviceParam &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    Device other = open(p);
    TaskQueue otherQueue(other);
    // Here to there on this device's queue, and back on the other's, at offsets.
    Array<int32_t> mine = filledView(device, 1000);
    Array<int32_t> theirs = filledView(other, -5000);
    Future out = queue.copyMemoryView(theirs, mine, 100 * sizeof(int32_t), 7 * sizeof(int32_t),
                                      2000 * sizeof(int32_t));
    queue.sync();
    EXPECT_TRUE(out.valid());
    std::vector<int32_t> there = read(other, theirs);
    expectCopied(there, 1000, -5000, 100, 7, 2000, "here to there, this queue");

    Array<int32_t> back = filledView(device, 0);
    otherQueue.copyMemoryView(back, theirs, 0, 0, kCopyBytes);
    otherQueue.sync();
    EXPECT_EQ(read(device, back), there) << "there to here, the other queue";

    // There to here on this queue; here to there on the other's, the whole views.
    Array<int32_t> fresh = filledView(other, 77);
    queue.copyMemoryView(mine, fresh);
    queue.sync();
    expectCopied(read(device, mine), 77, 0, 0, 0, kCopyN, "there to here, this queue");
    Array<int32_t> target = filledView(other, 0);
    otherQueue.copyMemoryView(target, mine);
    otherQueue.sync();
    expectCopied(read(other, target), 77, 0, 0, 0, kCopyN, "here to there, the other queue");
  }
}

TEST_P(MultiDeviceTest, ACopyToAnotherDeviceFollowsEarlierCommandsAndPrecedesLaterOnes) {
  // Everything is made before the first gate shuts and released after the last opens: a CUDA
  // device frees memory and streams on a thread of its own, each free waiting for the device
  // to be idle while it holds the driver's locks, and a kernel held by the gate keeps it busy.
  // For the same reason the gate shuts only once the device has been idle for a moment,
  // leaving the frees of earlier tests done.
  struct Partner {
    Device device;
    TaskQueue queue;
    Array<int32_t> view;
  };
  std::vector<Partner> others;
  for (const DeviceParam &p : partners()) {
    Device d = open(p);
    TaskQueue q(d);
    Array<int32_t> view(d, kCopyN);
    others.push_back({std::move(d), std::move(q), std::move(view)});
  }
  TaskQueue inOrder(device), outOfOrder(device, QueueOptions{Engine::Any, true});
  Array<int32_t> x(device, kCopyN), y(device, kCopyN);
  Array<int32_t, AllocType::Shared> gate(device, 1);
  std::this_thread::sleep_for(100ms);
  for (Partner &other : others) {
    SCOPED_TRACE(GetParam().name + " with " + other.device.info().name);
    for (TaskQueue *q : {&inOrder, &outOfOrder}) {
      SCOPED_TRACE(q == &outOfOrder ? "out of order" : "in order");
      q->fill(y, int32_t{3});
      q->fill(x, int32_t{0});
      q->sync();
      other.queue.fill(other.view, int32_t{0});
      other.queue.sync();
      gate.hostPtr()[0] = 0;
      // One work-group per 256 work-items: the gate holds that many threads of the device.
      q->launch(gatedFill, Range(kCopyN).local(256), {Arg::read(gate), Arg::write(x), int32_t{42}});
      q->launch(addInt, Range(kCopyN), {Arg::read(x), Arg::write(y), int32_t{1}});
      Future copied = q->copyMemoryView(other.view, y);
      // A later write of the source must not reach the copy.
      q->fill(y, int32_t{-1});
      std::this_thread::sleep_for(kHeldFor);
      EXPECT_FALSE(copied.valid()) << "the copy completed before the commands it follows";
      __atomic_store_n(gate.hostPtr(), 1, __ATOMIC_RELEASE);
      q->sync();
      EXPECT_TRUE(copied.valid());
      other.queue.copyToHost(other.view);
      other.queue.sync();
      for (size_t i = 0; i < kCopyN; ++i) ASSERT_EQ(other.view.hostPtr()[i], 43) << "element " << i;
      q->copyToHost(y);
      q->sync();
      for (size_t i = 0; i < kCopyN; ++i) ASSERT_EQ(y.hostPtr()[i], -1) << "element " << i;
    }
  }
}

TEST_P(MultiDeviceTest, AnotherDevicesQueueWaitsForTheCopyItsDataComesFrom) {
  for (const DeviceParam &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    Device other = open(p);
    Module otherSpirv(other, "xpurt_test_spirv");
    Kernel otherAdd(otherSpirv, "add_int");
    TaskQueue otherQueue(other);
    Array<int32_t> mine(device, kCopyN), theirs(other, kCopyN), result(other, kCopyN);
    queue.fill(mine, int32_t{10});
    Future copied = queue.copyMemoryView(theirs, mine);
    otherQueue.wait(copied);
    otherQueue.launch(otherAdd, Range(kCopyN), {Arg::read(theirs), Arg::write(result), int32_t{5}});
    otherQueue.sync();
    for (int32_t v : read(other, result)) ASSERT_EQ(v, 15);
    queue.sync();
  }
}

TEST_P(MultiDeviceTest, ACopyBetweenTwoOtherDevicesIsRefusedAndTheQueueGoesOn) {
  // Two devices whose DEVICE memory is not this one's: GPUs and Level Zero's CPU devices, seen
  // from any device but the CPU backend's, which reaches all host memory.
  std::vector<Device> remote;
  for (const DeviceParam &p : partners())
    if (!p.cpuBackend) remote.push_back(open(p));
  if (onCpu() || remote.size() < 2)
    GTEST_SKIP() << "needs two devices besides " << GetParam().name
                 << " whose DEVICE memory it does not reach (the CPU device reaches all host "
                    "memory)";
  Array<int32_t> a(remote[0], kCopyN), b(remote[1], kCopyN);
  try {
    queue.copyMemoryView(a, b);
    ADD_FAILURE() << "a copy between two other devices' views was accepted";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("neither view is memory of"), std::string::npos)
        << e.what();
  }
  Array<int32_t> mine(device, kCopyN);
  queue.fill(mine, int32_t{9});
  queue.sync();
  for (int32_t v : read(device, mine)) ASSERT_EQ(v, 9);
}

TEST_P(MultiDeviceTest, CopiesBetweenDevicesAreNotCapturedAndSaySo) {
  // A graph runs on the device it is instantiated for: a copy node uses memory of that device.
  for (const DeviceParam &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    Device other = open(p);
    Array<int32_t> mine(device, kCopyN), theirs(other, kCopyN);
    Graph graph;
    queue.beginCapture(graph);
    try {
      queue.copyMemoryView(theirs, mine);
      ADD_FAILURE() << "a copy to another device's memory was captured";
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find("graph nodes use memory of their own device"),
                std::string::npos)
          << e.what();
    }
    queue.endCapture();
    queue.fill(mine, int32_t{4});
    queue.copyMemoryView(theirs, mine);
    queue.sync();
    for (int32_t v : read(other, theirs)) ASSERT_EQ(v, 4);
  }
}

XPURT_INSTANTIATE_CONFORMANCE(MultiDeviceTest);

}  // namespace
}  // namespace xpurt::test
