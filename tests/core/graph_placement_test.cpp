// The placement of graph nodes across devices (runtime/core/graph_placement.hpp), on problems
// whose costs are given: each test says which device a node must go to and why.
#include "core/graph_placement.hpp"

#include <gtest/gtest.h>

namespace xpurt::core::placement {
namespace {

// Two devices with memory of their own (places 1 and 2), copies through the host only.
Problem twoGpus() {
  Problem p;
  p.devices = 2;
  p.placeOfDevice = {1, 2};
  p.places = 3;
  p.nsPerByte = {0,    0.05, 0.05,  //
                 0.05, 0,    0.1,   //
                 0.05, 0.1,  0};
  return p;
}

Node run(std::vector<double> ns, std::vector<uint32_t> preds = {}, std::vector<Use> uses = {}) {
  return Node{std::move(preds), std::move(ns), std::move(uses)};
}

TEST(GraphPlacement, ANodeGoesWhereItFinishesFirst) {
  Problem p = twoGpus();
  p.nodes = {run({100, 10}), run({10, 100})};
  EXPECT_EQ(place(p), (std::vector<uint32_t>{1, 0}));
}

TEST(GraphPlacement, ANodeItCannotRunSomewhereGoesElseEvenIfSlower) {
  Problem p = twoGpus();
  p.nodes = {run({kNever, 1e9})};
  EXPECT_EQ(place(p), (std::vector<uint32_t>{1}));
}

TEST(GraphPlacement, IndependentNodesSpreadOverDevicesThatAreEquallyFast) {
  Problem p = twoGpus();
  for (int i = 0; i < 4; ++i) p.nodes.push_back(run({1000, 1000}));
  std::vector<uint32_t> got = place(p);
  EXPECT_EQ(std::count(got.begin(), got.end(), 0u), 2);
  EXPECT_EQ(std::count(got.begin(), got.end(), 1u), 2);
}

TEST(GraphPlacement, DataWhereItIsOutweighsASomewhatFasterDevice) {
  Problem p = twoGpus();
  // 1 MB up to date on device 0 only; device 1 runs the kernel 10 us faster, but the copy
  // through the host takes 100 us.
  p.initial = {{0, 0, 1 << 20, uint64_t{1} << 1}};
  p.nodes = {run({50000, 40000}, {}, {{0, 0, 1 << 20, true, false}})};
  EXPECT_EQ(place(p), (std::vector<uint32_t>{0}));
  // Much faster there, it goes there all the same.
  p.nodes = {run({500000, 40000}, {}, {{0, 0, 1 << 20, true, false}})};
  EXPECT_EQ(place(p), (std::vector<uint32_t>{1}));
}

TEST(GraphPlacement, AWriteMovesTheDataForTheNodesAfterIt) {
  Problem p = twoGpus();
  Use readA{0, 0, 1 << 20, true, false}, writeA{0, 0, 1 << 20, false, true};
  // The first node can only run on device 1 and writes the data there; the reader after it
  // then stays there rather than copying back to device 0, although 0 is a little faster.
  p.nodes = {run({kNever, 1000}, {}, {writeA}), run({900, 1000}, {0}, {readA})};
  EXPECT_EQ(place(p), (std::vector<uint32_t>{1, 1}));
}

TEST(GraphPlacement, ANodeNotYetMeasuredSomewhereIsMeasuredThere) {
  Problem p = twoGpus();
  p.nodes = {run({10, kUnknown})};
  EXPECT_EQ(place(p), (std::vector<uint32_t>{1}))
      << "the device it was never measured on, though the other is fast";
  p.nodes = {run({kUnknown, kUnknown}), run({kUnknown, kUnknown})};
  EXPECT_EQ(place(p), (std::vector<uint32_t>{0, 1}))
      << "unmeasured everywhere: spread, the least busy first";
}

TEST(GraphPlacement, NodesThatCostNothingStayBesideTheirPredecessor) {
  Problem p = twoGpus();
  p.nodes = {run({kNever, 1000}), run({0, 0}, {0}), run({0, 0}, {1})};
  EXPECT_EQ(place(p), (std::vector<uint32_t>{1, 1, 1}));
}

TEST(GraphPlacement, DevicesOfHostMemoryShareItsPlace) {
  Problem p;
  p.devices = 2;
  p.placeOfDevice = {0, 0};  // two CPU devices
  p.places = 1;
  p.nsPerByte = {0};
  p.initial = {{0, 0, 1 << 30, 1}};
  // Nothing to copy to either: only the run times count.
  p.nodes = {run({2000, 1000}, {}, {{0, 0, 1 << 30, true, true}})};
  EXPECT_EQ(place(p), (std::vector<uint32_t>{1}));
}

TEST(GraphPlacement, BytesUpToDateInTwoPlacesAreCopiedFromTheCheaperOne) {
  Problem p;
  p.devices = 2;
  p.placeOfDevice = {1, 2};
  p.places = 3;
  // Peers copy fast; the host is slow to reach device 1.
  p.nsPerByte = {0, 1, 1,  //
                 1, 0, 0.01, 1, 0.01, 0};
  p.initial = {{0, 0, 1000, 1}, {0, 0, 1000, uint64_t{1} << 1}};  // host and device 0
  // Device 1 is 500 ns faster; from the host the copy would cost 1000 ns, from its peer 10.
  p.nodes = {run({2000, 1500}, {}, {{0, 0, 1000, true, false}})};
  EXPECT_EQ(place(p), (std::vector<uint32_t>{1}));
}

}  // namespace
}  // namespace xpurt::core::placement
