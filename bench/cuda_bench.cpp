// The CUDA device against the CUDA driver used directly, in one run (docs/PERFORMANCE.md):
//
//   launch_enqueue/{xpurt_spirv,xpurt_ptx,raw_driver}  host cost of one empty launch, queued
//   launch_latency/{xpurt_spirv,raw_driver}            one empty launch and the wait for it
//   graph_chain/{xpurt,raw_cuda_graph}/N               a chain of N empty kernels, launched
//                                                      and waited for
//   (xpurt's on a default queue; the *_profiling ones on a queue whose futures carry device
//   times, which costs each command two timed CUDA events)
//   saxpy/{xpurt_spirv,nvcc}                           y = a*x + y over 64M floats (bytes/s)
//   mandelbrot_4096, reduce_64M, transpose_8192,       the other workloads of
//   sgemm_2048 /{xpurt_spirv,nvcc}                     bench/kernels/workloads.cl
//   module_load/{cold,cached}                          a SPIR-V module: PTX compile + driver
//                                                      JIT, or both from their caches
//
// The nvcc baselines are PTX that nvcc made from bench/cuda/baselines.cu, named by
// XPURT_BENCH_NVCC_PTX; the raw-driver runs use the driver xpurt uses (libcuda.so.1). Every
// benchmark skips, saying why, without a CUDA device.
#include <xpurt/xpurt.hpp>

#include <benchmark/benchmark.h>
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

// The driver calls the baselines make, opened as xpurt opens them.
struct Driver {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  template <class F>
  F *get(const char *name) const {
    return lib ? reinterpret_cast<F *>(dlsym(lib, name)) : nullptr;
  }
  decltype(&cuDeviceGet) deviceGet =
      get<std::remove_pointer_t<decltype(&cuDeviceGet)>>("cuDeviceGet");
  decltype(&cuDevicePrimaryCtxRetain) retain =
      get<std::remove_pointer_t<decltype(&cuDevicePrimaryCtxRetain)>>("cuDevicePrimaryCtxRetain");
  decltype(&cuCtxSetCurrent) setCurrent =
      get<std::remove_pointer_t<decltype(&cuCtxSetCurrent)>>("cuCtxSetCurrent");
  decltype(&cuModuleLoadData) load =
      get<std::remove_pointer_t<decltype(&cuModuleLoadData)>>("cuModuleLoadData");
  decltype(&cuModuleGetFunction) function =
      get<std::remove_pointer_t<decltype(&cuModuleGetFunction)>>("cuModuleGetFunction");
  decltype(&cuLaunchKernel) launch =
      get<std::remove_pointer_t<decltype(&cuLaunchKernel)>>("cuLaunchKernel");
  decltype(&cuStreamCreate) streamCreate =
      get<std::remove_pointer_t<decltype(&cuStreamCreate)>>("cuStreamCreate");
  decltype(&cuEventCreate) eventCreate =
      get<std::remove_pointer_t<decltype(&cuEventCreate)>>("cuEventCreate");
  decltype(&cuEventRecord) eventRecord =
      get<std::remove_pointer_t<decltype(&cuEventRecord)>>("cuEventRecord");
  decltype(&cuEventSynchronize) eventSync =
      get<std::remove_pointer_t<decltype(&cuEventSynchronize)>>("cuEventSynchronize");
  decltype(&cuEventQuery) eventQuery =
      get<std::remove_pointer_t<decltype(&cuEventQuery)>>("cuEventQuery");
  decltype(&cuStreamSynchronize) streamSync =
      get<std::remove_pointer_t<decltype(&cuStreamSynchronize)>>("cuStreamSynchronize");
  decltype(&cuGraphCreate) graphCreate =
      get<std::remove_pointer_t<decltype(&cuGraphCreate)>>("cuGraphCreate");
  decltype(&cuGraphAddKernelNode) graphAddKernelNode =
      get<std::remove_pointer_t<decltype(&cuGraphAddKernelNode)>>("cuGraphAddKernelNode_v2");
  decltype(&cuGraphInstantiate) graphInstantiate =
      get<std::remove_pointer_t<decltype(&cuGraphInstantiate)>>("cuGraphInstantiateWithFlags");
  decltype(&cuGraphLaunch) graphLaunch =
      get<std::remove_pointer_t<decltype(&cuGraphLaunch)>>("cuGraphLaunch");
};

