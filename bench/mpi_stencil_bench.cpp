// The distributed stencil (xpurt_mpi) against the same stencil written by hand with MPI and
// xpurt, in one run, each rank on a device of its own (as samples/distributed chooses it).
// Run under mpiexec; every rank runs the same benchmarks with a fixed number of iterations (the
// ranks must take part in the same steps), and rank 0 reports. A benchmark's time is one step:
// a Jacobi sweep of width x rows-per-rank rows on every rank, and the halo rows exchanged.
//
//   mpiexec -np N xpurt_bench_mpi_stencil [--width=W] [--rows-per-rank=R] [--steps=S]
//                                        [benchmark flags]
//
// Weak scaling: the same --rows-per-rank with N = 1, 2, 4; a step's time at N ranks against
// one rank's is the efficiency.
#include "../samples/common/rank_device.hpp"

#include <benchmark/benchmark.h>
#include <xpurt/xpurt_mpi.h>
#include <xpurt/xpurt.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int width = 4096, rowsPerRank = 1024, steps = 20;
int rank = 0, ranks = 1;

void check(XpurtResult r, const char *what) {
  if (r == XPURT_SUCCESS) return;
  std::fprintf(stderr, "rank %d: %s failed: %s\n", rank, what, xpurtMpiLastErrorMessage());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

xpurt::Device &device() {
  static xpurt::Device d = samples::deviceOfRank();
  return d;
}

float initialCell(int x, int gridRow) {
  return gridRow == 0 ? 100.0f : static_cast<float>((x * 7 + gridRow * 13) % 17) * 0.1f;
}

// xpurt_mpi: the grid in two distributed buffers, a graph of two steps split by rows.
void stencilXpurtMpi(benchmark::State &state) {
  XpurtMpiContext context = nullptr;
  check(xpurtMpiNewContext(MPI_COMM_WORLD, device().handle(), nullptr, &context), "context");
  xpurt::Module module(device(), "stencil");
  xpurt::Kernel jacobi(module, "jacobi_grid");
  int rows = rowsPerRank * ranks;
  std::vector<float> start(static_cast<size_t>(width) * rows);
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < width; ++x) start[static_cast<size_t>(y) * width + x] = initialCell(x, y);
  size_t rowBytes = static_cast<size_t>(width) * sizeof(float);
  XpurtMpiBuffer a = nullptr, b = nullptr;
  check(xpurtMpiNewBuffer(context, rows, rowBytes, start.data(), &a), "buffer");
  check(xpurtMpiNewBuffer(context, rows, rowBytes, nullptr, &b), "buffer");
  XpurtMpiGraph twoSteps = nullptr;
  check(xpurtMpiNewGraph(context, &twoSteps), "graph");
  size_t global[2] = {static_cast<size_t>(width), static_cast<size_t>(rows)};
  for (int s = 0; s < 2; ++s) {
    XpurtMpiArg args[] = {
        XPURT_MPI_ARG_BUFFER(s ? b : a, XPURT_ACCESS_READ, XPURT_RANGE_MAPPER_NEIGHBORHOOD, 1),
        XPURT_MPI_ARG_BUFFER(s ? a : b, XPURT_ACCESS_WRITE, XPURT_RANGE_MAPPER_ONE_TO_ONE, 0),
        XPURT_MPI_ARG_VALUE(&width, sizeof width), XPURT_MPI_ARG_VALUE(&rows, sizeof rows)};
    check(xpurtMpiGraphAddLaunch(twoSteps, jacobi.handle(), 4, args, 2, global, nullptr,
                                 XPURT_MPI_SPLIT),
          "launch");
  }
  check(xpurtMpiGraphLaunch(twoSteps), "graph launch");  // compiles, brings the halos
  check(xpurtMpiWait(context), "wait");
  for (auto _ : state) {
    MPI_Barrier(MPI_COMM_WORLD);
    auto t0 = Clock::now();
    for (int s = 0; s < steps; s += 2) check(xpurtMpiGraphLaunch(twoSteps), "graph launch");
    check(xpurtMpiWait(context), "wait");
    MPI_Barrier(MPI_COMM_WORLD);
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count() / steps);
  }
  xpurtMpiReleaseGraph(twoSteps);
  xpurtMpiReleaseBuffer(a);
  xpurtMpiReleaseBuffer(b);
  check(xpurtMpiReleaseContext(context), "release");
}

