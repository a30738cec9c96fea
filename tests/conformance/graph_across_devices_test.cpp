// Graphs across devices: nodes pinned to devices or placed by the runtime, COHERENT views
// copied between devices as the nodes need them, failures, refusals and the time model the
// launches teach. Each test runs on every device parameter with every other device of the
// suite as its partner (ctest runs it again with three Level Zero CPU devices, and two without
// peer access).
#include "partner_devices.hpp"

#include <xpurt/graph.hpp>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace xpurt::test {
namespace {

constexpr size_t kGraphElements = 4096;

class GraphAcrossDevicesTest : public PartnerDeviceTest {
 protected:
  Kernel sum3{spirv, "sum3"};

  static bool same(const Device &a, const Device &b) { return a.handle() == b.handle(); }
};

TEST_P(GraphAcrossDevicesTest, AGraphOnCoherentViewsRunsOnItsDeviceAndTakesNewInputEachLaunch) {
  std::vector<int32_t> values(kGraphElements);
  CoherentArray<int32_t> in(values), mid(kGraphElements), out(kGraphElements);
  Graph g;
  auto up = g.copyToDevice(in);  // the application's bytes, each launch
  auto first = g.launch(addInt, Range(kGraphElements), {Arg::read(in), Arg::write(mid), int32_t{1}});
  auto second = g.launch(addInt, Range(kGraphElements), {Arg::read(mid), Arg::write(out), int32_t{10}});
  auto down = g.copyToHost(out);
  GraphExec exec = g.instantiate(device);
  for (auto node : {up, first, second, down})
    EXPECT_TRUE(same(exec.deviceOf(node), device)) << "node " << node.id;
  for (int32_t launch = 0; launch < 3; ++launch) {
    std::iota(values.begin(), values.end(), launch * 100);
    queue.launch(exec).wait();
    for (size_t i = 0; i < kGraphElements; ++i)
      ASSERT_EQ(out.hostPtr()[i], launch * 100 + static_cast<int32_t>(i) + 11)
          << "launch " << launch << ", element " << i;
  }
  // Queues use the views after the graph as before it.
  queue.launch(addInt, Range(kGraphElements), {Arg::read(out), Arg::write(mid), int32_t{-11}});
  std::vector<int32_t> back = hostValues(queue, mid);
  for (size_t i = 0; i < kGraphElements; ++i) ASSERT_EQ(back[i], 200 + static_cast<int32_t>(i));
}

// Launches enqueued back to back, from both devices' queues, each after the one before.
TEST_P(GraphAcrossDevicesTest, LaunchesEnqueuedBackToBackRunOneAfterAnother) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    CoherentArray<int32_t> a(kGraphElements);
    std::atomic<int> ran{0}, overlapped{0};
    std::atomic<bool> inside{false};
    Graph g;
    auto grow = g.launch(addInt, Range(kGraphElements), {Arg::read(a), Arg::write(a), int32_t{1}});
    auto note = g.hostCallback(
        [&] {
          if (inside.exchange(true)) ++overlapped;
          ++ran;
          inside = false;
        },
        {grow});
    g.pin(grow, p.device);
    g.pin(note, device);
    GraphExec exec = g.instantiate({device, p.device});
    constexpr int kLaunches = 20;
    for (int i = 0; i < kLaunches; ++i) (i % 3 ? queue : p.queue).launch(exec);
    queue.sync();
    p.queue.sync();
    EXPECT_EQ(ran.load(), kLaunches);
    EXPECT_EQ(overlapped.load(), 0);
    for (int32_t v : hostValues(queue, a)) ASSERT_EQ(v, kLaunches);
  }
}