std::optional<uint32_t> cudaIndex() {
  for (uint32_t i = 0, n = xpurt::Device::count(xpurt::DeviceType::GPU); i < n; ++i)
    if (std::string(xpurt::Device::info(xpurt::DeviceType::GPU, i).backend) == "cuda") return i;
  return std::nullopt;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A hand-written empty kernel, loaded by xpurt and by the driver alike: launch costs compared
// on the same code.
const char kEmptyPtx[] =
    ".version 7.5\n.target sm_50\n.address_size 64\n"
    ".visible .entry empty_task(.param .u64 params)\n{\n  ret;\n}\n";

struct Setup {
  std::optional<xpurt::Device> device;
  std::optional<xpurt::TaskQueue> queue;      // the default: in order, no profiling
  std::optional<xpurt::TaskQueue> profiling;  // its futures carry device times
  std::optional<xpurt::Module> tasks, workloads, vectorMath, ptx;
  std::optional<xpurt::Kernel> emptySpirv, emptyPtx;
  Driver driver;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUfunction rawEmpty = nullptr;
  CUmodule nvcc = nullptr;
  std::string why;  // why the benchmarks skip

  Setup() {
    auto index = cudaIndex();
    if (!index) {
      why = "no CUDA device";
      return;
    }
    device.emplace(xpurt::DeviceType::GPU, *index);
    queue.emplace(*device);
    xpurt::QueueOptions timed;
    timed.profiling = true;
    profiling.emplace(*device, timed);
    tasks.emplace(*device, "xpurt_test_tasks");
    emptySpirv.emplace(*tasks, "empty");
    workloads.emplace(*device, "xpurt_bench_workloads");
    vectorMath.emplace(*device, "xpurt_bench_vector_math");
    ptx.emplace(xpurt::Module::fromMemory(*device, kEmptyPtx, sizeof kEmptyPtx - 1));
    emptyPtx.emplace(*ptx, "empty_task");
    CUdevice d = 0;
    driver.deviceGet(&d, 0);
    driver.retain(&context, d);
    driver.setCurrent(context);
    driver.streamCreate(&stream, CU_STREAM_NON_BLOCKING);
    CUmodule raw = nullptr;
    if (driver.load(&raw, kEmptyPtx) == CUDA_SUCCESS) driver.function(&rawEmpty, raw, "empty_task");
    if (const char *path = std::getenv("XPURT_BENCH_NVCC_PTX")) {
      std::string text = readFile(path);
      if (text.empty() || driver.load(&nvcc, text.c_str()) != CUDA_SUCCESS) nvcc = nullptr;
    }
  }

  CUfunction nvccFunction(const char *name) const {
    CUfunction f = nullptr;
    if (nvcc && driver.function(&f, nvcc, name) != CUDA_SUCCESS) f = nullptr;
    return f;
  }
};

Setup &setup() {
  static Setup s;
  return s;
}

bool skip(benchmark::State &state) {
  if (!setup().why.empty()) {
    state.SkipWithError(setup().why.c_str());
    return true;
  }
  return false;
}

void BM_LaunchEnqueue_XpurtSpirv(benchmark::State &state, bool profiled) {
  if (skip(state)) return;
  Setup &s = setup();
  xpurt::TaskQueue &queue = profiled ? *s.profiling : *s.queue;
  int64_t n = 0;
  for (auto _ : state) {
    queue.launch(*s.emptySpirv, 1);
    if (++n % 4096 == 0) {
      state.PauseTiming();
      queue.sync();
      state.ResumeTiming();
    }
  }
  queue.sync();
}
BENCHMARK_CAPTURE(BM_LaunchEnqueue_XpurtSpirv, plain, false)->Name("launch_enqueue/xpurt_spirv");
BENCHMARK_CAPTURE(BM_LaunchEnqueue_XpurtSpirv, profiling, true)
    ->Name("launch_enqueue/xpurt_spirv_profiling");

void BM_LaunchEnqueue_XpurtPtx(benchmark::State &state) {
  if (skip(state)) return;
  Setup &s = setup();
  int64_t n = 0;
  for (auto _ : state) {
    s.queue->launch(*s.emptyPtx, 1);
    if (++n % 4096 == 0) {
      state.PauseTiming();
      s.queue->sync();
      state.ResumeTiming();
    }
  }
  s.queue->sync();
}
BENCHMARK(BM_LaunchEnqueue_XpurtPtx)->Name("launch_enqueue/xpurt_ptx");

void BM_LaunchEnqueue_RawDriver(benchmark::State &state) {
  if (skip(state)) return;
  Setup &s = setup();
  void *params = nullptr;
  void *args[] = {&params};
  int64_t n = 0;
  for (auto _ : state) {
    s.driver.launch(s.rawEmpty, 1, 1, 1, 1, 1, 1, 0, s.stream, args, nullptr);
    if (++n % 4096 == 0) {
      state.PauseTiming();
      s.driver.streamSync(s.stream);
      state.ResumeTiming();
    }
  }
  s.driver.streamSync(s.stream);
}
BENCHMARK(BM_LaunchEnqueue_RawDriver)->Name("launch_enqueue/raw_driver");

// The driver's share of xpurt's cost: a launch and an event record after it, as xpurt makes.
void BM_LaunchEnqueue_RawDriverAndEvent(benchmark::State &state) {
  if (skip(state)) return;
  Setup &s = setup();
  void *params = nullptr;
  void *args[] = {&params};
  std::vector<CUevent> events(4096);
  for (CUevent &e : events) s.driver.eventCreate(&e, CU_EVENT_DISABLE_TIMING);
  size_t n = 0;
  for (auto _ : state) {
    s.driver.launch(s.rawEmpty, 1, 1, 1, 1, 1, 1, 0, s.stream, args, nullptr);
    s.driver.eventRecord(events[n % events.size()], s.stream);
    if (++n % events.size() == 0) {
      state.PauseTiming();
      s.driver.streamSync(s.stream);
      state.ResumeTiming();
    }
  }
  s.driver.streamSync(s.stream);
}
BENCHMARK(BM_LaunchEnqueue_RawDriverAndEvent)->Name("launch_enqueue/raw_driver_with_event");

// The floor of a design that completes each launch's event on a thread of its own, as xpurt's
// queues do: the launch and event record above, while a second thread waits for each event in
// turn (cuEventSynchronize, or cuEventQuery polling).
void BM_LaunchEnqueue_RawDriverAndWaiter(benchmark::State &state, bool poll) {
  if (skip(state)) return;
  Setup &s = setup();
  void *params = nullptr;
  void *args[] = {&params};
  std::vector<CUevent> events(4096);
  for (CUevent &e : events) s.driver.eventCreate(&e, CU_EVENT_DISABLE_TIMING);
  std::atomic<size_t> recorded{0}, waited{0};
  std::atomic<bool> stop{false};
  std::thread waiter([&] {
    s.driver.setCurrent(s.context);
    size_t next = 0;
    while (!stop.load()) {
      if (next == recorded.load(std::memory_order_acquire)) {
        std::this_thread::yield();
        continue;
      }
      CUevent e = events[next % events.size()];
      if (poll) {
        while (s.driver.eventQuery(e) == CUDA_ERROR_NOT_READY) std::this_thread::yield();
      } else {
        s.driver.eventSync(e);
      }
      waited.store(++next, std::memory_order_release);
    }
  });
  size_t n = 0;
  for (auto _ : state) {
    s.driver.launch(s.rawEmpty, 1, 1, 1, 1, 1, 1, 0, s.stream, args, nullptr);
    s.driver.eventRecord(events[n % events.size()], s.stream);
    recorded.store(++n, std::memory_order_release);
    if (n % events.size() == 0) {
      state.PauseTiming();
      while (waited.load() != n) std::this_thread::yield();
      state.ResumeTiming();
    }
  }
  while (waited.load() != n) std::this_thread::yield();
  stop = true;
  waiter.join();
}
BENCHMARK_CAPTURE(BM_LaunchEnqueue_RawDriverAndWaiter, sync, false)
    ->Name("launch_enqueue/raw_driver_with_event_and_sync_thread");
BENCHMARK_CAPTURE(BM_LaunchEnqueue_RawDriverAndWaiter, poll, true)
    ->Name("launch_enqueue/raw_driver_with_event_and_query_thread");

void BM_LaunchLatency_XpurtSpirv(benchmark::State &state, bool profiled) {
  if (skip(state)) return;
  Setup &s = setup();
  xpurt::TaskQueue &queue = profiled ? *s.profiling : *s.queue;
  for (auto _ : state) queue.launch(*s.emptySpirv, 1).wait();
}
BENCHMARK_CAPTURE(BM_LaunchLatency_XpurtSpirv, plain, false)
    ->Name("launch_latency/xpurt_spirv")
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_LaunchLatency_XpurtSpirv, profiling, true)
    ->Name("launch_latency/xpurt_spirv_profiling")
    ->UseRealTime();

