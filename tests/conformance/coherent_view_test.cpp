// COHERENT memory views: memory of no one device, used by commands of every device as their
// own, with the copies between devices made by the runtime from what commands declare. Each
// test runs on every device parameter with every other device of the suite as its partner
// (ctest runs it again with three Level Zero CPU devices, and two without peer access).
#include "partner_devices.hpp"

#include <xpurt/graph.hpp>

#include <numeric>
#include <thread>
#include <vector>

namespace xpurt::test {
namespace {

constexpr size_t kN = 4096;
constexpr size_t kBytes = kN * sizeof(int32_t);

class CoherentViewTest : public PartnerDeviceTest {
 protected:
  static std::vector<int32_t> iota(int32_t first, size_t n = kN) {
    std::vector<int32_t> v(n);
    std::iota(v.begin(), v.end(), first);
    return v;
  }
  // Whether the device's copy of a COHERENT view is the host memory itself (nothing is copied
  // to or from it).
  bool copyIsHostMemory() const { return device.info().deviceMemoryIsHostMemory; }
};

// want[i] = first + i
void expectValues(const std::vector<int32_t> &got, int32_t first, const std::string &what) {
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], first + static_cast<int32_t>(i)) << what << ", element " << i;
}

TEST_P(CoherentViewTest, ALaunchReadsTheApplicationsDataAndItsResultComesBackToTheHost) {
  std::vector<int32_t> values = iota(100);
  CoherentArray<int32_t> in(values), out(kN);
  EXPECT_EQ(in.type(), AllocType::Coherent);
  EXPECT_EQ(in.hostPtr(), values.data());
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(out.hostPtr()[i], 0) << "runtime memory is zeroed";
  queue.launch(addInt, Range(kN), {Arg::read(in), Arg::write(out), int32_t{5}});
  expectValues(hostValues(queue, out), 105, "the result on the host");
  expectValues(values, 100, "the input, read only");
}

TEST_P(CoherentViewTest, WhatOneDeviceWritesEveryOtherReadsWithoutAFuture) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    std::vector<int32_t> values = iota(0);
    CoherentArray<int32_t> a(values), b(kN), c(kN), d(kN);
    // Here, there, here: each launch reads what the other device wrote last, and nothing
    // orders them but the views.
    queue.launch(addInt, Range(kN), {Arg::read(a), Arg::write(b), int32_t{1}});
    p.queue.launch(p.addInt, Range(kN), {Arg::read(b), Arg::write(c), int32_t{10}});
    queue.launch(addInt, Range(kN), {Arg::read(c), Arg::write(d), int32_t{100}});
    expectValues(hostValues(p.queue, c), 11, "there, from here");
    expectValues(hostValues(queue, d), 111, "here, from there");
    // The other device's queue brings the bytes another device wrote to the host as well.
    expectValues(hostValues(p.queue, d), 111, "to the host from another device");
    queue.sync();
  }
}

TEST_P(CoherentViewTest, AWriteMakesTheOtherCopiesStale) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    std::vector<int32_t> values = iota(0);
    CoherentArray<int32_t> a(values), here(kN), there(kN);
    // Both devices hold a copy of a ...
    queue.launch(addInt, Range(kN), {Arg::read(a), Arg::write(here), int32_t{0}});
    p.queue.launch(p.addInt, Range(kN), {Arg::read(a), Arg::write(there), int32_t{0}});
    // ... then this device overwrites a and the other reads it again, and the other way round.
    queue.fill(a, int32_t{7});
    p.queue.launch(p.addInt, Range(kN), {Arg::read(a), Arg::write(there), int32_t{1}});
    p.queue.fill(a, int32_t{-3});
    queue.launch(addInt, Range(kN), {Arg::read(a), Arg::write(here), int32_t{1}});
    for (int32_t v : hostValues(p.queue, there)) ASSERT_EQ(v, 8);
    for (int32_t v : hostValues(queue, here)) ASSERT_EQ(v, -2);
    for (int32_t v : hostValues(queue, a)) ASSERT_EQ(v, -3);
    p.queue.sync();
  }
}

