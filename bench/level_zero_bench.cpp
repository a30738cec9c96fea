// Host cost of work on a Level Zero device through xpurt, side by side with the same work
// written directly against Level Zero, and the number of Level Zero calls each operation
// makes on the calling thread. Runs on xpurt's Level Zero driver for the CPU (runtime/ze_cpu)
// through the real loader, without the validation layer; set ZE_ENABLE_ALT_DRIVERS to run
// on another driver (the call counts then read 0: only ze_cpu counts calls).
//
//   enqueue_launch/xpurt        TaskQueue::launch of an empty one-task SPIR-V kernel
//   enqueue_launch/ze_direct    zeCommandListAppendLaunchKernel on an immediate list, no
//                               event: the least a runtime can do per launch
//   enqueue_launch/ze_direct_paced  the same append, made only every ~1.5 us (a busy loop
//                               between appends, not timed): what the append costs the
//                               caller when made at about xpurt's pace, the driver's
//                               threads having gone idle in between
//   enqueue_launch/ze_ispcrt_style  what ISPCRT does per launch on its regular command list:
//                               an event from its pool (zeEventCreate), group size and
//                               argument set, the append signalling the event (its close,
//                               submit, sync and resets at sync() are not counted)
//   enqueue_launch/xpurt_batched  the same on a batched queue (regular command lists,
//                               executed every 256 commands)
//   enqueue_copy/xpurt          TaskQueue::copyToDevice of 4 KiB
//   enqueue_copy/xpurt_batched  the same on a batched queue
//   enqueue_copy/ze_direct      zeCommandListAppendMemoryCopy of 4 KiB, no event
// Every 4,096 operations the queue is synced outside the timing.
//
// A chain of N empty launches replayed and waited for, per node (counter per_node):
//   graph_chain/xpurt_graph/N     an executable graph launched on the queue (lists recorded
//                                 once, executed again)
//   graph_chain/xpurt_queue/N     the N launches enqueued on the queue, then a sync: what the
//                                 graph replaces
//   graph_chain/ze_regular_list/N the N launches on a regular list closed once, executed and
//                                 synchronized directly: the floor
#include "ze_cpu/ze_cpu_inspect.h"

#include <xpurt/xpurt.hpp>

#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <level_zero/ze_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

const bool environmentSet = [] {
  setenv("ZE_ENABLE_ALT_DRIVERS", XPURT_ZE_CPU_DRIVER, 0);
  return true;
}();

constexpr int kBatch = 4096;
constexpr size_t kCopyBytes = 4096;

uint64_t threadCalls() {
  static auto *count = [] {
    void *library = dlopen(XPURT_ZE_CPU_DRIVER, RTLD_NOW | RTLD_NOLOAD);
    return library ? reinterpret_cast<uint64_t (*)()>(dlsym(library, "xpurtZeCpuThreadCallCount"))
                   : nullptr;
  }();
  return count ? count() : 0;
}

void ze(ze_result_t r, const char *call) {
  if (r != ZE_RESULT_SUCCESS) throw std::runtime_error(std::string(call) + " failed");
}

// xpurt on the first Level Zero device.
struct XpurtSide {
  xpurt::Device device = [] {
    for (xpurt::DeviceType t : {xpurt::DeviceType::GPU, xpurt::DeviceType::CPU})
      for (uint32_t i = 0, n = xpurt::Device::count(t); i < n; ++i)
        if (std::string(xpurt::Device::info(t, i).backend) == "level_zero")
          return xpurt::Device(t, i);
    throw std::runtime_error("no Level Zero device: is ZE_ENABLE_ALT_DRIVERS set?");
  }();
  xpurt::Module module{device, "xpurt_test_tasks"};
  xpurt::Kernel empty{module, "empty"};
  xpurt::TaskQueue queue{device};
  xpurt::TaskQueue batched{device, [] {
                             xpurt::QueueOptions options;
                             options.batched = true;
                             return options;
                           }()};
  xpurt::Array<char> buffer{device, kCopyBytes};
};

XpurtSide &xpurtSide() {
  static XpurtSide side;
  return side;
}

