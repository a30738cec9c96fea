// Graphs on every device: nodes and their dependencies (explicit and inferred from declared
// memory: each hazard kind, disjoint ranges independent), replays, rebinding, host callbacks
// kept alive and ordered across replays, capture from in-order and out-of-order queues,
// child graphs, failures and the errors of bad use.
#include "device_param.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xpurt::test {
namespace {

class GraphTest : public DeviceTest {
 protected:
  static constexpr size_t kN = 256;
  static constexpr size_t kBytes = kN * sizeof(int32_t);

  Module spirv{device, "xpurt_test_spirv"};
  Kernel addInt{spirv, "add_int"};
  Array<int32_t> x{device, kN}, y{device, kN}, z{device, kN};

  void setHost(const Array<int32_t> &a, int32_t value) {
    for (size_t i = 0; i < kN; ++i) a.hostPtr()[i] = value + static_cast<int32_t>(i);
  }
  void expectHost(const Array<int32_t> &a, int32_t value, const char *what) {
    for (size_t i = 0; i < kN; ++i)
      ASSERT_EQ(a.hostPtr()[i], value + static_cast<int32_t>(i)) << what << " at " << i;
  }
  // in -> out + add, declaring both views.
  GraphNode add(Graph &g, const Array<int32_t> &in, const Array<int32_t> &out, int32_t value,
                const Deps &deps = {}) {
    return g.launch(addInt, Range(kN), {Arg::read(in), Arg::write(out), value}, deps);
  }
  // A host callback that appends n to order (under m) when it runs.
  static std::function<void()> noteRun(std::vector<int> &order, std::mutex &m, int n) {
    return [&order, &m, n] {
      std::lock_guard lock(m);
      order.push_back(n);
    };
  }
  static bool hasEdge(const std::string &dot, int from, int to) {
    return dot.find("n" + std::to_string(from) + " -> n" + std::to_string(to) + ";") !=
           std::string::npos;
  }
};

TEST_P(GraphTest, CopyLaunchCopyReplaysWithInferredDependencies) {
  Graph g;
  g.copyToDevice(x);
  add(g, x, y, 10);
  add(g, y, z, 100);
  g.copyToHost(z);
  EXPECT_EQ(g.size(), 4u);
  GraphExec exec = g.instantiate(device);
  for (int replay = 0; replay < 5; ++replay) {
    setHost(x, replay * 1000);
    Future f = queue.launch(exec);
    f.wait();
    expectHost(z, replay * 1000 + 110, "replay");
  }
  queue.sync();
}

TEST_P(GraphTest, EachHazardKindOrdersAndDisjointRangesDoNot) {
  Graph g;
  auto w0 = g.fill(x, int32_t{1}, 0, kBytes / 2);            // 0: writes x[0, half)
  auto raw = g.copyMemoryView(y, x, 0, 0, kBytes / 2);       // 1: reads x[0, half): RAW
  auto war = g.fill(x, int32_t{2}, 0, kBytes / 4);           // 2: writes what 1 read: WAR
  auto waw = g.fill(x, int32_t{3}, 0, kBytes / 4);           // 3: writes what 2 wrote: WAW
  auto far = g.fill(x, int32_t{4}, kBytes / 2, kBytes / 2);  // 4: x[half, end): disjoint
  auto rr = g.copyMemoryView(z, y, 0, 0, kBytes / 2);        // 5: reads y after 1 wrote it
  auto rr2 = g.copyMemoryView(z, y, 0, 0, kBytes / 2);       // 6: reads y too; WAW on z
  std::string dot = g.dot();
  EXPECT_TRUE(hasEdge(dot, w0.id, raw.id)) << dot;   // read after write
  EXPECT_TRUE(hasEdge(dot, raw.id, war.id)) << dot;  // write after read
  EXPECT_TRUE(hasEdge(dot, war.id, waw.id)) << dot;  // write after write
  for (int n = 0; n < 7; ++n) {
    EXPECT_FALSE(hasEdge(dot, n, far.id)) << "disjoint range ordered after " << n << "\n" << dot;
    EXPECT_FALSE(hasEdge(dot, far.id, n)) << dot;
  }
  EXPECT_TRUE(hasEdge(dot, raw.id, rr.id)) << dot;
  EXPECT_TRUE(hasEdge(dot, rr.id, rr2.id)) << dot;  // both write z[0, half)
  // Two reads of the same bytes are not ordered against each other.
  Graph reads;
  reads.fill(x, int32_t{5});
  auto r1 = reads.copyMemoryView(y, x);
  auto r2 = reads.copyMemoryView(z, x);
  std::string readDot = reads.dot();
  EXPECT_FALSE(hasEdge(readDot, r1.id, r2.id)) << readDot;

  GraphExec exec = g.instantiate(device);
  queue.launch(exec).wait();
  TaskQueue q(device);
  q.copyToHost(x);
  q.copyToHost(z);
  q.sync();
  for (size_t i = 0; i < kN / 4; ++i) ASSERT_EQ(x.hostPtr()[i], 3) << i;
  for (size_t i = kN / 4; i < kN / 2; ++i) ASSERT_EQ(x.hostPtr()[i], 1) << i;
  for (size_t i = kN / 2; i < kN; ++i) ASSERT_EQ(x.hostPtr()[i], 4) << i;
  for (size_t i = 0; i < kN / 2; ++i) ASSERT_EQ(z.hostPtr()[i], 1) << i;  // the first fill's
}

TEST_P(GraphTest, ExplicitDependenciesOrderNodesThatDeclareNothing) {
  std::vector<int> order;
  std::mutex m;
  auto log = [&](int n) { return noteRun(order, m, n); };
  Graph g;
  auto a = g.hostCallback(log(0));
  auto b = g.hostCallback(log(1), {a});
  auto c = g.hostCallback(log(2), {a});
  g.hostCallback(log(3), {b, c});
  std::string dot = g.dot();
  EXPECT_TRUE(hasEdge(dot, 0, 1) && hasEdge(dot, 0, 2) && hasEdge(dot, 1, 3) && hasEdge(dot, 2, 3))
      << dot;
  EXPECT_FALSE(hasEdge(dot, 1, 2) || hasEdge(dot, 2, 1)) << dot;
  GraphExec exec = g.instantiate(device);
  const int replays = 20;
  for (int r = 0; r < replays; ++r) queue.launch(exec);
  queue.sync();
  ASSERT_EQ(order.size(), 4u * replays);
  for (int r = 0; r < replays; ++r) {
    const int *o = order.data() + 4 * r;
    EXPECT_EQ(o[0], 0) << "replay " << r;
    EXPECT_TRUE((o[1] == 1 && o[2] == 2) || (o[1] == 2 && o[2] == 1)) << "replay " << r;
    EXPECT_EQ(o[3], 3) << "replay " << r;
  }
}

// An edge added after both nodes may make an earlier node run after a later one: the graph is
// then not in the order its nodes were added, which instantiation sorts out.
TEST_P(GraphTest, DependenciesAddedLaterMayPointToEarlierNodes) {
  std::vector<int> order;
  std::mutex m;
  auto log = [&](int n) { return noteRun(order, m, n); };
  Graph g;
  auto first = g.hostCallback(log(0));
  auto second = g.hostCallback(log(1));
  g.hostCallback(log(2), {first});
  g.addDependency(second, first);  // node 1 now runs before node 0
  EXPECT_TRUE(hasEdge(g.dot(), 1, 0)) << g.dot();
  GraphExec exec = g.instantiate(device);
  const int replays = 10;
  for (int r = 0; r < replays; ++r) queue.launch(exec);
  queue.sync();
  ASSERT_EQ(order.size(), 3u * replays);
  for (int r = 0; r < replays; ++r) {
    const int *o = order.data() + 3 * r;
    EXPECT_TRUE(o[0] == 1 && o[1] == 0 && o[2] == 2)
        << "replay " << r << ": " << o[0] << ", " << o[1] << ", " << o[2];
  }
}

TEST_P(GraphTest, HostCallbacksLiveAsLongAsTheGraph) {
  auto state = std::make_shared<int>(0);
  std::weak_ptr<int> alive = state;
  {
    GraphExec exec;
    {
      Graph g;
      g.hostCallback([state] { ++*state; });
      exec = g.instantiate(device);
    }
    state.reset();
    for (int r = 0; r < 3; ++r) queue.launch(exec).wait();
    ASSERT_FALSE(alive.expired()) << "the callback's state went with the graph";
    EXPECT_EQ(*alive.lock(), 3);
    queue.sync();
  }
  // A GPU queue may let go of what completed commands held a little after they completed.
  EXPECT_TRUE(eventually([&] { return alive.expired(); }))
      << "the callback's state outlived every graph that could call it";
}

TEST_P(GraphTest, RebindingViewsAndArguments) {
  Graph g;
  g.copyToDevice(x);
  auto node = add(g, x, y, 7);
  g.copyToHost(y);
  GraphExec exec = g.instantiate(device);
  setHost(x, 0);
  queue.launch(exec).wait();
  expectHost(y, 7, "as built");

  Array<int32_t> x2(device, kN), y2(device, kN);
  exec.rebind(x, x2);
  exec.rebind(y, y2);
  exec.setArg(node, 2, int32_t{50});
  setHost(x2, 1000);
  setHost(y, -1);  // untouched from now on
  queue.launch(exec).wait();
  expectHost(y2, 1050, "rebound");
  expectHost(y, -1, "the old output");

  // The view given at rebinding: a later rebinding names it, not the first one.
  EXPECT_THROW(exec.rebind(x, x2), Error);
  Array<int32_t> small(device, kN / 2);
  try {
    exec.rebind(x2, small);
    ADD_FAILURE() << "a view of another size was accepted";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("same size"), std::string::npos) << e.what();
  }
  // An argument of the wrong size, an index past the last, a node that is not a launch.
  EXPECT_THROW(exec.setArg(node, 2, int64_t{1}), Error);
  EXPECT_THROW(exec.setArg(node, 3, int32_t{1}), Error);
  EXPECT_THROW(exec.setArg(GraphNode{0}, 0, int32_t{1}), Error);
  // Still usable, with the last good bindings.
  setHost(x2, 2000);
  queue.launch(exec).wait();
  expectHost(y2, 2050, "after refused rebindings");
}

