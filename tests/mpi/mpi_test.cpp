// The MPI layer (include/xpurt/xpurt_mpi.h) over 2 or 4 ranks, every rank on the same kind of
// device: distributed launches against host references, the items that move between ranks
// (only halos; nothing again on a replay), placement, reductions across ranks, and errors.
#include "mpi_test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace xpurt::test {
namespace {

using Grid = std::vector<float>;

Grid initialGrid(int width, int rows) {
  Grid g(static_cast<size_t>(width) * rows);
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < width; ++x)
      g[static_cast<size_t>(y) * width + x] =
          y == 0 ? 100.0f : static_cast<float>((x * 7 + y * 13) % 17) * 0.1f;
  return g;
}

Grid jacobiOnHost(Grid g, int width, int rows, int steps) {
  Grid next = g;
  for (int s = 0; s < steps; ++s) {
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < width; ++x) {
        size_t i = static_cast<size_t>(y) * width + x;
        next[i] = (x == 0 || x == width - 1 || y == 0 || y == rows - 1)
                      ? g[i]
                      : (g[i - 1] + g[i + 1] + g[i - width] + g[i + width]) * 0.25f;
      }
    std::swap(g, next);
  }
  return g;
}

// A Jacobi step graph (in -> out, out -> in) split by rows, replayed: the result matches the
// host's, and each replay moves exactly one row each way across every boundary between ranks.
TEST_P(MpiTest, StencilSplitByRowsMovesOnlyHaloRows) {
  const int width = 64, rows = 48, replays = 5;
  Grid start = initialGrid(width, rows);
  XpurtMpiBuffer a = buffer(rows, width * sizeof(float), start.data());
  XpurtMpiBuffer b = buffer(rows, width * sizeof(float));
  XpurtKernel jacobi = kernel("jacobi");
  XpurtMpiGraph step = graph();
  size_t global[2] = {static_cast<size_t>(width), static_cast<size_t>(rows)};
  for (int s = 0; s < 2; ++s) {
    XpurtMpiBuffer in = s ? b : a, out = s ? a : b;
    XpurtMpiArg args[] = {bufferArg(in, XPURT_ACCESS_READ, XPURT_RANGE_MAPPER_NEIGHBORHOOD, 1),
                          bufferArg(out, XPURT_ACCESS_WRITE, XPURT_RANGE_MAPPER_ONE_TO_ONE),
                          valueArg(&width, sizeof width), valueArg(&rows, sizeof rows)};
    ASSERT_MPI_OK(
        xpurtMpiGraphAddLaunch(step, jacobi, 4, args, 2, global, nullptr, XPURT_MPI_SPLIT));
  }
  for (int r = 0; r < replays; ++r) ASSERT_MPI_OK(xpurtMpiGraphLaunch(step));
  ASSERT_MPI_OK(xpurtMpiWait(context));
  XpurtMpiStats moved = stats();
  // A rank inside receives a row from each side per step; those at the ends from one side.
  size_t neighbours = (rank > 0) + (rank < ranks - 1);
  EXPECT_EQ(moved.bytesReceived, replays * 2 * neighbours * width * sizeof(float));
  EXPECT_EQ(moved.messagesReceived, replays * 2 * neighbours);
  EXPECT_EQ(moved.bytesSent, moved.bytesReceived);
  // Each rank holds its own rows of both buffers and the halo rows it reads, nothing more.
  EXPECT_EQ(moved.bytesHeld, 2 * (rows / ranks + neighbours) * width * sizeof(float));

  Grid result(start.size(), -1.0f);
  XpurtMpiGraph read = graph();
  ASSERT_MPI_OK(xpurtMpiGraphAddRead(read, a, 0, rows, result.data(), XPURT_MPI_ALL_RANKS));
  ASSERT_MPI_OK(xpurtMpiGraphLaunch(read));
  ASSERT_MPI_OK(xpurtMpiWait(context));
  Grid expected = jacobiOnHost(start, width, rows, 2 * replays);
  for (size_t i = 0; i < result.size(); ++i)
    ASSERT_NEAR(result[i], expected[i], 1e-5f * std::max(1.0f, std::fabs(expected[i])))
        << "cell " << i << " on rank " << rank;
}