TEST_P(CoherentViewTest, BytesAlreadyUpToDateOnTheDeviceAreNotCopiedAgain) {
  if (copyIsHostMemory())
    GTEST_SKIP() << GetParam().name << " uses the host memory of a COHERENT view as its copy: "
                 << "nothing is ever copied to it";
  std::vector<int32_t> values = iota(0);
  CoherentArray<int32_t> a(values), out(kN);
  // The first half reaches the device ...
  queue.launch(addInt, Range(kN / 2), {Arg::read(a, 0, kBytes / 2), Arg::write(out), int32_t{0}});
  queue.sync();
  // ... and the host memory changes behind the runtime's back: a launch that reads all of it
  // gets the new second half (copied now) but the first half it had (not copied again).
  std::fill(values.begin(), values.end(), -1);
  queue.launch(addInt, Range(kN), {Arg::read(a), Arg::write(out), int32_t{0}});
  std::vector<int32_t> got = hostValues(queue, out);
  for (size_t i = 0; i < kN; ++i)
    ASSERT_EQ(got[i], i < kN / 2 ? static_cast<int32_t>(i) : -1) << "element " << i;
}

TEST_P(CoherentViewTest, WritesOfPartsOnTwoDevicesComeTogether) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    CoherentArray<int32_t> a(kN), sum(kN);
    // Each device writes half; then each reads the whole, and the host gets it from both.
    queue.fill(a, int32_t{1}, 0, kBytes / 2);
    p.queue.fill(a, int32_t{2}, kBytes / 2, kBytes / 2);
    p.queue.launch(p.addInt, Range(kN), {Arg::read(a), Arg::write(sum), int32_t{10}});
    std::vector<int32_t> there = hostValues(queue, sum);
    std::vector<int32_t> host = hostValues(queue, a);
    for (size_t i = 0; i < kN; ++i) {
      int32_t want = i < kN / 2 ? 1 : 2;
      ASSERT_EQ(host[i], want) << "element " << i;
      ASSERT_EQ(there[i], want + 10) << "element " << i;
    }
    queue.launch(addInt, Range(kN), {Arg::read(a), Arg::write(sum), int32_t{20}});
    std::vector<int32_t> here = hostValues(p.queue, sum);
    for (size_t i = 0; i < kN; ++i) ASSERT_EQ(here[i], (i < kN / 2 ? 1 : 2) + 20);
    queue.sync();
  }
}

TEST_P(CoherentViewTest, CopyToDeviceTakesWhatTheApplicationWroteInTheHostMemory) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    CoherentArray<int32_t> a(kN), out(kN);
    p.queue.fill(a, int32_t{5});
    // Up to date on the host, the application changes a quarter and says so.
    std::vector<int32_t> host = hostValues(p.queue, a);
    for (size_t i = kN / 4; i < kN / 2; ++i) a.hostPtr()[i] = 9;
    queue.copyToDevice(a, kBytes / 4, kBytes / 4);
    p.queue.launch(p.addInt, Range(kN), {Arg::read(a), Arg::write(out), int32_t{0}});
    std::vector<int32_t> got = hostValues(p.queue, out);
    for (size_t i = 0; i < kN; ++i)
      ASSERT_EQ(got[i], i >= kN / 4 && i < kN / 2 ? 9 : 5) << "element " << i;
    queue.sync();
  }
}

TEST_P(CoherentViewTest, CopiesBetweenCoherentViewsAndViewsOfADevice) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    CoherentArray<int32_t> a(kN), b(kN);
    Array<int32_t> mine(device, kN);
    std::vector<int32_t> values = iota(50);
    std::copy(values.begin(), values.end(), mine.hostPtr());
    queue.copyToDevice(mine);
    // A device's view into a coherent one, the coherent one copied on the other device, and
    // back into a view of this device.
    queue.copyMemoryView(a, mine);
    p.queue.copyMemoryView(b, a, 0, sizeof(int32_t), kBytes - sizeof(int32_t));
    Array<int32_t> back(device, kN);
    queue.fill(back, int32_t{0});
    queue.copyMemoryView(back, b);
    queue.copyToHost(back);
    queue.sync();
    for (size_t i = 0; i + 1 < kN; ++i) ASSERT_EQ(back.hostPtr()[i], 51 + static_cast<int32_t>(i));
    EXPECT_EQ(back.hostPtr()[kN - 1], 0) << "b's last element, never written";
    p.queue.sync();
  }
}

TEST_P(CoherentViewTest, OutOfOrderQueuesOfTwoDevicesTakeTurnsOnOneView) {
  QueueOptions ooo{Engine::Any, true};
  TaskQueue here(device, ooo);
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    TaskQueue there(p.device, ooo);
    CoherentArray<int32_t> x(kN), y(kN);
    // x += 1 on alternate devices, through y: each launch reads what the one before wrote.
    for (int step = 0; step < 6; ++step) {
      bool mine = step % 2 == 0;
      TaskQueue &q = mine ? here : there;
      const Kernel &k = mine ? addInt : p.addInt;
      q.launch(k, Range(kN), {Arg::read(x), Arg::write(y), int32_t{1}});
      q.launch(k, Range(kN), {Arg::read(y), Arg::write(x), int32_t{0}});
    }
    for (int32_t v : hostValues(here, x)) ASSERT_EQ(v, 6);
    there.sync();
  }
}