TEST_P(GraphTest, CaptureFromAnInOrderQueue) {
  Graph g;
  TaskQueue q(device);
  q.beginCapture(g);
  Future f = q.copyToDevice(x);
  EXPECT_FALSE(f) << "a captured command hands back no future";
  q.launch(addInt, Range(kN), {Arg::read(x), Arg::write(y), int32_t{3}});
  q.launch(addInt, Range(kN), {Arg::read(y), Arg::write(z), int32_t{4}});
  q.copyToHost(z);
  EXPECT_THROW(q.sync(), Error);  // nothing captured can be waited for
  q.endCapture();
  EXPECT_EQ(g.size(), 4u);
  std::string dot = g.dot();
  EXPECT_TRUE(hasEdge(dot, 0, 1) && hasEdge(dot, 1, 2) && hasEdge(dot, 2, 3)) << dot;
  setHost(z, -5);
  q.sync();
  expectHost(z, -5, "a captured command ran");
  GraphExec exec = g.instantiate(device);
  for (int r = 0; r < 3; ++r) {
    setHost(x, 100 * r);
    q.launch(exec).wait();
    expectHost(z, 100 * r + 7, "replay of the capture");
  }
}

TEST_P(GraphTest, CaptureFromAnOutOfOrderQueueKeepsItsOrdering) {
  Graph g;
  TaskQueue q(device, {Engine::Any, true});
  q.beginCapture(g);
  q.copyToDevice(x);                                                       // 0
  q.copyToDevice(z);                                                       // 1: independent
  q.launch(addInt, Range(kN), {Arg::read(x), Arg::write(y), int32_t{1}});  // 2: after 0
  q.barrier();                                                             // 3: after 0, 1, 2
  q.copyToHost(y);                                                         // 4: after 3
  q.endCapture();
  std::string dot = g.dot();
  EXPECT_TRUE(hasEdge(dot, 0, 2)) << dot;
  EXPECT_FALSE(hasEdge(dot, 0, 1) || hasEdge(dot, 1, 2)) << dot;
  EXPECT_TRUE(hasEdge(dot, 1, 3) && hasEdge(dot, 2, 3) && hasEdge(dot, 3, 4)) << dot;
  GraphExec exec = g.instantiate(device);
  setHost(x, 40);
  q.launch(exec).wait();
  expectHost(y, 41, "out-of-order capture");
}

