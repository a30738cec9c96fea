// Chunked copy/compute overlap (samples/pipeline) on the CPU device with device memory of its
// own: the in-order queue is the baseline; the overlapped ways run the same commands.
//
//   pipeline/in_order                 one in-order queue, no overlap
//   pipeline/copy_and_compute_queues  a copy queue and a compute queue with cross-queue waits
//   pipeline/out_of_order             one out-of-order queue with declared accesses
//   pipeline/graph                    replays of a graph built and instantiated once
#include "pipeline.hpp"

#include <benchmark/benchmark.h>

namespace {

pipeline::Pipeline &instance() {
  static xpurt::Device device(xpurt::DeviceType::CPU, 0, XPURT_DEVICE_FLAG_SEPARATE_MEMORY);
  static pipeline::Pipeline p(device, pipeline::Config{});
  // Compiles the kernel, touches every page once and builds the graph, so the graph way times
  // replays alone.
  static bool warm = (p.inOrder(), p.instantiateGraph(), true);
  (void)warm;
  return p;
}

template <void (pipeline::Pipeline::*way)()>
void run(benchmark::State &state) {
  pipeline::Pipeline &p = instance();
  for (auto _ : state) {
    state.PauseTiming();
    p.reset();
    state.ResumeTiming();
    (p.*way)();
  }
  std::string wrong = p.check();
  if (!wrong.empty()) state.SkipWithError(wrong.c_str());
}

}  // namespace

BENCHMARK(run<&pipeline::Pipeline::inOrder>)
    ->Name("pipeline/in_order")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(run<&pipeline::Pipeline::copyAndComputeQueues>)
    ->Name("pipeline/copy_and_compute_queues")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(run<&pipeline::Pipeline::outOfOrder>)
    ->Name("pipeline/out_of_order")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(run<&pipeline::Pipeline::graph>)
    ->Name("pipeline/graph")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
