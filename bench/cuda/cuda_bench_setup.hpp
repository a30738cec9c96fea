// What the CUDA benchmarks share (docs/PERFORMANCE.md): the driver as the baselines call it,
// opened as xpurt opens it, and one setup of the CUDA device for every benchmark of the program.
// The benchmarks skip, saying why, without a CUDA device.
#pragma once

#include <xpurt/xpurt.hpp>

#include <benchmark/benchmark.h>
#include <cuda.h>
#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <type_traits>

namespace xpurt_bench_cuda {

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

inline std::optional<uint32_t> cudaIndex() {
  for (uint32_t i = 0, n = xpurt::Device::count(xpurt::DeviceType::GPU); i < n; ++i)
    if (std::string(xpurt::Device::info(xpurt::DeviceType::GPU, i).backend) == "cuda") return i;
  return std::nullopt;
}

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A hand-written empty kernel, loaded by xpurt and by the driver alike: launch costs compared
// on the same code.
inline constexpr char kEmptyPtx[] =
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

inline Setup &setup() {
  static Setup s;
  return s;
}

inline bool skip(benchmark::State &state) {
  if (!setup().why.empty()) {
    state.SkipWithError(setup().why.c_str());
    return true;
  }
  return false;
}

}  // namespace xpurt_bench_cuda
