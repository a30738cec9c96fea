// graph_across_devices: one graph of matrix products over every device of the machine. D = (A B) B
// for n x n matrices, by blocks of rows: a node per block computes C's rows from A's and all of
// B, then a node per block D's rows from C's, and a last node copies D to the host. The
// matrices are COHERENT views, so each node reads its rows wherever the node runs and the
// runtime copies them there. The graph is run three ways:
//   - every node on the first device;
//   - nodes dealt round-robin over the devices (pinned);
//   - nodes placed by the runtime: a first instantiation spreads the nodes the time model has not
//     measured on every device, its launch teaches the model, and a second instantiation
//     places by what was learned (and by where the data is).
// Prints the time per launch of each and where the runtime placed the nodes; checks D's rows
// against the host.
//
//   graph_across_devices_sample [n] [blocks] [launches] [devices]
//
// n: a multiple of 16; blocks: the row blocks (n / blocks a multiple of 16); devices:
// TYPE:INDEX[,...] as xpurt-info lists them, by default every GPU and the CPU.
#include "../common/device_list.hpp"

#include <xpurt/graph.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kTile = 16;  // the sgemm kernel's tile (samples/sgemm/sgemm.cl)

struct Problem {
  int n, blocks;
  std::vector<float> a, b;
  xpurt::CoherentArray<float> av, bv, c, d;

  Problem(int size, int rowBlocks) : n(size), blocks(rowBlocks), a(cells()), b(cells()) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (float &x : a) x = value(rng);
    for (float &x : b) x = value(rng) / static_cast<float>(n);  // keeps (A B) B near 1
    av = xpurt::CoherentArray<float>(a);
    bv = xpurt::CoherentArray<float>(b);
    c = xpurt::CoherentArray<float>(cells());
    d = xpurt::CoherentArray<float>(cells());
  }
  size_t cells() const { return static_cast<size_t>(n) * n; }
};

// The graph and its product nodes, in the order they were added.
struct Built {
  xpurt::Graph graph;
  std::vector<xpurt::GraphNode> products;
};

Built build(Problem &p, const std::vector<xpurt::Kernel> &sgemm,
            const std::function<const xpurt::Device *(size_t node)> &pinTo) {
  Built out;
  int rows = p.n / p.blocks;
  size_t blockBytes = static_cast<size_t>(rows) * p.n * sizeof(float);
  auto product = [&](const xpurt::CoherentArray<float> &left, xpurt::CoherentArray<float> &result,
                     int block) {
    size_t at = static_cast<size_t>(block) * blockBytes;
    // The kernel of the first device: a node elsewhere gets the module's SPIR-V loaded there.
    auto node =
        out.graph.launch(sgemm.front(), xpurt::Range(p.n, rows).local(kTile, kTile),
                         {xpurt::Arg::read(left, at, blockBytes), xpurt::Arg::read(p.bv),
                          xpurt::Arg::write(result, at, blockBytes), static_cast<int32_t>(p.n)});
    if (const xpurt::Device *d = pinTo(out.products.size())) out.graph.pin(node, *d);
    out.products.push_back(node);
  };
  for (int block = 0; block < p.blocks; ++block) product(p.av, p.c, block);
  for (int block = 0; block < p.blocks; ++block) product(p.c, p.d, block);
  out.graph.copyToHost(p.d);
  return out;
}

// Seconds per launch of `launches` launches after a first one (module loads, first copies).
double timeLaunches(xpurt::TaskQueue &queue, const xpurt::GraphExec &exec, int launches) {
  queue.launch(exec).wait();
  auto start = Clock::now();
  xpurt::Future last;
  for (int i = 0; i < launches; ++i) last = queue.launch(exec);
  last.wait();
  return std::chrono::duration<double>(Clock::now() - start).count() / launches;
}

// The largest relative difference of D's first rows of each block from the host's product.
double check(const Problem &p) {
  int rows = p.n / p.blocks;
  double worst = 0;
  std::vector<double> cRow(p.n);
  for (int block = 0; block < p.blocks; ++block) {
    int i = block * rows + (block * 7) % rows;  // a row of each block
    for (int j = 0; j < p.n; ++j) {
      double s = 0;
      for (int k = 0; k < p.n; ++k)
        s += double(p.a[size_t(i) * p.n + k]) * p.b[size_t(k) * p.n + j];
      cRow[j] = s;
    }
    for (int j = 0; j < p.n; ++j) {
      double s = 0;
      for (int k = 0; k < p.n; ++k) s += cRow[k] * p.b[size_t(k) * p.n + j];
      double got = p.d.hostPtr()[size_t(i) * p.n + j];
      worst = std::max(worst, std::fabs(got - s) / std::max(1e-3, std::fabs(s)));
    }
  }
  return worst;
}

