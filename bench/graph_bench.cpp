// Task graphs of empty nodes on the CPU device, side by side with the same DAGs in oneTBB's flow
// graph (continue_node<continue_msg> with empty bodies), so what is measured is the scheduling.
//
//   replay_chain/*/N        a chain of N nodes, launched and waited for
//   replay_fanout/*/N       one root, N independent nodes, one sink (N + 2 nodes)
//   replay_wavefront32/*    32x32, node (i,j) after (i-1,j) and (i,j-1) (1024 nodes)
//   replay_fixed/*          one node: the fixed cost of a replay
//   build_chain/*/1000      making the graph, its nodes and edges (xpurt: and instantiating)
//   build_wavefront32/*     the same for the wavefront
//   build_*/xpurt_batch     the same, the nodes made in one call (xpurt::GraphBatch)
//
// ns_per_node is the wall time of an iteration over the graph's nodes. Times are wall-clock
// (UseRealTime): the work runs on worker threads and xpurt's host thread mostly waits, so its
// CPU time would say little.
#include <xpurt/xpurt.hpp>

#include <benchmark/benchmark.h>
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/task_arena.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Runtime {
  xpurt::Device device{xpurt::DeviceType::CPU};
  // Profiling off: the futures' device times would be extra work per launch.
  xpurt::TaskQueue queue{device, xpurt::QueueOptions{xpurt::Engine::Any, false, false}};
  // As many threads as the device has, the caller's among them as for the device's arena.
  tbb::task_arena arena{static_cast<int>(device.info().computeUnits)};
};

Runtime &runtime() {
  static Runtime rt;
  return rt;
}

// A DAG as each node's predecessors; each node comes after them, and node 0 is the only root.
using Dag = std::vector<std::vector<uint32_t>>;

Dag chain(const benchmark::State &state) {
  Dag dag(static_cast<size_t>(state.range(0)));
  for (uint32_t i = 1; i < dag.size(); ++i) dag[i] = {i - 1};
  return dag;
}

Dag fanOut(const benchmark::State &state) {
  const auto width = static_cast<uint32_t>(state.range(0));
  Dag dag(width + 2);
  for (uint32_t i = 1; i <= width; ++i) {
    dag[i] = {0};
    dag[width + 1].push_back(i);
  }
  return dag;
}

Dag wavefront32(const benchmark::State &) {
  constexpr uint32_t kSide = 32;
  Dag dag(kSide * kSide);
  for (uint32_t i = 0; i < kSide; ++i)
    for (uint32_t j = 0; j < kSide; ++j) {
      uint32_t node = i * kSide + j;
      if (i > 0) dag[node].push_back(node - kSide);
      if (j > 0) dag[node].push_back(node - 1);
    }
  return dag;
}

Dag single(const benchmark::State &) {
  return Dag(1);
}

using MakeDag = Dag (*)(const benchmark::State &);

// Set from the loop's own wall time: Google Benchmark 1.7 cannot scale a counter, and a
// kIsIterationInvariantRate | kInvert counter is in seconds (207ns in the console but 2.07e-07
// in JSON, and a value scaled by 1e9 prints as "207s").
void setNsPerNode(benchmark::State &state, Clock::duration elapsed, size_t nodes) {
  double ns = std::chrono::duration<double, std::nano>(elapsed).count();
  state.counters["ns_per_node"] =
      ns / (static_cast<double>(state.iterations()) * static_cast<double>(nodes));
}

// The DAG as an xpurt graph with explicit dependencies, instantiated for the device; with a
// batch, its nodes are made in one call.
struct XpurtDag {
  xpurt::Graph graph;
  xpurt::GraphExec exec;

  XpurtDag(const Dag &dag, const xpurt::Device &device, xpurt::GraphBatch *batch = nullptr) {
    if (batch) batch->clear();
    std::vector<xpurt::GraphNode> nodes;
    nodes.reserve(dag.size());
    xpurt::Deps deps;
    for (const std::vector<uint32_t> &preds : dag) {
      deps.clear();
      for (uint32_t p : preds) deps.push_back(nodes[p]);
      nodes.push_back(batch ? batch->empty(deps) : graph.empty(deps));
    }
    if (batch) graph.add(*batch);
    exec = graph.instantiate(device);
  }
};

// The DAG as a flow graph; made inside the arena, which the graph then runs in.
struct FlowDag {
  using Node = tbb::flow::continue_node<tbb::flow::continue_msg>;
  tbb::flow::graph g;
  std::deque<Node> nodes;  // nodes do not move; destroyed before g

