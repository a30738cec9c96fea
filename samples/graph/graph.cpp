// graph: a wavefront of kernels recorded once as a task graph and replayed, on the default
// device (XPURT_DEVICE picks another). An N x N grid of T x T tiles: tile (i, j) is one launch
// that reads tiles (i-1, j) and (i, j-1), as in a dynamic-programming table, so tiles on one
// anti-diagonal can run side by side. The dependencies are given explicitly. The graph is
// instantiated once, then launched several times, each after setting the kernels' scale
// argument and rebinding the input to another view; every launch is checked against the host.
//
//   graph_sample [tiles per side] [tile size] [replays]
#include <xpurt/xpurt.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;

namespace {

struct Grid {
  size_t n, t;  // tiles per side, elements per tile side
  size_t tileElements() const { return t * t; }
  size_t tileBytes() const { return tileElements() * sizeof(float); }
  size_t elements() const { return n * n * tileElements(); }
  // Tiles are stored one after another, so each launch touches one contiguous range.
  size_t tile(size_t i, size_t j) const { return (i * n + j) * tileElements(); }
  size_t tileOffset(size_t i, size_t j) const { return tile(i, j) * sizeof(float); }
};

// What the graph computes, on the host, in the kernel's order of operations.
std::vector<float> reference(const Grid &g, const std::vector<float> &src, float scale) {
  std::vector<float> out(g.elements());
  for (size_t i = 0; i < g.n; ++i)
    for (size_t j = 0; j < g.n; ++j)
      for (size_t y = 0; y < g.t; ++y)
        for (size_t x = 0; x < g.t; ++x) {
          float up = i ? out[g.tile(i - 1, j) + (g.t - 1) * g.t + x] : 0.0f;
          float left = j ? out[g.tile(i, j - 1) + y * g.t + g.t - 1] : 0.0f;
          size_t k = g.tile(i, j) + y * g.t + x;
          out[k] = scale * src[k] + 0.5f * (up + left);
        }
  return out;
}

// The first wrong element as a message, or "". The device may fuse a multiply-add the host
// rounds twice, hence the tolerance.
std::string check(const Grid &g, const std::vector<float> &got, const std::vector<float> &want) {
  for (size_t k = 0; k < want.size(); ++k)
    if (!(std::fabs(got[k] - want[k]) <= 1e-5f * std::max(1.0f, std::fabs(want[k])))) {
      size_t tile = k / g.tileElements(), e = k % g.tileElements();
      return "tile (" + std::to_string(tile / g.n) + ", " + std::to_string(tile % g.n) +
             ") element (" + std::to_string(e / g.t) + ", " + std::to_string(e % g.t) + ") is " +
             std::to_string(got[k]) + ", expected " + std::to_string(want[k]);
    }
  return "";
}

// New input values, different for each seed.
void fillInput(std::vector<float> &v, unsigned seed) {
  for (size_t k = 0; k < v.size(); ++k)
    v[k] = static_cast<float>((k * 7919 + seed * 104729) % 1000) * 0.001f;
}

}  // namespace

