// libFuzzer target for the SPIR-V intake that runs inside the application's process: every
// input goes through the checks a module load makes before it hands the module to the JIT
// worker process (spirv::checkModule with the CPU's capabilities), and what passes them
// through the rewriting the Level Zero backend does before its driver sees a module
// (spirv::lowerNewerExtensions). Bad input must end in an xpurt error, nothing else. What runs
// in the worker (the translator, LLVM, SPIRV-Tools' linker) is covered by the mutation test,
// which only asks that the application's process survive.
#include "core/error.hpp"
#include "cpu/cpu_capabilities.hpp"
#include "spirv/extension_lowering.hpp"
#include "spirv/spirv_binary.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace xpurt;
  auto bytes = std::span(reinterpret_cast<const std::byte *>(data), size);
  try {
    spirv::CheckedModule checked = spirv::checkModule(bytes, "fuzz", cpu::kCpuCapabilities, "CPU");
    try {
      spirv::lowerNewerExtensions(checked.words, "fuzz");
    } catch (const core::Error &) {
    }
  } catch (const core::Error &) {
  }
  return 0;
}