TEST_P(CoherentViewTest, ThreadsOfTwoDevicesWorkOnHalvesOfOneView) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    CoherentArray<int32_t> x(kN), y(kN);
    constexpr int kSteps = 8;
    // Each thread adds 1 to its half, kSteps times, on its own device; neither waits for the
    // other, and the host gets both halves.
    auto work = [&](TaskQueue &q, const Kernel &k, size_t half) {
      size_t at = half * kBytes / 2;
      for (int step = 0; step < kSteps; ++step) {
        q.launch(k, Range(kN / 2),
                 {Arg::read(x, at, kBytes / 2), Arg::write(y, at, kBytes / 2), 1});
        q.launch(k, Range(kN / 2),
                 {Arg::read(y, at, kBytes / 2), Arg::write(x, at, kBytes / 2), 0});
      }
    };
    std::thread other([&] { work(p.queue, p.addInt, 1); });
    work(queue, addInt, 0);
    other.join();
    for (int32_t v : hostValues(queue, x)) ASSERT_EQ(v, kSteps);
    p.queue.sync();
  }
}

// ---- one launch split over devices (xpurtLaunchKernelSplit) --------------------------------

TEST_P(CoherentViewTest, ASplitLaunchGivesWhatOneLaunchGives) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    std::vector<int32_t> values = iota(-100);
    CoherentArray<int32_t> in(values), out(kN);
    // Each device its half, the items counted from a global offset of 5.
    Future done =
        launchSplit({queue, p.queue}, {addInt, p.addInt}, Range(kN - 5).offset(5).local(64),
                    {SplitArg::rows(in, Access::Read, sizeof(int32_t)),
                     SplitArg::rows(out, Access::Write, sizeof(int32_t)), int32_t{7}});
    done.wait();
    std::vector<int32_t> got = hostValues(queue, out);
    for (size_t i = 0; i < kN; ++i) ASSERT_EQ(got[i], i < 5 ? 0 : values[i] + 7) << "element " << i;
    p.queue.sync();
  }
}

TEST_P(CoherentViewTest, SplitLaunchesWithHalosRepeatedMatchTheHost) {
  Kernel sum3{spirv, "sum3"};
  constexpr int kSteps = 5;
  std::vector<int32_t> want(kN);
  for (size_t i = 0; i < kN; ++i) want[i] = static_cast<int32_t>(i % 7) - 3;
  std::vector<int32_t> start = want;
  for (int step = 0; step < kSteps; ++step) {
    std::vector<int32_t> next(kN);
    for (size_t i = 0; i < kN; ++i)
      next[i] = want[i] + (i > 0 ? want[i - 1] : 0) + (i + 1 < kN ? want[i + 1] : 0);
    want = next;
  }
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    Kernel theirs{p.module, "sum3"};
    // A device whose copy is the host memory writes a's memory: a copy of start each time.
    std::vector<int32_t> values = start;
    CoherentArray<int32_t> a(values), b(kN);
    // Three queues over two devices: chunks meet within a device and between the devices, and
    // each step reads its neighbours' edge items of the step before.
    TaskQueue second(device);
    const CoherentArray<int32_t> *from = &a, *to = &b;
    for (int step = 0; step < kSteps; ++step) {
      launchSplit({queue, p.queue, second}, {sum3, theirs, sum3}, Range(kN).local(32),
                  {SplitArg::rows(*from, Access::Read, sizeof(int32_t), 1),
                   SplitArg::rows(*to, Access::Write, sizeof(int32_t)), static_cast<int32_t>(kN)});
      std::swap(from, to);
    }
    std::vector<int32_t> got = hostValues(p.queue, *from);
    for (size_t i = 0; i < kN; ++i) ASSERT_EQ(got[i], want[i]) << "element " << i;
    queue.sync();
    second.sync();
  }
}

