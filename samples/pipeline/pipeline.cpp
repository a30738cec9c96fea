// pipeline: chunked copy/compute overlap on the default device (XPURT_DEVICE picks another).
// Runs the same work four ways — one in-order queue, a copy queue beside a compute queue, one
// out-of-order queue, and a graph recorded once and replayed — checks every way's results and
// prints how much each overlapped.
// On the CPU, XPURT_CPU_DEVICE_MEMORY=separate gives device views storage of their own, so
// copies cost what they would on a GPU.
//
//   pipeline_sample [chunks] [elements per chunk] [kernel iterations per element]
#include "pipeline.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>

using Clock = std::chrono::steady_clock;

// The median of five runs, in seconds, each after a reset; fails if a run's results are wrong.
static double timeWay(pipeline::Pipeline &p, const char *name, const std::function<void()> &way) {
  std::vector<double> runs;
  for (int r = 0; r < 5; ++r) {
    p.reset();
    auto start = Clock::now();
    way();
    runs.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    std::string wrong = p.check();
    if (!wrong.empty()) {
      std::fprintf(stderr, "%s: wrong result: %s\n", name, wrong.c_str());
      std::exit(1);
    }
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

int main(int argc, char **argv) try {
  pipeline::Config config;
  if (argc > 1) config.chunks = std::strtoul(argv[1], nullptr, 10);
  if (argc > 2) config.chunkElements = std::strtoul(argv[2], nullptr, 10);
  if (argc > 3) config.iterations = std::atoi(argv[3]);
  if (config.chunks == 0 || config.chunkElements == 0 || config.chunkElements % 4 != 0 ||
      config.iterations < 1) {
    std::fprintf(
        stderr, "usage: %s [chunks >= 1] [elements per chunk, a multiple of 4] [iterations >= 1]\n",
        argv[0]);
    return 2;
  }

  xpurt::Device device(xpurt::DeviceType::Auto);
  xpurt::DeviceInfo info = device.info();
  std::printf(
      "device: %s (%s), device memory %s\n", info.name, info.backend,
      info.deviceMemoryIsHostMemory ? "is host memory (copies cost nothing)" : "of its own");
  std::printf("%zu chunks of %zu floats, %d iterations per element\n", config.chunks,
              config.chunkElements, config.iterations);
  pipeline::Pipeline p(device, config);

  p.inOrder();  // warms up: compiles the kernel, touches every page
  double copy = 0, compute = 0;
  p.inOrderMeasured(&copy, &compute);  // copies and kernels, each alone
  double inOrder = timeWay(p, "in-order queue", [&] { p.inOrder(); });
  double twoQueues = timeWay(p, "copy queue + compute queue", [&] { p.copyAndComputeQueues(); });
  double outOfOrder = timeWay(p, "out-of-order queue", [&] { p.outOfOrder(); });
  // Built and instantiated once, outside the timed runs: those time replays alone.
  auto buildStart = Clock::now();
  p.instantiateGraph();
  double build = std::chrono::duration<double>(Clock::now() - buildStart).count();
  double graph = timeWay(p, "graph", [&] { p.graph(); });

  std::printf("copies alone %.2f ms, kernels alone %.2f ms\n", copy * 1e3, compute * 1e3);
  std::printf("graph built and instantiated in %.2f ms (not in its time below)\n", build * 1e3);
  std::printf("%-28s %9s %10s %22s %22s\n", "way", "ms", "speed-up", "elapsed/max(copy,comp)",
              "(copy+comp)/elapsed");
  for (auto [name, t] :
       {std::pair{"in-order queue", inOrder}, std::pair{"copy queue + compute queue", twoQueues},
        std::pair{"out-of-order queue", outOfOrder}, std::pair{"graph", graph}})
    std::printf("%-28s %9.2f %9.2fx %22.2f %22.2f\n", name, t * 1e3, inOrder / t,
                t / std::max(copy, compute), (copy + compute) / t);
  std::printf("results checked: all four ways correct\n");
  return 0;
} catch (const std::exception &e) {
  std::fprintf(stderr, "pipeline: %s\n", e.what());
  return 1;
}