// Items another rank already holds up to date are not sent again: reading the same items twice
// moves them once, and a write by their owner makes the next read move them again.
TEST_P(MpiTest, NothingMovesTwice) {
  const size_t n = 1000;
  std::vector<float> values(n);
  std::iota(values.begin(), values.end(), 0.0f);
  XpurtMpiBuffer x = buffer(n, sizeof(float), values.data());
  std::vector<float> seen(n, -1.0f);
  XpurtMpiGraph read = graph();
  ASSERT_MPI_OK(xpurtMpiGraphAddRead(read, x, 0, n, seen.data(), 0));
  ASSERT_MPI_OK(xpurtMpiGraphAddRead(read, x, 0, n, seen.data(), 0));
  ASSERT_MPI_OK(xpurtMpiGraphLaunch(read));
  ASSERT_MPI_OK(xpurtMpiGraphLaunch(read));
  ASSERT_MPI_OK(xpurtMpiWait(context));
  size_t first = 0, count = 0;
  ASSERT_MPI_OK(xpurtMpiBufferGetOwnedItems(x, 0, &first, &count));
  if (rank == 0) {
    EXPECT_EQ(stats().bytesReceived, (n - count) * sizeof(float));
    EXPECT_EQ(seen, values);
  }
  // Every rank adds 1 to its own items (split launch), then rank 0 reads all again.
  XpurtKernel scale = kernel("scale_add");
  float one = 1.0f, plusOne = 1.0f;
  XpurtMpiArg args[] = {bufferArg(x, XPURT_ACCESS_READ_WRITE, XPURT_RANGE_MAPPER_ONE_TO_ONE),
                        valueArg(&one, sizeof one), valueArg(&plusOne, sizeof plusOne)};
  XpurtMpiGraph add = graph();
  ASSERT_MPI_OK(xpurtMpiGraphAddLaunch(add, scale, 3, args, 1, &n, nullptr, XPURT_MPI_SPLIT));
  ASSERT_MPI_OK(xpurtMpiGraphLaunch(add));
  ASSERT_MPI_OK(xpurtMpiGraphLaunch(read));
  ASSERT_MPI_OK(xpurtMpiWait(context));
  if (rank == 0) {
    EXPECT_EQ(stats().bytesReceived, 2 * (n - count) * sizeof(float));
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], values[i] + 1.0f) << "item " << i;
  }
  size_t mineFirst = 0, mine = 0;
  ASSERT_MPI_OK(xpurtMpiBufferGetOwnedItems(x, rank, &mineFirst, &mine));
  EXPECT_EQ(stats().bytesSent, rank == 0 ? 0u : 2 * mine * sizeof(float));
}

// A launch on one rank gets the items it reads from their owners and leaves what it wrote up
// to date there alone; XPURT_MPI_OWNER runs a launch where the first item it writes lives.
TEST_P(MpiTest, PlacementOnOneRankAndByOwner) {
  const size_t n = 600;
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = static_cast<float>(i % 37);
  XpurtMpiBuffer x = buffer(n, sizeof(float), values.data());
  XpurtKernel scale = kernel("scale_add");
  float two = 2.0f, three = 3.0f;
  XpurtMpiArg args[] = {bufferArg(x, XPURT_ACCESS_READ_WRITE, XPURT_RANGE_MAPPER_ONE_TO_ONE),
                        valueArg(&two, sizeof two), valueArg(&three, sizeof three)};
  int last = ranks - 1;
  XpurtMpiGraph g = graph();
  ASSERT_MPI_OK(xpurtMpiGraphAddLaunch(g, scale, 3, args, 1, &n, nullptr, last));
  // Then where item 0 lives (rank 0), over every item again.
  ASSERT_MPI_OK(xpurtMpiGraphAddLaunch(g, scale, 3, args, 1, &n, nullptr, XPURT_MPI_OWNER));
  std::vector<float> result(n, -1.0f);
  ASSERT_MPI_OK(xpurtMpiGraphAddRead(g, x, 0, n, result.data(), 0));
  ASSERT_MPI_OK(xpurtMpiGraphLaunch(g));
  ASSERT_MPI_OK(xpurtMpiWait(context));
  size_t firstLast = 0, countLast = 0, first0 = 0, count0 = 0;
  ASSERT_MPI_OK(xpurtMpiBufferGetOwnedItems(x, last, &firstLast, &countLast));
  ASSERT_MPI_OK(xpurtMpiBufferGetOwnedItems(x, 0, &first0, &count0));
  XpurtMpiStats s = stats();
  if (rank == last) {
    EXPECT_EQ(s.bytesReceived, (n - countLast) * sizeof(float));
    EXPECT_EQ(s.bytesSent, n * sizeof(float));  // all of it to rank 0, which runs the second
  } else if (rank == 0) {
    EXPECT_EQ(s.bytesReceived, n * sizeof(float));
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(result[i], (values[i] * 2.0f + 3.0f) * 2.0f + 3.0f) << "item " << i;
  } else {
    // Its own items, to the last rank; nothing else.
    size_t first = 0, count = 0;
    ASSERT_MPI_OK(xpurtMpiBufferGetOwnedItems(x, rank, &first, &count));
    EXPECT_EQ(s.bytesSent, count * sizeof(float));
    EXPECT_EQ(s.bytesReceived, 0u);
  }
}

