// Launch costs of the CUDA device against the CUDA driver used directly, in one run
// (docs/PERFORMANCE.md):
//
//   launch_enqueue/{xpurt_spirv,xpurt_ptx,raw_driver}  host cost of one empty launch, queued
//   launch_latency/{xpurt_spirv,raw_driver}            one empty launch and the wait for it
//   graph_chain/{xpurt,raw_cuda_graph}/N               a chain of N empty kernels, launched
//                                                      and waited for
//
// xpurt's on a default queue; the *_profiling ones on a queue whose futures carry device
// times, which costs each command two timed CUDA events.
#include "cuda_bench_setup.hpp"

#include <atomic>
#include <thread>
#include <vector>

namespace xpurt_bench_cuda {
namespace {

// Operations between the untimed syncs of an enqueue benchmark (and the events a raw-driver
// benchmark cycles through).
constexpr size_t kBatch = 4096;

// Runs op(n) per iteration, n counting from 0, and sync(n) outside the timing every kBatch
// operations and once at the end.
template <class Op, class Sync>
void enqueueLoop(benchmark::State &state, Op op, Sync sync) {
  size_t n = 0;
  for (auto _ : state) {
    op(n);
    if (++n % kBatch == 0) {
      state.PauseTiming();
      sync(n);
      state.ResumeTiming();
    }
  }
  sync(n);
}

void BM_LaunchEnqueue_XpurtSpirv(benchmark::State &state, bool profiled) {
  if (skip(state)) return;
  Setup &s = setup();
  xpurt::TaskQueue &queue = profiled ? *s.profiling : *s.queue;
  enqueueLoop(
      state, [&](size_t) { queue.launch(*s.emptySpirv, 1); }, [&](size_t) { queue.sync(); });
}
BENCHMARK_CAPTURE(BM_LaunchEnqueue_XpurtSpirv, plain, false)->Name("launch_enqueue/xpurt_spirv");
BENCHMARK_CAPTURE(BM_LaunchEnqueue_XpurtSpirv, profiling, true)
    ->Name("launch_enqueue/xpurt_spirv_profiling");

void BM_LaunchEnqueue_XpurtPtx(benchmark::State &state) {
  if (skip(state)) return;
  Setup &s = setup();
  enqueueLoop(
      state, [&](size_t) { s.queue->launch(*s.emptyPtx, 1); }, [&](size_t) { s.queue->sync(); });
}
BENCHMARK(BM_LaunchEnqueue_XpurtPtx)->Name("launch_enqueue/xpurt_ptx");

void BM_LaunchEnqueue_RawDriver(benchmark::State &state) {
  if (skip(state)) return;
  Setup &s = setup();
  void *params = nullptr;
  void *args[] = {&params};
  enqueueLoop(
      state,
      [&](size_t) { s.driver.launch(s.rawEmpty, 1, 1, 1, 1, 1, 1, 0, s.stream, args, nullptr); },
      [&](size_t) { s.driver.streamSync(s.stream); });
}
BENCHMARK(BM_LaunchEnqueue_RawDriver)->Name("launch_enqueue/raw_driver");

// The driver's share of xpurt's cost: a launch and an event record after it, as xpurt makes.
void BM_LaunchEnqueue_RawDriverAndEvent(benchmark::State &state) {
  if (skip(state)) return;
  Setup &s = setup();
  void *params = nullptr;
  void *args[] = {&params};
  std::vector<CUevent> events(kBatch);
  for (CUevent &e : events) s.driver.eventCreate(&e, CU_EVENT_DISABLE_TIMING);
  enqueueLoop(
      state,
      [&](size_t n) {
        s.driver.launch(s.rawEmpty, 1, 1, 1, 1, 1, 1, 0, s.stream, args, nullptr);
        s.driver.eventRecord(events[n % kBatch], s.stream);
      },
      [&](size_t) { s.driver.streamSync(s.stream); });
}
BENCHMARK(BM_LaunchEnqueue_RawDriverAndEvent)->Name("launch_enqueue/raw_driver_with_event");

// The floor of a design that completes each launch's event on a thread of its own, as xpurt's
// queues do: the launch and event record above, while a second thread waits for each event in
// turn (cuEventSynchronize, or cuEventQuery polling).
void BM_LaunchEnqueue_RawDriverAndWaiter(benchmark::State &state, bool poll) {
  if (skip(state)) return;
  Setup &s = setup();
  void *params = nullptr;
  void *args[] = {&params};
  std::vector<CUevent> events(kBatch);
  for (CUevent &e : events) s.driver.eventCreate(&e, CU_EVENT_DISABLE_TIMING);
  std::atomic<size_t> recorded{0}, waited{0};
  std::atomic<bool> stop{false};
  std::thread waiter([&] {
    s.driver.setCurrent(s.context);
    size_t next = 0;
    while (!stop.load()) {
      if (next == recorded.load(std::memory_order_acquire)) {
        std::this_thread::yield();
        continue;
      }
      CUevent e = events[next % kBatch];
      if (poll) {
        while (s.driver.eventQuery(e) == CUDA_ERROR_NOT_READY) std::this_thread::yield();
      } else {
        s.driver.eventSync(e);
      }
      waited.store(++next, std::memory_order_release);
    }
  });
  enqueueLoop(
      state,
      [&](size_t n) {
        s.driver.launch(s.rawEmpty, 1, 1, 1, 1, 1, 1, 0, s.stream, args, nullptr);
        s.driver.eventRecord(events[n % kBatch], s.stream);
        recorded.store(n + 1, std::memory_order_release);
      },
      [&](size_t n) {
        while (waited.load() != n) std::this_thread::yield();
      });
  stop = true;
  waiter.join();
}
BENCHMARK_CAPTURE(BM_LaunchEnqueue_RawDriverAndWaiter, sync, false)
    ->Name("launch_enqueue/raw_driver_with_event_and_sync_thread");
BENCHMARK_CAPTURE(BM_LaunchEnqueue_RawDriverAndWaiter, poll, true)
    ->Name("launch_enqueue/raw_driver_with_event_and_query_thread");

void BM_LaunchLatency_XpurtSpirv(benchmark::State &state, bool profiled) {
  if (skip(state)) return;
  Setup &s = setup();
  xpurt::TaskQueue &queue = profiled ? *s.profiling : *s.queue;
  for (auto _ : state) queue.launch(*s.emptySpirv, 1).wait();
}
BENCHMARK_CAPTURE(BM_LaunchLatency_XpurtSpirv, plain, false)
    ->Name("launch_latency/xpurt_spirv")
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_LaunchLatency_XpurtSpirv, profiling, true)
    ->Name("launch_latency/xpurt_spirv_profiling")
    ->UseRealTime();

void BM_LaunchLatency_RawDriver(benchmark::State &state) {
  if (skip(state)) return;
  Setup &s = setup();
  void *params = nullptr;
  void *args[] = {&params};
  for (auto _ : state) {
    s.driver.launch(s.rawEmpty, 1, 1, 1, 1, 1, 1, 0, s.stream, args, nullptr);
    s.driver.streamSync(s.stream);
  }
}
BENCHMARK(BM_LaunchLatency_RawDriver)->Name("launch_latency/raw_driver")->UseRealTime();

// ---- graphs: a chain of empty kernels, replayed, against a CUDA graph built directly ---------

// Seconds per node, which the console shows in ns.
void perNode(benchmark::State &state, int64_t nodes) {
  state.counters["per_node"] =
      benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}

void BM_GraphChain_Xpurt(benchmark::State &state, bool profiled) {
  if (skip(state)) return;
  Setup &s = setup();
  xpurt::TaskQueue &queue = profiled ? *s.profiling : *s.queue;
  xpurt::Array<uint64_t> params(*s.device, 1);
  xpurt::Graph graph;
  xpurt::Deps last;
  for (int64_t i = 0; i < state.range(0); ++i)
    last = {graph.launch(*s.emptyPtx, params, 1, 1, 1, last)};
  xpurt::GraphExec exec = graph.instantiate(*s.device);
  for (auto _ : state) queue.launch(exec).wait();
  perNode(state, state.range(0));
}
BENCHMARK_CAPTURE(BM_GraphChain_Xpurt, plain, false)
    ->Name("graph_chain/xpurt")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_GraphChain_Xpurt, profiling, true)
    ->Name("graph_chain/xpurt_profiling")
    ->Arg(10)
    ->UseRealTime();

