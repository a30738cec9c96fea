// Launch overheads of the CPU device, side by side with oneTBB doing the same work directly.
//
//   enqueue_empty_launch/*   host-side cost to enqueue one empty one-task launch
//   round_trip_warm/*        enqueue (or call) and wait for completion, back to back
//   round_trip_after_idle/*  the same after 2 ms of idle, past the executor's spin window
//   start_after_idle/*       after 2 ms of idle, enqueue to the start of the task, the host not
//                            waiting: the cost of waking an idle worker
//   small_launches/*         1000 launches of a 4-task kernel over 4096 floats, then sync
#include <xpurt/xpurt.hpp>

#include <benchmark/benchmark.h>
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <chrono>
#include <thread>

#include "test_params.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kIdle = std::chrono::milliseconds(2);
constexpr int kSmallLaunches = 1000;
constexpr int kSmallTasks = 4;
constexpr int kSmallCount = 4096;

// One device, queue and kernel set for every benchmark, as an application would hold them.
struct Runtime {
  xpurt::Device device{xpurt::DeviceType::CPU};
  xpurt::Module module{device, "xpurt_test_kernels"};
  xpurt::Kernel empty{module, "empty"};
  xpurt::Kernel add{module, "add_value"};
  xpurt::TaskQueue queue{device};
  tbb::task_arena arena{static_cast<int>(device.info().computeUnits)};
};

Runtime &runtime() {
  static Runtime rt;
  return rt;
}

// Work of one small-launch task, shared by xpurt's kernel and the TBB baseline.
void addSlice(float *data, int count, float value, int task, int tasks) {
  long begin = long(count) * task / tasks, end = long(count) * (task + 1) / tasks;
  for (long i = begin; i < end; ++i) data[i] += value;
}

void BM_EnqueueEmptyLaunch_XpurtC(benchmark::State &state) {
  Runtime &rt = runtime();
  int64_t n = 0;
  for (auto _ : state) {
    xpurtLaunch1D(rt.queue.handle(), rt.empty.handle(), nullptr, 1, nullptr);
    if (++n % 4096 == 0) {  // keep the queue short; not timed
      state.PauseTiming();
      rt.queue.sync();
      state.ResumeTiming();
    }
  }
  rt.queue.sync();
}
BENCHMARK(BM_EnqueueEmptyLaunch_XpurtC)->Name("enqueue_empty_launch/xpurt_c_no_future");

void BM_EnqueueEmptyLaunch_XpurtCpp(benchmark::State &state) {
  Runtime &rt = runtime();
  int64_t n = 0;
  for (auto _ : state) {
    xpurt::Future f = rt.queue.launch(rt.empty, 1);
    benchmark::DoNotOptimize(f);
    if (++n % 4096 == 0) {
      state.PauseTiming();
      rt.queue.sync();
      state.ResumeTiming();
    }
  }
  rt.queue.sync();
}
BENCHMARK(BM_EnqueueEmptyLaunch_XpurtCpp)->Name("enqueue_empty_launch/xpurt_cpp_future");

void BM_EnqueueEmpty_TbbTaskGroup(benchmark::State &state) {
  Runtime &rt = runtime();
  tbb::task_group group;
  int64_t n = 0;
  rt.arena.execute([&] {
    for (auto _ : state) {
      group.run([] {});
      if (++n % 4096 == 0) {
        state.PauseTiming();
        group.wait();
        state.ResumeTiming();
      }
    }
    group.wait();
  });
}
BENCHMARK(BM_EnqueueEmpty_TbbTaskGroup)->Name("enqueue_empty_launch/tbb_task_group_run");

void BM_RoundTripWarm_Xpurt(benchmark::State &state) {
  Runtime &rt = runtime();
  for (auto _ : state) rt.queue.launch(rt.empty, 1).wait();
}
BENCHMARK(BM_RoundTripWarm_Xpurt)->Name("round_trip_warm/xpurt");

void BM_RoundTripWarm_XpurtSync(benchmark::State &state) {
  Runtime &rt = runtime();
  for (auto _ : state) {
    xpurtLaunch1D(rt.queue.handle(), rt.empty.handle(), nullptr, 1, nullptr);
    xpurtSync(rt.queue.handle());
  }
}
BENCHMARK(BM_RoundTripWarm_XpurtSync)->Name("round_trip_warm/xpurt_c_sync");

void BM_RoundTripWarm_TbbParallelFor(benchmark::State &state) {
  Runtime &rt = runtime();
  rt.arena.execute([&] {
    for (auto _ : state) tbb::parallel_for(0, 1, [](int) {});
  });
}
BENCHMARK(BM_RoundTripWarm_TbbParallelFor)->Name("round_trip_warm/tbb_parallel_for");