std::vector<xpurt::Device> defaultDevices() {
  std::vector<xpurt::Device> devices;
  for (uint32_t i = 0, n = xpurt::Device::count(xpurt::DeviceType::GPU); i < n; ++i)
    devices.emplace_back(xpurt::DeviceType::GPU, i);
  devices.emplace_back(xpurt::DeviceType::CPU, 0);
  return devices;
}

}  // namespace

int main(int argc, char **argv) try {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each result as it comes
  int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  int blocks = argc > 2 ? std::atoi(argv[2]) : 32;
  int launches = argc > 3 ? std::atoi(argv[3]) : 5;
  std::vector<xpurt::Device> devices = argc > 4 ? samples::parseDevices(argv[4]) : defaultDevices();
  if (n < kTile || n % kTile || blocks < 1 || n % blocks || (n / blocks) % kTile || launches < 1) {
    std::fprintf(stderr,
                 "usage: %s [n: a multiple of %d] [blocks: n / blocks a multiple of %d] "
                 "[launches >= 1] [gpu:0,cpu:0,...]\n",
                 argv[0], kTile, kTile);
    return 2;
  }
  std::printf("D = (A B) B, %d x %d, %d row blocks a product (%d nodes), over:\n", n, n, blocks,
              2 * blocks + 1);
  std::vector<xpurt::Kernel> sgemm;
  std::vector<xpurt::Module> modules;
  for (const xpurt::Device &d : devices) {
    xpurt::DeviceInfo info = d.info();
    std::printf("  %s (%s)\n", info.name, info.backend);
    modules.emplace_back(d, "sgemm");
    sgemm.emplace_back(modules.back(), "sgemm");
  }
  Problem p(n, blocks);
  xpurt::TaskQueue queue(devices.front());
  double flops = 2.0 * 2.0 * double(n) * n * n;
  auto report = [&](const char *what, double seconds) {
    std::printf("%-34s %9.3f ms a launch, %8.1f GFLOP/s\n", what, seconds * 1e3,
                flops / seconds * 1e-9);
  };

  Built one = build(p, sgemm, [&](size_t) { return &devices.front(); });
  double oneSeconds = timeLaunches(queue, one.graph.instantiate(devices), launches);
  report("every node on the first device", oneSeconds);
  double worst = check(p);

  Built dealt = build(p, sgemm, [&](size_t k) { return &devices[k % devices.size()]; });
  double dealtSeconds = timeLaunches(queue, dealt.graph.instantiate(devices), launches);
  report("dealt round-robin", dealtSeconds);
  worst = std::max(worst, check(p));

  Built placed = build(p, sgemm, [](size_t) { return nullptr; });
  // The first instantiation measures what the model lacks; the second places by the model.
  queue.launch(placed.graph.instantiate(devices)).wait();
  xpurt::GraphExec exec = placed.graph.instantiate(devices);
  double placedSeconds = timeLaunches(queue, exec, launches);
  report("placed by the runtime", placedSeconds);
  worst = std::max(worst, check(p));
  std::vector<int> where(devices.size());
  for (xpurt::GraphNode node : placed.products)
    for (size_t k = 0; k < devices.size(); ++k)
      if (exec.deviceOf(node).handle() == devices[k].handle()) ++where[k];
  for (size_t k = 0; k < devices.size(); ++k)
    std::printf("  %3d products on device %zu, %s\n", where[k], k, devices[k].info().name);
  std::printf("placed / first device: %.2fx, placed / round-robin: %.2fx\n",
              oneSeconds / placedSeconds, dealtSeconds / placedSeconds);
  if (worst > 1e-3) {
    std::fprintf(stderr, "wrong result: D differs from the host's by %g (relative)\n", worst);
    return 1;
  }
  std::printf("results checked against the host (largest relative difference %.2g)\n", worst);
  return 0;
} catch (const std::exception &e) {
  std::fprintf(stderr, "graph_across_devices: %s\n", e.what());
  return 1;
}
