// Work-group collectives, sub-group functions and float atomics against host references, on
// full and partial work-groups.
#include "device_param.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <vector>

namespace xpurt::test {
namespace {

class CollectivesTest : public DeviceTest {
 protected:
  Module collectives{device, "xpurt_test_collectives"};
};

int inputValue(size_t g) {
  return static_cast<int>((g * 7 + 3) % 23) - 5;
}

// The work-items of a launch, grouped: for each group, its items' global linear ids in local
// linear order.
std::vector<std::vector<size_t>> groupsOf(size_t gx, size_t gy, size_t lx, size_t ly) {
  std::map<std::pair<size_t, size_t>, std::vector<size_t>> groups;
  for (size_t y = 0; y < gy; ++y)
    for (size_t x = 0; x < gx; ++x) groups[{y / ly, x / lx}];
  for (auto &[id, items] : groups) {
    size_t x0 = id.second * lx, y0 = id.first * ly;
    size_t sx = std::min(lx, gx - x0), sy = std::min(ly, gy - y0);
    for (size_t y = 0; y < sy; ++y)
      for (size_t x = 0; x < sx; ++x) items.push_back((y0 + y) * gx + x0 + x);
  }
  std::vector<std::vector<size_t>> result;
  for (auto &[id, items] : groups) result.push_back(items);
  return result;
}

struct Shape {
  size_t gx, gy, lx, ly;
  Range range() const { return gy == 1 ? Range(gx).local(lx) : Range(gx, gy).local(lx, ly); }
};

std::vector<int> inputValues(size_t n) {
  std::vector<int> values(n);
  for (size_t g = 0; g < n; ++g) values[g] = inputValue(g);
  return values;
}

TEST_P(CollectivesTest, WorkGroupCollectivesOnFullAndPartialGroups) {
  for (Shape s : {Shape{100, 1, 32, 1}, Shape{10, 6, 4, 4}, Shape{64, 1, 64, 1}}) {
    SCOPED_TRACE(testing::Message()
                 << s.gx << "x" << s.gy << " in groups of " << s.lx << "x" << s.ly);
    size_t n = s.gx * s.gy;
    std::vector<int> values = inputValues(n);
    Array<int> in(device, values);
    Array<int, AllocType::Shared> out(device, n * 8);
    Array<float, AllocType::Shared> fout(device, n);
    queue.copyToDevice(in);
    Kernel kernel(collectives, "group_collectives");
    queue.launch(kernel, s.range(), {in, out, fout});
    queue.sync();
    for (const auto &items : groupsOf(s.gx, s.gy, s.lx, s.ly)) {
      int sum = 0, lo = INT32_MAX, hi = INT32_MIN, all = 1, any = 0;
      for (size_t g : items) {
        sum += values[g], lo = std::min(lo, values[g]), hi = std::max(hi, values[g]);
        all = all && values[g] >= 0;
        any = any || values[g] == 7;
      }
      int prefix = 0;
      for (size_t i = 0; i < items.size(); ++i) {
        size_t g = items[i];
        const int *o = out.hostPtr() + g * 8;
        SCOPED_TRACE(testing::Message() << "work-item " << g);
        EXPECT_EQ(o[0], sum);
        EXPECT_EQ(o[1], lo);
        EXPECT_EQ(o[2], hi);
        EXPECT_EQ(o[4], prefix);
        prefix += values[g];
        EXPECT_EQ(o[3], prefix);
        EXPECT_EQ(o[5], values[items[1]]);  // local id (1, 0): the second in linear order
        EXPECT_EQ(o[6] != 0, all != 0);
        EXPECT_EQ(o[7] != 0, any != 0);
        EXPECT_EQ(fout.hostPtr()[g], hi * 0.5f);
      }
    }
  }
}

TEST_P(CollectivesTest, SubGroupsOfSixteenOnFullAndPartialGroups) {
  for (Shape s : {Shape{100, 1, 40, 1}, Shape{12, 5, 6, 5}}) {
    SCOPED_TRACE(testing::Message()
                 << s.gx << "x" << s.gy << " in groups of " << s.lx << "x" << s.ly);
    size_t n = s.gx * s.gy;
    std::vector<int> values = inputValues(n);
    Array<int> in(device, values);
    Array<int, AllocType::Shared> out(device, n * 12);
    queue.copyToDevice(in);
    Kernel kernel(collectives, "sub_group_functions");
    queue.launch(kernel, s.range(), {in, out});
    queue.sync();
    for (const auto &items : groupsOf(s.gx, s.gy, s.lx, s.ly)) {
      size_t subGroups = (items.size() + 15) / 16;
      for (size_t sg = 0; sg < subGroups; ++sg) {
        std::vector<size_t> members(
            items.begin() + static_cast<std::ptrdiff_t>(sg * 16),
            items.begin() + static_cast<std::ptrdiff_t>(std::min(items.size(), sg * 16 + 16)));
        int sum = 0, odd = 0, three = 0;
        for (size_t g : members) {
          sum += values[g];
          odd += values[g] & 1;
          three = three || values[g] == 3;
        }
        int prefix = 0, runningMax = INT32_MIN;
        for (size_t i = 0; i < members.size(); ++i) {
          size_t g = members[i];
          const int *o = out.hostPtr() + g * 12;
          SCOPED_TRACE(testing::Message() << "work-item " << g << ", sub-group " << sg);
          EXPECT_EQ(o[0], static_cast<int>(members.size()));
          EXPECT_EQ(o[1], static_cast<int>(sg));
          EXPECT_EQ(o[2], static_cast<int>(i));
          EXPECT_EQ(o[3], static_cast<int>(subGroups));
          EXPECT_EQ(o[4], sum);
          prefix += values[g];
          EXPECT_EQ(o[5], prefix);
          EXPECT_EQ(o[6], runningMax);
          runningMax = std::max(runningMax, values[g]);
          EXPECT_EQ(o[7], values[members[1]]);
          if ((i ^ 1) < members.size()) {
            EXPECT_EQ(o[8], values[members[i ^ 1]]);
          }
          EXPECT_EQ(o[9], odd);
          EXPECT_EQ(o[10] != 0, three != 0);
          EXPECT_EQ(o[11], static_cast<int>(std::min<size_t>(16, s.lx * s.ly)));
        }
      }
    }
  }
}

TEST_P(CollectivesTest, ARequiredSubGroupSizeIsHonoured) {
  constexpr size_t n = 140, group = 70;  // sub-groups of 32, 32 and 6
  std::vector<int> values = inputValues(n);
  Array<int> in(device, values);
  Array<int, AllocType::Shared> out(device, n * 2);
  queue.copyToDevice(in);
  queue.launch(Kernel(collectives, "sub_groups_of_thirty_two"), Range(n).local(group), {in, out});
  queue.sync();
  for (size_t g = 0; g < n; ++g) {
    size_t local = g % group, first = g - local % 32;
    size_t size = std::min<size_t>(32, group - local / 32 * 32);
    int hi = INT32_MIN;
    for (size_t k = first; k < first + size; ++k) hi = std::max(hi, values[k]);
    EXPECT_EQ(out.hostPtr()[g * 2], static_cast<int>(size)) << g;
    EXPECT_EQ(out.hostPtr()[g * 2 + 1], hi) << g;
  }
}

TEST_P(CollectivesTest, SubGroupRotatesOnFullAndPartialSubGroups) {
  constexpr size_t n = 88, group = 44;  // sub-groups of 16, 16 and 12
  std::vector<int> values = inputValues(n);
  Array<int> in(device, values);
  Array<int, AllocType::Shared> out(device, n * 3);
  queue.copyToDevice(in);
  queue.launch(Kernel(collectives, "sub_group_rotates"), Range(n).local(group), {in, out});
  queue.sync();
  for (size_t g = 0; g < n; ++g) {
    size_t local = g % group, first = g - local % 16, id = local % 16;
    size_t size = std::min<size_t>(16, group - local / 16 * 16);
    SCOPED_TRACE(testing::Message() << "work-item " << g);
    EXPECT_EQ(out.hostPtr()[g * 3], values[first + (id + 3) % size]);
    EXPECT_EQ(out.hostPtr()[g * 3 + 1], values[first + (id & ~size_t{3}) + ((id + 1) & 3)]);
    EXPECT_EQ(out.hostPtr()[g * 3 + 2], values[first + (id + size - 1) % size]);
  }
}

TEST_P(CollectivesTest, FloatAtomicsUnderContention) {
  constexpr size_t n = 100032;  // whole groups of 64, which every device runs
  std::vector<float> values(n, 0.25f);
  values[n / 3] = 1000.5f;
  Array<float> v(device, values);
  Array<float, AllocType::Shared> sum(device, 1), maxValue(device, 1);
  Array<double, AllocType::Shared> dsum(device, 1);
  sum.hostPtr()[0] = 0;
  dsum.hostPtr()[0] = 0;
  maxValue.hostPtr()[0] = -1;
  queue.copyToDevice(v);
  queue.launch(Kernel(collectives, "float_atomics"), Range(n).local(64), {sum, dsum, maxValue, v});
  queue.sync();
  // Every partial sum is a multiple of 0.25 below 2^24 * 0.25: exact in any order.
  EXPECT_EQ(sum.hostPtr()[0], 0.25f * (n - 1) + 1000.5f);
  EXPECT_EQ(dsum.hostPtr()[0], 0.25 * (n - 1) + 1000.5);
  EXPECT_EQ(maxValue.hostPtr()[0], 1000.5f);
}

TEST_P(CollectivesTest, SubGroupFunctionsInBranchesSeeTheActiveWorkItems) {
  constexpr size_t n = 80, group = 40;  // groups of 40: sub-groups of 16, 16 and 8
  std::vector<int> values = inputValues(n);
  Array<int> in(device, values);
  Array<int, AllocType::Shared> out(device, n * 5);
  queue.copyToDevice(in);
  queue.launch(Kernel(collectives, "divergent_sub_groups"), Range(n).local(group), {in, out});
  queue.sync();
  for (size_t g = 0; g < n; ++g) {
    size_t local = g % group, sg = local / 16, lane = local % 16;
    size_t first = g - lane, size = std::min<size_t>(16, group - sg * 16);
    const int *o = out.hostPtr() + g * 5;
    SCOPED_TRACE(testing::Message()
                 << "work-item " << g << ", sub-group " << sg << ", lane " << lane);
    int all = 0, firstFive = 0, prefix = 0, odd = 0;
    size_t firstEven = size;
    for (size_t k = 0; k < size; ++k) {
      int v = values[first + k];
      all += v;
      if (k < 5) firstFive += v;
      if (k < 5 && k <= lane) prefix += v;
      if (v & 1) ++odd;
      if (!(v & 1) && firstEven == size) firstEven = k;
    }
    EXPECT_EQ(o[0], sg == 0 ? all : -1);
    EXPECT_EQ(o[1], lane < 5 ? firstFive : -1);
    EXPECT_EQ(o[2], lane < 5 ? prefix : -1);
    if (values[g] & 1) {
      EXPECT_EQ(o[3], odd);
      EXPECT_EQ(o[4], -1);
    } else {
      EXPECT_EQ(o[3], -1);
      EXPECT_EQ(o[4], lane == firstEven ? 1 : 0);
    }
  }
}

TEST_P(CollectivesTest, ABarrierOnlySomeWorkItemsReachFailsTheLaunchAndNothingElse) {
  XPURT_CPU_ONLY(
      "OpenCL leaves a barrier that only some work-items reach undefined (a GPU may hang); "
      "the CPU JIT detects it and fails the launch with the reason");
  constexpr size_t n = 64;
  Array<int, AllocType::Shared> out(device, n);
  queue.launch(Kernel(collectives, "divergent_barrier"), Range(n).local(32), {out});
  try {
    queue.sync();
    ADD_FAILURE() << "a launch whose work-items parted at a barrier succeeded";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_EXECUTION_FAILED);
    EXPECT_NE(std::string(e.what()).find("divergent_barrier"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("did not all reach the same barrier"), std::string::npos)
        << e.what();
  }
  // The queue and the module go on working.
  std::vector<int> values(n, 1);
  Array<int> in(device, values);
  Array<int, AllocType::Shared> pairs(device, n * 2);
  queue.copyToDevice(in);
  queue.launch(Kernel(collectives, "sub_groups_of_thirty_two"), Range(n).local(32), {in, pairs});
  queue.sync();
  EXPECT_EQ(pairs.hostPtr()[0], 32);
}

XPURT_INSTANTIATE_CONFORMANCE(CollectivesTest);

}  // namespace
}  // namespace xpurt::test