int main(int argc, char **argv) try {
  Grid g{8, 64};
  int replays = 5;
  if (argc > 1) g.n = std::strtoul(argv[1], nullptr, 10);
  if (argc > 2) g.t = std::strtoul(argv[2], nullptr, 10);
  if (argc > 3) replays = std::atoi(argv[3]);
  if (g.n == 0 || g.t == 0 || replays < 1) {
    std::fprintf(stderr, "usage: %s [tiles per side >= 1] [tile size >= 1] [replays >= 1]\n",
                 argv[0]);
    return 2;
  }

  xpurt::Device device(xpurt::DeviceType::Auto);
  xpurt::DeviceInfo info = device.info();
  std::printf("device: %s (%s)\n", info.name, info.backend);
  std::printf("%zu x %zu tiles of %zu x %zu floats, %d replays\n", g.n, g.n, g.t, g.t, replays);

  // Two inputs the graph is rebound between, the results, and a tile of zeros that stands in
  // for the tiles beyond the grid's top and left edges.
  std::vector<float> inputA(g.elements()), inputB(g.elements()), result(g.elements());
  std::vector<float> zeroTile(g.tileElements());
  xpurt::Array<float> srcA(device, inputA), srcB(device, inputB), tiles(device, result);
  xpurt::Array<float> zeros(device, zeroTile);
  xpurt::Module module(device, "graph");
  xpurt::Kernel kernel(module, "tile");

  auto buildStart = Clock::now();
  xpurt::Graph graph;
  xpurt::GraphNode zeroed = graph.fill(zeros, 0.0f);
  xpurt::GraphNode copiedIn = graph.copyToDevice(srcA);
  std::vector<xpurt::GraphNode> node(g.n * g.n);
  const float builtScale = 1.0f;
  for (size_t i = 0; i < g.n; ++i)
    for (size_t j = 0; j < g.n; ++j) {
      xpurt::Arg up = i ? xpurt::Arg::read(tiles, g.tileOffset(i - 1, j), g.tileBytes())
                        : xpurt::Arg::read(zeros);
      xpurt::Arg left = j ? xpurt::Arg::read(tiles, g.tileOffset(i, j - 1), g.tileBytes())
                          : xpurt::Arg::read(zeros);
      // The wavefront's edges, explicitly: the tile above (or the zero fill) and the tile to
      // the left (or the copy in, which every tile then follows through its left neighbours).
      xpurt::Deps deps{i ? node[(i - 1) * g.n + j] : zeroed, j ? node[i * g.n + j - 1] : copiedIn};
      // The local size is left to the runtime, which picks one that divides the range: Level
      // Zero devices refuse partial work-groups.
      node[i * g.n + j] =
          graph.launch(kernel, xpurt::Range(g.t, g.t),
                       {xpurt::Arg::read(srcA, g.tileOffset(i, j), g.tileBytes()), up, left,
                        xpurt::Arg::write(tiles, g.tileOffset(i, j), g.tileBytes()), builtScale},
                       deps);
    }
  // The last tile comes after every other.
  graph.copyToHost(tiles, {node.back()});
  xpurt::GraphExec exec = graph.instantiate(device);
  double build = std::chrono::duration<double>(Clock::now() - buildStart).count();
  std::printf("graph of %u nodes built and instantiated in %.2f ms\n", graph.size(), build * 1e3);

  // Profiling: the launch's future times the whole graph. Every device runs independent tiles
  // of one anti-diagonal side by side, whatever the queue.
  xpurt::TaskQueue queue(device, {xpurt::Engine::Any, true, true});
  const xpurt::MemoryView *bound = &srcA;
  float scale = builtScale;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Launch 0 runs the graph as built (and pays for first use); each later one changes the
  // scale argument, switches the input view and gives the new input fresh values.
  for (int r = 0; r <= replays; ++r) {
    if (r > 0) {
      scale = 1.0f + 0.25f * static_cast<float>(r);
      for (xpurt::GraphNode n : node) exec.setArg(n, 4, scale);
      const xpurt::MemoryView *next = bound == &srcA ? &srcB : &srcA;
      exec.rebind(*bound, *next);
      bound = next;
    }
    std::vector<float> &input = bound == &srcA ? inputA : inputB;
    fillInput(input, static_cast<unsigned>(r));
    // Poisons the tiles on both sides, so a tile that runs before its neighbours, or a copy
    // that does not run, shows in the check.
    queue.fill(tiles, nan);
    queue.sync();
    std::fill(result.begin(), result.end(), nan);

    auto start = Clock::now();
    xpurt::Future launched = queue.launch(exec);
    queue.sync();
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::string wrong = check(g, result, reference(g, input, scale));
    std::printf("%s %d: input %c, scale %.2f: %8.3f ms (graph on the device %8.3f ms), %s\n",
                r ? "replay" : "launch", r, bound == &srcA ? 'A' : 'B', scale, seconds * 1e3,
                static_cast<double>(launched.timeNs()) * 1e-6, wrong.empty() ? "checked" : "WRONG");
    if (!wrong.empty()) {
      std::fprintf(stderr, "graph: replay %d: wrong result: %s\n", r, wrong.c_str());
      return 1;
    }
  }
  std::printf("graph: OK\n");
  return 0;
} catch (const std::exception &e) {
  std::fprintf(stderr, "graph: %s\n", e.what());
  return 1;
}
