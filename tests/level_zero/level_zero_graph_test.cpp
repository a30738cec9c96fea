// Graphs on a Level Zero device, seen through xpurt's Level Zero driver for the CPU: lists
// recorded once and replayed, copies on the copy-only group, launches past the graph's
// recordings, and driver failures on a graph's path.
#include "ze_cpu_fixture.hpp"

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "c_api_fixture.hpp"
#include "test_params.h"

namespace xpurt::test {
namespace {

// A graph's lists are recorded at instantiation and executed again by each launch: every
// replay runs the same commands from the same regular lists, copies on the copy-only group,
// each node waiting on its predecessor's event across the engines.
TEST_F(LevelZeroTest, AGraphReplaysListsRecordedOnceWithCopiesOnTheCopyGroup) {
  Module spirv(*device, "xpurt_test_spirv");
  Kernel addInt(spirv, "add_int");
  constexpr size_t kN = 256;
  Array<int32_t> in(*device, kN), out(*device, kN);
  Graph g;
  g.copyToDevice(in);
  g.launch(addInt, Range(kN), {Arg::read(in), Arg::write(out), 7});
  g.copyToHost(out);
  GraphExec exec = g.instantiate(*device);
  TaskQueue queue(*device);
  zeCpu.recordClear();
  zeCpu.recordStart();
  constexpr int kReplays = 3;
  for (int r = 0; r < kReplays; ++r) {
    for (size_t i = 0; i < kN; ++i) in.hostPtr()[i] = static_cast<int32_t>(i) * r;
    queue.launch(exec).wait();
    for (size_t i = 0; i < kN; ++i)
      ASSERT_EQ(out.hostPtr()[i], static_cast<int32_t>(i) * r + 7) << "replay " << r;
  }
  zeCpu.recordStop();
  std::vector<XpurtZeCpuRecord> records = zeCpu.records();
  std::vector<const XpurtZeCpuRecord *> copies, launches;
  for (const XpurtZeCpuRecord &r : records) {
    if (r.kind == XPURT_ZE_CPU_COMMAND_COPY) copies.push_back(&r);
    if (r.kind == XPURT_ZE_CPU_COMMAND_LAUNCH) launches.push_back(&r);
  }
  ASSERT_EQ(copies.size(), 2u * kReplays);
  ASSERT_EQ(launches.size(), size_t{kReplays});
  for (int r = 0; r < kReplays; ++r) {
    const XpurtZeCpuRecord &copyIn = *copies[2 * r], &launch = *launches[r],
                           &copyOut = *copies[2 * r + 1];
    EXPECT_EQ(copyIn.ordinal, 1u) << "a graph's copies go to the copy-only group";
    EXPECT_EQ(copyOut.ordinal, 1u);
    EXPECT_EQ(launch.ordinal, 0u);
    EXPECT_TRUE(dependsOn(records, launch, copyIn.signalEvent));
    EXPECT_TRUE(dependsOn(records, copyOut, launch.signalEvent));
    EXPECT_EQ(launch.commandList, launches[0]->commandList)
        << "replay " << r << " ran another list: the graph was recorded again";
    EXPECT_EQ(copyIn.commandList, copies[0]->commandList);
  }
  // Not the queue's own list: a launch on the queue runs from another.
  zeCpu.recordClear();
  zeCpu.recordStart();
  queue.launch(addInt, Range(kN), {Arg::read(in), Arg::write(out), 1});
  queue.sync();
  zeCpu.recordStop();
  for (const XpurtZeCpuRecord &r : zeCpu.records()) {
    if (r.kind == XPURT_ZE_CPU_COMMAND_LAUNCH) {
      EXPECT_NE(r.commandList, launches[0]->commandList);
    }
  }
}

// Launches in flight past the graph's four recordings run node by node through the queue
// instead of waiting for a recording: here all of them wait for a gate the host opens last.
TEST_F(LevelZeroTest, AGraphLaunchedPastItsRecordingsRunsNodeByNodeWithoutWaiting) {
  Module spirv(*device, "xpurt_test_spirv");
  Kernel addInt(spirv, "add_int");
  Module tasks(*device, "xpurt_test_tasks");
  constexpr size_t kN = 64;
  Array<int32_t, AllocType::Shared> data(*device, kN);
  for (size_t i = 0; i < kN; ++i) data.hostPtr()[i] = 0;
  Array<int32_t, AllocType::Shared> flags(*device, 2);
  flags.hostPtr()[0] = flags.hostPtr()[1] = 0;
  Array<GateParams, AllocType::Shared> gateParams(*device);
  *gateParams.hostPtr() = {flags.devicePtr(), flags.devicePtr() + 1};
  TaskQueue gateQueue(*device);
  Future gate = gateQueue.launch(Kernel(tasks, "gate"), gateParams, 1);
  Graph g;
  auto held = g.wait({gate});
  g.launch(addInt, Range(kN), {data, data, 1}, {held});
  GraphExec exec = g.instantiate(*device);
  TaskQueue queue(*device);
  zeCpu.recordClear();
  zeCpu.recordStart();
  constexpr int kLaunches = 8;
  for (int i = 0; i < kLaunches; ++i) queue.launch(exec);
  std::atomic_ref<int32_t>(flags.hostPtr()[1]).store(1);
  queue.sync();
  zeCpu.recordStop();
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(data.hostPtr()[i], kLaunches) << "at " << i;
  // The gate's launch runs first; then the graph's, from the lists of four recordings and the
  // queue's own.
  std::vector<XpurtZeCpuRecord> records = zeCpu.records();
  std::set<ze_command_list_handle_t> lists;
  const XpurtZeCpuRecord *gateLaunch = nullptr;
  for (const XpurtZeCpuRecord &r : records)
    if (r.kind == XPURT_ZE_CPU_COMMAND_LAUNCH && (!gateLaunch || r.sequence < gateLaunch->sequence))
      gateLaunch = &r;
  for (const XpurtZeCpuRecord &r : records)
    if (r.kind == XPURT_ZE_CPU_COMMAND_LAUNCH && &r != gateLaunch) lists.insert(r.commandList);
  EXPECT_EQ(lists.size(), 5u);
}

// The driver failing on a graph's path is an error naming the call, at instantiation or at a
// launch, and the graph and its queue go on working: a list that could not be executed, or
// whose start could not be appended, does not leave the others waiting forever.
TEST_F(LevelZeroTest, DriverFailuresOnAGraphsPathAreErrorsThatLeaveItUsable) {
  Module spirv(*device, "xpurt_test_spirv");
  Kernel addInt(spirv, "add_int");
  constexpr size_t kN = 64;
  Array<int32_t> in(*device, kN), out(*device, kN);
  for (size_t i = 0; i < kN; ++i) in.hostPtr()[i] = static_cast<int32_t>(i);
  Graph g;
  g.copyToDevice(in);
  g.launch(addInt, Range(kN), {Arg::read(in), Arg::write(out), 3});
  g.copyToHost(out);
  ASSERT_EQ(zeCpu.setFaults("zeCommandListCreate=ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY"), 0);
  try {
    g.instantiate(*device);
    ADD_FAILURE() << "instantiation succeeded without command lists";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_OUT_OF_MEMORY);
    EXPECT_NE(std::string(e.what()).find("zeCommandListCreate"), std::string::npos) << e.what();
  }
  zeCpu.setFaults("");
  GraphExec exec = g.instantiate(*device);
  TaskQueue queue(*device);
  // The first list executed, the second (the copy lane's), and the barrier that starts a launch
  // after pending work.
  for (std::string fault : {"zeCommandQueueExecuteCommandLists=ZE_RESULT_ERROR_DEVICE_LOST@1",
                            "zeCommandQueueExecuteCommandLists=ZE_RESULT_ERROR_DEVICE_LOST@2",
                            "zeCommandListAppendBarrier=ZE_RESULT_ERROR_DEVICE_LOST@1"}) {
    SCOPED_TRACE(fault);
    std::string call = fault.substr(0, fault.find('='));
    // The start is a barrier only when the launch follows work still pending.
    if (call == "zeCommandListAppendBarrier")
      queue.hostCallback([] { std::this_thread::sleep_for(std::chrono::milliseconds(50)); });
    ASSERT_EQ(zeCpu.setFaults(fault.c_str()), 0);
    try {
      queue.launch(exec).wait();
      ADD_FAILURE() << "the launch succeeded";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find(call), std::string::npos) << e.what();
    }
    zeCpu.setFaults("");
    try {
      queue.sync();  // may report the failure again
    } catch (const Error &) {
    }
    for (size_t i = 0; i < kN; ++i) out.hostPtr()[i] = 0;
    queue.launch(exec).wait();
    for (size_t i = 0; i < kN; ++i)
      ASSERT_EQ(out.hostPtr()[i], static_cast<int32_t>(i) + 3) << "after " << fault << ", at " << i;
  }
}

}  // namespace
}  // namespace xpurt::test
