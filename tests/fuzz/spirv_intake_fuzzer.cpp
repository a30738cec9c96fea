// libFuzzer target for the SPIR-V intake: every input is checked, validated, read into LLVM and
// reflected as a module load would; bad input must end in an xpurt error, nothing else.
#include "core/error.hpp"
#include "spirv/spirv_binary.hpp"
#include "spirv/spirv_reader.hpp"

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
    llvm::LLVMContext context;
    context.setOpaquePointers(true);
    auto module = spirv::readModule(context, words, {}, "fuzz");
    spirv::reflectKernels(*module);
  } catch (const core::Error &) {
  }
  return 0;
}