// By hand: each rank's rows with a halo row on each side in two device arrays; a step is the
// sweep, then (with neighbours) the edge rows copied to the host, the queue waited for,
// MPI_Isend/MPI_Irecv with each neighbour, and the halo rows copied back to the device.
void stencilHandWritten(benchmark::State &state) {
  xpurt::Module module(device(), "stencil");
  xpurt::Kernel jacobi(module, "jacobi");
  int rows = rowsPerRank * ranks, firstRow = rowsPerRank * rank;
  size_t rowFloats = static_cast<size_t>(width), rowBytes = rowFloats * sizeof(float);
  std::vector<float> host[2] = {std::vector<float>((rowsPerRank + 2) * rowFloats),
                                std::vector<float>((rowsPerRank + 2) * rowFloats)};
  for (int y = -1; y <= rowsPerRank; ++y)
    for (int x = 0; x < width; ++x)
      if (firstRow + y >= 0 && firstRow + y < rows)
        host[0][(y + 1) * rowFloats + x] = initialCell(x, firstRow + y);
  xpurt::Array<float> slab[2] = {xpurt::Array<float>(device(), host[0]),
                                 xpurt::Array<float>(device(), host[1])};
  xpurt::TaskQueue queue(device());
  queue.copyToDevice(slab[0]);
  queue.copyToDevice(slab[1]);
  int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < ranks - 1 ? rank + 1 : MPI_PROC_NULL;
  auto step = [&](int s) {
    xpurt::Array<float> &in = slab[s % 2], &out = slab[(s + 1) % 2];
    queue.launch(jacobi, xpurt::Range(rowFloats, static_cast<size_t>(rowsPerRank)),
                 {xpurt::Arg(in, 0, xpurt::Access::Read), xpurt::Arg(out, 0, xpurt::Access::Write),
                  width, firstRow, rows});
    if (ranks == 1) return;
    queue.copyToHost(out, rowBytes, rowBytes);
    queue.copyToHost(out, rowsPerRank * rowBytes, rowBytes);
    queue.sync();
    float *h = out.hostPtr();
    MPI_Request requests[4];
    MPI_Irecv(h, width, MPI_FLOAT, up, 0, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(h + (rowsPerRank + 1) * rowFloats, width, MPI_FLOAT, down, 1, MPI_COMM_WORLD,
              &requests[1]);
    MPI_Isend(h + rowFloats, width, MPI_FLOAT, up, 1, MPI_COMM_WORLD, &requests[2]);
    MPI_Isend(h + rowsPerRank * rowFloats, width, MPI_FLOAT, down, 0, MPI_COMM_WORLD, &requests[3]);
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    if (up != MPI_PROC_NULL) queue.copyToDevice(out, 0, rowBytes);
    if (down != MPI_PROC_NULL) queue.copyToDevice(out, (rowsPerRank + 1) * rowBytes, rowBytes);
  };
  step(0);
  step(1);
  queue.sync();
  for (auto _ : state) {
    MPI_Barrier(MPI_COMM_WORLD);
    auto t0 = Clock::now();
    for (int s = 0; s < steps; ++s) step(s);
    queue.sync();
    MPI_Barrier(MPI_COMM_WORLD);
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count() / steps);
  }
}

class NullReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context &) override { return true; }
  void ReportRuns(const std::vector<Run> &) override {}
};

}  // namespace

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<char *> rest;
  for (int i = 0; i < argc; ++i) {
    auto value = [&](const char *flag) -> const char * {
      size_t n = std::strlen(flag);
      return std::strncmp(argv[i], flag, n) == 0 ? argv[i] + n : nullptr;
    };
    if (const char *v = value("--width="))
      width = std::atoi(v);
    else if (const char *v = value("--rows-per-rank="))
      rowsPerRank = std::atoi(v);
    else if (const char *v = value("--steps="))
      steps = std::max(2, std::atoi(v) / 2 * 2);
    else
      rest.push_back(argv[i]);
  }
  int restCount = static_cast<int>(rest.size());
  benchmark::Initialize(&restCount, rest.data());
  std::string size = "/" + std::to_string(width) + "x" + std::to_string(rowsPerRank) +
                     "/ranks:" + std::to_string(ranks);
  for (auto [name, run] : {std::pair{"stencil/xpurt_mpi", &stencilXpurtMpi},
                           std::pair{"stencil/hand_written", &stencilHandWritten}})
    benchmark::RegisterBenchmark((name + size).c_str(), run)
        ->UseManualTime()
        ->Iterations(5)
        ->Unit(benchmark::kMicrosecond);
  if (rank == 0) {
    std::printf("each rank: %s\n", device().info().name);
    benchmark::RunSpecifiedBenchmarks();
  } else {
    NullReporter quiet;
    benchmark::RunSpecifiedBenchmarks(&quiet);
  }
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}