// The same device and kernel, straight through the loader.
struct DirectSide {
  ze_driver_handle_t driver = nullptr;
  ze_device_handle_t device = nullptr;
  ze_context_handle_t context = nullptr;
  ze_command_list_handle_t immediate = nullptr;
  ze_command_list_handle_t regular = nullptr;
  ze_command_queue_handle_t queue = nullptr;
  ze_module_handle_t module = nullptr;
  ze_kernel_handle_t kernel = nullptr;
  ze_event_pool_handle_t pool = nullptr;
  void *deviceBuffer = nullptr;
  std::vector<char> hostBuffer = std::vector<char>(kCopyBytes);

  DirectSide() {
    xpurtSide();  // the loader initialised, the device found
    ze(zeInit(0), "zeInit");
    uint32_t n = 1;
    ze(zeDriverGet(&n, &driver), "zeDriverGet");
    n = 1;
    ze(zeDeviceGet(driver, &n, &device), "zeDeviceGet");
    ze_context_desc_t contextDesc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
    ze(zeContextCreate(driver, &contextDesc, &context), "zeContextCreate");
    ze_command_queue_desc_t queueDesc{
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze(zeCommandListCreateImmediate(context, device, &queueDesc, &immediate),
       "zeCommandListCreateImmediate");
    ze(zeCommandQueueCreate(context, device, &queueDesc, &queue), "zeCommandQueueCreate");
    ze_command_list_desc_t listDesc{ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, nullptr, 0, 0};
    ze(zeCommandListCreate(context, device, &listDesc, &regular), "zeCommandListCreate");
    std::ifstream in(std::string(XPURT_BENCH_MODULE_DIR) + "/xpurt_test_tasks.spv",
                     std::ios::binary);
    std::vector<char> spirv((std::istreambuf_iterator<char>(in)), {});
    ze_module_desc_t moduleDesc{ZE_STRUCTURE_TYPE_MODULE_DESC,
                                nullptr,
                                ZE_MODULE_FORMAT_IL_SPIRV,
                                spirv.size(),
                                reinterpret_cast<const uint8_t *>(spirv.data()),
                                "",
                                nullptr};
    ze(zeModuleCreate(context, device, &moduleDesc, &module, nullptr), "zeModuleCreate");
    ze_kernel_desc_t kernelDesc{ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, "empty"};
    ze(zeKernelCreate(module, &kernelDesc, &kernel), "zeKernelCreate");
    ze(zeKernelSetGroupSize(kernel, 1, 1, 1), "zeKernelSetGroupSize");
    ze_event_pool_desc_t poolDesc{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                                  ZE_EVENT_POOL_FLAG_HOST_VISIBLE, kBatch};
    ze(zeEventPoolCreate(context, &poolDesc, 1, &device, &pool), "zeEventPoolCreate");
    ze_device_mem_alloc_desc_t memDesc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
    ze(zeMemAllocDevice(context, &memDesc, kCopyBytes, 64, device, &deviceBuffer),
       "zeMemAllocDevice");
  }

  void syncImmediate() {
    // Level Zero 1.4 has no wait for an immediate list: a barrier signalling an event.
    ze_event_desc_t desc{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, 0, ZE_EVENT_SCOPE_FLAG_HOST,
                         ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t done = nullptr;
    ze(zeEventCreate(pool, &desc, &done), "zeEventCreate");
    ze(zeCommandListAppendBarrier(immediate, done, 0, nullptr), "zeCommandListAppendBarrier");
    ze(zeEventHostSynchronize(done, UINT64_MAX), "zeEventHostSynchronize");
    ze(zeEventDestroy(done), "zeEventDestroy");
  }
};

DirectSide &directSide() {
  static DirectSide side;
  return side;
}

// Runs op per iteration, syncs (untimed) every kBatch, and reports the Level Zero calls the
// calling thread made per operation.
template <class Op, class Sync>
void measure(benchmark::State &state, Op op, Sync sync) {
  int64_t n = 0;
  uint64_t calls = 0;
  for (auto _ : state) {
    uint64_t before = threadCalls();
    op(n);
    calls += threadCalls() - before;
    if (++n % kBatch == 0) {
      state.PauseTiming();
      sync();
      state.ResumeTiming();
    }
  }
  sync();
  state.counters["ze_calls"] = benchmark::Counter(static_cast<double>(calls) / double(n));
}

void BM_Launch_Xpurt(benchmark::State &state) {
  XpurtSide &x = xpurtSide();
  measure(
      state,
      [&](int64_t) {
        xpurt::Future f = x.queue.launch(x.empty, 1);
        benchmark::DoNotOptimize(f);
      },
      [&] { x.queue.sync(); });
}
BENCHMARK(BM_Launch_Xpurt)->Name("enqueue_launch/xpurt");

void BM_Launch_XpurtBatched(benchmark::State &state) {
  XpurtSide &x = xpurtSide();
  measure(
      state,
      [&](int64_t) {
        xpurt::Future f = x.batched.launch(x.empty, 1);
        benchmark::DoNotOptimize(f);
      },
      [&] { x.batched.sync(); });
}
BENCHMARK(BM_Launch_XpurtBatched)->Name("enqueue_launch/xpurt_batched");

void BM_Launch_Direct(benchmark::State &state) {
  DirectSide &d = directSide();
  ze_group_count_t groups{1, 1, 1};
  measure(
      state,
      [&](int64_t) {
        ze(zeCommandListAppendLaunchKernel(d.immediate, d.kernel, &groups, nullptr, 0, nullptr),
           "zeCommandListAppendLaunchKernel");
      },
      [&] { d.syncImmediate(); });
}
BENCHMARK(BM_Launch_Direct)->Name("enqueue_launch/ze_direct");

void BM_Launch_DirectPaced(benchmark::State &state) {
  DirectSide &d = directSide();
  ze_group_count_t groups{1, 1, 1};
  int64_t n = 0;
  for (auto _ : state) {
    auto pause = std::chrono::steady_clock::now() + std::chrono::nanoseconds(1500);
    while (std::chrono::steady_clock::now() < pause) {
    }
    auto start = std::chrono::steady_clock::now();
    ze(zeCommandListAppendLaunchKernel(d.immediate, d.kernel, &groups, nullptr, 0, nullptr),
       "zeCommandListAppendLaunchKernel");
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (++n % kBatch == 0) d.syncImmediate();
  }
  d.syncImmediate();
}
BENCHMARK(BM_Launch_DirectPaced)->Name("enqueue_launch/ze_direct_paced")->UseManualTime();

void BM_Launch_IspcrtStyle(benchmark::State &state) {
  DirectSide &d = directSide();
  ze_group_count_t groups{1, 1, 1};
  std::vector<ze_event_handle_t> events;
  events.reserve(kBatch);
  measure(
      state,
      [&](int64_t n) {
        ze_event_desc_t desc{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr,
                             static_cast<uint32_t>(n % kBatch), ZE_EVENT_SCOPE_FLAG_HOST,
                             ZE_EVENT_SCOPE_FLAG_HOST};
        ze_event_handle_t e = nullptr;
        ze(zeEventCreate(d.pool, &desc, &e), "zeEventCreate");
        events.push_back(e);
        ze(zeKernelSetGroupSize(d.kernel, 1, 1, 1), "zeKernelSetGroupSize");
        ze(zeCommandListAppendLaunchKernel(d.regular, d.kernel, &groups, e, 0, nullptr),
           "zeCommandListAppendLaunchKernel");
      },
      [&] {
        ze(zeCommandListClose(d.regular), "zeCommandListClose");
        ze(zeCommandQueueExecuteCommandLists(d.queue, 1, &d.regular, nullptr),
           "zeCommandQueueExecuteCommandLists");
        ze(zeCommandQueueSynchronize(d.queue, UINT64_MAX), "zeCommandQueueSynchronize");
        ze(zeCommandListReset(d.regular), "zeCommandListReset");
        for (ze_event_handle_t e : events) zeEventDestroy(e);
        events.clear();
      });
}
BENCHMARK(BM_Launch_IspcrtStyle)->Name("enqueue_launch/ze_ispcrt_style");

void BM_Copy_Xpurt(benchmark::State &state) {
  XpurtSide &x = xpurtSide();
  measure(
      state,
      [&](int64_t) {
        xpurt::Future f = x.queue.copyToDevice(x.buffer);
        benchmark::DoNotOptimize(f);
      },
      [&] { x.queue.sync(); });
}
BENCHMARK(BM_Copy_Xpurt)->Name("enqueue_copy/xpurt");

void BM_Copy_XpurtBatched(benchmark::State &state) {
  XpurtSide &x = xpurtSide();
  measure(
      state,
      [&](int64_t) {
        xpurt::Future f = x.batched.copyToDevice(x.buffer);
        benchmark::DoNotOptimize(f);
      },
      [&] { x.batched.sync(); });
}
BENCHMARK(BM_Copy_XpurtBatched)->Name("enqueue_copy/xpurt_batched");

void BM_Copy_Direct(benchmark::State &state) {
  DirectSide &d = directSide();
  measure(
      state,
      [&](int64_t) {
        ze(zeCommandListAppendMemoryCopy(d.immediate, d.deviceBuffer, d.hostBuffer.data(),
                                         kCopyBytes, nullptr, 0, nullptr),
           "zeCommandListAppendMemoryCopy");
      },
      [&] { d.syncImmediate(); });
}
BENCHMARK(BM_Copy_Direct)->Name("enqueue_copy/ze_direct");

void perNode(benchmark::State &state) {
  state.counters["per_node"] =
      benchmark::Counter(static_cast<double>(state.iterations() * state.range(0)),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_GraphChain_XpurtGraph(benchmark::State &state) {
  XpurtSide &x = xpurtSide();
  xpurt::Array<uint64_t> params(x.device, 1);  // the kernel reads none
  xpurt::Graph graph;
  xpurt::Deps last;
  for (int64_t i = 0; i < state.range(0); ++i)
    last = {graph.launch(x.empty, params, 1, 1, 1, last)};
  xpurt::GraphExec exec = graph.instantiate(x.device);
  for (auto _ : state) x.queue.launch(exec).wait();
  perNode(state);
}
BENCHMARK(BM_GraphChain_XpurtGraph)
    ->Name("graph_chain/xpurt_graph")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseRealTime();

void BM_GraphChain_XpurtQueue(benchmark::State &state) {
  XpurtSide &x = xpurtSide();
  for (auto _ : state) {
    for (int64_t i = 0; i < state.range(0); ++i) x.queue.launch(x.empty, 1);
    x.queue.sync();
  }
  perNode(state);
}
BENCHMARK(BM_GraphChain_XpurtQueue)
    ->Name("graph_chain/xpurt_queue")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseRealTime();

void BM_GraphChain_ZeRegularList(benchmark::State &state) {
  DirectSide &d = directSide();
  ze_command_list_desc_t listDesc{ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, nullptr, 0, 0};
  ze_command_list_handle_t list = nullptr;
  ze(zeCommandListCreate(d.context, d.device, &listDesc, &list), "zeCommandListCreate");
  ze_group_count_t groups{1, 1, 1};
  // In order: a barrier between launches, as a chain needs on a device that overlaps them.
  for (int64_t i = 0; i < state.range(0); ++i) {
    ze(zeCommandListAppendLaunchKernel(list, d.kernel, &groups, nullptr, 0, nullptr),
       "zeCommandListAppendLaunchKernel");
    ze(zeCommandListAppendBarrier(list, nullptr, 0, nullptr), "zeCommandListAppendBarrier");
  }
  ze(zeCommandListClose(list), "zeCommandListClose");
  for (auto _ : state) {
    ze(zeCommandQueueExecuteCommandLists(d.queue, 1, &list, nullptr),
       "zeCommandQueueExecuteCommandLists");
    ze(zeCommandQueueSynchronize(d.queue, UINT64_MAX), "zeCommandQueueSynchronize");
  }
  zeCommandListDestroy(list);
  perNode(state);
}
BENCHMARK(BM_GraphChain_ZeRegularList)
    ->Name("graph_chain/ze_regular_list")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
