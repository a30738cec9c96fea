// SPIR-V kernels whose work-items part ways in loops and branches (tests/kernels/
// divergent_kernels.cl), against host references, over group sizes that are and are not
// multiples of a vector width, down to one work-item.
#include "device_param.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>

namespace xpurt::test {
namespace {

class DivergentTest : public DeviceTest {
 protected:
  Module spirv{device, "xpurt_test_spirv"};
};

TEST_P(DivergentTest, LoopsOfEachWorkItemsOwnLengthWithABranchInside) {
  for (size_t local : {1, 3, 8, 13, 64}) {
    size_t n = local * 7;
    Array<uint32_t, AllocType::Shared> in(device, n), steps(device, n), peak(device, n);
    for (size_t i = 0; i < n; ++i) in.hostPtr()[i] = static_cast<uint32_t>(i * 37 % 1000 + 1);
    uint32_t limit = 100;
    queue.launch(Kernel(spirv, "collatz"), Range(n).local(local), {in, steps, peak, limit});
    queue.sync();
    for (size_t i = 0; i < n; ++i) {
      uint32_t v = in.hostPtr()[i], count = 0, top = v;
      while (v != 1 && count < limit) {
        v = (v & 1) ? 3 * v + 1 : v >> 1;
        top = std::max(top, v);
        ++count;
      }
      ASSERT_EQ(steps.hostPtr()[i], count) << "local " << local << ", item " << i;
      ASSERT_EQ(peak.hostPtr()[i], top) << "local " << local << ", item " << i;
    }
  }
}

TEST_P(DivergentTest, NestedLoopsBreakAndWorkItemsReturnEarly) {
  size_t local = 16, global = 160;
  int n = 150;  // the last work-items return at once
  Array<int32_t, AllocType::Shared> in(device, global), out(device, global);
  std::mt19937 rng(3);
  for (size_t i = 0; i < global; ++i) in.hostPtr()[i] = static_cast<int32_t>(rng() % 200) - 50;
  std::fill_n(out.hostPtr(), global, -12345);
  queue.launch(Kernel(spirv, "nested_breaks"), Range(global).local(local), {in, out, n});
  queue.sync();
  for (int i = 0; i < static_cast<int>(global); ++i) {
    if (i >= n) {
      ASSERT_EQ(out.hostPtr()[i], -12345) << i;
      continue;
    }
    int v = in.hostPtr()[i], acc = 0;
    for (int a = 0; a < (v & 7); ++a) {
      for (int b = 0; b < a + (i & 3); ++b) {
        if (((a * b + v) & 15) == 3) break;
        acc += a * 3 + b - v % 5;
      }
      if (acc > 40) break;
    }
    ASSERT_EQ(out.hostPtr()[i], acc) << i;
  }
}

// Work-items that left the loop hold zero where the others divide: an integer division by
// zero traps on x86, so a vectorised loop must not divide for them.
TEST_P(DivergentTest, DivisionsAndAtomicsOnlyForWorkItemsStillInTheLoop) {
  size_t n = 8 * 40;
  int step = 3;
  Array<int32_t, AllocType::Shared> in(device, n), counts(device, 16), out(device, n);
  for (size_t i = 0; i < n; ++i) in.hostPtr()[i] = static_cast<int32_t>(i % 23) * (i % 2 ? 1 : 3);
  std::fill_n(counts.hostPtr(), 16, 0);
  queue.launch(Kernel(spirv, "divide_and_count"), Range(n).local(8), {in, counts, out, step});
  queue.sync();
  std::vector<int32_t> want(16, 0);
  for (size_t i = 0; i < n; ++i) {
    int v = in.hostPtr()[i], q = 0;
    while (v > 0) {
      q += 1000 / v;
      want[v & 15]++;
      v -= step;
    }
    ASSERT_EQ(out.hostPtr()[i], q) << i;
  }
  for (int k = 0; k < 16; ++k) EXPECT_EQ(counts.hostPtr()[k], want[k]) << k;
}

TEST_P(DivergentTest, MathCallsInALoopOfDataDependentLength) {
  size_t n = 24 * 9;
  Array<float, AllocType::Shared> in(device, n), out(device, n);
  Array<int32_t, AllocType::Shared> iterations(device, n);
  for (size_t i = 0; i < n; ++i) in.hostPtr()[i] = 0.25f + static_cast<float>(i * i % 977);
  queue.launch(Kernel(spirv, "newton_sqrt"), Range(n).local(24), {in, out, iterations});
  queue.sync();
  for (size_t i = 0; i < n; ++i) {
    float a = in.hostPtr()[i], root = std::sqrt(a);
    ASSERT_NEAR(out.hostPtr()[i], root, 1e-4f * root) << "sqrt(" << a << ")";
    ASSERT_LT(iterations.hostPtr()[i], 60) << a;
    if (a > 4.0f) {
      ASSERT_GT(iterations.hostPtr()[i], 1) << a;
    }
  }
}

TEST_P(DivergentTest, TwoDimensionalEscapeCounts) {
  int width = 80, height = 40, limit = 64;
  for (auto [lx, ly] : {std::pair{16, 4}, std::pair{5, 8}, std::pair{1, 1}}) {
    Array<int32_t, AllocType::Shared> out(device, width * height);
    queue.launch(Kernel(spirv, "escape_grid"), Range(width, height).local(lx, ly),
                 {out, width, limit});
    queue.sync();
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        int zr = x - 40, zi = y - 20, k = 0;
        while (k < limit && zr * zr + zi * zi < 10000) {
          int t = (zr * zr - zi * zi) / 16 + x - 40;
          zi = (2 * zr * zi) / 16 + y - 20;
          zr = t;
          ++k;
        }
        ASSERT_EQ(out.hostPtr()[y * width + x], k) << x << "," << y << " in " << lx << "x" << ly;
      }
  }
}

TEST_P(DivergentTest, ALoopOfVaryingLengthAfterABarrier) {
  for (size_t local : {8, 12, 32}) {
    size_t n = local * 6;
    Array<uint32_t, AllocType::Shared> in(device, n), out(device, n);
    for (size_t i = 0; i < n; ++i) in.hostPtr()[i] = static_cast<uint32_t>(i * 53 % 700 + 1);
    queue.launch(Kernel(spirv, "steps_of_neighbour"), Range(n).local(local),
                 {in, out, Arg::local(local * sizeof(uint32_t))});
    queue.sync();
    for (size_t i = 0; i < n; ++i) {
      size_t group = i / local, lid = i % local;
      uint32_t v = in.hostPtr()[group * local + (lid + 1) % local], steps = 0;
      while (v != 1 && steps < 500) {
        v = (v & 1) ? 3 * v + 1 : v / 2;
        ++steps;
      }
      ASSERT_EQ(out.hostPtr()[i], steps) << "local " << local << ", item " << i;
    }
  }
}

TEST_P(DivergentTest, LoopsAllWorkItemsRunAlikeInsideABranchOnlySomeTake) {
  for (size_t local : {1, 5, 8, 24}) {
    for (int n : {0, 7, 30}) {
      size_t global = local * 5;
      Array<int32_t, AllocType::Shared> in(device, global), out(device, global);
      for (size_t i = 0; i < global; ++i) in.hostPtr()[i] = static_cast<int32_t>(i * 29 % 97);
      std::fill_n(out.hostPtr(), global, -7);
      queue.launch(Kernel(spirv, "uniform_loops_in_branches"), Range(global).local(local),
                   {in, out, n});
      queue.sync();
      for (size_t i = 0; i < global; ++i) {
        int v = in.hostPtr()[i], acc = 0, stored = -7;
        if (v % 3 != 0) {
          for (int k = 0; k < n; ++k) {
            acc += v * k + (k & 1);
            stored = acc;
          }
        } else {
          for (int k = 0;; ++k) {
            if (k * k > n) break;
            acc -= k;
          }
        }
        while (v > 1) {
          v /= 2;
          ++acc;
        }
        ASSERT_EQ(out.hostPtr()[i], stored + acc)
            << "local " << local << ", n " << n << ", item " << i;
      }
    }
  }
}

// float4, int4 and float3 values per work-item, in a loop of an argument's count and one of
// each work-item's own length: the vectoriser packs the work-items' vectors side by side.
TEST_P(DivergentTest, VectorValuesOfEachWorkItemInLoops) {
  struct Float4 {
    float v[4];
  };
  struct Int4 {
    int32_t v[4];
  };
  for (size_t local : {1, 3, 8, 13, 64}) {
    for (int n : {0, 7}) {
      size_t global = local * 5;
      Array<Float4, AllocType::Shared> in(device, global), out(device, global);
      Array<Float4, AllocType::Shared> padded(device, global);
      Array<Int4, AllocType::Shared> counts(device, global);
      Array<float, AllocType::Shared> picked(device, global);
      for (size_t i = 0; i < global; ++i)
        for (int e = 0; e < 4; ++e)
          in.hostPtr()[i].v[e] =
              static_cast<float>(static_cast<int>((i * 5 + e * 3) % 13)) * 0.5f - 1.0f;
      std::fill_n(counts.hostPtr(), global, Int4{{-1, -1, -1, -1}});
      queue.launch(Kernel(spirv, "vector_lanes"), Range(global).local(local),
                   {in, out, counts, picked, padded, n});
      queue.sync();
      for (size_t i = 0; i < global; ++i) {
        const float *x = in.hostPtr()[i].v;
        float acc[4] = {}, y[4] = {x[0], x[1], x[2], x[3]};
        for (int k = 0; k < n; ++k)
          for (int e = 0; e < 4; ++e) acc[e] = std::fma(acc[e], 0.5f, x[e] + static_cast<float>(k));
        int32_t c[4] = {};
        while (y[0] + y[1] + y[2] + y[3] < 40.0f && c[0] < 50) {
          for (float &e : y) e = e * 1.5f + 1.0f;
          c[0] += 1, c[1] += 2, c[2] += static_cast<int>(y[2]) & 3;
        }
        c[3] = static_cast<int32_t>(i);
        std::swap(acc[1], acc[2]);
        std::string where = "local " + std::to_string(local) + ", n " + std::to_string(n) +
                            ", item " + std::to_string(i);
        for (int e = 0; e < 4; ++e) {
          ASSERT_EQ(out.hostPtr()[i].v[e], x[e] > 2.0f ? y[e] : acc[e]) << where << "." << e;
          ASSERT_EQ(counts.hostPtr()[i].v[e], i % 3 != 0 ? c[e] : -1) << where << "." << e;
        }
        for (int e = 0; e < 3; ++e)
          ASSERT_EQ(padded.hostPtr()[i].v[e], x[e] * 2.0f) << where << "." << e;
        ASSERT_EQ(picked.hostPtr()[i], acc[3] + y[0]) << where;
      }
    }
  }
}

// Loops counted by an argument, from no turn to more turns than a vector has lanes, at group
// sizes that do and do not fill whole vectors.
TEST_P(DivergentTest, LoopsCountedByAnArgument) {
  for (size_t local : {1, 3, 8, 13, 64}) {
    for (int n : {0, 1, 5, 17}) {
      size_t global = local * 4;
      size_t cells = global * static_cast<size_t>(std::max(n, 1));
      Array<float, AllocType::Shared> in(device, cells), sums(device, global), trail(device, cells);
      Array<int32_t, AllocType::Shared> rows(device, cells), rowSums(device, global);
      for (size_t c = 0; c < cells; ++c) {
        in.hostPtr()[c] = static_cast<float>(static_cast<int>(c * 7 % 19) - 9);
        rows.hostPtr()[c] = static_cast<int32_t>(c * 5 % 23) - 11;
      }
      std::fill_n(trail.hostPtr(), cells, -100.0f);
      queue.launch(Kernel(spirv, "counted_loops"), Range(global).local(local),
                   {in, rows, sums, rowSums, trail, n});
      queue.sync();
      for (size_t i = 0; i < global; ++i) {
        float acc = 0.0f;
        int last = -1, r = 0;
        for (int k = 0; k < n; ++k) {
          acc = acc * 0.5f + in.hostPtr()[k * global + i];
          last = k;
          r += rows.hostPtr()[i * n + k] * (k + 1);
        }
        std::string where = "local " + std::to_string(local) + ", n " + std::to_string(n) +
                            ", item " + std::to_string(i);
        ASSERT_EQ(sums.hostPtr()[i], acc + static_cast<float>(last)) << where;
        ASSERT_EQ(rowSums.hostPtr()[i], r) << where;
        for (int k = 0; k < n; ++k)
          ASSERT_EQ(trail.hostPtr()[k * global + i], i % 3 != 1 ? acc - k : -100.0f)
              << where << ", turn " << k;
      }
    }
  }
}

// Square groups of 1, 4, 12 and 16 work-items a side: none, some and all of a row in whole
// vectors of 8 or 16.
TEST_P(DivergentTest, TiledMatrixProductWithAUniformLoopBetweenBarriers) {
  for (int t : {1, 4, 12, 16}) {
    int n = t * 3;
    size_t items = static_cast<size_t>(n) * n;
    Array<float, AllocType::Shared> a(device, items), b(device, items), c(device, items);
    for (size_t i = 0; i < items; ++i) {
      a.hostPtr()[i] = static_cast<float>(static_cast<int>(i * 7 % 11) - 5);
      b.hostPtr()[i] = static_cast<float>(static_cast<int>(i * 5 % 13) - 6);
    }
    size_t tile = static_cast<size_t>(t) * t * sizeof(float);
    queue.launch(Kernel(spirv, "tiled_matmul"), Range(n, n).local(t, t),
                 {a, b, c, n, Arg::local(tile), Arg::local(tile)});
    queue.sync();
    for (int row = 0; row < n; ++row)
      for (int col = 0; col < n; ++col) {
        float want = 0.0f;  // small integers: exact in any order
        for (int k = 0; k < n; ++k) want += a.hostPtr()[row * n + k] * b.hostPtr()[k * n + col];
        ASSERT_EQ(c.hostPtr()[row * n + col], want) << "tile " << t << " at " << row << "," << col;
      }
  }
}

XPURT_INSTANTIATE_CONFORMANCE(DivergentTest);

}  // namespace
}  // namespace xpurt::test
