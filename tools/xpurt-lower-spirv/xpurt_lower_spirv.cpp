// xpurt-lower-spirv [--launch-values] IN.spv [IN2.spv ...] OUT.spv: writes a SPIR-V module as
// xpurt's Level Zero backend hands it to a driver, after the intake every device runs
// (validation included), with the instructions of newer extensions rewritten in core SPIR-V
// (runtime/spirv/extension_lowering). Several inputs are linked into one module first, as
// xpurtLinkModules links them (runtime/spirv/module_linking). --launch-values writes the
// module's launch-value variant instead, which the backend builds for partial work-groups
// (runtime/spirv/launch_values). It lets Intel's offline compiler (ocloc) check what a GPU
// driver would really be given.
#include "core/error.hpp"
#include "spirv/extension_lowering.hpp"
#include "spirv/launch_values.hpp"
#include "spirv/module_linking.hpp"
#include "spirv/spirv_binary.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

int main(int argc, char **argv) {
  bool launchValues = argc > 1 && std::strcmp(argv[1], "--launch-values") == 0;
  if (launchValues) {
    argv[1] = argv[0];
    ++argv;
    --argc;
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s [--launch-values] IN.spv [IN2.spv ...] OUT.spv\n", argv[0]);
    return 2;
  }
  const char *output = argv[argc - 1];
  std::vector<std::vector<char>> files;
  for (int i = 1; i < argc - 1; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    files.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in && !in.eof()) {
      std::fprintf(stderr, "%s: cannot read '%s'\n", argv[0], argv[i]);
      return 1;
    }
  }
  try {
    std::vector<xpurt::spirv::LinkInput> inputs;
    for (size_t i = 0; i < files.size(); ++i)
      inputs.push_back({std::as_bytes(std::span(files[i])), argv[i + 1]});
    std::vector<uint32_t> linked;
    std::span<const std::byte> module = inputs[0].spirv;
    std::string name = argv[1];
    if (inputs.size() > 1) {
      linked = xpurt::spirv::linkModules(inputs);
      module = std::as_bytes(std::span(linked));
      name = output;
    }
    xpurt::spirv::CheckedModule checked = xpurt::spirv::checkModule(module, name, "level_zero");
    xpurt::spirv::LoweredModule lowered = xpurt::spirv::lowerNewerExtensions(checked.words, name);
    if (launchValues) {
      xpurt::spirv::LaunchValueModule variant = xpurt::spirv::addLaunchValues(lowered.words, name);
      lowered.words = std::move(variant.words);
      if (variant.takesLaunchValues)
        std::printf("%s: kernels take the launch values\n", name.c_str());
    }
    std::ofstream out(output, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(lowered.words.data()),
              std::streamsize(lowered.words.size() * sizeof(uint32_t)));
    if (!out) {
      std::fprintf(stderr, "%s: cannot write '%s'\n", argv[0], output);
      return 1;
    }
    for (const std::string &e : lowered.extensions)
      std::printf("%s: %s rewritten in core SPIR-V\n", name.c_str(), e.c_str());
  } catch (const xpurt::core::Error &e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
  return 0;
}
