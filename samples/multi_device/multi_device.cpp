// multi_device: an iterated 2-D Jacobi stencil split over several devices by rows. Each device
// holds a slab of rows and a halo row on each side; after every step each device copies its
// edge rows into its neighbours' halos (xpurtCopyMemoryView between devices: peer copies where
// the devices have them), and the neighbours' next step waits for those copies. Then the same
// split with the grid in two COHERENT views: each launch declares the rows it reads and writes,
// and the runtime copies the halo rows and orders the devices; and last, one launch a step
// split over the devices by rows (xpurt::launchSplit), each chunk reading a halo row on each
// side. The results are checked against the same steps on the first device alone; prints the
// times and speed-ups.
//
//   multi_device_sample [width] [height] [steps] [devices]
//
// devices: TYPE:INDEX[,TYPE:INDEX...] with TYPE gpu or cpu (xpurt's device lists, as
// xpurt-info prints them); by default every GPU, or every CPU device if there is no GPU
// (the CPU, and Level Zero's CPU devices where xpurt's driver for the CPU is loaded).
#include "../common/device_list.hpp"

#include <xpurt/xpurt.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Grid {
  int width, height;
  std::vector<float> cells;
  float &at(int x, int y) { return cells[static_cast<size_t>(y) * width + x]; }
};

Grid initialGrid(int width, int height) {
  Grid g{width, height, std::vector<float>(static_cast<size_t>(width) * height)};
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      g.at(x, y) = y == 0 ? 100.0f : static_cast<float>((x * 7 + y * 13) % 17) * 0.1f;
  return g;
}

// One device's rows [firstRow, firstRow + rows) of the grid, with a halo row on each side, in
// two arrays that take turns as the step's input and output.
struct Slab {
  xpurt::Device device;
  xpurt::TaskQueue queue;
  xpurt::Module module;
  xpurt::Kernel kernel;
  int firstRow, rows;
  xpurt::Array<float> buffers[2];

  Slab(const xpurt::Device &d, int width, int first, int count)
      : device(d),
        queue(d),
        module(d, "stencil"),
        kernel(module, "jacobi"),
        firstRow(first),
        rows(count),
        buffers{xpurt::Array<float>(d, static_cast<size_t>(count + 2) * width),
                xpurt::Array<float>(d, static_cast<size_t>(count + 2) * width)} {}
};

struct Run {
  Grid result;
  double seconds;
  double enqueueSeconds;  // of the steps' commands, before the wait for them
};

// Runs step(0) (compiles, warms up, brings each device its data: not timed), then steps 1 to
// `steps`; syncAll() waits for every queue. Returns the seconds of the steps, and of
// enqueueing them.
template <class Step, class SyncAll>
std::pair<double, double> timedSteps(int steps, Step step, SyncAll syncAll) {
  step(0);
  syncAll();
  auto start = Clock::now();
  for (int n = 1; n <= steps; ++n) step(n);
  double enqueued = std::chrono::duration<double>(Clock::now() - start).count();
  syncAll();
  return {std::chrono::duration<double>(Clock::now() - start).count(), enqueued};
}