// Captured from queues, in order and out of order, as built directly.
TEST_P(GraphAcrossDevicesTest, CommandsOnCoherentViewsAreCapturedAsTheyAreEnqueued) {
  for (bool outOfOrder : {false, true}) {
    SCOPED_TRACE(outOfOrder ? "out of order" : "in order");
    TaskQueue capturing(device, QueueOptions{Engine::Any, outOfOrder});
    std::vector<int32_t> values(kGraphElements);
    CoherentArray<int32_t> in(values), mid(kGraphElements), out(kGraphElements);
    Graph g;
    capturing.beginCapture(g);
    capturing.copyToDevice(in);
    capturing.launch(addInt, Range(kGraphElements), {Arg::read(in), Arg::write(mid), int32_t{2}});
    capturing.fill(out, int32_t{0});
    capturing.launch(addInt, Range(kGraphElements), {Arg::read(mid), Arg::write(out), int32_t{20}});
    capturing.copyToHost(out);
    capturing.endCapture();
    EXPECT_EQ(g.size(), 5u);
    GraphExec exec = g.instantiate(device);
    for (int32_t launch = 1; launch <= 2; ++launch) {
      std::iota(values.begin(), values.end(), launch * 10000);
      capturing.launch(exec).wait();
      for (size_t i = 0; i < kGraphElements; ++i)
        ASSERT_EQ(out.hostPtr()[i], launch * 10000 + static_cast<int32_t>(i) + 22)
            << "launch " << launch << ", element " << i;
    }
  }
}

TEST_P(GraphAcrossDevicesTest, PinnedNodesRunWhereTheyArePinnedAndReadEachOthersResults) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    std::vector<int32_t> values(kGraphElements);
    CoherentArray<int32_t> a(values), b(kGraphElements), c(kGraphElements), d(kGraphElements);
    Graph g;
    auto up = g.copyToDevice(a);
    auto here = g.launch(addInt, Range(kGraphElements), {Arg::read(a), Arg::write(b), int32_t{1}});
    // This device's kernel on the other device: its module's SPIR-V is loaded there.
    auto there = g.launch(addInt, Range(kGraphElements), {Arg::read(b), Arg::write(c), int32_t{10}});
    auto back = g.launch(p.addInt, Range(kGraphElements), {Arg::read(c), Arg::write(d), int32_t{100}});
    g.copyToHost(d);
    g.pin(up, device);
    g.pin(here, device);
    g.pin(there, p.device);
    g.pin(back, device);
    GraphExec exec = g.instantiate({device, p.device});
    EXPECT_TRUE(same(exec.deviceOf(here), device));
    EXPECT_TRUE(same(exec.deviceOf(there), p.device));
    EXPECT_TRUE(same(exec.deviceOf(back), device));
    // Launched from either device's queue, over and over: each launch after the one before.
    for (int32_t launch = 0; launch < 4; ++launch) {
      std::iota(values.begin(), values.end(), launch * 1000);
      (launch % 2 ? p.queue : queue).launch(exec).wait();
      for (size_t i = 0; i < kGraphElements; ++i)
        ASSERT_EQ(d.hostPtr()[i], launch * 1000 + static_cast<int32_t>(i) + 111)
            << "launch " << launch << ", element " << i;
    }
    std::vector<int32_t> mid = hostValues(p.queue, b);
    for (size_t i = 0; i < kGraphElements; ++i) ASSERT_EQ(mid[i], 3000 + static_cast<int32_t>(i) + 1);
    queue.sync();
  }
}

TEST_P(GraphAcrossDevicesTest, RebindingAndNewArgumentsReachNodesOnEveryDevice) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    std::vector<int32_t> first(kGraphElements, 1), second(kGraphElements, 100);
    CoherentArray<int32_t> a(first), a2(second), b(kGraphElements), c(kGraphElements);
    Graph g;
    auto here = g.launch(addInt, Range(kGraphElements), {Arg::read(a), Arg::write(b), int32_t{1}});
    auto there = g.launch(addInt, Range(kGraphElements), {Arg::read(b), Arg::write(c), int32_t{10}});
    g.pin(here, device);
    g.pin(there, p.device);
    GraphExec exec = g.instantiate({device, p.device});
    queue.launch(exec).wait();
    for (int32_t v : hostValues(queue, c)) ASSERT_EQ(v, 12);
    exec.setArg(there, 2, int32_t{20});  // a node on the other device
    exec.rebind(a, a2);
    p.queue.launch(exec).wait();
    for (int32_t v : hostValues(p.queue, c)) ASSERT_EQ(v, 121);
    CoherentArray<int32_t> half(kGraphElements / 2);
    expectRefused([&] { exec.rebind(a2, half); }, XPURT_ERROR_INVALID_ARGUMENT, "of the same size");
  }
}

