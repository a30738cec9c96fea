// The backends of this build: one line each. The only file that names them all.
#include "core/backend.hpp"
#include "core/jit_worker.hpp"
#include "cpu/cpu_backend.hpp"
#include "level_zero/ze_backend.hpp"
#include "spirv/kernel_reflection.hpp"

namespace xpurt::core {

std::span<const BackendFactory> backendFactories() {
  static const BackendFactory factories[] = {
      &level_zero::createLevelZeroBackend,
      &cpu::createCpuBackend,
  };
  return factories;
}

// The compilers the JIT worker process runs, by backend name.
Compiler findCompiler(std::string_view backend) {
  if (backend == "cpu") return &cpu::compileSpirvForCpuSerialized;
  // The Level Zero driver compiles; xpurt only reflects the kernels' signatures.
  if (backend == "level_zero") return &spirv::reflectKernelsSerialized;
  return nullptr;
}

// Every backend XPURT_DEVICE may name, those this build leaves out included (they then name
// no device of this machine, which is a NOT_FOUND error rather than a bad setting).
std::span<const char *const> backendNames() {
  static const char *const names[] = {"cpu", "level_zero", "cuda"};
  return names;
}

}  // namespace xpurt::core
