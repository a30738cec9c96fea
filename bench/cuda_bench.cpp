// The CUDA device against the CUDA driver used directly, in one run (docs/PERFORMANCE.md):
//
//   launch_enqueue/{xpurt_spirv,xpurt_ptx,raw_driver}  host cost of one empty launch, queued
//   launch_latency/{xpurt_spirv,raw_driver}            one empty launch and the wait for it
//   saxpy/{xpurt_spirv,nvcc}                           y = a*x + y over 64M floats (bytes/s)
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

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
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
  decltype(&cuStreamSynchronize) streamSync =
      get<std::remove_pointer_t<decltype(&cuStreamSynchronize)>>("cuStreamSynchronize");
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
  std::optional<xpurt::TaskQueue> queue;
  std::optional<xpurt::Module> tasks, workloads, ptx;
  std::optional<xpurt::Kernel> emptySpirv, emptyPtx, saxpy;
  Driver driver;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUfunction rawEmpty = nullptr, nvccSaxpy = nullptr;
  std::string why;  // why the benchmarks skip

  Setup() {
    auto index = cudaIndex();
    if (!index) {
      why = "no CUDA device";
      return;
    }
    device.emplace(xpurt::DeviceType::GPU, *index);
    queue.emplace(*device);
    tasks.emplace(*device, "xpurt_test_tasks");
    emptySpirv.emplace(*tasks, "empty");
    workloads.emplace(*device, "xpurt_bench_workloads");
    saxpy.emplace(*workloads, "saxpy");
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
      CUmodule nvcc = nullptr;
      if (!text.empty() && driver.load(&nvcc, text.c_str()) == CUDA_SUCCESS)
        driver.function(&nvccSaxpy, nvcc, "saxpy");
    }
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

void BM_LaunchEnqueue_XpurtSpirv(benchmark::State &state) {
  if (skip(state)) return;
  Setup &s = setup();
  int64_t n = 0;
  for (auto _ : state) {
    s.queue->launch(*s.emptySpirv, 1);
    if (++n % 4096 == 0) {
      state.PauseTiming();
      s.queue->sync();
      state.ResumeTiming();
    }
  }
  s.queue->sync();
}
BENCHMARK(BM_LaunchEnqueue_XpurtSpirv)->Name("launch_enqueue/xpurt_spirv");

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

void BM_LaunchLatency_XpurtSpirv(benchmark::State &state) {
  if (skip(state)) return;
  Setup &s = setup();
  for (auto _ : state) s.queue->launch(*s.emptySpirv, 1).wait();
}
BENCHMARK(BM_LaunchLatency_XpurtSpirv)->Name("launch_latency/xpurt_spirv")->UseRealTime();

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

constexpr int kSaxpyN = 64 << 20;

void BM_Saxpy(benchmark::State &state, bool nvcc) {
  if (skip(state)) return;
  Setup &s = setup();
  if (nvcc && !s.nvccSaxpy) {
    state.SkipWithError(
        "no nvcc baseline: set XPURT_BENCH_NVCC_PTX to nvcc's PTX of "
        "bench/cuda/baselines.cu");
    return;
  }
  xpurt::Array<float> x(*s.device, kSaxpyN), y(*s.device, kSaxpyN);
  s.queue->fill(x, 1.0f);
  s.queue->fill(y, 2.0f);
  s.queue->sync();
  float a = 0.5f;
  int n = kSaxpyN;
  CUdeviceptr yp = reinterpret_cast<CUdeviceptr>(y.devicePtr());
  CUdeviceptr xp = reinterpret_cast<CUdeviceptr>(x.devicePtr());
  void *args[] = {&yp, &xp, &a, &n};
  for (auto _ : state) {
    if (nvcc) {
      s.driver.launch(s.nvccSaxpy, kSaxpyN / 256, 1, 1, 256, 1, 1, 0, s.stream, args, nullptr);
      s.driver.streamSync(s.stream);
    } else {
      s.queue->launch(*s.saxpy, xpurt::Range(kSaxpyN).local(256), {y, x, a, n}).wait();
    }
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kSaxpyN * 3 * int64_t(sizeof(float)));
}
BENCHMARK_CAPTURE(BM_Saxpy, xpurt_spirv, false)->Name("saxpy/xpurt_spirv")->UseRealTime();
BENCHMARK_CAPTURE(BM_Saxpy, nvcc, true)->Name("saxpy/nvcc")->UseRealTime();

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

BENCHMARK_MAIN();