// Two halves, each with one halo item, swapped between the devices by copy nodes after each
// step: five steps in one graph, pinned and then left to the runtime, against the host.
TEST_P(GraphAcrossDevicesTest, AStencilSplitOverTwoDevicesMatchesTheHostWhereverItIsPlaced) {
  constexpr size_t kHalf = kGraphElements / 2;
  constexpr int kSteps = 5;
  std::vector<int32_t> start(kGraphElements), want;
  for (size_t i = 0; i < kGraphElements; ++i) start[i] = static_cast<int32_t>(i % 7) - 3;
  want = start;
  for (int step = 0; step < kSteps; ++step) {
    std::vector<int32_t> next(kGraphElements);
    for (size_t i = 0; i < kGraphElements; ++i)
      next[i] = want[i] + (i > 0 ? want[i - 1] : 0) + (i + 1 < kGraphElements ? want[i + 1] : 0);
    want = next;
  }
  for (Partner &p : partners()) {
    for (bool pinned : {true, false}) {
      SCOPED_TRACE(GetParam().name + " with " + p.name + (pinned ? ", pinned" : ", placed"));
      // top: items 0..kHalf-1, then the bottom's first; bottom: the top's last, then its items.
      std::vector<int32_t> topValues(start.begin(), start.begin() + kHalf + 1);
      std::vector<int32_t> bottomValues(start.begin() + kHalf - 1, start.end());
      CoherentArray<int32_t> top(topValues), bottom(bottomValues), top2(kHalf + 1),
          bottom2(kHalf + 1);
      constexpr auto n = static_cast<int32_t>(kHalf + 1);
      constexpr size_t kItem = sizeof(int32_t);
      Graph g;
      const CoherentArray<int32_t> *t = &top, *b = &bottom, *t2 = &top2, *b2 = &bottom2;
      for (int step = 0; step < kSteps; ++step) {
        auto upper = g.launch(sum3, Range(kHalf), {Arg::read(*t), Arg::write(*t2), n});
        auto lower = g.launch(sum3, Range(kHalf).offset(1), {Arg::read(*b), Arg::write(*b2), n});
        if (pinned) {
          g.pin(upper, device);
          g.pin(lower, p.device);
        }
        // The halos: the top's last item to the bottom's first, the bottom's first to the top's
        // last; the global edges stay zero.
        g.copyMemoryView(*b2, *t2, 0, (kHalf - 1) * kItem, kItem);
        g.copyMemoryView(*t2, *b2, kHalf * kItem, kItem, kItem);
        std::swap(t, t2);
        std::swap(b, b2);
      }
      GraphExec exec = g.instantiate({device, p.device});
      for (int launch = 0; launch < 2; ++launch) {
        // Each launch starts from the first state again: the application writes it.
        if (launch) {
          std::copy(start.begin(), start.begin() + kHalf + 1, topValues.begin());
          std::copy(start.begin() + kHalf - 1, start.end(), bottomValues.begin());
          queue.copyToDevice(top);
          queue.copyToDevice(bottom);
        }
        queue.launch(exec).wait();
        std::vector<int32_t> upperGot = hostValues(queue, *t), lowerGot = hostValues(p.queue, *b);
        for (size_t i = 0; i < kHalf; ++i)
          ASSERT_EQ(upperGot[i], want[i]) << "launch " << launch << ", element " << i;
        for (size_t i = 0; i < kHalf; ++i)
          ASSERT_EQ(lowerGot[i + 1], want[kHalf + i])
              << "launch " << launch << ", element " << kHalf + i;
      }
    }
  }
}

