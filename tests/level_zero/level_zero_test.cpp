// What only the Level Zero backend has, seen through xpurt's Level Zero driver for the CPU
// (runtime/ze_cpu): which queue group each command ran on and what it waited for (the
// driver records it), launches beyond ISPCRT's 100,000 between syncs, kernel timestamps,
// build logs in errors, native binaries, and every injected fault surfacing as a clear error
// that leaves the runtime usable. Graphs are in level_zero_graph_test.cpp.
#include "ze_cpu_fixture.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "c_api_fixture.hpp"
#include "test_params.h"

namespace xpurt::test {
namespace {

TEST_F(LevelZeroTest, ReportsTheDriversCpuDeviceAfterTheCpuBackend) {
  DeviceInfo info = device->info();
  EXPECT_STREQ(info.backend, "level_zero");
  EXPECT_EQ(info.type, XPURT_DEVICE_TYPE_CPU);
  EXPECT_FALSE(info.deviceMemoryIsHostMemory);
  // The CPU backend stays cpu:0; AUTO stays on it (there is no GPU).
  EXPECT_STREQ(Device::info(DeviceType::CPU, 0).backend, "cpu");
  EXPECT_STREQ(Device(DeviceType::Auto).info().backend, "cpu");
}

TEST_F(LevelZeroTest, CopyQueueCopiesRunOnTheCopyOnlyGroupAndTheLaunchWaitsOnTheirEvent) {
  Module spirv(*device, "xpurt_test_spirv");
  Kernel addInt(spirv, "add_int");
  Module tasks(*device, "xpurt_test_tasks");
  constexpr size_t kN = 1024;
  Array<int32_t> in(*device, kN), out(*device, kN);
  for (size_t i = 0; i < kN; ++i) in.hostPtr()[i] = static_cast<int32_t>(i);
  // The copy in waits for a gate held shut until every command is appended, so the launch
  // cannot find it complete already: it must wait on its event.
  Array<int32_t, AllocType::Shared> flags(*device, 2);
  flags.hostPtr()[0] = flags.hostPtr()[1] = 0;
  Array<GateParams, AllocType::Shared> gateParams(*device);
  *gateParams.hostPtr() = {flags.devicePtr(), flags.devicePtr() + 1};
  TaskQueue gateQueue(*device);
  TaskQueue copy(*device, {Engine::Copy});
  TaskQueue compute(*device, {Engine::Compute});
  zeCpu.recordClear();
  zeCpu.recordStart();
  Future gate = gateQueue.launch(Kernel(tasks, "gate"), gateParams, 1);
  copy.wait(gate);
  Future copied = copy.copyToDevice(in);
  compute.wait(copied);
  Future launched = compute.launch(addInt, Range(kN), {Arg::read(in), Arg::write(out), 5});
  copy.wait(launched);
  copy.copyToHost(out);
  std::atomic_ref<int32_t>(flags.hostPtr()[1]).store(1);
  copy.sync();
  compute.sync();
  zeCpu.recordStop();
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(out.hostPtr()[i], static_cast<int32_t>(i) + 5);

  std::vector<XpurtZeCpuRecord> records = zeCpu.records();
  const XpurtZeCpuRecord *copyIn = nullptr, *launch = nullptr, *copyOut = nullptr;
  for (const XpurtZeCpuRecord &r : records) {
    if (r.kind == XPURT_ZE_CPU_COMMAND_COPY && !copyIn)
      copyIn = &r;
    else if (r.kind == XPURT_ZE_CPU_COMMAND_LAUNCH && r.ordinal == 0 && copyIn)
      launch = &r;
    else if (r.kind == XPURT_ZE_CPU_COMMAND_COPY)
      copyOut = &r;
  }
  ASSERT_TRUE(copyIn && launch && copyOut) << records.size() << " records";
  EXPECT_EQ(copyIn->ordinal, 1u) << "copies of a copy queue go to the copy-only group";
  EXPECT_EQ(copyOut->ordinal, 1u);
  EXPECT_EQ(launch->ordinal, 0u) << "launches go to the compute group";
  ASSERT_NE(copyIn->signalEvent, nullptr);
  EXPECT_TRUE(dependsOn(records, *launch, copyIn->signalEvent))
      << "the launch waits on the copy's event on the device, not on the host";
  EXPECT_TRUE(dependsOn(records, *copyOut, launch->signalEvent));
  EXPECT_LT(copyIn->sequence, launch->sequence);
  EXPECT_LT(launch->sequence, copyOut->sequence);
}

TEST_F(LevelZeroTest, OutOfOrderQueueSendsCopiesToTheCopyGroupBesideLaunches) {
  Module module(*device, "xpurt_test_spirv");
  Kernel addInt(module, "add_int");
  constexpr size_t kN = 256;
  Array<int32_t> in(*device, kN), out(*device, kN);
  for (size_t i = 0; i < kN; ++i) in.hostPtr()[i] = 1;
  TaskQueue queue(*device, {Engine::Any, true});
  zeCpu.recordClear();
  zeCpu.recordStart();
  queue.copyToDevice(in);
  queue.launch(addInt, Range(kN), {Arg::read(in), Arg::write(out), 2});
  queue.copyToHost(out);
  queue.sync();
  zeCpu.recordStop();
  EXPECT_EQ(out.hostPtr()[kN - 1], 3);
  int copiesOnCopyGroup = 0, launchesOnCompute = 0;
  for (const XpurtZeCpuRecord &r : zeCpu.records()) {
    copiesOnCopyGroup += r.kind == XPURT_ZE_CPU_COMMAND_COPY && r.ordinal == 1;
    launchesOnCompute += r.kind == XPURT_ZE_CPU_COMMAND_LAUNCH && r.ordinal == 0;
  }
  EXPECT_EQ(copiesOnCopyGroup, 2);
  EXPECT_EQ(launchesOnCompute, 1);
}

TEST_F(LevelZeroTest, MoreThanAHundredThousandLaunchesBetweenSyncs) {
  // ISPCRT caps a Level Zero queue at 100,000 launches between syncs; events here are
  // recycled, so there is no cap.
  Module module(*device, "xpurt_test_tasks");
  Kernel empty(module, "empty");
  TaskQueue queue(*device);
  constexpr int kLaunches = 120'000;
  Future last;
  for (int i = 0; i < kLaunches; ++i) last = queue.launch(empty, 1);
  queue.sync();
  EXPECT_TRUE(last.valid());
  // A launch with a result after all of them still runs.
  Module spirv(*device, "xpurt_test_spirv");
  Kernel addInt(spirv, "add_int");
  Array<int32_t, AllocType::Shared> in(*device, 16), out(*device, 16);
  for (int i = 0; i < 16; ++i) in.hostPtr()[i] = i;
  queue.launch(addInt, Range(16), {Arg::read(in), Arg::write(out), 1});
  queue.sync();
  EXPECT_EQ(out.hostPtr()[15], 16);
}

// An in-order queue holds its launches and hands them to the completion engine together.
// Once it has enqueued nothing for a moment they are handed on with nobody waiting or syncing:
// the device's poller then asks the driver about their events (and completes their futures).
// Held for good, nothing would call the driver again.
TEST_F(LevelZeroTest, HeldLaunchesAreHandedOnOnceTheQueueGoesQuiet) {
  if (const char *s = std::getenv("XPURT_LEVEL_ZERO_SUBMISSION"); s && std::string(s) == "batched")
    GTEST_SKIP() << "queues are batched here: they submit nothing until synced, waited on or "
                    "full (ABatchedQueueRunsNothingUntilSubmittedThenAllInOneRegularList)";
  Module spirv(*device, "xpurt_test_spirv");
  Kernel addInt(spirv, "add_int");
  Array<int32_t, AllocType::Shared> in(*device, 16), out(*device, 16);
  for (int i = 0; i < 16; ++i) in.hostPtr()[i] = i;
  TaskQueue queue(*device);
  queue.launch(addInt, Range(16), {Arg::read(in), Arg::write(out), 1}).wait();  // warm
  Future held = queue.launch(addInt, Range(16), {Arg::read(in), Arg::write(out), 2});
  uint64_t appended = zeCpu.callCount();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (zeCpu.callCount() == appended && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  EXPECT_GT(zeCpu.callCount(), appended) << "the held launch was never handed on";
  held.wait();
  EXPECT_EQ(out.hostPtr()[15], 17);
}

TEST_F(LevelZeroTest, ProfilingGivesDeviceTimeFromKernelTimestamps) {
  Module module(*device, "xpurt_test_spirv");
  Kernel addInt(module, "add_int");
  constexpr size_t kN = 1 << 20;
  Array<int32_t, AllocType::Shared> in(*device, kN), out(*device, kN);
  TaskQueue queue(*device, {Engine::Any, false, true});
  Future f = queue.launch(addInt, Range(kN), {Arg::read(in), Arg::write(out), 1});
  queue.sync();
  uint64_t ns = f.timeNs();
  EXPECT_GT(ns, 0u);
  EXPECT_LT(ns, 10'000'000'000u) << "a wrapped 32-bit timestamp would give years";
}

// A module Intel's compiler and the CPU's JIT would build, with a capability the CPU device
// lacks: xpurt's intake passes it on to the driver, whose build fails with a log.
std::vector<char> moduleWithCapability(uint32_t capability) {
  std::ifstream in(std::string(XPURT_TEST_MODULE_DIR) + "/xpurt_test_tasks.spv", std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  uint32_t instruction[2] = {(2u << 16) | 17u /* OpCapability */, capability};
  bytes.insert(bytes.begin() + 20, reinterpret_cast<char *>(instruction),
               reinterpret_cast<char *>(instruction) + sizeof instruction);
  return bytes;
}

TEST_F(LevelZeroTest, AFailedBuildReportsTheDriversBuildLog) {
  std::vector<char> bytes = moduleWithCapability(13 /* ImageBasic */);
  XpurtModule module = nullptr;
  XpurtResult r =
      xpurtLoadModuleFromMemory(device->handle(), bytes.data(), bytes.size(), nullptr, &module);
  EXPECT_EQ(r, XPURT_ERROR_INVALID_MODULE);
  std::string message = xpurtLastErrorMessage();
  EXPECT_NE(message.find("zeModuleCreate failed with ZE_RESULT_ERROR_MODULE_BUILD_FAILURE"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("build log"), std::string::npos) << message;
  EXPECT_NE(message.find("ImageBasic"), std::string::npos) << message;
  // The device still loads and runs modules.
  Module good(*device, "xpurt_test_tasks");
  Kernel empty(good, "empty");
  TaskQueue queue(*device);
  queue.launch(empty, 1);
  queue.sync();
}

TEST_F(LevelZeroTest, IspcrtIgcOptionsReachTheDriverAsIspcrtReadsThem) {
  {
    ScopedEnv env("ISPCRT_IGC_OPTIONS", "-cl-fast-relaxed-math");
    XpurtModule module = nullptr;
    EXPECT_EQ(xpurtLoadModule(device->handle(), "xpurt_test_tasks", nullptr, &module),
              XPURT_ERROR_INVALID_CONFIG);
    std::string message = xpurtLastErrorMessage();
    EXPECT_NE(message.find("must start with '+'"), std::string::npos) << message;
  }
  for (const char *value : {"+ -cl-fast-relaxed-math", "= -cl-mad-enable"}) {
    ScopedEnv env("ISPCRT_IGC_OPTIONS", value);
    Module module(*device, "xpurt_test_tasks");
    Kernel empty(module, "empty");
    TaskQueue queue(*device);
    queue.launch(empty, 1);
    queue.sync();
  }
}

TEST_F(LevelZeroTest, DeviceMemoryCannotBeADeviceViewsHostCopy) {
  Array<int32_t> onDevice(*device, 64);
  XpurtMemoryView view = nullptr;
  EXPECT_EQ(xpurtNewMemoryView(device->handle(), onDevice.devicePtr(), 64 * sizeof(int32_t),
                               XPURT_ALLOC_TYPE_DEVICE, &view),
            XPURT_ERROR_INVALID_ARGUMENT);
  std::string message = xpurtLastErrorMessage();
  EXPECT_NE(message.find("Level Zero device memory"), std::string::npos) << message;
  EXPECT_EQ(view, nullptr);
  // Host memory of the application, and USM host memory, are fine.
  std::vector<int32_t> host(64, 7);
  Array<int32_t> wrapped(*device, host);
  Array<int32_t, AllocType::Host> usmHost(*device, 64);
  Array<int32_t> wrappedUsm(*device, usmHost.hostPtr(), 64);
  TaskQueue queue(*device);
  queue.copyToDevice(wrapped);
  queue.copyToDevice(wrappedUsm);
  queue.sync();
}

TEST_F(LevelZeroTest, AQueueOfAnotherDeviceOfTheDriverWaitsForACopyOnTheDevice) {
  // The driver's next device: ctest's level_zero.three_devices has it offer three.
  std::optional<uint32_t> second;
  for (uint32_t i = *zeCpuIndex() + 1, n = Device::count(DeviceType::CPU); i < n && !second; ++i)
    if (std::string(Device::info(DeviceType::CPU, i).backend) == "level_zero") second = i;
  if (!second)
    GTEST_SKIP() << "one Level Zero device; XPURT_ZE_CPU_DEVICES=3 (ctest's "
                    "level_zero.three_devices) offers more";
  Device other(DeviceType::CPU, *second);
  Module tasks(*device, "xpurt_test_tasks");
  Module otherSpirv(other, "xpurt_test_spirv");
  Kernel addInt(otherSpirv, "add_int");
  constexpr size_t kN = 1024;
  Array<int32_t> mine(*device, kN), theirs(other, kN), out(other, kN);
  for (size_t i = 0; i < kN; ++i) mine.hostPtr()[i] = static_cast<int32_t>(i);
  TaskQueue a(*device), b(other);
  a.copyToDevice(mine);
  a.sync();
  // The copy waits behind a gate held shut until everything is enqueued, so the other
  // device's launch cannot find it complete already: it must wait on its event.
  Array<int32_t, AllocType::Shared> flags(*device, 2);
  flags.hostPtr()[0] = flags.hostPtr()[1] = 0;
  Array<GateParams, AllocType::Shared> gateParams(*device);
  *gateParams.hostPtr() = {flags.devicePtr(), flags.devicePtr() + 1};
  zeCpu.recordClear();
  zeCpu.recordStart();
  a.launch(Kernel(tasks, "gate"), gateParams, 1);
  Future copied = a.copyMemoryView(theirs, mine);
  b.wait(copied);
  b.launch(addInt, Range(kN), {Arg::read(theirs), Arg::write(out), 5});
  std::atomic_ref<int32_t>(flags.hostPtr()[1]).store(1);
  a.sync();
  b.sync();
  zeCpu.recordStop();
  b.copyToHost(out);
  b.sync();
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(out.hostPtr()[i], static_cast<int32_t>(i) + 5);

  std::vector<XpurtZeCpuRecord> records = zeCpu.records();
  const XpurtZeCpuRecord *copy = nullptr, *launch = nullptr;
  for (const XpurtZeCpuRecord &r : records) {
    if (r.kind == XPURT_ZE_CPU_COMMAND_COPY && !copy) copy = &r;
    if (r.kind == XPURT_ZE_CPU_COMMAND_LAUNCH && copy) launch = &r;
  }
  ASSERT_TRUE(copy && launch) << records.size() << " records";
  ASSERT_NE(copy->signalEvent, nullptr);
  EXPECT_TRUE(dependsOn(records, *launch, copy->signalEvent))
      << "the other device's launch waits on the copy's event on the device, not on the host";
  EXPECT_LT(copy->sequence, launch->sequence);
}

TEST_F(LevelZeroTest, ACopyFromTheCpuThatTheLevelZeroDeviceRefusesFailsAndNothingWaitsForever) {
  // The CPU's queue has the Level Zero device copy into its memory (the CPU cannot reach
  // Level Zero device memory); the driver refuses that copy once.
  Device cpu(DeviceType::CPU, 0, XPURT_DEVICE_FLAG_SEPARATE_MEMORY);
  for (bool outOfOrder : {false, true}) {
    SCOPED_TRACE(outOfOrder ? "out of order" : "in order");
    TaskQueue queue(cpu, QueueOptions{Engine::Any, outOfOrder});
    Array<int32_t> mine(cpu, 64), theirs(*device, 64);
    queue.fill(mine, int32_t{6});
    ASSERT_EQ(zeCpu.setFaults("zeCommandListAppendMemoryCopy=ZE_RESULT_ERROR_DEVICE_LOST@1"), 0);
    try {
      queue.copyMemoryView(theirs, mine);
      ADD_FAILURE() << "the refused copy was accepted";
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), XPURT_ERROR_DEVICE_LOST);
      EXPECT_NE(std::string(e.what()).find("zeCommandListAppendMemoryCopy"), std::string::npos)
          << e.what();
    }
    zeCpu.setFaults("");
    // What comes after the refused copy (writing its source, then the same copy) runs.
    queue.fill(mine, int32_t{8});
    Future copied = queue.copyMemoryView(theirs, mine);
    queue.sync();
    EXPECT_TRUE(copied.valid());
    TaskQueue zeQueue(*device);
    zeQueue.copyToHost(theirs);
    zeQueue.sync();
    for (int i = 0; i < 64; ++i) ASSERT_EQ(theirs.hostPtr()[i], 8) << i;
  }
}

TEST_F(LevelZeroTest, ANativeBinaryForAnIntelGpuIsRefusedWithTheBuildLog) {
  std::ifstream in(XPURT_TEST_ZEBIN, std::ios::binary);
  if (!in) GTEST_SKIP() << "no zebin was built (ocloc is not installed)";
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  XpurtModule module = nullptr;
  XpurtResult r =
      xpurtLoadModuleFromMemory(device->handle(), bytes.data(), bytes.size(), nullptr, &module);
  EXPECT_EQ(r, XPURT_ERROR_INVALID_MODULE);
  std::string message = xpurtLastErrorMessage();
  EXPECT_NE(message.find("ZE_RESULT_ERROR_INVALID_NATIVE_BINARY"), std::string::npos) << message;
  EXPECT_NE(message.find("SPIR-V"), std::string::npos) << message;
}

// Two drivers at once (ISPCRT failed on an integrated plus a discrete GPU): run by ctest with
// ZE_ENABLE_ALT_DRIVERS naming the driver twice under two file names, which the loader
// loads as two drivers, each with its own device and context.
TEST_F(LevelZeroTest, ABatchedQueueRunsNothingUntilSubmittedThenAllInOneRegularList) {
  Module spirv(*device, "xpurt_test_spirv");
  Kernel addInt(spirv, "add_int");
  constexpr size_t kN = 64;
  Array<int32_t, AllocType::Shared> data(*device, kN);
  for (size_t i = 0; i < kN; ++i) data.hostPtr()[i] = 0;
  QueueOptions options;
  options.batched = true;
  TaskQueue queue(*device, options);
  zeCpu.recordClear();
  zeCpu.recordStart();
  for (int i = 0; i < 10; ++i) queue.launch(addInt, Range(kN), {data, data, 1});
  // Recorded, not executed: the driver records commands as they run.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(zeCpu.recordCount(), 0u) << "a batched queue ran commands before it was synced";
  queue.sync();
  zeCpu.recordStop();
  EXPECT_EQ(data.hostPtr()[kN - 1], 10);
  std::vector<XpurtZeCpuRecord> records = zeCpu.records();
  ASSERT_EQ(records.size(), 10u);
  for (const XpurtZeCpuRecord &r : records)
    EXPECT_EQ(r.commandList, records[0].commandList) << "one regular list for the batch";
}

TEST_F(LevelZeroTest, ABatchedQueueSubmitsWhenAFutureIsWaitedOnOrAnotherQueueWaitsForIt) {
  Module spirv(*device, "xpurt_test_spirv");
  Kernel addInt(spirv, "add_int");
  Array<int32_t, AllocType::Shared> data(*device, 16);
  for (int i = 0; i < 16; ++i) data.hostPtr()[i] = 0;
  QueueOptions options;
  options.batched = true;
  TaskQueue batched(*device, options);
  Future first = batched.launch(addInt, Range(16), {data, data, 1});
  first.wait();  // submits; no sync
  EXPECT_EQ(data.hostPtr()[15], 1);
  // Another queue's command waits for a recorded one: that submits it.
  Future second = batched.launch(addInt, Range(16), {data, data, 1});
  TaskQueue other(*device);
  other.wait(second);
  other.launch(addInt, Range(16), {data, data, 10});
  other.sync();
  EXPECT_EQ(data.hostPtr()[15], 12);
  // A host callback runs after what came before it, without a sync.
  std::atomic<int> seen{-1};
  batched.launch(addInt, Range(16), {data, data, 100});
  Future callback = batched.hostCallback([&] { seen = data.hostPtr()[15]; });
  callback.wait();
  EXPECT_EQ(seen.load(), 112);
  batched.sync();
}

TEST_F(LevelZeroTest, ABatchedQueueSubmitsEveryFewHundredCommandsWithoutACap) {
  Module module(*device, "xpurt_test_tasks");
  Kernel empty(module, "empty");
  Module spirv(*device, "xpurt_test_spirv");
  Kernel addInt(spirv, "add_int");
  QueueOptions options;
  options.batched = true;
  options.outOfOrder = true;
  TaskQueue queue(*device, options);
  Array<int32_t, AllocType::Shared> data(*device, 16);
  for (int i = 0; i < 16; ++i) data.hostPtr()[i] = 0;
  zeCpu.recordClear();
  zeCpu.recordStart();
  for (int i = 0; i < 2000; ++i) queue.launch(empty, 1);
  // Batches of 256 went to the device without a sync: most launches run without one.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (zeCpu.recordCount() < 1792 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_GE(zeCpu.recordCount(), 1792u);
  for (int i = 0; i < 100'000; ++i) queue.launch(empty, 1);
  queue.launch(addInt, Range(16), {data, data, 3});
  queue.sync();
  zeCpu.recordStop();
  EXPECT_EQ(data.hostPtr()[15], 3);
  EXPECT_GE(zeCpu.recordCount(), 102'001u);
}

TEST(LevelZeroTwoDrivers, EachDriversDeviceRunsAndKeepsItsMemoryAndModulesToItself) {
  std::vector<uint32_t> zeDevices;
  for (uint32_t i = 0, n = Device::count(DeviceType::CPU); i < n; ++i)
    if (std::string(Device::info(DeviceType::CPU, i).backend) == "level_zero")
      zeDevices.push_back(i);
  if (zeDevices.size() < 2) GTEST_SKIP() << "fewer than two Level Zero drivers are loaded";
  Device a(DeviceType::CPU, zeDevices[0]), b(DeviceType::CPU, zeDevices[1]);
  Module moduleA(a, "xpurt_test_spirv"), moduleB(b, "xpurt_test_spirv");
  Kernel addA(moduleA, "add_int"), addB(moduleB, "add_int");
  Array<int32_t, AllocType::Shared> inA(a, 64), outA(a, 64), inB(b, 64), outB(b, 64);
  for (int i = 0; i < 64; ++i) inA.hostPtr()[i] = inB.hostPtr()[i] = i;
  TaskQueue queueA(a), queueB(b);
  // Work on B waits for work on A: a future of another driver, signalled from the host.
  Future doneA = queueA.launch(addA, Range(64), {Arg::read(inA), Arg::write(outA), 1});
  queueB.wait(doneA);
  queueB.launch(addB, Range(64), {Arg::read(inB), Arg::write(outB), 2});
  queueB.sync();
  EXPECT_TRUE(doneA.valid());
  EXPECT_EQ(outA.hostPtr()[63], 64);
  EXPECT_EQ(outB.hostPtr()[63], 65);
  // Another driver's memory and modules are refused with the reason, and nothing is queued.
  auto expectRefused = [](auto enqueue, const char *why) {
    try {
      enqueue();
      ADD_FAILURE() << "accepted; expected a refusal saying " << why;
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  expectRefused([&] { queueB.fill(inA, int32_t{0}); }, "cannot reach");
  expectRefused(
      [&] {
        queueB.launch(addA, Range(64), {Arg::read(inB), Arg::write(outB), 1});
      },
      "module was loaded for");
  queueB.sync();
  EXPECT_EQ(inA.hostPtr()[5], 5);
}

// Each injected fault: the xpurt call that makes the Level Zero call fails with a clear
// error naming the call and the result; with the fault gone, the same work succeeds.
struct Fault {
  const char *spec;
  XpurtResult expected;
  const char *call;
  bool batched = false;  // on a batched queue (regular command lists)
};

class LevelZeroFaultTest : public LevelZeroTest, public ::testing::WithParamInterface<Fault> {};

// Runs the whole path once: a view, a module, a queue, copies, a launch, a sync.
XpurtResult runOnce(Device &device, std::string &message, bool batched = false) {
  try {
    Array<int32_t> in(device, 64), out(device, 64);
    for (int i = 0; i < 64; ++i) in.hostPtr()[i] = i;
    Module module(device, "xpurt_test_spirv");
    Kernel addInt(module, "add_int");
    QueueOptions options;
    options.batched = batched;
    TaskQueue queue(device, options);
    queue.copyToDevice(in);
    queue.launch(addInt, Range(64), {Arg::read(in), Arg::write(out), 3});
    queue.copyToHost(out);
    queue.sync();
    for (int i = 0; i < 64; ++i)
      if (out.hostPtr()[i] != i + 3) {
        message = "wrong result at " + std::to_string(i);
        return XPURT_ERROR_UNKNOWN;
      }
    return XPURT_SUCCESS;
  } catch (const Error &e) {
    message = e.what();
    return e.code();
  }
}

TEST_P(LevelZeroFaultTest, SurfacesAsAClearErrorAndLeavesTheRuntimeUsable) {
  ASSERT_EQ(zeCpu.setFaults(GetParam().spec), 0) << GetParam().spec;
  std::string message;
  XpurtResult r = runOnce(*device, message, GetParam().batched);
  zeCpu.setFaults("");
  EXPECT_EQ(r, GetParam().expected) << message;
  EXPECT_NE(message.find(GetParam().call), std::string::npos) << message;
  std::string again;
  EXPECT_EQ(runOnce(*device, again, GetParam().batched), XPURT_SUCCESS) << again;
}

INSTANTIATE_TEST_SUITE_P(
    Faults, LevelZeroFaultTest,
    ::testing::Values(Fault{"zeMemAllocDevice=ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY",
                            XPURT_ERROR_OUT_OF_MEMORY, "zeMemAllocDevice"},
                      Fault{"zeMemAllocHost=ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY",
                            XPURT_ERROR_OUT_OF_MEMORY, "zeMemAllocHost"},
                      Fault{"zeModuleCreate=ZE_RESULT_ERROR_MODULE_BUILD_FAILURE",
                            XPURT_ERROR_INVALID_MODULE, "zeModuleCreate"},
                      Fault{"zeKernelCreate=ZE_RESULT_ERROR_INVALID_KERNEL_NAME",
                            XPURT_ERROR_NOT_FOUND, "zeKernelCreate"},
                      Fault{"zeCommandListCreateImmediate=ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY",
                            XPURT_ERROR_OUT_OF_MEMORY, "zeCommandListCreateImmediate"},
                      Fault{"zeEventPoolCreate=ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY",
                            XPURT_ERROR_OUT_OF_MEMORY, "zeEventPoolCreate"},
                      Fault{"zeCommandListAppendMemoryCopy=ZE_RESULT_ERROR_DEVICE_LOST",
                            XPURT_ERROR_DEVICE_LOST, "zeCommandListAppendMemoryCopy"},
                      Fault{"zeCommandListAppendLaunchKernel=ZE_RESULT_ERROR_DEVICE_LOST",
                            XPURT_ERROR_DEVICE_LOST, "zeCommandListAppendLaunchKernel"},
                      Fault{"zeKernelSetArgumentValue=ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE",
                            XPURT_ERROR_INVALID_ARGUMENT, "zeKernelSetArgumentValue"},
                      Fault{"zeEventQueryStatus=ZE_RESULT_ERROR_DEVICE_LOST@1",
                            XPURT_ERROR_EXECUTION_FAILED, "zeEventQueryStatus"},
                      Fault{"zeCommandQueueCreate=ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY",
                            XPURT_ERROR_OUT_OF_MEMORY, "zeCommandQueueCreate", true},
                      Fault{"zeFenceCreate=ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY",
                            XPURT_ERROR_OUT_OF_MEMORY, "zeFenceCreate", true},
                      Fault{"zeCommandQueueExecuteCommandLists=ZE_RESULT_ERROR_DEVICE_LOST",
                            XPURT_ERROR_EXECUTION_FAILED, "zeCommandQueueExecuteCommandLists",
                            true}),
    [](const auto &info) {
      std::string name = info.param.call;
      return name;
    });

}  // namespace
}  // namespace xpurt::test
