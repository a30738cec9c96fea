// The backends of this build: one line each. The only file that names them all.
#include "core/backend.hpp"
#include "core/jit_worker.hpp"
#include "cpu/cpu_backend.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/ptx_compiler.hpp"
#include "level_zero/ze_backend.hpp"
#include "spirv/kernel_reflection.hpp"
#include "spirv/module_linking.hpp"

namespace xpurt::core {

std::span<const BackendFactory> backendFactories() {
  static const BackendFactory factories[] = {
      &level_zero::createLevelZeroBackend,
      &cuda::createCudaBackend,
      &cpu::createCpuBackend,
  };
  return factories;
}

// The compilers the JIT worker process runs, by backend name.
Compiler findCompiler(std::string_view backend) {
  // Not a backend: SPIRV-Tools' linker, isolated as compilers are (xpurtLinkModules).
  if (backend == kSpirvLinker) return &spirv::linkPackedModules;
  if (backend == "cpu") return &cpu::compileSpirvForCpuSerialized;
  if (backend == cpu::kCpuScalarCompiler) return &cpu::compileSpirvForCpuScalarSerialized;
  // The Level Zero driver compiles; xpurt only reflects the kernels' signatures.
  if (backend == "level_zero") return &spirv::reflectKernelsSerialized;
  // SPIR-V to PTX, one compiler per PTX target ("cuda_sm_80").
  static const std::pair<std::string_view, Compiler> ptx[] = {
      {"cuda_sm_80", &cuda::compileSpirvForCudaSerialized<80>},
      {"cuda_sm_75", &cuda::compileSpirvForCudaSerialized<75>},
      {"cuda_sm_72", &cuda::compileSpirvForCudaSerialized<72>},
      {"cuda_sm_70", &cuda::compileSpirvForCudaSerialized<70>},
      {"cuda_sm_62", &cuda::compileSpirvForCudaSerialized<62>},
      {"cuda_sm_61", &cuda::compileSpirvForCudaSerialized<61>},
      {"cuda_sm_60", &cuda::compileSpirvForCudaSerialized<60>},
      {"cuda_sm_53", &cuda::compileSpirvForCudaSerialized<53>},
      {"cuda_sm_52", &cuda::compileSpirvForCudaSerialized<52>},
      {"cuda_sm_50", &cuda::compileSpirvForCudaSerialized<50>},
  };
  for (const auto &[name, compiler] : ptx)
    if (backend == name) return compiler;
  return nullptr;
}

// Every backend XPURT_DEVICE may name, those this build leaves out included (they then name
// no device of this machine, which is a NOT_FOUND error rather than a bad setting).
std::span<const char *const> backendNames() {
  static const char *const names[] = {"cpu", "level_zero", "cuda"};
  return names;
}

}  // namespace xpurt::core