  explicit FlowDag(const Dag &dag) {
    for (const std::vector<uint32_t> &preds : dag) {
      nodes.emplace_back(g, [](const tbb::flow::continue_msg &) {});
      for (uint32_t p : preds) tbb::flow::make_edge(nodes[p], nodes.back());
    }
  }
  void run() {
    nodes.front().try_put(tbb::flow::continue_msg());
    g.wait_for_all();
  }
};

void replayXpurt(benchmark::State &state, MakeDag make) {
  Runtime &rt = runtime();
  Dag dag = make(state);
  XpurtDag graph(dag, rt.device);
  auto start = Clock::now();
  for (auto _ : state) rt.queue.launch(graph.exec).wait();
  setNsPerNode(state, Clock::now() - start, dag.size());
}

void replayFlow(benchmark::State &state, MakeDag make) {
  Runtime &rt = runtime();
  Dag dag = make(state);
  Clock::duration elapsed{};
  rt.arena.execute([&] {
    FlowDag flow(dag);
    auto start = Clock::now();
    for (auto _ : state) flow.run();
    elapsed = Clock::now() - start;
  });
  setNsPerNode(state, elapsed, dag.size());
}

// Destruction is left out of the time (paused), so that both sides time only the making.
// batched: the nodes made in one call, the batch reused as a program building many graphs
// would.
void buildXpurt(benchmark::State &state, MakeDag make, bool batched) {
  Runtime &rt = runtime();
  Dag dag = make(state);
  xpurt::GraphBatch batch;
  std::optional<XpurtDag> graph;
  Clock::duration elapsed{};
  for (auto _ : state) {
    auto start = Clock::now();
    graph.emplace(dag, rt.device, batched ? &batch : nullptr);
    elapsed += Clock::now() - start;
    state.PauseTiming();
    graph.reset();
    state.ResumeTiming();
  }
  setNsPerNode(state, elapsed, dag.size());
}

void buildFlow(benchmark::State &state, MakeDag make) {
  Runtime &rt = runtime();
  Dag dag = make(state);
  Clock::duration elapsed{};
  rt.arena.execute([&] {
    std::optional<FlowDag> flow;
    for (auto _ : state) {
      auto start = Clock::now();
      flow.emplace(dag);
      elapsed += Clock::now() - start;
      state.PauseTiming();
      flow.reset();
      state.ResumeTiming();
    }
  });
  setNsPerNode(state, elapsed, dag.size());
}

BENCHMARK_CAPTURE(replayXpurt, chain, chain)
    ->Name("replay_chain/xpurt")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseRealTime();
BENCHMARK_CAPTURE(replayFlow, chain, chain)
    ->Name("replay_chain/tbb_flow")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseRealTime();
BENCHMARK_CAPTURE(replayXpurt, fanout, fanOut)
    ->Name("replay_fanout/xpurt")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseRealTime();
BENCHMARK_CAPTURE(replayFlow, fanout, fanOut)
    ->Name("replay_fanout/tbb_flow")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseRealTime();
BENCHMARK_CAPTURE(replayXpurt, wavefront32, wavefront32)
    ->Name("replay_wavefront32/xpurt")
    ->UseRealTime();
BENCHMARK_CAPTURE(replayFlow, wavefront32, wavefront32)
    ->Name("replay_wavefront32/tbb_flow")
    ->UseRealTime();
BENCHMARK_CAPTURE(replayXpurt, fixed, single)->Name("replay_fixed/xpurt")->UseRealTime();
BENCHMARK_CAPTURE(replayFlow, fixed, single)->Name("replay_fixed/tbb_flow")->UseRealTime();

BENCHMARK_CAPTURE(buildXpurt, chain, chain, false)
    ->Name("build_chain/xpurt")
    ->Arg(1000)
    ->UseRealTime();
BENCHMARK_CAPTURE(buildXpurt, chain_batch, chain, true)
    ->Name("build_chain/xpurt_batch")
    ->Arg(1000)
    ->UseRealTime();
BENCHMARK_CAPTURE(buildFlow, chain, chain)->Name("build_chain/tbb_flow")->Arg(1000)->UseRealTime();
BENCHMARK_CAPTURE(buildXpurt, wavefront32, wavefront32, false)
    ->Name("build_wavefront32/xpurt")
    ->UseRealTime();
BENCHMARK_CAPTURE(buildXpurt, wavefront32_batch, wavefront32, true)
    ->Name("build_wavefront32/xpurt_batch")
    ->UseRealTime();
BENCHMARK_CAPTURE(buildFlow, wavefront32, wavefront32)
    ->Name("build_wavefront32/tbb_flow")
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
