// Work-item functions and work-groups of SPIR-V kernels: ids in one, two and three
// dimensions with partial groups and offsets, groups sharing local memory and barriers, and
// kernels that ask only for global ids (whose groups the CPU device may merge).
#include "device_param.hpp"

#include <xpurt/graph.hpp>

#include <algorithm>
#include <vector>

namespace xpurt::test {
namespace {

class WorkItemTest : public DeviceTest {
 protected:
  Module spirv{device, "xpurt_test_spirv"};
};

struct Ids {
  uint64_t global[3], local[3], group[3], localSize[3], workDim, localLinear, offsets, counts;
};

void checkIds(const std::vector<uint64_t> &out, const size_t g[3], const size_t l[3],
              const size_t off[3], uint32_t dims) {
  size_t groups[3];
  for (int d = 0; d < 3; ++d) groups[d] = (g[d] + l[d] - 1) / l[d];
  for (size_t z = 0; z < g[2]; ++z)
    for (size_t y = 0; y < g[1]; ++y)
      for (size_t x = 0; x < g[0]; ++x) {
        size_t lin = (z * g[1] + y) * g[0] + x;
        Ids ids;
        std::memcpy(&ids, out.data() + lin * 16, sizeof ids);
        size_t pos[3] = {x, y, z};
        SCOPED_TRACE(testing::Message() << "work-item (" << x << "," << y << "," << z << ")");
        for (int d = 0; d < 3; ++d) {
          size_t group = pos[d] / l[d];
          size_t size = std::min(l[d], g[d] - group * l[d]);  // the last group may be smaller
          ASSERT_EQ(ids.global[d], pos[d] + off[d]);
          ASSERT_EQ(ids.local[d], pos[d] % l[d]);
          ASSERT_EQ(ids.group[d], group);
          ASSERT_EQ(ids.localSize[d], size);
        }
        ASSERT_EQ(ids.workDim, dims);
        size_t ls0 = std::min(l[0], g[0] - ids.group[0] * l[0]);
        size_t ls1 = std::min(l[1], g[1] - ids.group[1] * l[1]);
        ASSERT_EQ(ids.localLinear, (ids.local[2] * ls1 + ids.local[1]) * ls0 + ids.local[0]);
        ASSERT_EQ(ids.offsets, off[0] + 100 * off[1] + 10000 * off[2]);
        ASSERT_EQ(ids.counts, groups[0] + 100 * groups[1] + 10000 * groups[2] +
                                  1000000 * (g[0] + 100 * g[1] + 10000 * g[2]));
      }
}

TEST_P(WorkItemTest, WorkItemFunctionsInOneTwoAndThreeDimensionsWithPartialGroupsAndOffsets) {
  Kernel kernel(spirv, "work_item_ids");
  struct Case {
    uint32_t dims;
    size_t g[3], l[3], off[3];
  } cases[] = {{1, {37, 1, 1}, {8, 1, 1}, {0, 0, 0}},
               {1, {64, 1, 1}, {16, 1, 1}, {5, 0, 0}},
               {2, {13, 7, 1}, {4, 3, 1}, {1, 2, 0}},
               {3, {5, 6, 7}, {2, 4, 3}, {3, 0, 1}},
               // Offsets with whole groups, which every device runs.
               {2, {12, 6, 1}, {4, 3, 1}, {1, 2, 0}},
               {3, {4, 8, 6}, {2, 4, 3}, {3, 0, 1}},
               // Many small groups in 1-D, the last partial.
               {1, {100003, 1, 1}, {3, 1, 1}, {7, 0, 0}},
               // Grids of enough groups that the CPU runs them in tiles of groups, with
               // partial tiles at the edges and, in 3-D, tiles that span two z planes.
               {2, {290, 182, 1}, {2, 2, 1}, {1, 0, 0}},
               {2, {291, 181, 1}, {2, 2, 1}, {0, 0, 0}},
               {3, {130, 40, 9}, {2, 2, 3}, {0, 1, 2}}};
  for (const Case &c : cases) {
    size_t items = c.g[0] * c.g[1] * c.g[2];
    Array<uint64_t, AllocType::Shared> out(device, items * 16);
    Range range = c.dims == 1   ? Range(c.g[0])
                  : c.dims == 2 ? Range(c.g[0], c.g[1])
                                : Range(c.g[0], c.g[1], c.g[2]);
    range.local(c.l[0], c.l[1], c.l[2]).offset(c.off[0], c.off[1], c.off[2]);
    queue.launch(kernel, range, {out});
    queue.sync();
    std::vector<uint64_t> values(out.hostPtr(), out.hostPtr() + items * 16);
    checkIds(values, c.g, c.l, c.off, c.dims);
  }
}

// A kernel asking only for global ids and sizes over 1-D ranges of many small groups, the last
// one partial, with and without an offset: every work-item runs once, with its own ids.
TEST_P(WorkItemTest, GlobalIdsOnlyKernelsRunEveryWorkItemOnceOverManySmallGroups) {
  Kernel kernel(spirv, "global_ids_only");
  struct Case {
    size_t global, local, offset;
  } cases[] = {{100003, 3, 7}, {1 << 20, 16, 0}, {4099, 1, 5}, {65536 + 17, 256, 3}};
  for (const Case &c : cases) {
    SCOPED_TRACE(testing::Message() << c.global << " work-items in groups of " << c.local);
    Array<uint64_t, AllocType::Shared> out(device, c.global);
    std::fill_n(out.hostPtr(), c.global, 0);
    queue.launch(kernel, Range(c.global).local(c.local).offset(c.offset), {out});
    queue.sync();
    for (size_t i = 0; i < c.global; ++i)
      ASSERT_EQ(out.hostPtr()[i], c.offset + i + 1000000 * c.global + 100000000000ull) << i;
  }
}

struct PartialCase {
  uint32_t dims;
  size_t g[3], l[3], off[3];
  Range range() const {
    Range r = dims == 1 ? Range(g[0]) : dims == 2 ? Range(g[0], g[1]) : Range(g[0], g[1], g[2]);
    r.local(l[0], l[1], l[2]).offset(off[0], off[1], off[2]);
    return r;
  }
};

// What partial_group_exchange writes for a launch of `c`.
void checkExchange(const uint64_t *out, const PartialCase &c) {
  const size_t *g = c.g, *l = c.l;
  for (size_t z = 0; z < g[2]; ++z)
    for (size_t y = 0; y < g[1]; ++y)
      for (size_t x = 0; x < g[0]; ++x) {
        size_t pos[3] = {x, y, z}, group[3], size[3], local[3];
        for (int d = 0; d < 3; ++d) {
          group[d] = pos[d] / l[d];
          size[d] = std::min(l[d], g[d] - group[d] * l[d]);
          local[d] = pos[d] % l[d];
        }
        size_t items = size[0] * size[1] * size[2];
        size_t mirrored = items - 1 - ((local[2] * size[1] + local[1]) * size[0] + local[0]);
        size_t m[3] = {mirrored % size[0], mirrored / size[0] % size[1],
                       mirrored / (size[0] * size[1])};
        size_t from[3];
        for (int d = 0; d < 3; ++d) from[d] = group[d] * l[d] + m[d];
        const uint64_t *o = out + ((z * g[1] + y) * g[0] + x) * 4;
        SCOPED_TRACE(testing::Message() << "work-item (" << x << "," << y << "," << z << ")");
        ASSERT_EQ(o[0], (from[2] * g[1] + from[1]) * g[0] + from[0]);
        ASSERT_EQ(o[1], l[0] + 100 * l[1] + 10000 * l[2]);
        ASSERT_EQ(o[2], items);
        ASSERT_EQ(o[3], items);
      }
}

const PartialCase kPartialCases[] = {
    {1, {37, 1, 1}, {8, 1, 1}, {0, 0, 0}}, {1, {1000, 1, 1}, {256, 1, 1}, {7, 0, 0}},
    {2, {13, 7, 1}, {4, 3, 1}, {1, 2, 0}}, {2, {3, 50, 1}, {4, 16, 1}, {0, 0, 0}},
    {3, {5, 6, 7}, {2, 4, 3}, {3, 0, 1}},  {3, {9, 9, 9}, {4, 4, 4}, {0, 0, 0}}};

TEST_P(WorkItemTest, PartialWorkGroupsShareLocalMemoryAndBarriersInOneTwoAndThreeDimensions) {
  EXPECT_TRUE(device.has(DeviceFeature::PartialWorkGroups));
  EXPECT_TRUE(device.has(DeviceFeature::GlobalOffsets));
  Kernel kernel(spirv, "partial_group_exchange");
  for (const PartialCase &c : kPartialCases) {
    SCOPED_TRACE(testing::Message() << c.g[0] << "x" << c.g[1] << "x" << c.g[2] << " in groups of "
                                    << c.l[0] << "x" << c.l[1] << "x" << c.l[2]);
    size_t items = c.g[0] * c.g[1] * c.g[2];
    Array<uint64_t, AllocType::Shared> out(device, items * 4);
    queue.launch(kernel, c.range(), {out, Arg::local(c.l[0] * c.l[1] * c.l[2] * 8)});
    queue.sync();
    checkExchange(out.hostPtr(), c);
  }
}

TEST_P(WorkItemTest, PartialWorkGroupLaunchesReplayInAGraph) {
  Kernel kernel(spirv, "partial_group_exchange");
  const PartialCase &a = kPartialCases[2], &b = kPartialCases[4];
  Array<uint64_t, AllocType::Shared> outA(device, a.g[0] * a.g[1] * a.g[2] * 4);
  Array<uint64_t, AllocType::Shared> outB(device, b.g[0] * b.g[1] * b.g[2] * 4);
  Graph g;
  auto first = g.launch(kernel, a.range(), {outA, Arg::local(a.l[0] * a.l[1] * a.l[2] * 8)});
  g.launch(kernel, b.range(), {outB, Arg::local(b.l[0] * b.l[1] * b.l[2] * 8)}, {first});
  GraphExec exec = g.instantiate(device);
  for (int replay = 0; replay < 3; ++replay) {
    std::fill(outA.hostPtr(), outA.hostPtr() + outA.size(), 0);
    std::fill(outB.hostPtr(), outB.hostPtr() + outB.size(), 0);
    queue.launch(exec).wait();
    SCOPED_TRACE(testing::Message() << "replay " << replay);
    checkExchange(outA.hostPtr(), a);
    checkExchange(outB.hostPtr(), b);
  }
}

TEST_P(WorkItemTest, WorkItemFunctionsAtRunTimeDimensionsBeyondWorkDim) {
  // A 2-D launch of 6x4 items in 3x2 groups, asked about dimensions 0, 1, 2, 3, 7 and 1000.
  std::vector<uint32_t> dims = {0, 1, 2, 3, 7, 1000};
  Array<uint32_t> d(device, dims);
  constexpr size_t items = 24;
  Array<uint64_t, AllocType::Shared> out(device, items * 6 * 7);
  queue.copyToDevice(d);
  queue.launch(Kernel(spirv, "dynamic_dimensions"), Range(6, 4).local(3, 2), {out, d});
  queue.sync();
  const uint64_t global[3] = {6, 4, 1}, local[3] = {3, 2, 1};
  for (size_t y = 0; y < 4; ++y)
    for (size_t x = 0; x < 6; ++x)
      for (size_t i = 0; i < dims.size(); ++i) {
        const uint64_t *o = out.hostPtr() + ((y * 6 + x) * 6 + i) * 7;
        uint32_t dim = dims[i];
        SCOPED_TRACE(testing::Message() << "item (" << x << "," << y << "), dimension " << dim);
        bool in = dim < 3;
        uint64_t id[3] = {x, y, 0};
        EXPECT_EQ(o[0], in ? global[dim] : 1u);
        EXPECT_EQ(o[1], in ? local[dim] : 1u);
        EXPECT_EQ(o[2], in ? global[dim] / local[dim] : 1u);
        EXPECT_EQ(o[3], in ? local[dim] : 1u);
        EXPECT_EQ(o[4], in ? id[dim] : 0u);
        EXPECT_EQ(o[5], in ? id[dim] % local[dim] : 0u);
        EXPECT_EQ(o[6], in ? id[dim] / local[dim] : 0u);
      }
}

XPURT_INSTANTIATE_CONFORMANCE(WorkItemTest);

}  // namespace
}  // namespace xpurt::test
