// SPIR-V kernels with barriers and __local memory.
#include "device_param.hpp"

#include <numeric>
#include <random>

namespace xpurt::test {
namespace {

class BarrierTest : public DeviceTest {
 protected:
  Module spirv{device, "xpurt_test_spirv"};
};

TEST_P(BarrierTest, WorkGroupReductionWithABarrierInALoop) {
  for (size_t local : {1, 2, 8, 64, 256}) {
    size_t groups = 37, n = groups * local;
    Array<float, AllocType::Shared> in(device, n), out(device, groups);
    for (size_t i = 0; i < n; ++i) in.hostPtr()[i] = static_cast<float>(i % 13) - 6.0f;
    queue.launch(Kernel(spirv, "reduce_sum"), Range(n).local(local),
                 {in, out, Arg::local(local * sizeof(float))});
    queue.sync();
    for (size_t g = 0; g < groups; ++g) {
      float want = 0;
      for (size_t i = g * local; i < (g + 1) * local; ++i) want += in.hostPtr()[i];
      ASSERT_EQ(out.hostPtr()[g], want) << "local " << local << ", group " << g;
    }
  }
}

TEST_P(BarrierTest, TransposeThroughAStaticLocalTileOfAMatrixNotAMultipleOfIt) {
  int rows = 45, cols = 70;  // the range is rounded up to whole tiles; the kernel checks bounds
  Array<float, AllocType::Shared> in(device, rows * cols), out(device, rows * cols);
  std::iota(in.hostPtr(), in.hostPtr() + rows * cols, 0.0f);
  queue.launch(Kernel(spirv, "transpose"), Range(80, 48).local(16, 16),
               {out, in, int32_t{rows}, int32_t{cols}});
  queue.sync();
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x)
      ASSERT_EQ(out.hostPtr()[x * rows + y], in.hostPtr()[y * cols + x]) << x << "," << y;
}

// Group shapes whose x is a multiple of every vector width, one with a part of a vector left
// over, one narrower than any vector, and ones with several rows and layers: the CPU runs the
// rows of a vector of work-items innermost and the rest of x after (work_item_loops.cpp).
TEST_P(BarrierTest, TiledRowProductsMatchTheHostForEveryGroupShape) {
  struct Shape {
    size_t global[3], local[3];
  };
  const Shape shapes[] = {{{32, 8, 1}, {16, 4, 1}},
                          {{48, 6, 1}, {24, 3, 1}},
                          {{10, 4, 4}, {5, 2, 2}},
                          {{64, 3, 2}, {32, 3, 2}},
                          {{40, 2, 3}, {20, 1, 3}}};
  for (const Shape &s : shapes) {
    size_t n = s.global[0] * s.global[1] * s.global[2], lx = s.local[0];
    size_t groupItems = lx * s.local[1] * s.local[2];
    Array<float, AllocType::Shared> in(device, n), w(device, lx * lx), out(device, n);
    // Small integers: every product and sum is exact in float, in any order.
    for (size_t i = 0; i < n; ++i) in.hostPtr()[i] = static_cast<float>(int(i * 7 % 11) - 5);
    for (size_t i = 0; i < lx * lx; ++i) w.hostPtr()[i] = static_cast<float>(int(i * 5 % 7) - 3);
    std::fill(out.hostPtr(), out.hostPtr() + n, -1.0f);
    queue.launch(
        Kernel(spirv, "tile_row_products"),
        Range(s.global[0], s.global[1], s.global[2]).local(s.local[0], s.local[1], s.local[2]),
        {in, w, out, Arg::local(groupItems * sizeof(float))});
    queue.sync();
    for (size_t gz = 0; gz < s.global[2]; ++gz)
      for (size_t gy = 0; gy < s.global[1]; ++gy)
        for (size_t gx = 0; gx < s.global[0]; ++gx) {
          // The row of the group's tile: the same group, the same y and z, every x.
          size_t rowStart = ((gz * s.global[1] + gy) * s.global[0]) + gx / lx * lx;
          float want = 0;
          for (size_t k = 0; k < lx; ++k)
            want += in.hostPtr()[rowStart + k] * w.hostPtr()[k * lx + gx % lx];
          size_t g = (gz * s.global[1] + gy) * s.global[0] + gx;
          ASSERT_EQ(out.hostPtr()[g], want)
              << "group shape " << s.local[0] << "x" << s.local[1] << "x" << s.local[2]
              << ", work-item " << gx << "," << gy << "," << gz;
        }
  }
}

TEST_P(BarrierTest, PrefixScanSwapsLocalBuffersAcrossBarriers) {
  size_t local = 128, groups = 9, n = local * groups;
  Array<int32_t, AllocType::Shared> in(device, n), out(device, n);
  std::mt19937 rng(5);
  for (size_t i = 0; i < n; ++i) in.hostPtr()[i] = static_cast<int32_t>(rng() % 100);
  queue.launch(Kernel(spirv, "prefix_scan"), Range(n).local(local),
               {in, out, Arg::local(local * 4), Arg::local(local * 4)});
  queue.sync();
  for (size_t g = 0; g < groups; ++g) {
    int32_t sum = 0;
    for (size_t i = g * local; i < (g + 1) * local; ++i) {
      sum += in.hostPtr()[i];
      ASSERT_EQ(out.hostPtr()[i], sum) << i;
    }
  }
}

TEST_P(BarrierTest, LocalAtomicsBuildAHistogram) {
  int n = 10000;
  Array<uint32_t, AllocType::Shared> in(device, n), bins(device, 16);
  for (int i = 0; i < n; ++i) in.hostPtr()[i] = static_cast<uint32_t>(i * 7);
  std::fill_n(bins.hostPtr(), 16, 0u);
  queue.launch(Kernel(spirv, "histogram"), Range(10240).local(64), {in, bins, int32_t{n}});
  queue.sync();
  std::vector<uint32_t> want(16);
  for (int i = 0; i < n; ++i) want[(i * 7) % 16]++;
  for (int k = 0; k < 16; ++k) EXPECT_EQ(bins.hostPtr()[k], want[k]) << k;
}

TEST_P(BarrierTest, PrivateValuesSurviveManyBarriers) {
  size_t local = 24, groups = 5, n = local * groups;
  int rounds = 7;
  Array<int32_t, AllocType::Shared> data(device, n);
  std::iota(data.hostPtr(), data.hostPtr() + n, 0);
  std::vector<int32_t> want(n);
  for (size_t g = 0; g < groups; ++g) {
    std::vector<int32_t> value(data.hostPtr() + g * local, data.hostPtr() + (g + 1) * local);
    std::vector<int32_t> history(local, 0);
    for (int r = 0; r < rounds; ++r) {
      std::vector<int32_t> ring = value;
      for (size_t l = 0; l < local; ++l) {
        value[l] = ring[(l + 1) % local];
        history[l] = history[l] * 3 + value[l];
      }
    }
    for (size_t l = 0; l < local; ++l) want[g * local + l] = value[l] * 1000 + (history[l] & 511);
  }
  queue.launch(Kernel(spirv, "rotate_ring"), Range(n).local(local),
               {data, int32_t{rounds}, Arg::local(local * 4)});
  queue.sync();
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(data.hostPtr()[i], want[i]) << i;
}

XPURT_INSTANTIATE_CONFORMANCE(BarrierTest);

}  // namespace
}  // namespace xpurt::test
