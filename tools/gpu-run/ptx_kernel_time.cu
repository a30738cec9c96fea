// Times one kernel of a PTX file alone, as the CUDA driver runs it: 10 launches with
// cuLaunchKernel between two events, best of 7, on the arguments of xpurt_bench_cuda's
// `vector_math` (16 Mi float4) or `reduce` (64 Mi floats, groups of 256). What it separates from
// the benchmark: the kernel's code from xpurt's cost per launch, and the driver's two ways of
// compiling PTX (cuModuleLoadDataEx, or cuLinkAddData as relocatable code).
//   nvcc -arch=sm_90 -o ptx_kernel_time tools/gpu-run/ptx_kernel_time.cu -lcuda
//   ptx_kernel_time FILE.ptx vector_math|reduce xpurt|nvcc [link]
// `xpurt` passes kLaunchValues after the kernel's own arguments (runtime/cuda/nvptx_lowering.hpp),
// as xpurt's launches do; `nvcc` passes only the kernel's own (bench/cuda/baselines.cu).
#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define CHECK(call)                                      \
  do {                                                   \
    if (CUresult r = (call); r != CUDA_SUCCESS) {        \
      const char *s = "?";                               \
      cuGetErrorString(r, &s);                           \
      std::fprintf(stderr, "%s failed: %s\n", #call, s); \
      std::exit(1);                                      \
    }                                                    \
  } while (0)

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s FILE.ptx vector_math|reduce xpurt|nvcc [link]\n", argv[0]);
    return 2;
  }
  const std::string kernel = argv[2];
  const bool xpurt = std::strcmp(argv[3], "xpurt") == 0;
  const bool link = argc > 4 && std::strcmp(argv[4], "link") == 0;
  if (kernel != "vector_math" && kernel != "reduce") return 2;
  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  std::ifstream file(argv[1]);
  std::stringstream text;
  text << file.rdbuf();
  std::string ptx = text.str();
  CUmodule module;
  CUlinkState state = nullptr;
  if (link) {
    void *image;
    size_t size;
    CHECK(cuLinkCreate(0, nullptr, nullptr, &state));
    CHECK(cuLinkAddData(state, CU_JIT_INPUT_PTX, ptx.data(), ptx.size() + 1, "ptx", 0, nullptr,
                        nullptr));
    CHECK(cuLinkComplete(state, &image, &size));
    CHECK(cuModuleLoadData(&module, image));
    CHECK(cuLinkDestroy(state));
  } else {
    CHECK(cuModuleLoadData(&module, ptx.c_str()));
  }
  CUfunction function;
  CHECK(cuModuleGetFunction(&function, module, kernel.c_str()));
  int registers = 0, localBytes = 0;
  CHECK(cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, function));
  CHECK(cuFuncGetAttribute(&localBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function));

  const bool reduce = kernel == "reduce";
  const int floats = 64 << 20, group = 256;
  int n = reduce ? floats : floats / 4;  // vector_math: float4 elements
  std::vector<float> host(floats);
  for (int i = 0; i < floats; ++i) host[i] = float(i % 1000) * 0.01f - 5.0f;
  CUdeviceptr x, y;
  CHECK(cuMemAlloc(&x, size_t(floats) * 4));
  CHECK(cuMemAlloc(&y, size_t(floats) * 4));
  CHECK(cuMemcpyHtoD(x, host.data(), size_t(floats) * 4));
  // kLaunchValues: work dimension; global offset, global size (64 bits); groups, enqueued
  // local size, group base (32 bits).
  unsigned dims = 1, groups = unsigned(n / group), local = group, one = 1, zero = 0;
  unsigned sharedOffset = 0, shared = reduce ? group * 4 : 0;
  unsigned long long offset = 0, size = unsigned(n), size1 = 1;
  std::vector<void *> args;
  if (reduce)
    args = {&x, &y};
  else
    args = {&y, &x, &n};
  if (reduce && xpurt) args.push_back(&sharedOffset);  // the __local pointer, an offset
  if (xpurt)
    for (void *v :
         {(void *)&dims, (void *)&offset, (void *)&offset, (void *)&offset, (void *)&size,
          (void *)&size1, (void *)&size1, (void *)&groups, (void *)&one, (void *)&one,
          (void *)&local, (void *)&one, (void *)&one, (void *)&zero, (void *)&zero, (void *)&zero})
      args.push_back(v);

  CUevent start, stop;
  CHECK(cuEventCreate(&start, 0));
  CHECK(cuEventCreate(&stop, 0));
  float best = 1e30f;
  for (int repetition = 0; repetition < 7; ++repetition) {
    CHECK(cuEventRecord(start, nullptr));
    for (int i = 0; i < 10; ++i)
      CHECK(cuLaunchKernel(function, groups, 1, 1, group, 1, 1, shared, nullptr, args.data(),
                           nullptr));
    CHECK(cuEventRecord(stop, nullptr));
    CHECK(cuEventSynchronize(stop));
    float ms;
    CHECK(cuEventElapsedTime(&ms, start, stop));
    best = std::min(best, ms / 10);
  }
  // The first results against a host reference, so that a wrong kernel is not timed.
  std::vector<float> result(8);
  CHECK(cuMemcpyDtoH(result.data(), y, result.size() * 4));
  for (int i = 0; i < 8; ++i) {
    double v = host[i], want = std::sin(v) * std::cos(0.5 * v) + std::pow(std::fabs(v) + 1, 1.5);
    if (reduce) {
      want = 0;
      for (int j = 0; j < group; ++j) want += host[i * group + j];
    }
    if (std::fabs(result[i] - want) > 1e-3 * std::max(1.0, std::fabs(want))) {
      std::fprintf(stderr, "%s: wrong result %d: %g, expected %g\n", argv[1], i, result[i], want);
      return 1;
    }
  }
  std::printf("%s %s (%s, %s): %d registers, %d bytes of local memory, %.4f ms a launch\n", argv[1],
              kernel.c_str(), argv[3], link ? "cuLink" : "cuModuleLoadData", registers, localBytes,
              best);
  return 0;
}
