// libFuzzer target for the SPIR-V intake that runs inside the application's process: every
// input goes through the checks a module load makes before it hands the module to the JIT
// worker process (spirv::checkModule with the CPU's capabilities). Bad input must end in an xpurt
// error, nothing else. What runs in the worker (the translator, LLVM) is covered by the
// mutation test, which only asks that the application's process survive.
#include "core/error.hpp"
#include "cpu/cpu_capabilities.hpp"
#include "spirv/spirv_binary.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace xpurt;
  try {
    auto bytes = std::span(reinterpret_cast<const std::byte *>(data), size);
    spirv::checkModule(bytes, "fuzz", cpu::kCpuCapabilities, "CPU");
  } catch (const core::Error &) {
  }
  return 0;
}
