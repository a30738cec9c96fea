// CPU workloads, each three ways in one run: <workload>/xpurt_cpu (the OpenCL C source built
// to SPIR-V, run by xpurt's JIT), <workload>/native_tbb (the same algorithm in C++, -O3
// -march=native, tbb::parallel_for) and <workload>/pocl (the same OpenCL C source through PoCL).
// Also the time to get a small module ready to run: jit_small_module/*.
#include <xpurt/xpurt.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include "native_workloads.hpp"
#include "pocl_runner.hpp"

namespace xpurt::bench {
namespace {

namespace fs = std::filesystem;

fs::path programFolder() {
  return fs::read_symlink("/proc/self/exe").parent_path();
}

std::string readText(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <class T>
struct Buffer {
  explicit Buffer(size_t n)
      : size(n),
        data(static_cast<T *>(std::aligned_alloc(4096, (n * sizeof(T) + 4095) / 4096 * 4096))) {}
  ~Buffer() { std::free(data); }
  size_t size;
  T *data;
  size_t bytes() const { return size * sizeof(T); }
};

void fillRandom(Buffer<float> &b, float lo, float hi) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> d(lo, hi);
  for (size_t i = 0; i < b.size; ++i) b.data[i] = d(rng);
}

struct Xpurt {
  Device device{DeviceType::CPU};
  Module module{device, "xpurt_bench_workloads"};
  TaskQueue queue{device};
};

Xpurt &xpurt() {
  static Xpurt x;
  return x;
}

Pocl &pocl() {
  static Pocl p = [] {
    Pocl q;
    if (q.available()) q.build(readText(programFolder() / "xpurt_bench_workloads.cl"));
    return q;
  }();
  return p;
}

bool skipWithoutPocl(benchmark::State &state) {
  if (pocl().available()) return false;
  state.SkipWithError(pocl().why().c_str());
  return true;
}

// The three ways of one workload share its data and its check.
enum class Impl { Xpurt, Native, Pocl };

// ---- saxpy ------------------------------------------------------------------------------

constexpr int kSaxpyN = 64 << 20;

void BM_Saxpy(benchmark::State &state, Impl impl) {
  if (impl == Impl::Pocl && skipWithoutPocl(state)) return;
  Buffer<float> x(kSaxpyN), y(kSaxpyN);
  fillRandom(x, -1, 1);
  std::fill_n(y.data, kSaxpyN, 1.0f);
  float a = 2.0f;
  std::function<void()> run;
  std::unique_ptr<Array<float>> xv, yv;
  cl_mem xb = nullptr, yb = nullptr;
  if (impl == Impl::Xpurt) {
    xv = std::make_unique<Array<float>>(xpurt().device, x.data, x.size);
    yv = std::make_unique<Array<float>>(xpurt().device, y.data, y.size);
    Kernel k(xpurt().module, "saxpy");
    run = [&, k] {
      xpurt().queue.launch(k, Range(kSaxpyN).local(256), {*yv, *xv, a, kSaxpyN}).wait();
    };
  } else if (impl == Impl::Native) {
    run = [&] { nativeSaxpy(y.data, x.data, a, kSaxpyN); };
  } else {
    xb = pocl().wrap(x.data, x.bytes()), yb = pocl().wrap(y.data, y.bytes());
    cl_kernel k = pocl().kernel("saxpy");
    pocl().arg(k, 0, yb), pocl().arg(k, 1, xb), pocl().arg(k, 2, a), pocl().arg(k, 3, kSaxpyN);
    run = [=] {
      size_t global = kSaxpyN, local = 256;
      pocl().run(k, 1, &global, &local);
    };
  }
  run();
  if (std::fabs(y.data[12345] - (1.0f + 2.0f * x.data[12345])) > 1e-5f)
    state.SkipWithError("wrong saxpy result");
  for (auto _ : state) run();
  state.SetBytesProcessed(state.iterations() * 3 * x.bytes());
  if (xb) pocl().release(xb), pocl().release(yb);
}

// ---- math-heavy element-wise ------------------------------------------------------------

constexpr int kMathN = 16 << 20;

void BM_MathHeavy(benchmark::State &state, Impl impl) {
  if (impl == Impl::Pocl && skipWithoutPocl(state)) return;
  Buffer<float> x(kMathN), y(kMathN);
  fillRandom(x, -8, 8);
  std::function<void()> run;
  std::unique_ptr<Array<float>> xv, yv;
  cl_mem xb = nullptr, yb = nullptr;
  if (impl == Impl::Xpurt) {
    xv = std::make_unique<Array<float>>(xpurt().device, x.data, x.size);
    yv = std::make_unique<Array<float>>(xpurt().device, y.data, y.size);
    Kernel k(xpurt().module, "math_heavy");
    run = [&, k] { xpurt().queue.launch(k, Range(kMathN).local(256), {*yv, *xv, kMathN}).wait(); };
  } else if (impl == Impl::Native) {
    run = [&] { nativeMathHeavy(y.data, x.data, kMathN); };
  } else {
    xb = pocl().wrap(x.data, x.bytes()), yb = pocl().wrap(y.data, y.bytes());
    cl_kernel k = pocl().kernel("math_heavy");
    pocl().arg(k, 0, yb), pocl().arg(k, 1, xb), pocl().arg(k, 2, kMathN);
    run = [=] {
      size_t global = kMathN, local = 256;
      pocl().run(k, 1, &global, &local);
    };
  }
  run();
  double v = x.data[777];
  double want = std::sin(v) * std::exp(-0.5 * v * v) +
                std::sqrt(std::fabs(v)) * std::cos(0.25 * v) + std::log(1.0 + v * v);
  if (std::fabs(y.data[777] - want) > 1e-4 * (1 + std::fabs(want)))
    state.SkipWithError("wrong math_heavy result");
  for (auto _ : state) run();
  state.SetItemsProcessed(state.iterations() * kMathN);
  if (xb) pocl().release(xb), pocl().release(yb);
}

// ---- mandelbrot -------------------------------------------------------------------------

constexpr int kWidth = 1536, kHeight = 1024, kIterations = 256;
constexpr float kX0 = -2.0f, kY0 = -1.0f, kDx = 3.0f / kWidth, kDy = 2.0f / kHeight;

void BM_Mandelbrot(benchmark::State &state, Impl impl) {
  if (impl == Impl::Pocl && skipWithoutPocl(state)) return;
  Buffer<int> out(kWidth * kHeight);
  std::function<void()> run;
  std::unique_ptr<Array<int>> ov;
  cl_mem ob = nullptr;
  if (impl == Impl::Xpurt) {
    ov = std::make_unique<Array<int>>(xpurt().device, out.data, out.size);
    Kernel k(xpurt().module, "mandelbrot");
    run = [&, k] {
      xpurt()
          .queue
          .launch(k, Range(kWidth, kHeight).local(16, 4),
                  {*ov, kX0, kY0, kDx, kDy, kWidth, kIterations})
          .wait();
    };
  } else if (impl == Impl::Native) {
    run = [&] { nativeMandelbrot(out.data, kX0, kY0, kDx, kDy, kWidth, kHeight, kIterations); };
  } else {
    ob = pocl().wrap(out.data, out.bytes());
    cl_kernel k = pocl().kernel("mandelbrot");
    pocl().arg(k, 0, ob), pocl().arg(k, 1, kX0), pocl().arg(k, 2, kY0), pocl().arg(k, 3, kDx);
    pocl().arg(k, 4, kDy), pocl().arg(k, 5, kWidth), pocl().arg(k, 6, kIterations);
    run = [=] {
      size_t global[2] = {kWidth, kHeight}, local[2] = {16, 4};
      pocl().run(k, 2, global, local);
    };
  }
  run();
  // The centre of the main cardioid never escapes; a far corner escapes at once.
  if (out.data[(kHeight / 2) * kWidth + kWidth / 2] != kIterations || out.data[0] > 2)
    state.SkipWithError("wrong mandelbrot result");
  for (auto _ : state) run();
  state.SetItemsProcessed(state.iterations() * kWidth * kHeight);
  if (ob) pocl().release(ob);
}

// ---- work-group reduction with barriers -------------------------------------------------

constexpr int kReduceN = 16 << 20, kGroup = 256;

void BM_Reduce(benchmark::State &state, Impl impl) {
  if (impl == Impl::Pocl && skipWithoutPocl(state)) return;
  Buffer<float> in(kReduceN), partial(kReduceN / kGroup);
  fillRandom(in, 0, 1);
  std::function<void()> run;
  std::unique_ptr<Array<float>> iv, pv;
  cl_mem ib = nullptr, pb = nullptr;
  if (impl == Impl::Xpurt) {
    iv = std::make_unique<Array<float>>(xpurt().device, in.data, in.size);
    pv = std::make_unique<Array<float>>(xpurt().device, partial.data, partial.size);
    Kernel k(xpurt().module, "reduce");
    run = [&, k] {
      xpurt()
          .queue
          .launch(k, Range(kReduceN).local(kGroup), {*iv, *pv, Arg::local(kGroup * sizeof(float))})
          .wait();
    };
  } else if (impl == Impl::Native) {
    run = [&] { nativeReduce(in.data, partial.data, kReduceN, kGroup); };
  } else {
    ib = pocl().wrap(in.data, in.bytes()), pb = pocl().wrap(partial.data, partial.bytes());
    cl_kernel k = pocl().kernel("reduce");
    pocl().arg(k, 0, ib), pocl().arg(k, 1, pb), pocl().localArg(k, 2, kGroup * sizeof(float));
    run = [=] {
      size_t global = kReduceN, local = kGroup;
      pocl().run(k, 1, &global, &local);
    };
  }
  run();
  double want = 0;
  for (int i = 0; i < kGroup; ++i) want += in.data[5 * kGroup + i];
  if (std::fabs(partial.data[5] - want) > 1e-3) state.SkipWithError("wrong reduction result");
  for (auto _ : state) run();
  state.SetBytesProcessed(state.iterations() * in.bytes());
  if (ib) pocl().release(ib), pocl().release(pb);
}

// ---- transpose through local memory -----------------------------------------------------

constexpr int kRows = 4096, kCols = 4096;

void BM_Transpose(benchmark::State &state, Impl impl) {
  if (impl == Impl::Pocl && skipWithoutPocl(state)) return;
  Buffer<float> in(kRows * kCols), out(kRows * kCols);
  fillRandom(in, 0, 1);
  std::function<void()> run;
  std::unique_ptr<Array<float>> iv, ov;
  cl_mem ib = nullptr, ob = nullptr;
  if (impl == Impl::Xpurt) {
    iv = std::make_unique<Array<float>>(xpurt().device, in.data, in.size);
    ov = std::make_unique<Array<float>>(xpurt().device, out.data, out.size);
    Kernel k(xpurt().module, "transpose");
    run = [&, k] {
      xpurt().queue.launch(k, Range(kCols, kRows).local(16, 16), {*ov, *iv, kRows, kCols}).wait();
    };
  } else if (impl == Impl::Native) {
    run = [&] { nativeTranspose(out.data, in.data, kRows, kCols); };
  } else {
    ib = pocl().wrap(in.data, in.bytes()), ob = pocl().wrap(out.data, out.bytes());
    cl_kernel k = pocl().kernel("transpose");
    pocl().arg(k, 0, ob), pocl().arg(k, 1, ib), pocl().arg(k, 2, kRows), pocl().arg(k, 3, kCols);
    run = [=] {
      size_t global[2] = {kCols, kRows}, local[2] = {16, 16};
      pocl().run(k, 2, global, local);
    };
  }
  run();
  if (out.data[17 * kRows + 1000] != in.data[1000 * kCols + 17])
    state.SkipWithError("wrong transpose result");
  for (auto _ : state) run();
  state.SetBytesProcessed(state.iterations() * 2 * in.bytes());
  if (ib) pocl().release(ib), pocl().release(ob);
}

// ---- sgemm ------------------------------------------------------------------------------

constexpr int kN = 1024;

void BM_Sgemm(benchmark::State &state, Impl impl) {
  if (impl == Impl::Pocl && skipWithoutPocl(state)) return;
  Buffer<float> a(kN * kN), b(kN * kN), c(kN * kN);
  fillRandom(a, -1, 1);
  fillRandom(b, -1, 1);
  std::function<void()> run;
  std::unique_ptr<Array<float>> av, bv, cv;
  cl_mem ab = nullptr, bb = nullptr, cb = nullptr;
  if (impl == Impl::Xpurt) {
    av = std::make_unique<Array<float>>(xpurt().device, a.data, a.size);
    bv = std::make_unique<Array<float>>(xpurt().device, b.data, b.size);
    cv = std::make_unique<Array<float>>(xpurt().device, c.data, c.size);
    Kernel k(xpurt().module, "sgemm");
    run = [&, k] {
      xpurt().queue.launch(k, Range(kN, kN).local(16, 16), {*av, *bv, *cv, kN}).wait();
    };
  } else if (impl == Impl::Native) {
    run = [&] { nativeSgemm(a.data, b.data, c.data, kN); };
  } else {
    ab = pocl().wrap(a.data, a.bytes()), bb = pocl().wrap(b.data, b.bytes());
    cb = pocl().wrap(c.data, c.bytes());
    cl_kernel k = pocl().kernel("sgemm");
    pocl().arg(k, 0, ab), pocl().arg(k, 1, bb), pocl().arg(k, 2, cb), pocl().arg(k, 3, kN);
    run = [=] {
      size_t global[2] = {kN, kN}, local[2] = {16, 16};
      pocl().run(k, 2, global, local);
    };
  }
  run();
  double want = 0;
  for (int k = 0; k < kN; ++k) want += double(a.data[3 * kN + k]) * b.data[k * kN + 5];
  if (std::fabs(c.data[3 * kN + 5] - want) > 1e-3) state.SkipWithError("wrong sgemm result");
  for (auto _ : state) run();
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * kN * kN * kN * state.iterations() * 1e-9,
                                                benchmark::Counter::kIsRate);
  if (ab) pocl().release(ab), pocl().release(bb), pocl().release(cb);
}

// ---- JIT of a small module --------------------------------------------------------------

// inProcess: XPURT_JIT_ISOLATION=off, the JIT in this process instead of a JIT worker.
void BM_JitSmall(benchmark::State &state, Impl impl, bool diskCache, bool inProcess = false) {
  std::string spirv = readText(programFolder() / "xpurt_bench_small.spv");
  std::string source = readText(programFolder() / "xpurt_bench_small.cl");
  if (impl == Impl::Pocl) {
    if (skipWithoutPocl(state)) return;
    Pocl own;  // its own program: the shared one stays built
    for (auto _ : state) own.build(source);
    return;
  }
  fs::path dir = fs::temp_directory_path() / ("xpurt_bench_cache_" + std::to_string(getpid()));
  setenv("XPURT_CACHE_DIR", diskCache ? dir.c_str() : "off", 1);
  setenv("XPURT_JIT_ISOLATION", inProcess ? "off" : "on", 1);
  Device device(DeviceType::CPU);
  if (diskCache) Module::fromMemory(device, spirv.data(), spirv.size());  // fills the cache
  for (auto _ : state) {
    // Released each time, so the next load cannot come from memory.
    Module m = Module::fromMemory(device, spirv.data(), spirv.size());
    benchmark::DoNotOptimize(m.handle());
  }
  unsetenv("XPURT_CACHE_DIR");
  unsetenv("XPURT_JIT_ISOLATION");
  fs::remove_all(dir);
}

#define WORKLOAD(fn, name)                    \
  BENCHMARK_CAPTURE(fn, xpurt, Impl::Xpurt)   \
      ->Name(name "/xpurt_cpu")               \
      ->UseRealTime()                         \
      ->Unit(benchmark::kMillisecond);        \
  BENCHMARK_CAPTURE(fn, native, Impl::Native) \
      ->Name(name "/native_tbb")              \
      ->UseRealTime()                         \
      ->Unit(benchmark::kMillisecond);        \
  BENCHMARK_CAPTURE(fn, pocl, Impl::Pocl)     \
      ->Name(name "/pocl")                    \
      ->UseRealTime()                         \
      ->Unit(benchmark::kMillisecond)

WORKLOAD(BM_Saxpy, "saxpy_64M");
WORKLOAD(BM_MathHeavy, "math_heavy_16M");
WORKLOAD(BM_Mandelbrot, "mandelbrot_1536x1024");
WORKLOAD(BM_Reduce, "reduce_barrier_16M");
WORKLOAD(BM_Transpose, "transpose_local_4096");
WORKLOAD(BM_Sgemm, "sgemm_1024");

// Real time: a cold load mostly waits for its JIT worker process.
BENCHMARK_CAPTURE(BM_JitSmall, cold, Impl::Xpurt, false)
    ->Name("jit_small_module/xpurt_cpu_cold")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_JitSmall, cold_in_process, Impl::Xpurt, false, true)
    ->Name("jit_small_module/xpurt_cpu_cold_in_process")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_JitSmall, disk, Impl::Xpurt, true)
    ->Name("jit_small_module/xpurt_cpu_disk_cache")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_JitSmall, pocl, Impl::Pocl, false)
    ->Name("jit_small_module/pocl_clBuildProgram")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(10);

}  // namespace
}  // namespace xpurt::bench

int main(int argc, char **argv) {
  // PoCL's kernel cache would turn its clBuildProgram into a file lookup.
  setenv("POCL_KERNEL_CACHE", "0", 0);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