TEST_P(GraphTest, ChildGraphsAndWaitsOnOtherQueues) {
  Graph child;
  add(child, x, y, 1);
  add(child, y, z, 2);
  Graph g;
  auto up = g.copyToDevice(x);
  auto inner = g.child(child, {up});
  g.copyToHost(z, {inner});
  child.empty();  // later changes to the child do not show in the parent
  EXPECT_EQ(g.size(), 3u);
  EXPECT_NE(g.dot().find("subgraph cluster_n1"), std::string::npos) << g.dot();

  // A wait on a future of another queue holds the graph back.
  TaskQueue other(device);
  std::atomic<bool> open{false};
  Future gate = other.hostCallback([&] {
    while (!open.load()) std::this_thread::yield();
  });
  Graph waiting;
  auto w = waiting.wait({gate});
  waiting.child(g, {w});
  GraphExec exec = waiting.instantiate(device);
  setHost(x, 500);
  Future f = queue.launch(exec);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(f.valid()) << "the graph ran before the future it waits for";
  open = true;
  f.wait();
  expectHost(z, 503, "after the wait");
  other.sync();
}

// The contract of xpurt.h, the same on every device: after a failed node its host callbacks do
// not run, its kernels, copies and fills do, and so does everything not after it.
TEST_P(GraphTest, AFailedNodeFailsTheLaunchSkipsTheCallbacksAfterItAndRunsTheRest) {
  std::atomic<bool> failNow{true};
  std::atomic<int> after{0}, afterDevice{0}, beside{0};
  Graph g;
  auto bad = g.hostCallback([&] {
    if (failNow) throw std::runtime_error("the input was bad");
  });
  auto next = g.hostCallback([&] { ++after; }, {bad});
  g.hostCallback([&] { ++after; }, {next});
  // Device work after it: a copy in, a kernel, a copy out, then a callback again.
  auto in = g.copyToDevice(x, {bad});
  auto k = add(g, x, y, 10, {in});
  auto out = g.copyToHost(y, {k});
  g.hostCallback([&] { ++afterDevice; }, {out});
  g.hostCallback([&] { ++beside; });
  GraphExec exec = g.instantiate(device);
  setHost(x, 1000);
  setHost(y, 0);
  Future f = queue.launch(exec);
  try {
    f.wait();
    ADD_FAILURE() << "the launch of a graph with a failing node succeeded";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_EXECUTION_FAILED);
    EXPECT_NE(std::string(e.what()).find("the input was bad"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("node 0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(queue.sync(), Error);  // reported by the next sync too
  EXPECT_EQ(after.load(), 0) << "a host callback after the failed node ran";
  EXPECT_EQ(afterDevice.load(), 0) << "a host callback after the failed node's device work ran";
  expectHost(y, 1010, "the copies and kernel after the failed node");
  EXPECT_EQ(beside.load(), 1) << "an independent node did not run";
  // The queue and the graph stay usable.
  failNow = false;
  setHost(x, 2000);
  queue.launch(exec).wait();
  queue.sync();
  EXPECT_EQ(after.load(), 2);
  EXPECT_EQ(afterDevice.load(), 1);
  expectHost(y, 2010, "the second launch");
  EXPECT_EQ(beside.load(), 2);
}

// A node of many successors (the CPU counts them down in parallel): all of them run after it,
// and none does after it fails.
TEST_P(GraphTest, AWideFanOutRunsAfterItsRootAndNotAfterItFails) {
  constexpr int kWide = 100;
  std::atomic<bool> failNow{false}, rootDone{false};
  std::atomic<int> ran{0}, early{0};
  Graph g;
  auto root = g.hostCallback([&] {
    if (failNow) throw std::runtime_error("the root failed");
    rootDone = true;
  });
  for (int i = 0; i < kWide; ++i)
    g.hostCallback(
        [&] {
          if (!rootDone) ++early;
          ++ran;
        },
        {root});
  GraphExec exec = g.instantiate(device);
  queue.launch(exec).wait();
  EXPECT_EQ(ran.load(), kWide);
  EXPECT_EQ(early.load(), 0) << "a successor ran before the root";
  failNow = true;
  rootDone = false;
  EXPECT_THROW(queue.launch(exec).wait(), Error);
  EXPECT_THROW(queue.sync(), Error);
  EXPECT_EQ(ran.load(), kWide) << "a successor of the failed root ran";
}

TEST_P(GraphTest, ErrorsLeaveEverythingUsable) {
  Graph g;
  auto a = g.empty();
  auto b = g.empty({a});
  auto c = g.empty({b});
  // An unknown dependency, a cycle, a graph inside itself.
  EXPECT_THROW(g.empty({GraphNode{7}}), Error);
  try {
    g.addDependency(c, a);
    ADD_FAILURE() << "a cycle was accepted";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
  }
  EXPECT_THROW(g.child(g), Error);
  // Bad nodes are refused as a queue refuses their commands.
  EXPECT_THROW(g.copyToDevice(x, kBytes, 4), Error);
  EXPECT_THROW(g.launch(addInt, Range(kN), {Arg::read(x), Arg::write(y)}), Error);
  EXPECT_EQ(g.size(), 3u);
  // An executable graph runs on the queues of its device only.
  Device other(DeviceType::CPU, 0, XPURT_DEVICE_FLAG_SEPARATE_MEMORY);
  if (other.handle() != device.handle()) {
    GraphExec exec = g.instantiate(device);
    TaskQueue elsewhere(other);
    EXPECT_THROW(elsewhere.launch(exec), Error);
  }
  // Nodes of another device's kernels and views are refused at instantiation.
  if (!onCpu()) {
    Graph cpuGraph;
    Device cpu(DeviceType::CPU, 0);
    Array<int32_t> v(cpu, kN);
    cpuGraph.copyToDevice(v);
    try {
      cpuGraph.instantiate(device);
      ADD_FAILURE() << "a CPU view was accepted on " << GetParam().name;
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find("node 0"), std::string::npos) << e.what();
    }
  }
  // Capture: twice, end without begin, launching a graph while capturing.
  Graph captured;
  GraphExec exec = g.instantiate(device);
  queue.beginCapture(captured);
  EXPECT_THROW(queue.beginCapture(captured), Error);
  EXPECT_THROW(queue.launch(exec), Error);
  queue.endCapture();
  EXPECT_THROW(queue.endCapture(), Error);
  // Still usable.
  g.addDependency(a, c);
  queue.launch(exec).wait();
  queue.sync();
}

TEST_P(GraphTest, CApiDotExportAndNullHandles) {
  XpurtGraph g = nullptr;
  ASSERT_EQ(xpurtNewGraph(&g), XPURT_SUCCESS);
  XpurtGraphNode a = 0, b = 0;
  ASSERT_EQ(xpurtGraphAddEmpty(g, 0, nullptr, &a), XPURT_SUCCESS);
  ASSERT_EQ(xpurtGraphAddEmpty(g, 1, &a, &b), XPURT_SUCCESS);
  EXPECT_EQ(b, 1u);
  EXPECT_EQ(xpurtGraphAddEmpty(g, 1, nullptr, nullptr), XPURT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(xpurtGraphAddEmpty(nullptr, 0, nullptr, nullptr), XPURT_ERROR_INVALID_HANDLE);
  size_t size = 0;
  ASSERT_EQ(xpurtGraphExportDot(g, nullptr, &size), XPURT_SUCCESS);
  std::string text(size, '\0');
  size_t tooSmall = 4;
  EXPECT_EQ(xpurtGraphExportDot(g, text.data(), &tooSmall), XPURT_ERROR_OUT_OF_RANGE);
  EXPECT_EQ(tooSmall, size);
  ASSERT_EQ(xpurtGraphExportDot(g, text.data(), &size), XPURT_SUCCESS);
  EXPECT_EQ(text.rfind("digraph", 0), 0u) << text;
  EXPECT_NE(text.find("n0 -> n1;"), std::string::npos) << text;
  XpurtGraphExec exec = nullptr;
  EXPECT_EQ(xpurtGraphInstantiate(g, nullptr, &exec), XPURT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(xpurtQueueLaunchGraph(queue.handle(), nullptr, nullptr), XPURT_ERROR_INVALID_HANDLE);
  ASSERT_EQ(xpurtGraphInstantiate(g, device.handle(), &exec), XPURT_SUCCESS);
  ASSERT_EQ(xpurtRelease(g), XPURT_SUCCESS);  // the executable graph needs it no more
  XpurtFuture f = nullptr;
  ASSERT_EQ(xpurtQueueLaunchGraph(queue.handle(), exec, &f), XPURT_SUCCESS);
  EXPECT_EQ(xpurtFutureWait(f), XPURT_SUCCESS);
  EXPECT_EQ(xpurtRelease(f), XPURT_SUCCESS);
  EXPECT_EQ(xpurtRelease(exec), XPURT_SUCCESS);
}

// Independent branches run at the same time: two callbacks each wait for the other to start.
TEST_P(GraphTest, IndependentBranchesRunConcurrently) {
  std::string backend = device.info().backend;
  if (backend == "level_zero")
    GTEST_SKIP() << "a Level Zero graph's host callbacks run one at a time on the launching "
                    "queue's completion thread";
  if (backend == "cuda")
    GTEST_SKIP() << "a CUDA graph's host nodes run one at a time on the driver's thread";
  if (device.info().computeUnits < 2) GTEST_SKIP() << "one CPU thread: nothing runs side by side";
  std::atomic<int> arrived{0};
  std::atomic<bool> met[2] = {false, false};
  Graph g;
  auto root = g.empty();
  for (int i = 0; i < 2; ++i)
    g.hostCallback(
        [&, i] {
          ++arrived;
          met[i] = eventually([&] { return arrived.load() == 2; });
        },
        {root});
  GraphExec exec = g.instantiate(device);
  queue.launch(exec).wait();
  EXPECT_TRUE(met[0] && met[1]) << "the two branches did not run side by side";
}

// Independent kernels run at the same time: each releases the other, so one at a time would
// hold the first until its gate gives up (about 20 s on a CPU, far longer on a GPU).
TEST_P(GraphTest, IndependentKernelsRunConcurrently) {
  if (onCpu() && device.info().computeUnits < 2)
    GTEST_SKIP() << "one CPU thread: nothing runs side by side";
  Array<int32_t, AllocType::Shared> flags(device, 2);
  flags.hostPtr()[0] = flags.hostPtr()[1] = 0;
  Array<GateParams> first(device), second(device);
  *first.hostPtr() = {flags.devicePtr(), flags.devicePtr() + 1};
  *second.hostPtr() = {flags.devicePtr() + 1, flags.devicePtr()};
  queue.copyToDevice(first);
  queue.copyToDevice(second);
  queue.sync();
  Kernel gate(module, "gate");
  Graph g;
  auto root = g.empty();
  g.launch(gate, first, 1, 1, 1, {root});
  g.launch(gate, second, 1, 1, 1, {root});
  GraphExec exec = g.instantiate(device);
  auto start = std::chrono::steady_clock::now();
  queue.launch(exec).wait();
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 5.0) << "the two branches did not run side by side";
  EXPECT_EQ(flags.hostPtr()[0], 1);
  EXPECT_EQ(flags.hostPtr()[1], 1);
}

XPURT_INSTANTIATE_CONFORMANCE(GraphTest);

}  // namespace
}  // namespace xpurt::test
