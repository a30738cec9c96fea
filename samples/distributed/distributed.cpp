// distributed: the multi-device sample's stencil and the sgemm sample's matrix product, each
// as one graph over the ranks of MPI_COMM_WORLD (xpurt_mpi), every rank on a device of its own,
// checked against the same steps on rank 0's device alone.
//
//   mpiexec -np N distributed_sample [width] [rows per rank] [steps] [matrix size]
//
// Rank r uses GPU (local rank mod GPUs) of its node, or the CPU where there is no GPU
// (XPURT_DISTRIBUTED_CPU=1: the CPU even where there are GPUs). The grid's rows are split
// over the ranks by blocks; each step is one launch split by rows, reading a halo row on each
// side, and the runtime moves the halo rows between ranks. The matrix product keeps A's and C's
// rows where they are computed and reads B whole on every rank.
#include <xpurt/xpurt_mpi.h>
#include "../common/rank_device.hpp"

#include <xpurt/xpurt.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

void check(XpurtResult r, const char *what) {
  if (r == XPURT_SUCCESS) return;
  std::fprintf(stderr, "%s failed: %s\n", what, xpurtMpiLastErrorMessage());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

std::vector<float> initialGrid(int width, int rows) {
  std::vector<float> g(static_cast<size_t>(width) * rows);
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < width; ++x)
      g[static_cast<size_t>(y) * width + x] =
          y == 0 ? 100.0f : static_cast<float>((x * 7 + y * 13) % 17) * 0.1f;
  return g;
}

XpurtMpiArg bufferArg(XpurtMpiBuffer b, XpurtAccess access, XpurtRangeMapper mapper,
                      size_t halo = 0) {
  return XPURT_MPI_ARG_BUFFER(b, access, mapper, halo);
}

// The stencil over every rank; returns the grid on rank 0 and the milliseconds per step.
double distributedStencil(XpurtMpiContext context, const xpurt::Kernel &jacobi, int width, int rows,
                          int steps, std::vector<float> &grid) {
  std::vector<float> start = initialGrid(width, rows);
  size_t rowBytes = static_cast<size_t>(width) * sizeof(float);
  XpurtMpiBuffer a = nullptr, b = nullptr;
  check(xpurtMpiNewBuffer(context, rows, rowBytes, start.data(), &a), "xpurtMpiNewBuffer");
  check(xpurtMpiNewBuffer(context, rows, rowBytes, nullptr, &b), "xpurtMpiNewBuffer");
  XpurtMpiGraph twoSteps = nullptr;
  check(xpurtMpiNewGraph(context, &twoSteps), "xpurtMpiNewGraph");
  size_t global[2] = {static_cast<size_t>(width), static_cast<size_t>(rows)};
  for (int s = 0; s < 2; ++s) {
    XpurtMpiArg args[] = {
        bufferArg(s ? b : a, XPURT_ACCESS_READ, XPURT_RANGE_MAPPER_NEIGHBORHOOD, 1),
        bufferArg(s ? a : b, XPURT_ACCESS_WRITE, XPURT_RANGE_MAPPER_ONE_TO_ONE),
        XPURT_MPI_ARG_VALUE(&width, sizeof width), XPURT_MPI_ARG_VALUE(&rows, sizeof rows)};
    check(xpurtMpiGraphAddLaunch(twoSteps, jacobi.handle(), 4, args, 2, global, nullptr,
                                 XPURT_MPI_SPLIT),
          "xpurtMpiGraphAddLaunch");
  }
  // Two steps first, untimed (compiles the kernel); the timed ones continue from there.
  check(xpurtMpiGraphLaunch(twoSteps), "xpurtMpiGraphLaunch");
  check(xpurtMpiWait(context), "xpurtMpiWait");
  MPI_Barrier(MPI_COMM_WORLD);
  auto t0 = Clock::now();
  for (int s = 2; s < steps; s += 2) check(xpurtMpiGraphLaunch(twoSteps), "xpurtMpiGraphLaunch");
  check(xpurtMpiWait(context), "xpurtMpiWait");
  MPI_Barrier(MPI_COMM_WORLD);
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  XpurtMpiGraph read = nullptr;
  grid.assign(start.size(), 0.0f);
  check(xpurtMpiNewGraph(context, &read), "xpurtMpiNewGraph");
  check(xpurtMpiGraphAddRead(read, a, 0, rows, grid.data(), 0), "xpurtMpiGraphAddRead");
  check(xpurtMpiGraphLaunch(read), "xpurtMpiGraphLaunch");
  check(xpurtMpiWait(context), "xpurtMpiWait");
  xpurtMpiReleaseGraph(read);
  xpurtMpiReleaseGraph(twoSteps);
  xpurtMpiReleaseBuffer(a);
  xpurtMpiReleaseBuffer(b);
  return ms / std::max(1, steps - 2);
}