TEST_P(GraphAcrossDevicesTest, NodesOnOneDevicesMemoryRunThereAndEveryNodeRunsOnAGivenDevice) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    Array<int32_t> mine(device, kGraphElements);
    std::vector<int32_t> values(kGraphElements);
    std::iota(values.begin(), values.end(), 0);
    CoherentArray<int32_t> in(values), out(kGraphElements);
    Graph g;
    auto up = g.copyToDevice(mine);
    auto onMine = g.launch(addInt, Range(kGraphElements), {Arg::read(mine), Arg::write(out), int32_t{5}});
    auto free = g.launch(addInt, Range(kGraphElements), {Arg::read(in), Arg::write(mine), int32_t{1}});
    auto anywhere = g.hostCallback([] {});
    auto empty = g.empty({anywhere});
    GraphExec exec = g.instantiate({p.device, device});
    for (auto node : {up, onMine, free})
      EXPECT_TRUE(same(exec.deviceOf(node), device)) << "node " << node.id;
    for (auto node : {anywhere, empty})
      EXPECT_TRUE(same(exec.deviceOf(node), device) || same(exec.deviceOf(node), p.device));
    for (size_t i = 0; i < kGraphElements; ++i) mine.hostPtr()[i] = 7;
    p.queue.launch(exec).wait();
    std::vector<int32_t> got = hostValues(queue, out);
    for (size_t i = 0; i < kGraphElements; ++i) ASSERT_EQ(got[i], 12) << "element " << i;
    queue.copyToHost(mine).wait();
    for (size_t i = 0; i < kGraphElements; ++i) ASSERT_EQ(mine.hostPtr()[i], static_cast<int32_t>(i) + 1);
  }
}

// A node that fails on one device mid-graph fails the launch with its message; the host
// callbacks after it do not run, the other devices' work does, and everything stays usable.
TEST_P(GraphAcrossDevicesTest, ANodeFailingOnOneDeviceFailsTheLaunchAndTheOthersGoOn) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    std::atomic<bool> failNow{true};
    std::atomic<int> after{0}, beside{0};
    std::vector<int32_t> values(kGraphElements, 1);
    CoherentArray<int32_t> a(values), b(kGraphElements), c(kGraphElements);
    Graph g;
    auto first = g.launch(addInt, Range(kGraphElements), {Arg::read(a), Arg::write(b), int32_t{1}});
    auto bad = g.hostCallback(
        [&] {
          if (failNow) throw std::runtime_error("the device went away");
        },
        {first});
    auto next = g.launch(addInt, Range(kGraphElements), {Arg::read(b), Arg::write(c), int32_t{10}}, {bad});
    auto last = g.hostCallback([&] { ++after; }, {next});
    auto other = g.hostCallback([&] { ++beside; });
    g.pin(first, device);
    g.pin(bad, p.device);
    g.pin(next, device);
    g.pin(last, device);
    g.pin(other, device);
    GraphExec exec = g.instantiate({device, p.device});
    Future f = queue.launch(exec);
    try {
      f.wait();
      ADD_FAILURE() << "the launch of a graph with a failing node succeeded";
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), XPURT_ERROR_EXECUTION_FAILED);
      EXPECT_NE(std::string(e.what()).find("the device went away"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("node 1"), std::string::npos) << e.what();
    }
    EXPECT_THROW(queue.sync(), Error);  // reported by the launching queue's sync too
    EXPECT_EQ(after.load(), 0) << "a host callback after the failed node ran";
    EXPECT_EQ(beside.load(), 1) << "an independent node did not run";
    std::vector<int32_t> got = hostValues(p.queue, c);
    for (size_t i = 0; i < kGraphElements; ++i) ASSERT_EQ(got[i], 12) << "the kernel after the failure";
    failNow = false;
    p.queue.launch(exec).wait();
    EXPECT_EQ(after.load(), 1);
    EXPECT_EQ(beside.load(), 2);
    queue.sync();
    p.queue.sync();
  }
}