void BM_LaunchLatency_RawDriver(benchmark::State &state) {
  if (skip(state)) return;
  Setup &s = setup();
  void *params = nullptr;
  void *args[] = {&params};
  for (auto _ : state) {
    s.driver.launch(s.rawEmpty, 1, 1, 1, 1, 1, 1, 0, s.stream, args, nullptr);
    s.driver.streamSync(s.stream);
  }
}
BENCHMARK(BM_LaunchLatency_RawDriver)->Name("launch_latency/raw_driver")->UseRealTime();

// ---- the workloads of bench/kernels/workloads.cl, against nvcc's code ---------------------

// Each timed iteration queues kBatch launches and waits for the last: the kernels' own speed,
// not one launch's latency. Both sides run on the same device memory, one after the other.
constexpr int kBatch = 10;

struct Grid {
  unsigned blocks[3], threads[3];
  unsigned sharedBytes = 0;
};

// The nvcc side of one workload; false, with the benchmark skipped, where there is none.
bool runNvcc(benchmark::State &state, const char *name, const Grid &grid,
             std::vector<void *> args) {
  Setup &s = setup();
  CUfunction f = s.nvccFunction(name);
  if (!f) {
    state.SkipWithError(
        "no nvcc baseline: set XPURT_BENCH_NVCC_PTX to nvcc's PTX of bench/cuda/baselines.cu");
    return false;
  }
  auto batch = [&] {
    for (int i = 0; i < kBatch; ++i)
      s.driver.launch(f, grid.blocks[0], grid.blocks[1], grid.blocks[2], grid.threads[0],
                      grid.threads[1], grid.threads[2], grid.sharedBytes, s.stream, args.data(),
                      nullptr);
    s.driver.streamSync(s.stream);
  };
  batch();
  for (auto _ : state) batch();
  return true;
}