// A sum over every rank's rows: partial sums where the rows live, gathered by one launch on
// rank 0, and the result read by every rank.
TEST_P(MpiTest, ReductionAcrossRanks) {
  const int width = 32, rows = 40;
  std::vector<float> x(static_cast<size_t>(width) * rows);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 11) % 7) - 2.0f;
  XpurtMpiBuffer values = buffer(rows, width * sizeof(float), x.data());
  XpurtMpiBuffer sums = buffer(rows, sizeof(float));
  XpurtMpiBuffer result = buffer(1, sizeof(float));
  XpurtKernel rowSums = kernel("row_sums"), total = kernel("total");
  XpurtMpiGraph g = graph();
  size_t n = rows, one = 1;
  XpurtMpiArg partial[] = {bufferArg(values, XPURT_ACCESS_READ, XPURT_RANGE_MAPPER_ONE_TO_ONE),
                           bufferArg(sums, XPURT_ACCESS_WRITE, XPURT_RANGE_MAPPER_ONE_TO_ONE),
                           valueArg(&width, sizeof width)};
  ASSERT_MPI_OK(xpurtMpiGraphAddLaunch(g, rowSums, 3, partial, 1, &n, nullptr, XPURT_MPI_SPLIT));
  XpurtMpiArg gather[] = {bufferArg(sums, XPURT_ACCESS_READ, XPURT_RANGE_MAPPER_ALL),
                          bufferArg(result, XPURT_ACCESS_WRITE, XPURT_RANGE_MAPPER_ALL),
                          valueArg(&rows, sizeof rows)};
  ASSERT_MPI_OK(xpurtMpiGraphAddLaunch(g, total, 3, gather, 1, &one, nullptr, 0));
  float sum = -1.0f;
  ASSERT_MPI_OK(xpurtMpiGraphAddRead(g, result, 0, 1, &sum, XPURT_MPI_ALL_RANKS));
  ASSERT_MPI_OK(xpurtMpiGraphLaunch(g));
  ASSERT_MPI_OK(xpurtMpiWait(context));
  EXPECT_EQ(sum, std::accumulate(x.begin(), x.end(), 0.0f)) << "rank " << rank;
  // No rank but 0 received any of the values: only partial sums and the result moved.
  if (rank != 0) {
    EXPECT_EQ(stats().bytesReceived, sizeof(float));
  }
}