// The same steps on one device with xpurt alone.
double stencilAlone(const xpurt::Device &device, const xpurt::Kernel &jacobi, int width, int rows,
                    int steps, std::vector<float> &grid) {
  grid = initialGrid(width, rows);
  std::vector<float> other(grid.size());
  xpurt::Array<float> a(device, grid), b(device, other);
  xpurt::TaskQueue queue(device);
  queue.copyToDevice(a);
  queue.sync();
  auto t0 = Clock::now();
  for (int s = 0; s < steps; ++s) {
    xpurt::Array<float> &in = s % 2 ? b : a, &out = s % 2 ? a : b;
    queue.launch(jacobi, xpurt::Range(static_cast<size_t>(width), static_cast<size_t>(rows)),
                 {xpurt::Arg(in, 0, xpurt::Access::Read), xpurt::Arg(out, 0, xpurt::Access::Write),
                  width, rows});
  }
  queue.copyToHost(steps % 2 ? b : a);
  queue.sync();
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  grid = steps % 2 ? other : grid;
  return ms / std::max(1, steps);
}

}  // namespace

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int width = argc > 1 ? std::atoi(argv[1]) : 512;
  int rowsPerRank = argc > 2 ? std::atoi(argv[2]) : 256;
  int steps = argc > 3 ? std::max(2, std::atoi(argv[3]) / 2 * 2) : 40;
  int n = argc > 4 ? std::atoi(argv[4]) / 16 * 16 : 256;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int rows = rowsPerRank * ranks;
  int failures = 0;
  try {
    xpurt::Device device = samples::deviceOfRank();
    XpurtMpiContext context = nullptr;
    check(xpurtMpiNewContext(MPI_COMM_WORLD, device.handle(), nullptr, &context),
          "xpurtMpiNewContext");
    std::printf("rank %d of %d: %s\n", rank, ranks, device.info().name);
    std::fflush(stdout);
    xpurt::Module stencil(device, "stencil"), sgemm(device, "sgemm");
    xpurt::Kernel jacobi(stencil, "jacobi_grid"), product(sgemm, "sgemm");

    std::vector<float> grid;
    double msDistributed = distributedStencil(context, jacobi, width, rows, steps, grid);

    // The matrix product: A's and C's rows where they are computed, B read whole everywhere.
    std::vector<float> a(static_cast<size_t>(n) * n), b(a.size()), c(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
      b[i] = static_cast<float>(i % 5) * 0.5f - 1.0f;
    }
    size_t rowBytes = static_cast<size_t>(n) * sizeof(float);
    XpurtMpiBuffer ma = nullptr, mb = nullptr, mc = nullptr;
    check(xpurtMpiNewBuffer(context, n, rowBytes, a.data(), &ma), "xpurtMpiNewBuffer");
    check(xpurtMpiNewBuffer(context, n, rowBytes, b.data(), &mb), "xpurtMpiNewBuffer");
    check(xpurtMpiNewBuffer(context, n, rowBytes, nullptr, &mc), "xpurtMpiNewBuffer");
    XpurtMpiGraph mm = nullptr;
    check(xpurtMpiNewGraph(context, &mm), "xpurtMpiNewGraph");
    XpurtMpiArg args[] = {bufferArg(ma, XPURT_ACCESS_READ, XPURT_RANGE_MAPPER_ONE_TO_ONE),
                          bufferArg(mb, XPURT_ACCESS_READ, XPURT_RANGE_MAPPER_ALL),
                          bufferArg(mc, XPURT_ACCESS_WRITE, XPURT_RANGE_MAPPER_ONE_TO_ONE),
                          XPURT_MPI_ARG_VALUE(&n, sizeof n)};
    size_t global[2] = {static_cast<size_t>(n), static_cast<size_t>(n)}, local[2] = {16, 16};
    check(xpurtMpiGraphAddLaunch(mm, product.handle(), 4, args, 2, global, local, XPURT_MPI_SPLIT),
          "xpurtMpiGraphAddLaunch");
    check(xpurtMpiGraphAddRead(mm, mc, 0, n, c.data(), 0), "xpurtMpiGraphAddRead");
    check(xpurtMpiGraphLaunch(mm), "xpurtMpiGraphLaunch");
    check(xpurtMpiWait(context), "xpurtMpiWait");
    XpurtMpiStats moved{};
    moved.structSize = sizeof moved;
    xpurtMpiGetStats(context, &moved);
    xpurtMpiReleaseGraph(mm);
    for (XpurtMpiBuffer m : {ma, mb, mc}) xpurtMpiReleaseBuffer(m);
    check(xpurtMpiReleaseContext(context), "xpurtMpiReleaseContext");

    if (rank == 0) {
      std::vector<float> alone;
      double msAlone = stencilAlone(device, jacobi, width, rows, steps, alone);
      double worst = 0.0;
      for (size_t i = 0; i < grid.size(); ++i)
        worst = std::max(worst, static_cast<double>(std::fabs(grid[i] - alone[i])));
      bool same = worst <= 1e-5;
      failures += !same;
      std::printf(
          "stencil %d x %d, %d steps over %d ranks: %.3f ms a step (%.3f ms on rank 0's "
          "device alone); %s (largest difference %g)\n",
          width, rows, steps, ranks, msDistributed, msAlone,
          same ? "the same grid as one device" : "DIFFERENT from one device", worst);
      xpurt::Array<float> da(device, a), db(device, b), dc(device, n * static_cast<size_t>(n));
      xpurt::TaskQueue queue(device);
      queue.copyToDevice(da);
      queue.copyToDevice(db);
      queue.launch(product, xpurt::Range(global[0], global[1]).local(16, 16),
                   {xpurt::Arg(da), xpurt::Arg(db), xpurt::Arg(dc, 0, xpurt::Access::Write), n});
      queue.copyToHost(dc);
      queue.sync();
      bool sameProduct = std::equal(c.begin(), c.end(), dc.hostPtr());
      failures += !sameProduct;
      std::printf(
          "matrix product %d x %d over %d ranks: %s; rank 0 received %llu bytes in %llu "
          "messages\n",
          n, n, ranks, sameProduct ? "the same as one device" : "DIFFERENT from one device",
          static_cast<unsigned long long>(moved.bytesReceived),
          static_cast<unsigned long long>(moved.messagesReceived));
    }
  } catch (const xpurt::Error &e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    failures = 1;
  }
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any ? 1 : 0;
}