void runXpurt(benchmark::State &state, const char *name, const xpurt::Range &range,
              std::initializer_list<xpurt::Arg> args, xpurt::Module *module = nullptr) {
  Setup &s = setup();
  xpurt::Kernel kernel(module ? *module : *s.workloads, name);
  auto batch = [&] {
    for (int i = 0; i < kBatch - 1; ++i) s.queue->launch(kernel, range, args);
    s.queue->launch(kernel, range, args).wait();
  };
  batch();
  for (auto _ : state) batch();
}

CUdeviceptr raw(const xpurt::MemoryView &view) {
  return reinterpret_cast<CUdeviceptr>(view.devicePtr());
}

constexpr int kSaxpyN = 64 << 20;

void BM_Saxpy(benchmark::State &state, bool nvcc) {
  if (skip(state)) return;
  Setup &s = setup();
  xpurt::Array<float> x(*s.device, kSaxpyN), y(*s.device, kSaxpyN);
  s.queue->fill(x, 1.0f);
  s.queue->fill(y, 0.0f);
  s.queue->sync();
  float a = 0.5f;
  int n = kSaxpyN;
  CUdeviceptr yp = raw(y), xp = raw(x);
  if (nvcc) {
    if (!runNvcc(state, "saxpy", {{kSaxpyN / 256, 1, 1}, {256, 1, 1}}, {&yp, &xp, &a, &n})) return;
  } else {
    runXpurt(state, "saxpy", xpurt::Range(kSaxpyN).local(256), {y, x, a, n});
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kBatch * kSaxpyN * 3 *
                          int64_t(sizeof(float)));
  s.queue->copyToHost(y, 0, 2 * sizeof(float));
  s.queue->sync();
  float want = 0.5f * float((state.iterations() + 1) * kBatch);
  if (y.hostPtr()[1] != want) state.SkipWithError("wrong saxpy result");
}
BENCHMARK_CAPTURE(BM_Saxpy, xpurt_spirv, false)->Name("saxpy/xpurt_spirv")->UseRealTime();
BENCHMARK_CAPTURE(BM_Saxpy, nvcc, true)->Name("saxpy/nvcc")->UseRealTime();