// `steps` Jacobi steps of `initial` split over `devices`; the time is of the steps alone.
Run runSplit(const std::vector<xpurt::Device> &devices, const Grid &initial, int steps) {
  int width = initial.width, height = initial.height;
  int parts = static_cast<int>(devices.size());
  std::vector<Slab> slabs;
  slabs.reserve(devices.size());
  for (int k = 0, first = 0; k < parts; ++k) {
    int rows = height / parts + (k < height % parts ? 1 : 0);
    slabs.emplace_back(devices[k], width, first, rows);
    first += rows;
  }
  size_t rowBytes = static_cast<size_t>(width) * sizeof(float);
  // Both arrays start as the grid's rows, halos included.
  for (Slab &s : slabs) {
    for (xpurt::Array<float> &b : s.buffers) {
      for (int r = 0; r < s.rows + 2; ++r) {
        int row = s.firstRow + r - 1;
        float *out = b.hostPtr() + static_cast<size_t>(r) * width;
        if (row < 0 || row >= height)
          std::fill(out, out + width, 0.0f);
        else
          std::copy_n(initial.cells.data() + static_cast<size_t>(row) * width, width, out);
      }
      s.queue.copyToDevice(b);
    }
    s.queue.sync();
  }
  // The copies into each slab's halos of the step before: its next step waits for them.
  std::vector<std::vector<xpurt::Future>> into(slabs.size());
  auto step = [&](int n) {
    int in = n % 2, out = 1 - in;
    for (size_t k = 0; k < slabs.size(); ++k) {
      Slab &s = slabs[k];
      for (const xpurt::Future &f : into[k]) s.queue.wait(f);
      into[k].clear();
      s.queue.launch(s.kernel, xpurt::Range(width, s.rows),
                     {xpurt::Arg::read(s.buffers[in]), xpurt::Arg::write(s.buffers[out]), width,
                      s.firstRow, height});
    }
    for (size_t k = 0; k < slabs.size(); ++k) {
      Slab &s = slabs[k];
      if (k > 0) {  // the first row of its own into the slab above's bottom halo
        Slab &above = slabs[k - 1];
        into[k - 1].push_back(s.queue.copyMemoryView(
            above.buffers[out], s.buffers[out], (above.rows + 1) * rowBytes, rowBytes, rowBytes));
      }
      if (k + 1 < slabs.size()) {  // its last row into the slab below's top halo
        Slab &below = slabs[k + 1];
        into[k + 1].push_back(s.queue.copyMemoryView(below.buffers[out], s.buffers[out], 0,
                                                     s.rows * rowBytes, rowBytes));
      }
    }
  };
  auto [seconds, enqueued] = timedSteps(steps, step, [&] {
    for (Slab &s : slabs) s.queue.sync();
  });

  Grid result{width, height, std::vector<float>(initial.cells.size())};
  int last = (steps + 1) % 2;  // the output of the last step
  for (Slab &s : slabs) {
    s.queue.copyToHost(s.buffers[last]);
    s.queue.sync();
    std::copy_n(s.buffers[last].hostPtr() + width, static_cast<size_t>(s.rows) * width,
                result.cells.data() + static_cast<size_t>(s.firstRow) * width);
  }
  return {std::move(result), seconds, enqueued};
}

// The split of runSplit with the grid in two COHERENT views of height + 2 rows (a zero row
// above and below): no slabs, no halo copies, no futures in the program.
Run runCoherent(const std::vector<xpurt::Device> &devices, const Grid &initial, int steps) {
  int width = initial.width, height = initial.height;
  size_t rowBytes = static_cast<size_t>(width) * sizeof(float);
  struct Part {
    xpurt::TaskQueue queue;
    xpurt::Module module;
    xpurt::Kernel kernel;
    int firstRow, rows;
  };
  std::vector<Part> parts;
  int count = static_cast<int>(devices.size());
  for (int k = 0, first = 0; k < count; ++k) {
    int rows = height / count + (k < height % count ? 1 : 0);
    xpurt::Module m(devices[k], "stencil");
    xpurt::Kernel kernel(m, "jacobi_rows");
    parts.push_back({xpurt::TaskQueue(devices[k]), std::move(m), std::move(kernel), first, rows});
    first += rows;
  }
  std::vector<float> padded(static_cast<size_t>(height + 2) * width, 0.0f);
  std::copy(initial.cells.begin(), initial.cells.end(), padded.begin() + width);
  xpurt::CoherentArray<float> grids[2] = {xpurt::CoherentArray<float>(padded),
                                          xpurt::CoherentArray<float>(padded.size())};
  auto step = [&](int n) {
    const xpurt::CoherentArray<float> &in = grids[n % 2], &out = grids[1 - n % 2];
    for (Part &p : parts)
      p.queue.launch(p.kernel, xpurt::Range(width, p.rows),
                     {xpurt::Arg::read(in, p.firstRow * rowBytes, (p.rows + 2) * rowBytes),
                      xpurt::Arg::write(out, (p.firstRow + 1) * rowBytes, p.rows * rowBytes), width,
                      p.firstRow, height});
  };
  auto [seconds, enqueued] = timedSteps(steps, step, [&] {
    for (Part &p : parts) p.queue.sync();
  });

  const xpurt::CoherentArray<float> &last = grids[(steps + 1) % 2];
  parts[0].queue.copyToHost(last, rowBytes, static_cast<size_t>(height) * rowBytes);
  parts[0].queue.sync();
  Grid result{width, height,
              std::vector<float>(last.hostPtr() + width,
                                 last.hostPtr() + static_cast<size_t>(height + 1) * width)};
  return {std::move(result), seconds, enqueued};
}