TEST_P(CoherentViewTest, EveryChunkReadsAllOfAViewMappedWhole) {
  Kernel addTable{spirv, "add_table"};
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    Kernel theirs{p.module, "add_table"};
    std::vector<int32_t> table = iota(1000, 10), values = iota(0);
    CoherentArray<int32_t> t(table), in(values), out(kN);
    launchSplit({queue, p.queue}, {addTable, theirs}, Range(kN),
                {SplitArg::all(t), int32_t{10}, SplitArg::rows(in, Access::Read, sizeof(int32_t)),
                 SplitArg::rows(out, Access::Write, sizeof(int32_t))})
        .wait();
    std::vector<int32_t> got = hostValues(queue, out);
    for (size_t i = 0; i < kN; ++i) ASSERT_EQ(got[i], values[i] + table[i % 10]) << "element " << i;
    // Fewer work-groups than queues: one chunk, on the first queue.
    CoherentArray<int32_t> small(64);
    launchSplit({queue, p.queue}, {addInt, p.addInt}, Range(64).local(64),
                {SplitArg::rows(in, Access::Read, sizeof(int32_t)),
                 SplitArg::rows(small, Access::Write, sizeof(int32_t)), int32_t{1}})
        .wait();
    std::vector<int32_t> few = hostValues(p.queue, small);
    for (size_t i = 0; i < 64; ++i) ASSERT_EQ(few[i], values[i] + 1) << "element " << i;
    p.queue.sync();
  }
}

TEST_P(CoherentViewTest, ABadSplitLaunchSubmitsNothingAndSaysWhy) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    CoherentArray<int32_t> in(kN), out(kN);
    Array<int32_t> mine(device, kN);
    auto rows = [](const MemoryView &v, Access a) { return SplitArg::rows(v, a, sizeof(int32_t)); };
    // This device's kernel for the other device's chunk, where that device cannot run it (a
    // CPU device runs the other CPU device's): refused before the first chunk runs.
    bool runsOurs = true;
    try {
      Array<int32_t> theirs(p.device, kN);
      p.queue.launch(addInt, Range(kN), {Arg::read(theirs), Arg::write(theirs), 0});
      p.queue.sync();
    } catch (const Error &) {
      runsOurs = false;
    }
    if (!runsOurs)
      expectRefused(
          [&] {
            launchSplit({queue, p.queue}, {addInt, addInt}, Range(kN),
                        {rows(in, Access::Read), rows(out, Access::Write), int32_t{1}});
          },
          XPURT_ERROR_INVALID_ARGUMENT, "kernel");
    expectRefused(
        [&] {
          launchSplit({queue, p.queue}, {addInt, p.addInt}, Range(kN),
                      {rows(mine, Access::Read), rows(out, Access::Write), int32_t{1}});
        },
        XPURT_ERROR_INVALID_ARGUMENT, "every view of a split launch is COHERENT");
    expectRefused(
        [&] {
          launchSplit({queue, p.queue}, {addInt, p.addInt}, Range(kN),
                      {SplitArg::rows(in, Access::Read, 2 * sizeof(int32_t)),
                       rows(out, Access::Write), int32_t{1}});
        },
        XPURT_ERROR_OUT_OF_RANGE, "items up to");
    expectRefused([&] { launchSplit({}, {}, Range(kN), {}); }, XPURT_ERROR_INVALID_ARGUMENT,
                  "at least one queue");
    Graph graph;
    p.queue.beginCapture(graph);
    expectRefused(
        [&] {
          launchSplit({queue, p.queue}, {addInt, p.addInt}, Range(kN),
                      {rows(in, Access::Read), rows(out, Access::Write), int32_t{1}});
        },
        XPURT_ERROR_INVALID_ARGUMENT, "captures into a graph");
    p.queue.endCapture();
    // Nothing ran: out is still zero, and both queues go on.
    for (int32_t v : hostValues(queue, out)) ASSERT_EQ(v, 0);
    launchSplit({queue, p.queue}, {addInt, p.addInt}, Range(kN),
                {rows(in, Access::Read), rows(out, Access::Write), int32_t{2}});
    for (int32_t v : hostValues(p.queue, out)) ASSERT_EQ(v, 2);
    queue.sync();
  }
}

TEST_P(CoherentViewTest, MisuseIsRefusedAndSaysWhy) {
  CoherentArray<int32_t> a(kN);
  expectRefused([&] { (void)a.devicePtr(); }, XPURT_ERROR_UNSUPPORTED, "no one device pointer");
  expectRefused([&] { MemoryView(device, nullptr, 64, AllocType::Coherent); },
                XPURT_ERROR_INVALID_ARGUMENT, "xpurtNewCoherentMemoryView");
  expectRefused([&] { CoherentArray<int32_t> empty(size_t{0}); }, XPURT_ERROR_INVALID_ARGUMENT,
                "at least 1 byte");
  expectRefused([&] { queue.copyToHost(a, kBytes, 4); }, XPURT_ERROR_OUT_OF_RANGE, "past the end");
  // The view and the queue go on.
  queue.fill(a, int32_t{4});
  for (int32_t v : hostValues(queue, a)) ASSERT_EQ(v, 4);
}

XPURT_INSTANTIATE_CONFORMANCE(CoherentViewTest);

}  // namespace
}  // namespace xpurt::test