constexpr int kVectorMathN = 16 << 20;  // float4 elements

void BM_VectorMath(benchmark::State &state, bool nvcc) {
  if (skip(state)) return;
  Setup &s = setup();
  xpurt::Array<float> x(*s.device, kVectorMathN * 4), y(*s.device, kVectorMathN * 4);
  for (int i = 0; i < kVectorMathN * 4; ++i) x.hostPtr()[i] = float(i % 1000) * 0.01f - 5.0f;
  s.queue->copyToDevice(x);
  s.queue->sync();
  int n = kVectorMathN;
  CUdeviceptr yp = raw(y), xp = raw(x);
  if (nvcc) {
    if (!runNvcc(state, "vector_math", {{kVectorMathN / 256, 1, 1}, {256, 1, 1}}, {&yp, &xp, &n}))
      return;
  } else {
    runXpurt(state, "vector_math", xpurt::Range(kVectorMathN).local(256), {y, x, n},
             &*s.vectorMath);
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * kBatch * kVectorMathN * 4);
  s.queue->copyToHost(y, 0, 8 * sizeof(float));
  s.queue->sync();
  for (int i = 0; i < 8; ++i) {
    double v = x.hostPtr()[i];
    double want = std::sin(v) * std::cos(0.5 * v) + std::pow(std::fabs(v) + 1.0, 1.5);
    if (std::fabs(y.hostPtr()[i] - want) > 1e-4 * std::max(1.0, std::fabs(want)))
      state.SkipWithError("wrong vector_math result");
  }
}
BENCHMARK_CAPTURE(BM_VectorMath, xpurt_spirv, false)
    ->Name("vector_math_16M/xpurt_spirv")
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_VectorMath, nvcc, true)->Name("vector_math_16M/nvcc")->UseRealTime();

constexpr int kWidth = 4096, kHeight = 4096, kIterations = 256;

void BM_Mandelbrot(benchmark::State &state, bool nvcc) {
  if (skip(state)) return;
  Setup &s = setup();
  xpurt::Array<int> out(*s.device, kWidth * kHeight);
  float x0 = -2.0f, y0 = -1.5f, dx = 3.0f / kWidth, dy = 3.0f / kHeight;
  int width = kWidth, iterations = kIterations;
  CUdeviceptr op = raw(out);
  if (nvcc) {
    if (!runNvcc(state, "mandelbrot", {{kWidth / 16, kHeight / 4, 1}, {16, 4, 1}},
                 {&op, &x0, &y0, &dx, &dy, &width, &iterations}))
      return;
  } else {
    runXpurt(state, "mandelbrot", xpurt::Range(kWidth, kHeight).local(16, 4),
             {out, x0, y0, dx, dy, width, iterations});
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * kBatch * kWidth * kHeight);
  s.queue->copyToHost(out);
  s.queue->sync();
  int centre = out.hostPtr()[(kHeight / 2) * kWidth + kWidth / 2], corner = out.hostPtr()[0];
  // The centre of the main cardioid never escapes; a far corner escapes at once.
  if (centre != kIterations || corner > 2) state.SkipWithError("wrong mandelbrot result");
}
BENCHMARK_CAPTURE(BM_Mandelbrot, xpurt_spirv, false)
    ->Name("mandelbrot_4096/xpurt_spirv")
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Mandelbrot, nvcc, true)->Name("mandelbrot_4096/nvcc")->UseRealTime();

constexpr int kReduceN = 64 << 20, kGroup = 256;