// C = A * B with A's and C's rows where they live and B read whole by every rank.
TEST_P(MpiTest, MatrixProductSplitByRows) {
  const int n = 24;
  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>(i % 5) - 1.0f;
    b[i] = static_cast<float>(i % 3) * 0.5f;
  }
  XpurtMpiBuffer ma = buffer(n, n * sizeof(float), a.data());
  XpurtMpiBuffer mb = buffer(n, n * sizeof(float), b.data());
  XpurtMpiBuffer mc = buffer(n, n * sizeof(float));
  XpurtKernel matmul = kernel("matmul");
  XpurtMpiArg args[] = {bufferArg(ma, XPURT_ACCESS_READ, XPURT_RANGE_MAPPER_ONE_TO_ONE),
                        bufferArg(mb, XPURT_ACCESS_READ, XPURT_RANGE_MAPPER_ALL),
                        bufferArg(mc, XPURT_ACCESS_WRITE, XPURT_RANGE_MAPPER_ONE_TO_ONE),
                        valueArg(&n, sizeof n)};
  size_t global[2] = {n, n}, local[2] = {4, 2};
  XpurtMpiGraph g = graph();
  ASSERT_MPI_OK(xpurtMpiGraphAddLaunch(g, matmul, 4, args, 2, global, local, XPURT_MPI_SPLIT));
  std::vector<float> c(n * n, -1.0f);
  ASSERT_MPI_OK(xpurtMpiGraphAddRead(g, mc, 0, n, c.data(), 0));
  ASSERT_MPI_OK(xpurtMpiGraphLaunch(g));
  ASSERT_MPI_OK(xpurtMpiGraphLaunch(g));  // B is already everywhere: only C's rows move again
  ASSERT_MPI_OK(xpurtMpiWait(context));
  if (rank == 0) {
    for (int row = 0; row < n; ++row)
      for (int col = 0; col < n; ++col) {
        float s = 0.0f;
        for (int k = 0; k < n; ++k) s += a[row * n + k] * b[k * n + col];
        ASSERT_EQ(c[row * n + col], s) << "row " << row << " col " << col;
      }
  }
  size_t first = 0, count = 0;
  ASSERT_MPI_OK(xpurtMpiBufferGetOwnedItems(mb, rank, &first, &count));
  size_t bRows = n - count, cRows = rank == 0 ? n - count : 0;
  EXPECT_EQ(stats().bytesReceived, (bRows + 2 * cRows) * n * sizeof(float)) << "rank " << rank;
}

// A write from one rank's host memory reaches the other ranks' launches; with
// XPURT_MPI_ALL_RANKS every rank writes the same bytes and nothing moves.
TEST_P(MpiTest, HostWrites) {
  const size_t n = 64;
  XpurtMpiBuffer x = buffer(n, sizeof(float));
  std::vector<float> mine(n), everyones(n, 5.0f), result(n);
  for (size_t i = 0; i < n; ++i) mine[i] = static_cast<float>(i) * (rank + 1);
  XpurtMpiGraph g = graph();
  ASSERT_MPI_OK(xpurtMpiGraphAddWrite(g, x, 0, n, mine.data(), ranks - 1));
  ASSERT_MPI_OK(xpurtMpiGraphAddRead(g, x, 0, n, result.data(), 0));
  ASSERT_MPI_OK(xpurtMpiGraphLaunch(g));
  ASSERT_MPI_OK(xpurtMpiWait(context));
  if (rank == 0) {
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(result[i], static_cast<float>(i) * ranks);
  }
  XpurtMpiStats before = stats();
  XpurtMpiGraph all = graph();
  ASSERT_MPI_OK(xpurtMpiGraphAddWrite(all, x, 0, n, everyones.data(), XPURT_MPI_ALL_RANKS));
  ASSERT_MPI_OK(xpurtMpiGraphAddRead(all, x, 0, n, result.data(), XPURT_MPI_ALL_RANKS));
  ASSERT_MPI_OK(xpurtMpiGraphLaunch(all));
  ASSERT_MPI_OK(xpurtMpiWait(context));
  EXPECT_EQ(result, everyones);
  EXPECT_EQ(stats().bytesReceived, before.bytesReceived);
}

