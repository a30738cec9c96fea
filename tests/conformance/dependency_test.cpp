// Dependencies between commands: cross-queue waits, copy queues, and the hazards an
// out-of-order queue orders by declared access (RAW, WAR, WAW; overlapping and disjoint
// ranges), undeclared commands and barriers. A "gated" kernel holds its work until the test
// opens the gate, so a command that ran too early is seen: it completes, or reads or writes
// the wrong values, while the gate is still shut.
#include "device_param.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace xpurt::test {
namespace {

using namespace std::chrono_literals;

// Long enough that a command free to run has run; a held one shows it by not completing.
constexpr auto kHeldFor = 30ms;

// A flag the gated kernels spin on. Declare it after the queues that use it: it opens when it
// goes out of scope, before they wait for their work.
class Gate {
 public:
  explicit Gate(const Device &device) : flag_(device, 1) { flag_.hostPtr()[0] = 0; }
  ~Gate() { open(); }
  void open() { __atomic_store_n(flag_.hostPtr(), 1, __ATOMIC_RELEASE); }
  const Array<int32_t, AllocType::Shared> &flag() const { return flag_; }

 private:
  Array<int32_t, AllocType::Shared> flag_;
};

class DependencyTest : public DeviceTest {
 protected:
  static constexpr size_t kN = 256;
  static constexpr size_t kHalf = kN / 2 * sizeof(int32_t);

  Module spirv{device, "xpurt_test_spirv"};
  Kernel gatedFill{spirv, "gated_fill"};
  Kernel gatedCopy{spirv, "gated_copy"};
  Kernel addInt{spirv, "add_int"};
  QueueOptions outOfOrder{Engine::Any, true};

  // Device views, so a missing or misordered copy shows on separate device memory too.
  Array<int32_t> x{device, kN}, y{device, kN}, z{device, kN};