void BM_RoundTripWarm_TbbFlowGraph(benchmark::State &state) {
  Runtime &rt = runtime();
  rt.arena.execute([&] {
    tbb::flow::graph g;
    tbb::flow::continue_node<tbb::flow::continue_msg> node(g,
                                                           [](const tbb::flow::continue_msg &) {});
    for (auto _ : state) {
      node.try_put(tbb::flow::continue_msg());
      g.wait_for_all();
    }
  });
}
BENCHMARK(BM_RoundTripWarm_TbbFlowGraph)->Name("round_trip_warm/tbb_flow_graph");

template <class Body>
void afterIdle(benchmark::State &state, Body body) {
  for (auto _ : state) {
    std::this_thread::sleep_for(kIdle);
    auto start = Clock::now();
    body();
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - start).count());
  }
}

void BM_RoundTripIdle_Xpurt(benchmark::State &state) {
  Runtime &rt = runtime();
  afterIdle(state, [&] { rt.queue.launch(rt.empty, 1).wait(); });
}
// Each iteration sleeps, so the count is fixed rather than found by timing.
BENCHMARK(BM_RoundTripIdle_Xpurt)
    ->Name("round_trip_after_idle/xpurt")
    ->UseManualTime()
    ->Iterations(500);

void BM_RoundTripIdle_TbbParallelFor(benchmark::State &state) {
  Runtime &rt = runtime();
  afterIdle(state, [&] { rt.arena.execute([] { tbb::parallel_for(0, 1, [](int) {}); }); });
}
BENCHMARK(BM_RoundTripIdle_TbbParallelFor)
    ->Name("round_trip_after_idle/tbb_parallel_for")
    ->UseManualTime()
    ->Iterations(500);

int64_t steadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// Times enqueue -> task start; the host polls a flag and never touches the queue. It yields
// while polling: the scheduler often places a woken thread on the waker's core, and a host
// spinning without yielding would hold it off for a whole time slice (about 1.5 ms here).
template <class Enqueue>
void startAfterIdle(benchmark::State &state, Enqueue enqueue) {
  volatile int64_t started = 0;
  for (auto _ : state) {
    std::this_thread::sleep_for(kIdle);
    started = 0;
    int64_t begin = steadyNs();
    enqueue(&started);
    while (started == 0) std::this_thread::yield();
    state.SetIterationTime(double(started - begin) * 1e-9);
  }
}

void BM_StartAfterIdle_Xpurt(benchmark::State &state) {
  Runtime &rt = runtime();
  xpurt::Kernel record(rt.module, "record_start");
  xpurt::Array<StartParams> params(rt.device);
  startAfterIdle(state, [&](volatile int64_t *flag) {
    *params.hostPtr() = {flag};
    xpurtLaunch1D(rt.queue.handle(), record.handle(), params.handle(), 1, nullptr);
  });
  rt.queue.sync();
}
BENCHMARK(BM_StartAfterIdle_Xpurt)
    ->Name("start_after_idle/xpurt")
    ->UseManualTime()
    ->Iterations(500);

void BM_StartAfterIdle_TbbEnqueue(benchmark::State &state) {
  Runtime &rt = runtime();
  startAfterIdle(state,
                 [&](volatile int64_t *flag) { rt.arena.enqueue([flag] { *flag = steadyNs(); }); });
}
BENCHMARK(BM_StartAfterIdle_TbbEnqueue)
    ->Name("start_after_idle/tbb_arena_enqueue")
    ->UseManualTime()
    ->Iterations(500);

void BM_SmallLaunches_Xpurt(benchmark::State &state) {
  Runtime &rt = runtime();
  xpurt::Array<float> data(rt.device, kSmallCount);
  xpurt::Array<AddParams> params(rt.device);
  *params.hostPtr() = {data.devicePtr(), kSmallCount, 1.0f};
  rt.queue.copyToDevice(params);
  rt.queue.fill(data, 0.0f);
  for (auto _ : state) {
    for (int i = 0; i < kSmallLaunches; ++i)
      xpurtLaunch1D(rt.queue.handle(), rt.add.handle(), params.handle(), kSmallTasks, nullptr);
    rt.queue.sync();
  }
  state.SetItemsProcessed(state.iterations() * kSmallLaunches);
}
BENCHMARK(BM_SmallLaunches_Xpurt)->Name("small_launches/xpurt")->Unit(benchmark::kMicrosecond);

void BM_SmallLaunches_TbbParallelFor(benchmark::State &state) {
  Runtime &rt = runtime();
  std::vector<float> data(kSmallCount, 0.0f);
  rt.arena.execute([&] {
    for (auto _ : state) {
      for (int i = 0; i < kSmallLaunches; ++i)
        tbb::parallel_for(0, kSmallTasks,
                          [&](int t) { addSlice(data.data(), kSmallCount, 1.0f, t, kSmallTasks); });
    }
  });
  state.SetItemsProcessed(state.iterations() * kSmallLaunches);
}
BENCHMARK(BM_SmallLaunches_TbbParallelFor)
    ->Name("small_launches/tbb_parallel_for")
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
