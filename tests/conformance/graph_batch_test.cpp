// Graph nodes made in one call (xpurt::GraphBatch, xpurtGraphAddNodes) on every device: task and
// general launches and empty nodes, ordered by dependencies on the call's earlier nodes and on
// the graph's, and by declared memory, as they would be one call each; older, smaller node
// structs; and the call's errors, which name the node and add nothing.
#include "device_param.hpp"
#include "test_params.h"

#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace xpurt::test {
namespace {

class GraphBatchTest : public DeviceTest {
 protected:
  static constexpr size_t kN = 256;

  Module spirv{device, "xpurt_test_spirv"};
  Kernel addInt{spirv, "add_int"};
  Kernel addValue{module, "add_value"};
  Array<int32_t> x{device, kN}, y{device, kN}, z{device, kN};
  Array<float> f{device, kN};
  Array<AddParams> params{device};

  void SetUp() override {
    for (size_t i = 0; i < kN; ++i) {
      x.hostPtr()[i] = static_cast<int32_t>(i);
      f.hostPtr()[i] = static_cast<float>(i);
    }
    *params.hostPtr() = {f.devicePtr(), static_cast<int32_t>(kN), 1.0f};
  }
  static bool hasEdge(const std::string &dot, uint32_t from, uint32_t to) {
    return dot.find("n" + std::to_string(from) + " -> n" + std::to_string(to) + ";") !=
           std::string::npos;
  }
  // Throws unless call fails with INVALID_ARGUMENT and a message that contains each of parts.
  template <class Call>
  static void expectRefused(Call call, std::initializer_list<const char *> parts) {
    try {
      call();
      ADD_FAILURE() << "accepted";
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_ARGUMENT) << e.what();
      for (const char *p : parts)
        EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
  }
};

TEST_P(GraphBatchTest, LaunchesAndEmptyNodesInOneCallRunAsTheyWouldOneByOne) {
  Graph g;
  g.copyToDevice(params);
  g.copyToDevice(f);
  GraphNode up = g.copyToDevice(x);
  GraphBatch batch;
  // y = x + 1 after the copy (named), z = y + 2 through an empty node (named), f + 1 twice
  // (ordered after the copy of f and after each other by declared memory alone).
  GraphNode a = batch.launch(addInt, Range(kN), {Arg::read(x), Arg::write(y), int32_t{1}}, {up});
  GraphNode join = batch.empty({a});
  batch.launch(addInt, Range(kN), {Arg::read(y), Arg::write(z), int32_t{2}}, {join});
  batch.launch(addValue, params, {ViewAccess(f, Access::ReadWrite)}, 4);
  batch.launch(addValue, params, {ViewAccess(f, Access::ReadWrite)}, 2);
  std::vector<GraphNode> nodes = g.add(batch);
  ASSERT_EQ(nodes.size(), 5u);
  for (uint32_t i = 0; i < nodes.size(); ++i) EXPECT_EQ(nodes[i].id, 3 + i);
  EXPECT_EQ(g.size(), 8u);
  std::string dot = g.dot();
  EXPECT_TRUE(hasEdge(dot, 2, 3) && hasEdge(dot, 3, 4) && hasEdge(dot, 4, 5)) << dot;
  EXPECT_TRUE(hasEdge(dot, 1, 6) && hasEdge(dot, 6, 7)) << dot;  // declared memory
  g.copyToHost(z, {nodes[2]});
  g.copyToHost(f);
  GraphExec exec = g.instantiate(device);
  const int replays = 3;
  for (int r = 0; r < replays; ++r) {
    for (size_t i = 0; i < kN; ++i) f.hostPtr()[i] = static_cast<float>(i);
    queue.launch(exec).wait();
    for (size_t i = 0; i < kN; ++i) {
      ASSERT_EQ(z.hostPtr()[i], static_cast<int32_t>(i) + 3) << "replay " << r << " at " << i;
      ASSERT_EQ(f.hostPtr()[i], static_cast<float>(i) + 2.0f) << "replay " << r << " at " << i;
    }
  }
  // The batch is kept for reuse: cleared, it makes new nodes numbered after the others.
  batch.clear();
  batch.empty({GraphNode{0}});
  EXPECT_EQ(g.add(batch)[0].id, 10u);
}

TEST_P(GraphBatchTest, AnOlderSmallerNodeStructIsReadWithDefaults) {
  // A program built against a header whose XpurtGraphNodeDesc ended before the general
  // launch's fields: an empty node, then a task launch after it.
  const size_t oldSize = offsetof(XpurtGraphNodeDesc, numArgs);
  // The launch declares nothing: the empty node orders it after the copies (nodes 0 and 1).
  XpurtGraphNodeDesc empty{};
  empty.type = XPURT_GRAPH_NODE_EMPTY;
  const XpurtGraphNode copies[] = {0, 1};
  empty.numDeps = 2;
  empty.deps = copies;
  XpurtGraphNodeDesc launch{};
  launch.type = XPURT_GRAPH_NODE_LAUNCH;
  XpurtGraphNode dep = XPURT_GRAPH_BATCH_NODE(0);
  launch.numDeps = 1;
  launch.deps = &dep;
  launch.kernel = addValue.handle();
  launch.params = params.handle();
  launch.d[0] = 4;
  launch.d[1] = launch.d[2] = 1;
  std::vector<std::byte> old(2 * oldSize);  // the elements oldSize bytes apart
  empty.structSize = launch.structSize = static_cast<uint32_t>(oldSize);
  std::memcpy(old.data(), &empty, oldSize);
  std::memcpy(old.data() + oldSize, &launch, oldSize);
  Graph g;
  g.copyToDevice(params);
  g.copyToDevice(f);
  XpurtGraphNode first = 0;
  ASSERT_EQ(xpurtGraphAddNodes(g.handle(), 2,
                               reinterpret_cast<const XpurtGraphNodeDesc *>(old.data()), &first),
            XPURT_SUCCESS)
      << xpurtLastErrorMessage();
  EXPECT_EQ(first, 2u);
  EXPECT_TRUE(hasEdge(g.dot(), 0, 2) && hasEdge(g.dot(), 1, 2) && hasEdge(g.dot(), 2, 3))
      << g.dot();
  g.copyToHost(f, {GraphNode{3}});
  queue.launch(g.instantiate(device)).wait();
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(f.hostPtr()[i], static_cast<float>(i) + 1.0f) << i;
}

TEST_P(GraphBatchTest, ErrorsNameTheNodeAndAddNothing) {
  Graph g;
  g.empty();
  // A general launch with an argument missing, after a good node.
  GraphBatch batch;
  batch.empty();
  batch.launch(addInt, Range(kN), {Arg::read(x), Arg::write(y)});
  expectRefused([&] { g.add(batch); }, {"xpurtGraphAddNodes", "nodes[1]"});
  // A dependency on a node of the call that is not before it, and on no node at all.
  batch.clear();
  batch.empty();
  batch.empty({GraphNode{XPURT_GRAPH_BATCH_NODE(1)}});
  expectRefused([&] { g.add(batch); }, {"nodes[1]", "XPURT_GRAPH_BATCH_NODE(1)"});
  batch.clear();
  batch.empty({GraphNode{0}});
  batch.empty({GraphNode{7}});
  expectRefused([&] { g.add(batch); }, {"nodes[1]", "dependency 7 is not a node"});
  // A node of a call named outside it.
  expectRefused([&] { g.empty({GraphNode{XPURT_GRAPH_BATCH_NODE(0)}}); },
                {"XPURT_GRAPH_BATCH_NODE(0)"});
  // Through the C API: a type it does not make, NULL nodes, element sizes that differ.
  XpurtGraphNodeDesc descs[2]{};
  descs[0].structSize = descs[1].structSize = sizeof(XpurtGraphNodeDesc);
  const std::underlying_type_t<XpurtGraphNodeType> seven = 7;  // stored as a C program would
  std::memcpy(&descs[1].type, &seven, sizeof seven);
  EXPECT_EQ(xpurtGraphAddNodes(g.handle(), 2, descs, nullptr), XPURT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpurtLastErrorMessage()).find("nodes[1]: type 7"), std::string::npos)
      << xpurtLastErrorMessage();
  EXPECT_EQ(xpurtGraphAddNodes(g.handle(), 2, nullptr, nullptr), XPURT_ERROR_INVALID_ARGUMENT);
  descs[1].type = XPURT_GRAPH_NODE_EMPTY;
  descs[1].structSize = 8;
  EXPECT_EQ(xpurtGraphAddNodes(g.handle(), 2, descs, nullptr), XPURT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpurtLastErrorMessage()).find("nodes[1].structSize is 8"),
            std::string::npos)
      << xpurtLastErrorMessage();
  // Nothing was added, and the graph takes the next call.
  EXPECT_EQ(g.size(), 1u);
  batch.clear();
  GraphNode a = batch.empty({GraphNode{0}});
  batch.empty({a});
  EXPECT_EQ(g.add(batch).back().id, 2u);
  queue.launch(g.instantiate(device)).wait();
}

XPURT_INSTANTIATE_CONFORMANCE(GraphBatchTest);

}  // namespace
}  // namespace xpurt::test
