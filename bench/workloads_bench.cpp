// CPU workloads, each four ways in one run: <workload>/xpurt_cpu (the OpenCL C source built
// to SPIR-V, run by xpurt's JIT), <workload>/native_tbb (the same algorithm in C++, -O3
// -march=native, tbb::parallel_for), <workload>/pocl (the same OpenCL C source through PoCL)
// and <workload>/intel_ocl (the same SPIR-V through Intel's CPU runtime for OpenCL, in a
// process of its own, with as many threads as xpurt's CPU device).
// Also the time to get a module ready to run: jit_small_module/* and jit_workloads_module/*.
#include <xpurt/xpurt.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <thread>

#include "native_workloads.hpp"
#include "opencl_process.hpp"
#include "pocl_host.hpp"

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

// Shared memory, so that the OpenCL runtime in a process of its own works on it too.
template <class T>
struct Buffer {
  explicit Buffer(size_t n)
      : size(n), memory(n * sizeof(T)), data(static_cast<T *>(memory.data())) {}
  size_t size;
  SharedMemory memory;
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

PoclHost &pocl() {
  static PoclHost p;
  static bool built = [] {
    if (p.available()) p.build(readText(programFolder() / "xpurt_bench_workloads.cl"));
    return true;
  }();
  (void)built;
  return p;
}

// Where tools/install-intel-opencl-cpu.sh put Intel's runtime: XPURT_BENCH_INTEL_OPENCL, else
// the build tree's intel-opencl folder.
fs::path intelOpenClFolder() {
  if (const char *dir = std::getenv("XPURT_BENCH_INTEL_OPENCL")) return dir;
  return XPURT_BENCH_INTEL_OPENCL_DEFAULT;
}

unsigned xpurtThreads() {
  if (const char *n = std::getenv("XPURT_CPU_THREADS")) return static_cast<unsigned>(std::atoi(n));
  return std::thread::hardware_concurrency();
}

std::unique_ptr<OpenClProcess> startIntelOpenCl() {
  fs::path vendors = intelOpenClFolder() / "etc/OpenCL/vendors";
  std::vector<std::string> env = {
      "OCL_ICD_VENDORS=" + vendors.string(),
      // A variable set by the caller wins: CL_CONFIG_USE_VECTORIZER=False, for one.
      "CL_CONFIG_CPU_TBB_NUM_WORKERS=" + std::to_string(xpurtThreads())};
  auto intel = std::make_unique<OpenClProcess>(
      (programFolder() / "xpurt_bench_opencl_child").string(), "Intel", env);
  if (!fs::exists(vendors / "intel-cpu.icd"))
    return intel;  // its why() says what the child found instead
  if (intel->available()) intel->build((programFolder() / "xpurt_bench_workloads.spv").string());
  return intel;
}

OpenClProcess &intelOpenCl() {
  static std::unique_ptr<OpenClProcess> intel = startIntelOpenCl();
  return *intel;
}

std::string intelMissing() {
  return "Intel's CPU runtime for OpenCL is not in " + intelOpenClFolder().string() +
         " (install it with tools/install-intel-opencl-cpu.sh " + intelOpenClFolder().string() +
         "): " + intelOpenCl().why();
}

// The four ways of one workload share its data and its check.
enum class Impl { Xpurt, Native, Pocl, IntelOcl };

OpenClHost &openCl(Impl impl) {
  if (impl == Impl::Pocl) return pocl();
  return intelOpenCl();
}

// True (and the benchmark skipped with why) when impl is an OpenCL runtime that is missing.
bool skipWithoutOpenCl(benchmark::State &state, Impl impl) {
  if (impl == Impl::Xpurt || impl == Impl::Native || openCl(impl).available()) return false;
  std::string why = impl == Impl::Pocl ? pocl().why() : intelMissing();
  state.SkipWithError(why.c_str());
  return true;
}

void releaseAll(Impl impl, const std::vector<int> &buffers) {
  for (int b : buffers) openCl(impl).release(b);
}

// ---- saxpy ------------------------------------------------------------------------------

constexpr int kSaxpyN = 64 << 20;

void BM_Saxpy(benchmark::State &state, Impl impl) {
  if (skipWithoutOpenCl(state, impl)) return;
  Buffer<float> x(kSaxpyN), y(kSaxpyN);
  fillRandom(x, -1, 1);
  std::fill_n(y.data, kSaxpyN, 1.0f);
  float a = 2.0f;
  std::function<void()> run;
  std::unique_ptr<Array<float>> xv, yv;
  std::vector<int> buffers;  // the OpenCL implementation's
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
    OpenClHost &cl = openCl(impl);
    buffers = {cl.wrap(x.memory), cl.wrap(y.memory)};
    int k = cl.kernel("saxpy");
    cl.memArg(k, 0, buffers[1]), cl.memArg(k, 1, buffers[0]), cl.arg(k, 2, a);
    cl.arg(k, 3, kSaxpyN);
    run = [&cl, k] {
      size_t global = kSaxpyN, local = 256;
      cl.run(k, 1, &global, &local);
    };
  }
  run();
  if (std::fabs(y.data[12345] - (1.0f + 2.0f * x.data[12345])) > 1e-5f)
    state.SkipWithError("wrong saxpy result");
  for (auto _ : state) run();
  state.SetBytesProcessed(state.iterations() * 3 * x.bytes());
  releaseAll(impl, buffers);
}

