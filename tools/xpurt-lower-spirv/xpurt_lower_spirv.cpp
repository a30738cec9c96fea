// xpurt-lower-spirv IN.spv OUT.spv: writes a SPIR-V module as xpurt's Level Zero backend hands
// it to a driver, after the intake every device runs (validation included), with the
// instructions of newer extensions rewritten in core SPIR-V (runtime/spirv/extension_lowering).
// It lets Intel's offline compiler (ocloc) check what a GPU driver would really be given.
#include "core/error.hpp"
#include "spirv/extension_lowering.hpp"
#include "spirv/spirv_binary.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN.spv OUT.spv\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<char> bytes(std::istreambuf_iterator<char>(in), {});
  if (!in && !in.eof()) {
    std::fprintf(stderr, "%s: cannot read '%s'\n", argv[0], argv[1]);
    return 1;
  }
  try {
    std::span<const std::byte> data(reinterpret_cast<const std::byte *>(bytes.data()),
                                    bytes.size());
    xpurt::spirv::CheckedModule checked = xpurt::spirv::checkModule(data, argv[1], "level_zero");
    xpurt::spirv::LoweredModule lowered =
        xpurt::spirv::lowerNewerExtensions(checked.words, argv[1]);
    std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(lowered.words.data()),
              std::streamsize(lowered.words.size() * sizeof(uint32_t)));
    if (!out) {
      std::fprintf(stderr, "%s: cannot write '%s'\n", argv[0], argv[2]);
      return 1;
    }
    for (const std::string &e : lowered.extensions)
      std::printf("%s: %s rewritten in core SPIR-V\n", argv[1], e.c_str());
  } catch (const xpurt::core::Error &e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
  return 0;
}