TEST_P(GraphAcrossDevicesTest, BadPlacementsAreRefusedNamingTheNodeAndChangeNothing) {
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    Array<int32_t> mine(device, kGraphElements), out(device, kGraphElements);
    CoherentArray<int32_t> shared(kGraphElements);
    Graph g;
    auto run = g.launch(addInt, Range(kGraphElements), {Arg::read(mine), Arg::write(out), int32_t{1}});
    g.pin(run, p.device);
    expectRefused(
        [&] {
          g.instantiate({device, p.device});
        },
        XPURT_ERROR_INVALID_ARGUMENT, "is pinned to");
    expectRefused([&] { g.instantiate(device); }, XPURT_ERROR_INVALID_ARGUMENT,
                  "instantiate it for both");
    expectRefused([&] { g.instantiate(std::vector<Device>{device}); }, XPURT_ERROR_INVALID_ARGUMENT,
                  "not one of the 1 device");
    g.pin(run, Device());  // unpinned: it runs where its memory is
    EXPECT_TRUE(same(g.instantiate({p.device, device}).deviceOf(run), device));
    expectRefused([&] { g.instantiate(std::vector<Device>{p.device}); },
                  XPURT_ERROR_INVALID_ARGUMENT, "can run on none");
    expectRefused(
        [&] {
          g.instantiate({device, device});
        },
        XPURT_ERROR_INVALID_ARGUMENT, "list each device once");
    expectRefused([&] { g.instantiate(std::vector<Device>{}); }, XPURT_ERROR_INVALID_ARGUMENT,
                  "at least one device");
    expectRefused([&] { g.pin(GraphNode{7}, device); }, XPURT_ERROR_INVALID_ARGUMENT,
                  "is not a node of the graph");
    expectRefused([&] { g.hostCallback([] {}, {ViewAccess(shared, Access::Read)}); },
                  XPURT_ERROR_UNSUPPORTED, "cannot declare a COHERENT");
    GraphExec exec = g.instantiate(device);
    expectRefused([&] { exec.deviceOf(GraphNode{3}); }, XPURT_ERROR_INVALID_ARGUMENT,
                  "is not a node of the graph");
    expectRefused([&] { p.queue.launch(exec); }, XPURT_ERROR_INVALID_ARGUMENT,
                  "launch it on a queue of");
    // Everything still works.
    for (size_t i = 0; i < kGraphElements; ++i) mine.hostPtr()[i] = 41;
    queue.copyToDevice(mine);
    queue.launch(exec);
    queue.copyToHost(out).wait();
    for (size_t i = 0; i < kGraphElements; ++i) ASSERT_EQ(out.hostPtr()[i], 42);
  }
}

// Launches teach the time model, which is kept beside the JIT cache for later processes: a
// line for the kernel on each device it ran on.
TEST_P(GraphAcrossDevicesTest, LaunchesTeachTheTimeModelKeptBesideTheJitCache) {
  const char *dir = std::getenv("XPURT_CACHE_DIR");
  if (!dir || std::string(dir) == "off")
    GTEST_SKIP() << "XPURT_CACHE_DIR names no cache folder (ctest sets one): the model is kept "
                    "in memory only";
  for (Partner &p : partners()) {
    SCOPED_TRACE(GetParam().name + " with " + p.name);
    CoherentArray<int32_t> a(kGraphElements), b(kGraphElements), c(kGraphElements);
    {
      Graph g;
      auto here = g.launch(addInt, Range(kGraphElements), {Arg::read(a), Arg::write(b), int32_t{1}});
      auto there = g.launch(addInt, Range(kGraphElements), {Arg::read(b), Arg::write(c), int32_t{1}});
      g.pin(here, device);
      g.pin(there, p.device);
      GraphExec exec = g.instantiate({device, p.device});
      queue.launch(exec).wait();
      queue.sync();
    }  // saved as the executable graph goes
    std::ifstream file(std::string(dir) + "/kernel-times.txt");
    ASSERT_TRUE(file) << "no kernel-times.txt in " << dir;
    std::string line;
    std::getline(file, line);
    EXPECT_EQ(line, "xpurt kernel times 1");
    bool seenHere = false, seenThere = false;
    std::string hereName = device.info().name, thereName = p.device.info().name;
    while (std::getline(file, line)) {
      if (line.find(":add_int\t") == std::string::npos) continue;
      seenHere = seenHere || line.find("/" + hereName + "\t") != std::string::npos;
      seenThere = seenThere || line.find("/" + thereName + "\t") != std::string::npos;
    }
    EXPECT_TRUE(seenHere) << "no time of add_int on " << hereName;
    EXPECT_TRUE(seenThere) << "no time of add_int on " << thereName;
  }
}

XPURT_INSTANTIATE_CONFORMANCE(GraphAcrossDevicesTest);

}  // namespace
}  // namespace xpurt::test
