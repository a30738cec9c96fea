// libFuzzer target for the SPIR-V intake that runs inside the application's process: every
// input goes through the checks a module load makes before it hands the module to the JIT
// worker process (cpu/spirv_compiler.cpp, checkSpirvForCpu). Bad input must end in an xpurt
// error, nothing else. What runs in the worker (the translator, LLVM) is covered by the
// mutation test, which only asks that the application's process survive.
#include "core/error.hpp"
#include "spirv/spirv_binary.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace xpurt;
  static const uint32_t supported[] = {4, 5, 6, 7, 8, 9, 10, 11, 12, 22, 38, 39};
  try {
    auto bytes = std::span(reinterpret_cast<const std::byte *>(data), size);
    std::vector<uint32_t> words = spirv::toWords(bytes, "fuzz");
    spirv::Preamble preamble = spirv::readPreamble(words, "fuzz");
    spirv::checkSupported(preamble, supported, "CPU", "fuzz");
    spirv::validate(words, "fuzz");
    spirv::checkTranslatable(words, "fuzz");
  } catch (const core::Error &) {
  }
  return 0;
}