// Bad input gets an error that says what was wrong, and the context goes on working.
TEST_P(MpiTest, BadInputIsRefusedAndTheContextStaysUsable) {
  XpurtMpiBuffer x = buffer(10, sizeof(float));
  XpurtMpiGraph g = graph();
  float v = 0.0f;
  EXPECT_EQ(xpurtMpiGraphAddRead(g, x, 5, 6, &v, 0), XPURT_ERROR_OUT_OF_RANGE);
  EXPECT_NE(std::string(xpurtMpiLastErrorMessage()).find("not within the 10 items"),
            std::string::npos)
      << xpurtMpiLastErrorMessage();
  EXPECT_EQ(xpurtMpiGraphAddRead(g, x, 0, 1, &v, ranks), XPURT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpurtMpiLastErrorMessage()).find("is not a rank"), std::string::npos);
  XpurtKernel scale = kernel("scale_add");
  size_t n = 10;
  XpurtMpiArg noBuffer[] = {bufferArg(nullptr, XPURT_ACCESS_READ, XPURT_RANGE_MAPPER_ALL)};
  EXPECT_EQ(xpurtMpiGraphAddLaunch(g, scale, 1, noBuffer, 1, &n, nullptr, 0),
            XPURT_ERROR_INVALID_HANDLE);
  XpurtMpiArg readOnly[] = {bufferArg(x, XPURT_ACCESS_READ, XPURT_RANGE_MAPPER_ALL)};
  EXPECT_EQ(xpurtMpiGraphAddLaunch(g, scale, 1, readOnly, 1, &n, nullptr, XPURT_MPI_OWNER),
            XPURT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpurtMpiLastErrorMessage()).find("writes none"), std::string::npos);
  EXPECT_EQ(xpurtMpiGraphAddLaunch(g, scale, 1, readOnly, 4, &n, nullptr, 0),
            XPURT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(xpurtMpiNewBuffer(context, 0, 4, nullptr, &x), XPURT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(xpurtMpiWait(nullptr), XPURT_ERROR_INVALID_HANDLE);
  // Nothing was added: the graph still works.
  float w = 7.0f;
  ASSERT_MPI_OK(xpurtMpiGraphAddWrite(g, x, 3, 1, &w, XPURT_MPI_ALL_RANKS));
  ASSERT_MPI_OK(xpurtMpiGraphAddRead(g, x, 3, 1, &v, XPURT_MPI_ALL_RANKS));
  ASSERT_MPI_OK(xpurtMpiGraphLaunch(g));
  ASSERT_MPI_OK(xpurtMpiWait(context));
  EXPECT_EQ(v, 7.0f);
}

// Ranks that launch different graphs fail, every one of them, with a message naming what
// differed, instead of exchanging the wrong items or waiting forever: here rank 1 reads other
// items than the rest, so the messages each rank expects differ too.
TEST_P(MpiTest, DifferentGraphsOnDifferentRanksFailEveryRank) {
  std::vector<float> values(100);
  std::iota(values.begin(), values.end(), 1.0f);
  XpurtMpiBuffer x = buffer(100, sizeof(float), values.data());
  std::vector<float> out(100, -1.0f);
  XpurtMpiGraph g = graph();
  size_t first = rank == 1 ? 10 : 0;
  ASSERT_MPI_OK(xpurtMpiGraphAddRead(g, x, first, 90, out.data(), 0));
  ASSERT_MPI_OK(xpurtMpiGraphLaunch(g));
  EXPECT_EQ(xpurtMpiWait(context), XPURT_ERROR_INVALID_ARGUMENT);
  std::string message = xpurtMpiLastErrorMessage();
  EXPECT_NE(message.find("the ranks did not do the same"), std::string::npos) << message;
  // Each rank names one that differs from it.
  std::string other = "rank " + std::to_string(rank == 1 ? 0 : 1);
  EXPECT_NE(message.find(other), std::string::npos) << message;
  // No bytes of the other graph were handed over.
  EXPECT_EQ(out, std::vector<float>(100, -1.0f));
  // The failed context refuses more work and is released with its error.
  EXPECT_EQ(xpurtMpiGraphLaunch(g), XPURT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(xpurtMpiReleaseContext(context), XPURT_ERROR_INVALID_ARGUMENT);
  context = nullptr;
}

// A context that one rank cannot create (its device is NULL) fails on every rank, naming it,
// instead of leaving the others waiting for it.
TEST_P(MpiTest, AContextOneRankCannotCreateFailsOnEveryRank) {
  XpurtMpiContext other = nullptr;
  XpurtResult r =
      xpurtMpiNewContext(MPI_COMM_WORLD, rank == 1 ? nullptr : device.handle(), nullptr, &other);
  EXPECT_EQ(r, XPURT_ERROR_INVALID_HANDLE);
  std::string message = xpurtMpiLastErrorMessage();
  EXPECT_NE(message.find(rank == 1 ? "its device is NULL" : "rank 1 could not create"),
            std::string::npos)
      << message;
  EXPECT_EQ(other, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Devices, MpiTest, ::testing::ValuesIn(conformanceDevices()),
                         [](const auto &param) { return param.param.name; });

}  // namespace
}  // namespace xpurt::test