void BM_Reduce(benchmark::State &state, bool nvcc) {
  if (skip(state)) return;
  Setup &s = setup();
  xpurt::Array<float> in(*s.device, kReduceN), partial(*s.device, kReduceN / kGroup);
  s.queue->fill(in, 0.5f);
  s.queue->sync();
  CUdeviceptr ip = raw(in), pp = raw(partial);
  if (nvcc) {
    if (!runNvcc(state, "reduce", {{kReduceN / kGroup, 1, 1}, {kGroup, 1, 1}, kGroup * 4},
                 {&ip, &pp}))
      return;
  } else {
    runXpurt(state, "reduce", xpurt::Range(kReduceN).local(kGroup),
             {in, partial, xpurt::Arg::local(kGroup * sizeof(float))});
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kBatch * kReduceN * int64_t(sizeof(float)));
  s.queue->copyToHost(partial, 7 * sizeof(float), sizeof(float));
  s.queue->sync();
  if (partial.hostPtr()[7] != 0.5f * kGroup) state.SkipWithError("wrong reduction result");
}
BENCHMARK_CAPTURE(BM_Reduce, xpurt_spirv, false)->Name("reduce_64M/xpurt_spirv")->UseRealTime();
BENCHMARK_CAPTURE(BM_Reduce, nvcc, true)->Name("reduce_64M/nvcc")->UseRealTime();

constexpr int kRows = 8192, kCols = 8192;

void BM_Transpose(benchmark::State &state, bool nvcc) {
  if (skip(state)) return;
  Setup &s = setup();
  std::vector<float> values(size_t(kRows) * kCols);
  for (size_t i = 0; i < values.size(); ++i) values[i] = float(i % 1000003);
  xpurt::Array<float> in(*s.device, values.data(), values.size()), out(*s.device, values.size());
  s.queue->copyToDevice(in);
  s.queue->sync();
  int rows = kRows, cols = kCols;
  CUdeviceptr ip = raw(in), op = raw(out);
  if (nvcc) {
    if (!runNvcc(state, "transpose", {{kCols / 16, kRows / 16, 1}, {16, 16, 1}},
                 {&op, &ip, &rows, &cols}))
      return;
  } else {
    runXpurt(state, "transpose", xpurt::Range(kCols, kRows).local(16, 16), {out, in, rows, cols});
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kBatch * 2 * int64_t(values.size()) *
                          int64_t(sizeof(float)));
  size_t at = 17 * size_t(kRows) + 1000;
  s.queue->copyToHost(out, at * sizeof(float), sizeof(float));
  s.queue->sync();
  if (out.hostPtr()[at] != values[1000 * size_t(kCols) + 17])
    state.SkipWithError("wrong transpose result");
}
BENCHMARK_CAPTURE(BM_Transpose, xpurt_spirv, false)
    ->Name("transpose_8192/xpurt_spirv")
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Transpose, nvcc, true)->Name("transpose_8192/nvcc")->UseRealTime();

constexpr int kN = 2048;

void BM_Sgemm(benchmark::State &state, bool nvcc) {
  if (skip(state)) return;
  Setup &s = setup();
  std::vector<float> av(size_t(kN) * kN), bv(av.size());
  for (size_t i = 0; i < av.size(); ++i) {
    av[i] = float(int(i % 7) - 3);
    bv[i] = float(int(i % 5) - 2);
  }
  xpurt::Array<float> a(*s.device, av.data(), av.size()), b(*s.device, bv.data(), bv.size()),
      c(*s.device, av.size());
  s.queue->copyToDevice(a);
  s.queue->copyToDevice(b);
  s.queue->sync();
  int n = kN;
  CUdeviceptr ap = raw(a), bp = raw(b), cp = raw(c);
  if (nvcc) {
    if (!runNvcc(state, "sgemm", {{kN / 16, kN / 16, 1}, {16, 16, 1}}, {&ap, &bp, &cp, &n})) return;
  } else {
    runXpurt(state, "sgemm", xpurt::Range(kN, kN).local(16, 16), {a, b, c, n});
  }
  state.counters["GFLOPS"] = benchmark::Counter(
      2.0 * kN * kN * kN * kBatch * double(state.iterations()) * 1e-9, benchmark::Counter::kIsRate);
  size_t at = 3 * size_t(kN) + 5;
  s.queue->copyToHost(c, at * sizeof(float), sizeof(float));
  s.queue->sync();
  float got = c.hostPtr()[at];
  double want = 0;  // small integers: exact in any order
  for (int k = 0; k < kN; ++k) want += double(av[3 * size_t(kN) + k]) * bv[size_t(k) * kN + 5];
  if (got != float(want)) state.SkipWithError("wrong sgemm result");
}
BENCHMARK_CAPTURE(BM_Sgemm, xpurt_spirv, false)->Name("sgemm_2048/xpurt_spirv")->UseRealTime();
BENCHMARK_CAPTURE(BM_Sgemm, nvcc, true)->Name("sgemm_2048/nvcc")->UseRealTime();