// ---- math-heavy element-wise ------------------------------------------------------------

constexpr int kMathN = 16 << 20;

void BM_MathHeavy(benchmark::State &state, Impl impl) {
  if (skipWithoutOpenCl(state, impl)) return;
  Buffer<float> x(kMathN), y(kMathN);
  fillRandom(x, -8, 8);
  std::function<void()> run;
  std::unique_ptr<Array<float>> xv, yv;
  std::vector<int> buffers;
  if (impl == Impl::Xpurt) {
    xv = std::make_unique<Array<float>>(xpurt().device, x.data, x.size);
    yv = std::make_unique<Array<float>>(xpurt().device, y.data, y.size);
    Kernel k(xpurt().module, "math_heavy");
    run = [&, k] { xpurt().queue.launch(k, Range(kMathN).local(256), {*yv, *xv, kMathN}).wait(); };
  } else if (impl == Impl::Native) {
    run = [&] { nativeMathHeavy(y.data, x.data, kMathN); };
  } else {
    OpenClHost &cl = openCl(impl);
    buffers = {cl.wrap(x.memory), cl.wrap(y.memory)};
    int k = cl.kernel("math_heavy");
    cl.memArg(k, 0, buffers[1]), cl.memArg(k, 1, buffers[0]), cl.arg(k, 2, kMathN);
    run = [&cl, k] {
      size_t global = kMathN, local = 256;
      cl.run(k, 1, &global, &local);
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
  releaseAll(impl, buffers);
}

// ---- mandelbrot -------------------------------------------------------------------------

constexpr int kWidth = 1536, kHeight = 1024, kIterations = 256;
constexpr float kX0 = -2.0f, kY0 = -1.0f, kDx = 3.0f / kWidth, kDy = 2.0f / kHeight;

void BM_Mandelbrot(benchmark::State &state, Impl impl) {
  if (skipWithoutOpenCl(state, impl)) return;
  Buffer<int> out(kWidth * kHeight);
  std::function<void()> run;
  std::unique_ptr<Array<int>> ov;
  std::vector<int> buffers;
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
    OpenClHost &cl = openCl(impl);
    buffers = {cl.wrap(out.memory)};
    int k = cl.kernel("mandelbrot");
    cl.memArg(k, 0, buffers[0]), cl.arg(k, 1, kX0), cl.arg(k, 2, kY0), cl.arg(k, 3, kDx);
    cl.arg(k, 4, kDy), cl.arg(k, 5, kWidth), cl.arg(k, 6, kIterations);
    run = [&cl, k] {
      size_t global[2] = {kWidth, kHeight}, local[2] = {16, 4};
      cl.run(k, 2, global, local);
    };
  }
  run();
  // The centre of the main cardioid never escapes; a far corner escapes at once.
  if (out.data[(kHeight / 2) * kWidth + kWidth / 2] != kIterations || out.data[0] > 2)
    state.SkipWithError("wrong mandelbrot result");
  for (auto _ : state) run();
  state.SetItemsProcessed(state.iterations() * kWidth * kHeight);
  releaseAll(impl, buffers);
}

// ---- work-group reduction with barriers -------------------------------------------------

constexpr int kReduceN = 16 << 20, kGroup = 256;

void BM_Reduce(benchmark::State &state, Impl impl) {
  if (skipWithoutOpenCl(state, impl)) return;
  Buffer<float> in(kReduceN), partial(kReduceN / kGroup);
  fillRandom(in, 0, 1);
  std::function<void()> run;
  std::unique_ptr<Array<float>> iv, pv;
  std::vector<int> buffers;
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
    OpenClHost &cl = openCl(impl);
    buffers = {cl.wrap(in.memory), cl.wrap(partial.memory)};
    int k = cl.kernel("reduce");
    cl.memArg(k, 0, buffers[0]), cl.memArg(k, 1, buffers[1]);
    cl.localArg(k, 2, kGroup * sizeof(float));
    run = [&cl, k] {
      size_t global = kReduceN, local = kGroup;
      cl.run(k, 1, &global, &local);
    };
  }
  run();
  double want = 0;
  for (int i = 0; i < kGroup; ++i) want += in.data[5 * kGroup + i];
  if (std::fabs(partial.data[5] - want) > 1e-3) state.SkipWithError("wrong reduction result");
  for (auto _ : state) run();
  state.SetBytesProcessed(state.iterations() * in.bytes());
  releaseAll(impl, buffers);
}