  void setOnDevice(TaskQueue &q, const Array<int32_t> &a, int32_t value) {
    q.fill(a, value);
    q.sync();
  }
  std::vector<int32_t> read(const Array<int32_t> &a) {
    TaskQueue q(device);
    q.copyToHost(a);
    q.sync();
    return std::vector<int32_t>(a.hostPtr(), a.hostPtr() + a.size());
  }
  Future fillGated(TaskQueue &q, const Gate &gate, const Array<int32_t> &out, int32_t value,
                   size_t items = kN) {
    // One work-group: the gate holds one thread, not every thread of the device.
    return q.launch(gatedFill, Range(items).local(items),
                    {Arg::read(gate.flag()), Arg::write(out, 0, items * sizeof(int32_t)), value});
  }
  bool twoThreads() const { return device.info().computeUnits >= 2; }
};

void expectAll(const std::vector<int32_t> &values, int32_t want, const char *what) {
  for (size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(values[i], want) << what << ", element " << i;
}

// ---- cross-queue waits ------------------------------------------------------------------

TEST_P(DependencyTest, ACrossQueueWaitHoldsLaterCommandsUntilTheFutureCompletes) {
  TaskQueue a(device), b(device);
  setOnDevice(a, x, 0);
  Gate gate(device);
  Future written = fillGated(a, gate, x, 42);
  b.wait(written);
  Future added = b.launch(addInt, Range(kN), {Arg::read(x), Arg::write(y), int32_t{1}});
  std::this_thread::sleep_for(kHeldFor);
  EXPECT_FALSE(added.valid()) << "the launch ran before the future it waits for completed";
  gate.open();
  b.sync();
  expectAll(read(y), 43, "y = x + 1 after the wait");
}

TEST_P(DependencyTest, WaitingOnACompletedFutureHoldsNothing) {
  TaskQueue a(device), b(device);
  Future done = a.fill(x, int32_t{5});
  done.wait();
  b.wait(done);
  b.wait({});  // no futures at all
  Future added = b.launch(addInt, Range(kN), {Arg::read(x), Arg::write(y), int32_t{2}});
  ASSERT_TRUE(eventually([&] { return added.valid(); }));
  b.sync();
  expectAll(read(y), 7, "y = x + 2");
}

TEST_P(DependencyTest, AChainOfWaitsAcrossThreeQueues) {
  TaskQueue a(device), b(device), c(device);
  Gate gate(device);
  Future first = fillGated(a, gate, x, 5);
  b.wait(first);
  Future second = b.launch(addInt, Range(kN), {Arg::read(x), Arg::write(y), int32_t{1}});
  c.wait(second);
  Future third = c.launch(addInt, Range(kN), {Arg::read(y), Arg::write(z), int32_t{1}});
  std::this_thread::sleep_for(kHeldFor);
  EXPECT_FALSE(second.valid());
  EXPECT_FALSE(third.valid());
  gate.open();
  c.sync();
  expectAll(read(z), 7, "z = (x + 1) + 1");
}

TEST_P(DependencyTest, AnOutOfOrderQueueWaitsForAnotherQueuesFuture) {
  TaskQueue a(device), b(device, outOfOrder);
  Gate gate(device);
  Future written = fillGated(a, gate, x, 3);
  b.wait(written);
  Future unrelated = b.fill(z, int32_t{1});  // touches nothing a wrote: held all the same
  std::this_thread::sleep_for(kHeldFor);
  EXPECT_FALSE(unrelated.valid()) << "a command after the wait ran before the future completed";
  gate.open();
  b.launch(addInt, Range(kN), {Arg::read(x), Arg::write(y), int32_t{1}});
  b.sync();
  expectAll(read(y), 4, "y = x + 1");
}

// ---- copy queues and independent progress ---------------------------------------------

TEST_P(DependencyTest, ACopyQueueCopiesAndFillsButRefusesLaunches) {
  TaskQueue copy(device, {Engine::Copy});
  copy.fill(x, int32_t{11});
  copy.copyMemoryView(y, x);
  copy.sync();
  expectAll(read(y), 11, "copied on a copy queue");
  try {
    copy.launch(addInt, Range(kN), {Arg::read(x), Arg::write(y), int32_t{1}});
    FAIL() << "a launch on a copy queue was accepted";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("copy queue"), std::string::npos) << e.what();
  }
  copy.fill(z, int32_t{4});  // still usable after the refusal
  copy.sync();
  expectAll(read(z), 4, "a fill after the refused launch");
}

TEST_P(DependencyTest, QueuesOfOneDeviceMakeProgressWhileAnotherRunsALongKernel) {
  TaskQueue compute(device), copy(device, {Engine::Copy}), other(device);
  Gate gate(device);
  Future held = fillGated(compute, gate, x, 1);
  Future copied = copy.fill(y, int32_t{2});
  Future filled = other.fill(z, int32_t{3});
  EXPECT_TRUE(eventually([&] { return copied.valid() && filled.valid(); }))
      << "a fill waited behind another queue's kernel";
  EXPECT_FALSE(held.valid());
  gate.open();
  compute.sync();
  copy.sync();
  other.sync();
}

TEST_P(DependencyTest, AnOutOfOrderFillRunsWhileAnotherQueuesKernelHoldsEveryThread) {
  // Spinning work-groups, several per compute unit: on the CPU every thread of the device ends
  // up in one.
  size_t groups = std::min<size_t>(device.info().computeUnits * 8, kN);
  TaskQueue compute(device), q(device, outOfOrder);
  Gate gate(device);
  Future held =
      compute.launch(gatedFill, Range(groups).local(1),
                     {Arg::read(gate.flag()), Arg::write(y, 0, groups * sizeof(int32_t)), 1});
  std::this_thread::sleep_for(kHeldFor);  // the kernel has every thread by now
  Future filled = q.fill(z, int32_t{3});
  EXPECT_TRUE(eventually([&] { return filled.valid(); }))
      << "an out-of-order fill waited for a thread held by another queue's kernel";
  EXPECT_FALSE(held.valid());
  gate.open();
  compute.sync();
  q.sync();
  expectAll(read(z), 3, "z filled");
}

// ---- out-of-order hazards ---------------------------------------------------------------

TEST_P(DependencyTest, ReadAfterWriteOfOverlappingBytesWaits) {
  TaskQueue q(device, outOfOrder);
  Gate gate(device);
  fillGated(q, gate, x, 7);
  Future reader = q.launch(addInt, Range(kN), {Arg::read(x), Arg::write(y), int32_t{1}});
  std::this_thread::sleep_for(kHeldFor);
  EXPECT_FALSE(reader.valid()) << "read x before the write to x completed";
  gate.open();
  q.sync();
  expectAll(read(y), 8, "y = x + 1");
}

TEST_P(DependencyTest, ReadOfDisjointBytesRunsBesideTheWrite) {
  if (!twoThreads()) GTEST_SKIP() << "the gated kernel holds the device's only thread";
  TaskQueue q(device, outOfOrder);
  setOnDevice(q, x, 20);
  Gate gate(device);
  Future writer = fillGated(q, gate, x, 7, kN / 2);  // x[0, kN/2)
  Future reader = q.launch(addInt, Range(kN / 2),
                           {Arg::read(x, kHalf, kHalf), Arg::write(y, 0, kHalf), int32_t{1}});
  EXPECT_TRUE(eventually([&] { return reader.valid(); })) << "held by a write it does not touch";
  EXPECT_FALSE(writer.valid());
  gate.open();
  q.sync();
  auto ys = read(y);
  expectAll({ys.begin(), ys.begin() + kN / 2}, 21, "y = x[kN/2..] + 1");
}

TEST_P(DependencyTest, WriteAfterReadOfOverlappingBytesWaits) {
  TaskQueue q(device, outOfOrder);
  setOnDevice(q, x, 6);
  Gate gate(device);
  q.launch(gatedCopy, Range(kN).local(kN), {Arg::read(gate.flag()), Arg::read(x), Arg::write(y)});
  Future overwrite = q.fill(x, int32_t{9});
  std::this_thread::sleep_for(kHeldFor);
  EXPECT_FALSE(overwrite.valid()) << "wrote x while a read of it was pending";
  gate.open();
  q.sync();
  expectAll(read(y), 6, "y read x before it was overwritten");
  expectAll(read(x), 9, "x overwritten");
}

TEST_P(DependencyTest, WriteAfterWriteOfOverlappingBytesWaits) {
  TaskQueue q(device, outOfOrder);
  Gate gate(device);
  fillGated(q, gate, x, 1);
  Future second = q.fill(x, int32_t{2});
  std::this_thread::sleep_for(kHeldFor);
  EXPECT_FALSE(second.valid()) << "the second write ran before the first";
  gate.open();
  q.sync();
  expectAll(read(x), 2, "the later write wins");
}

TEST_P(DependencyTest, WritesOfDisjointBytesRunSideBySide) {
  // A CPU device runs an out-of-order queue's fills on its threads, beside its kernels.
  if (!twoThreads()) GTEST_SKIP() << "the gated kernel holds the device's only thread";
  TaskQueue q(device, outOfOrder);
  Gate gate(device);
  Future first = fillGated(q, gate, x, 1, kN / 2);
  Future second = q.fill(x, int32_t{2}, kHalf, kHalf);
  EXPECT_TRUE(eventually([&] { return second.valid(); })) << "held by a write it does not touch";
  EXPECT_FALSE(first.valid());
  gate.open();
  q.sync();
  auto xs = read(x);
  expectAll({xs.begin(), xs.begin() + kN / 2}, 1, "first half");
  expectAll({xs.begin() + kN / 2, xs.end()}, 2, "second half");
}

TEST_P(DependencyTest, AnUndeclaredCommandWaitsForEverythingAndEverythingWaitsForIt) {
  TaskQueue q(device, outOfOrder);
  Gate gate(device);
  fillGated(q, gate, x, 1);
  std::atomic<bool> ran{false};
  Future callback = q.hostCallback([&] { ran = true; });  // declares nothing
  Future after = q.fill(z, int32_t{3});                   // touches nothing the others touch
  std::this_thread::sleep_for(kHeldFor);
  EXPECT_FALSE(ran.load()) << "an undeclared command ran before an earlier one completed";
  EXPECT_FALSE(after.valid()) << "a command ran before an earlier undeclared one";
  gate.open();
  q.sync();
  EXPECT_TRUE(ran.load());
  expectAll(read(z), 3, "z");
}

TEST_P(DependencyTest, ABarrierOrdersDisjointCommands) {
  TaskQueue q(device, outOfOrder);
  Gate gate(device);
  fillGated(q, gate, x, 1);
  q.barrier();
  Future after = q.fill(z, int32_t{3});  // disjoint: only the barrier holds it
  std::this_thread::sleep_for(kHeldFor);
  EXPECT_FALSE(after.valid()) << "a command after the barrier ran before one before it";
  gate.open();
  q.sync();
  expectAll(read(x), 1, "x");
  expectAll(read(z), 3, "z");
}

TEST_P(DependencyTest, CopiesDeclareTheirOwnAccessesInAnOutOfOrderQueue) {
  TaskQueue q(device, outOfOrder);
  Gate gate(device);
  fillGated(q, gate, x, 12);
  Future toHost = q.copyToHost(x);  // reads x's device storage: after the gated write
  std::this_thread::sleep_for(kHeldFor);
  EXPECT_FALSE(toHost.valid());
  gate.open();
  q.sync();
  expectAll(std::vector<int32_t>(x.hostPtr(), x.hostPtr() + kN), 12, "x copied back");
}

// ---- profiling --------------------------------------------------------------------------

TEST_P(DependencyTest, WithoutProfilingAFutureHasNoTimeAndSaysWhy) {
  // A queue made with no options has no profiling either.
  TaskQueue quiet(device, QueueOptions{}), plain(device);
  for (TaskQueue *q : {&quiet, &plain}) {
    Future f = q->fill(x, int32_t{1});
    f.wait();
    try {
      (void)f.timeNs();
      FAIL() << "a time from a queue without profiling";
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), XPURT_ERROR_UNSUPPORTED);
      EXPECT_NE(std::string(e.what()).find("XPURT_QUEUE_FLAG_PROFILING"), std::string::npos)
          << e.what();
    }
  }
  TaskQueue profiled(device, {Engine::Any, false, true});
  Future timed = profiled.launch(addInt, Range(kN), {Arg::read(x), Arg::write(y), int32_t{1}});
  EXPECT_GT(timed.timeNs(), 0u);
}

XPURT_INSTANTIATE_CONFORMANCE(DependencyTest);

}  // namespace
}  // namespace xpurt::test