void BM_ModuleLoad(benchmark::State &state, bool cached) {
  if (skip(state)) return;
  Setup &s = setup();
  std::string cache = (std::filesystem::temp_directory_path() / "xpurt-bench-cuda-cache").string();
  for (auto _ : state) {
    state.PauseTiming();
    if (!cached) std::filesystem::remove_all(cache);
    setenv("XPURT_CACHE_DIR", cache.c_str(), 1);
    state.ResumeTiming();
    xpurt::Module m(*s.device, "xpurt_bench_workloads");
    benchmark::DoNotOptimize(m.handle());
  }
}
BENCHMARK_CAPTURE(BM_ModuleLoad, cold, false)
    ->Name("module_load/cold")
    ->UseRealTime()
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_ModuleLoad, cached, true)->Name("module_load/cached")->UseRealTime();

}  // namespace

// ---- graphs: a chain of empty kernels, replayed, against a CUDA graph built directly ---------

namespace {

// Seconds per node, which the console shows in ns.
void perNode(benchmark::State &state, int64_t nodes) {
  state.counters["per_node"] =
      benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}

void BM_GraphChain_Xpurt(benchmark::State &state, bool profiled) {
  if (skip(state)) return;
  Setup &s = setup();
  xpurt::TaskQueue &queue = profiled ? *s.profiling : *s.queue;
  xpurt::Array<uint64_t> params(*s.device, 1);
  xpurt::Graph graph;
  xpurt::Deps last;
  for (int64_t i = 0; i < state.range(0); ++i)
    last = {graph.launch(*s.emptyPtx, params, 1, 1, 1, last)};
  xpurt::GraphExec exec = graph.instantiate(*s.device);
  for (auto _ : state) queue.launch(exec).wait();
  perNode(state, state.range(0));
}
BENCHMARK_CAPTURE(BM_GraphChain_Xpurt, plain, false)
    ->Name("graph_chain/xpurt")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_GraphChain_Xpurt, profiling, true)
    ->Name("graph_chain/xpurt_profiling")
    ->Arg(10)
    ->UseRealTime();

void BM_GraphChain_RawCudaGraph(benchmark::State &state) {
  if (skip(state)) return;
  Setup &s = setup();
  const Driver &d = s.driver;
  if (!d.graphCreate || !d.graphAddKernelNode || !d.graphInstantiate || !d.graphLaunch) {
    state.SkipWithError("the driver has no graph API");
    return;
  }
  void *params = nullptr;
  void *args[] = {&params};
  CUgraph graph = nullptr;
  d.graphCreate(&graph, 0);
  CUgraphNode last = nullptr;
  for (int64_t i = 0; i < state.range(0); ++i) {
    CUDA_KERNEL_NODE_PARAMS p{};
    p.func = s.rawEmpty;
    p.gridDimX = p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = p.blockDimY = p.blockDimZ = 1;
    p.kernelParams = args;
    CUgraphNode node = nullptr;
    d.graphAddKernelNode(&node, graph, last ? &last : nullptr, last ? 1 : 0, &p);
    last = node;
  }
  CUgraphExec exec = nullptr;
  if (d.graphInstantiate(&exec, graph, 0) != CUDA_SUCCESS) {
    state.SkipWithError("cuGraphInstantiate failed");
    return;
  }
  for (auto _ : state) {
    d.graphLaunch(exec, s.stream);
    d.streamSync(s.stream);
  }
  perNode(state, state.range(0));
}
BENCHMARK(BM_GraphChain_RawCudaGraph)
    ->Name("graph_chain/raw_cuda_graph")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