// runCoherent as one launch a step, split over the devices by rows: no slabs, and no rows
// counted by the program either.
Run runSplitLaunch(const std::vector<xpurt::Device> &devices, const Grid &initial, int steps) {
  int width = initial.width, height = initial.height;
  size_t rowBytes = static_cast<size_t>(width) * sizeof(float);
  std::vector<xpurt::TaskQueue> queues;
  std::vector<xpurt::Module> modules;
  std::vector<xpurt::Kernel> kernels;
  for (const xpurt::Device &d : devices) {
    queues.emplace_back(d);
    modules.emplace_back(d, "stencil");
    kernels.emplace_back(modules.back(), "jacobi_grid");
  }
  std::vector<float> cells = initial.cells;
  xpurt::CoherentArray<float> grids[2] = {xpurt::CoherentArray<float>(cells),
                                          xpurt::CoherentArray<float>(cells.size())};
  auto step = [&](int n) {
    const xpurt::CoherentArray<float> &in = grids[n % 2], &out = grids[1 - n % 2];
    xpurt::launchSplit(queues, kernels, xpurt::Range(width, height),
                       {xpurt::SplitArg::rows(in, xpurt::Access::Read, rowBytes, 1),
                        xpurt::SplitArg::rows(out, xpurt::Access::Write, rowBytes), width, height});
  };
  auto [seconds, enqueued] = timedSteps(steps, step, [&] {
    for (xpurt::TaskQueue &q : queues) q.sync();
  });

  const xpurt::CoherentArray<float> &last = grids[(steps + 1) % 2];
  queues[0].copyToHost(last);
  queues[0].sync();
  Grid result{width, height, std::vector<float>(last.hostPtr(), last.hostPtr() + cells.size())};
  return {std::move(result), seconds, enqueued};
}

}  // namespace

int main(int argc, char **argv) try {
  int width = argc > 1 ? std::atoi(argv[1]) : 2048;
  int height = argc > 2 ? std::atoi(argv[2]) : 2048;
  int steps = argc > 3 ? std::atoi(argv[3]) : 50;
  std::vector<xpurt::Device> devices =
      argc > 4 ? samples::parseDevices(argv[4]) : samples::everyDeviceOfTheFirstType();
  if (width < 3 || height < 3 || steps < 1 || devices.empty() ||
      static_cast<size_t>(height) < devices.size()) {
    std::fprintf(stderr,
                 "usage: %s [width >= 3] [height >= 3, at least a row per device] [steps >= 1] "
                 "[gpu:0,gpu:1,...]\n",
                 argv[0]);
    return 2;
  }
  std::printf("%d x %d grid, %d steps, split by rows over:\n", width, height, steps);
  for (const xpurt::Device &d : devices) {
    xpurt::DeviceInfo info = d.info();
    std::printf("  %s (%s)\n", info.name, info.backend);
  }
  Grid initial = initialGrid(width, height);
  Run one = runSplit({devices[0]}, initial, steps);
  Run all = runSplit(devices, initial, steps);
  Run coherent = runCoherent(devices, initial, steps);
  Run split = runSplitLaunch(devices, initial, steps);
  std::printf("1 device:  %9.3f ms, %7.1f us per step\n", one.seconds * 1e3,
              one.seconds * 1e6 / steps);
  std::printf(
      "%zu devices: %9.3f ms, %7.1f us per step, speed-up %.2fx (halo copies; enqueued in "
      "%.1f us per step)\n",
      devices.size(), all.seconds * 1e3, all.seconds * 1e6 / steps, one.seconds / all.seconds,
      all.enqueueSeconds * 1e6 / steps);
  std::printf(
      "%zu devices: %9.3f ms, %7.1f us per step, speed-up %.2fx (COHERENT views; enqueued in "
      "%.1f us per step)\n",
      devices.size(), coherent.seconds * 1e3, coherent.seconds * 1e6 / steps,
      one.seconds / coherent.seconds, coherent.enqueueSeconds * 1e6 / steps);
  std::printf(
      "%zu devices: %9.3f ms, %7.1f us per step, speed-up %.2fx (one split launch a step; "
      "enqueued in %.1f us per step)\n",
      devices.size(), split.seconds * 1e3, split.seconds * 1e6 / steps, one.seconds / split.seconds,
      split.enqueueSeconds * 1e6 / steps);
  float worst = 0.0f;
  for (const Run *run : {&all, &coherent, &split})
    for (size_t i = 0; i < one.result.cells.size(); ++i)
      worst = std::max(worst, std::fabs(one.result.cells[i] - run->result.cells[i]));
  if (worst > 1e-4f) {
    std::fprintf(stderr, "wrong result: a split grid differs from one device's by %g\n",
                 static_cast<double>(worst));
    return 1;
  }
  std::printf("results checked: the split grids match one device's (largest difference %g)\n",
              static_cast<double>(worst));
  return 0;
} catch (const std::exception &e) {
  std::fprintf(stderr, "multi_device: %s\n", e.what());
  return 1;
}
