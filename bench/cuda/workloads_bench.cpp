// The SPIR-V workloads on the CUDA device against nvcc's code, in one run (docs/PERFORMANCE.md):
//
//   saxpy/{xpurt_spirv,nvcc}                           y = a*x + y over 64M floats (bytes/s)
//   mandelbrot_4096, reduce_64M, transpose_8192,       the other workloads of
//   sgemm_2048 /{xpurt_spirv,nvcc}                     bench/kernels/workloads.cl
//   module_load/{cold,cached}                          a SPIR-V module: PTX compile + driver
//                                                      JIT, or both from their caches
//
// The nvcc baselines are PTX that nvcc made from bench/cuda/baselines.cu, named by
// XPURT_BENCH_NVCC_PTX.
#include "cuda_bench_setup.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

namespace xpurt_bench_cuda {
namespace {

// ---- the workloads of bench/kernels/workloads.cl, against nvcc's code ---------------------

// Each timed iteration queues kLaunchesPerIteration launches and waits for the last: the kernels'
// own speed, not one launch's latency. Both sides run on the same device memory, one after the
// other.
constexpr int kLaunchesPerIteration = 10;

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
    for (int i = 0; i < kLaunchesPerIteration; ++i)
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
    for (int i = 0; i < kLaunchesPerIteration - 1; ++i) s.queue->launch(kernel, range, args);
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
  state.SetBytesProcessed(int64_t(state.iterations()) * kLaunchesPerIteration * kSaxpyN * 3 *
                          int64_t(sizeof(float)));
  s.queue->copyToHost(y, 0, 2 * sizeof(float));
  s.queue->sync();
  float want = 0.5f * float((state.iterations() + 1) * kLaunchesPerIteration);
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
  state.SetItemsProcessed(int64_t(state.iterations()) * kLaunchesPerIteration * kVectorMathN * 4);
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
  state.SetItemsProcessed(int64_t(state.iterations()) * kLaunchesPerIteration * kWidth * kHeight);
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
  state.SetBytesProcessed(int64_t(state.iterations()) * kLaunchesPerIteration * kReduceN *
                          int64_t(sizeof(float)));
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
  state.SetBytesProcessed(int64_t(state.iterations()) * kLaunchesPerIteration * 2 *
                          int64_t(values.size()) * int64_t(sizeof(float)));
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
      2.0 * kN * kN * kN * kLaunchesPerIteration * double(state.iterations()) * 1e-9,
      benchmark::Counter::kIsRate);
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
}  // namespace xpurt_bench_cuda