// ---- transpose through local memory -----------------------------------------------------

constexpr int kRows = 4096, kCols = 4096;

void BM_Transpose(benchmark::State &state, Impl impl) {
  if (skipWithoutOpenCl(state, impl)) return;
  Buffer<float> in(kRows * kCols), out(kRows * kCols);
  fillRandom(in, 0, 1);
  std::function<void()> run;
  std::unique_ptr<Array<float>> iv, ov;
  std::vector<int> buffers;
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
    OpenClHost &cl = openCl(impl);
    buffers = {cl.wrap(in.memory), cl.wrap(out.memory)};
    int k = cl.kernel("transpose");
    cl.memArg(k, 0, buffers[1]), cl.memArg(k, 1, buffers[0]), cl.arg(k, 2, kRows);
    cl.arg(k, 3, kCols);
    run = [&cl, k] {
      size_t global[2] = {kCols, kRows}, local[2] = {16, 16};
      cl.run(k, 2, global, local);
    };
  }
  run();
  if (out.data[17 * kRows + 1000] != in.data[1000 * kCols + 17])
    state.SkipWithError("wrong transpose result");
  for (auto _ : state) run();
  state.SetBytesProcessed(state.iterations() * 2 * in.bytes());
  releaseAll(impl, buffers);
}

// ---- sgemm ------------------------------------------------------------------------------

constexpr int kN = 1024;

void BM_Sgemm(benchmark::State &state, Impl impl) {
  if (skipWithoutOpenCl(state, impl)) return;
  Buffer<float> a(kN * kN), b(kN * kN), c(kN * kN);
  fillRandom(a, -1, 1);
  fillRandom(b, -1, 1);
  std::function<void()> run;
  std::unique_ptr<Array<float>> av, bv, cv;
  std::vector<int> buffers;
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
    OpenClHost &cl = openCl(impl);
    buffers = {cl.wrap(a.memory), cl.wrap(b.memory), cl.wrap(c.memory)};
    int k = cl.kernel("sgemm");
    cl.memArg(k, 0, buffers[0]), cl.memArg(k, 1, buffers[1]), cl.memArg(k, 2, buffers[2]);
    cl.arg(k, 3, kN);
    run = [&cl, k] {
      size_t global[2] = {kN, kN}, local[2] = {16, 16};
      cl.run(k, 2, global, local);
    };
  }
  run();
  double want = 0;
  for (int k = 0; k < kN; ++k) want += double(a.data[3 * kN + k]) * b.data[k * kN + 5];
  if (std::fabs(c.data[3 * kN + 5] - want) > 1e-3) state.SkipWithError("wrong sgemm result");
  for (auto _ : state) run();
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * kN * kN * kN * state.iterations() * 1e-9,
                                                benchmark::Counter::kIsRate);
  releaseAll(impl, buffers);
}

// ---- JIT of a module --------------------------------------------------------------------