void BM_GraphChain_RawCudaGraph(benchmark::State &state) {
  if (skip(state)) return;
  Setup &s = setup();
  const Driver &d = s.driver;
  if (!d.graphCreate || !d.graphAddKernelNode || !d.graphInstantiate || !d.graphLaunch) {
    state.SkipWithError("the driver has no graph API");
    return;
  }
  void *params = nullptr;
  void *args[] = {&params};
  CUgraph graph = nullptr;
  d.graphCreate(&graph, 0);
  CUgraphNode last = nullptr;
  for (int64_t i = 0; i < state.range(0); ++i) {
    CUDA_KERNEL_NODE_PARAMS p{};
    p.func = s.rawEmpty;
    p.gridDimX = p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = p.blockDimY = p.blockDimZ = 1;
    p.kernelParams = args;
    CUgraphNode node = nullptr;
    d.graphAddKernelNode(&node, graph, last ? &last : nullptr, last ? 1 : 0, &p);
    last = node;
  }
  CUgraphExec exec = nullptr;
  if (d.graphInstantiate(&exec, graph, 0) != CUDA_SUCCESS) {
    state.SkipWithError("cuGraphInstantiate failed");
    return;
  }
  for (auto _ : state) {
    d.graphLaunch(exec, s.stream);
    d.streamSync(s.stream);
  }
  perNode(state, state.range(0));
}
BENCHMARK(BM_GraphChain_RawCudaGraph)
    ->Name("graph_chain/raw_cuda_graph")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseRealTime();

}  // namespace
}  // namespace xpurt_bench_cuda

BENCHMARK_MAIN();