// The time to get `module` (a file beside this program, .spv and .cl) ready to run.
// inProcess: XPURT_JIT_ISOLATION=off, the JIT in this process instead of a JIT worker.
void BM_Jit(benchmark::State &state, const char *module, Impl impl, bool diskCache,
            bool inProcess = false) {
  fs::path spirvPath = programFolder() / (std::string(module) + ".spv");
  std::string spirv = readText(spirvPath);
  if (skipWithoutOpenCl(state, impl)) return;
  if (impl == Impl::Pocl) {
    PoclHost own;  // its own program: the shared one stays built
    std::string source = readText(programFolder() / (std::string(module) + ".cl"));
    for (auto _ : state) own.build(source);
    return;
  }
  if (impl == Impl::IntelOcl) {
    std::unique_ptr<OpenClProcess> own = startIntelOpenCl();  // as for PoCL
    for (auto _ : state) own->build(spirvPath.string());
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

#define WORKLOAD(fn, name)                     \
  BENCHMARK_CAPTURE(fn, xpurt, Impl::Xpurt)    \
      ->Name(name "/xpurt_cpu")                \
      ->UseRealTime()                          \
      ->Unit(benchmark::kMillisecond);         \
  BENCHMARK_CAPTURE(fn, native, Impl::Native)  \
      ->Name(name "/native_tbb")               \
      ->UseRealTime()                          \
      ->Unit(benchmark::kMillisecond);         \
  BENCHMARK_CAPTURE(fn, pocl, Impl::Pocl)      \
      ->Name(name "/pocl")                     \
      ->UseRealTime()                          \
      ->Unit(benchmark::kMillisecond);         \
  BENCHMARK_CAPTURE(fn, intel, Impl::IntelOcl) \
      ->Name(name "/intel_ocl")                \
      ->UseRealTime()                          \
      ->Unit(benchmark::kMillisecond)

// Registered first, so that they run first: a module loaded by the workloads below stays
// loaded, and a load of it would be served from memory. Real time: a cold load mostly waits
// for its JIT worker process.
#define JIT(module, name, impl, ...)                        \
  BENCHMARK_CAPTURE(BM_Jit, jit, module, impl, __VA_ARGS__) \
      ->Name(name)                                          \
      ->UseRealTime()                                       \
      ->Unit(benchmark::kMillisecond)

JIT("xpurt_bench_small", "jit_small_module/xpurt_cpu_cold", Impl::Xpurt, false);
JIT("xpurt_bench_small", "jit_small_module/xpurt_cpu_cold_in_process", Impl::Xpurt, false, true);
JIT("xpurt_bench_small", "jit_small_module/xpurt_cpu_disk_cache", Impl::Xpurt, true);
JIT("xpurt_bench_small", "jit_small_module/pocl_clBuildProgram", Impl::Pocl, false)->Iterations(10);
JIT("xpurt_bench_small", "jit_small_module/intel_ocl_clBuildProgram", Impl::IntelOcl, false)
    ->Iterations(10);
JIT("xpurt_bench_workloads", "jit_workloads_module/xpurt_cpu_cold", Impl::Xpurt, false);
JIT("xpurt_bench_workloads", "jit_workloads_module/xpurt_cpu_disk_cache", Impl::Xpurt, true);
JIT("xpurt_bench_workloads", "jit_workloads_module/intel_ocl_clBuildProgram", Impl::IntelOcl, false)
    ->Iterations(5);

WORKLOAD(BM_Saxpy, "saxpy_64M");
WORKLOAD(BM_MathHeavy, "math_heavy_16M");
WORKLOAD(BM_Mandelbrot, "mandelbrot_1536x1024");
WORKLOAD(BM_Reduce, "reduce_barrier_16M");
WORKLOAD(BM_Transpose, "transpose_local_4096");
WORKLOAD(BM_Sgemm, "sgemm_1024");

}  // namespace
}  // namespace xpurt::bench

int main(int argc, char **argv) {
  // PoCL's kernel cache would turn its clBuildProgram into a file lookup.
  setenv("POCL_KERNEL_CACHE", "0", 0);
  // The OpenCL process may end (a crash of its runtime): its requests then fail, not this one.
  signal(SIGPIPE, SIG_IGN);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
