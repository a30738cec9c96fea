// xpurt-compile [--target ptx|cpu] [--sm 80] [-o OUT] IN.spv: compiles one SPIR-V module ahead
// of time as a device would at load time, like Intel's ocloc: to PTX for NVIDIA GPUs (what the
// CUDA backend hands the driver) or to the CPU JIT's object file. Prints the module's kernels
// with their parameters, and the kernels that could not be compiled with the reason.
#include "core/error.hpp"
#include "cpu/cpu_backend.hpp"
#include "cpu/jit_cache.hpp"
#include "cpu/spirv_compiler.hpp"
#include "cuda/ptx_compiler.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {

const char *kindName(xpurt::core::KernelParam::Kind kind) {
  using Kind = xpurt::core::KernelParam::Kind;
  switch (kind) {
    case Kind::GlobalPointer:
      return "global pointer";
    case Kind::ConstantPointer:
      return "constant pointer";
    case Kind::LocalPointer:
      return "local pointer";
    case Kind::Value:
      return "value";
    case Kind::Struct:
      return "struct";
  }
  return "?";
}

void printKernels(const std::vector<xpurt::spirv::KernelInfo> &kernels,
                  const std::map<std::string, std::string> &unavailable, bool ptx) {
  for (const xpurt::spirv::KernelInfo &k : kernels) {
    std::printf("kernel %s%s\n", k.name.c_str(), unavailable.count(k.name) ? " (unavailable)" : "");
    for (size_t i = 0; i < k.args.size(); ++i) {
      const auto &a = k.args[i];
      bool offset = ptx && a.kind == xpurt::core::KernelParam::Kind::LocalPointer;
      std::printf("  arg %zu: %s, %u bytes, %s%s\n", i, kindName(a.kind), a.size,
                  a.typeName.empty() ? "(type unknown)" : a.typeName.c_str(),
                  offset ? " [PTX: u32 offset into dynamic shared memory]" : "");
    }
    if (k.requiredLocalSize[0] != 0)
      std::printf("  reqd_work_group_size(%u, %u, %u)\n", k.requiredLocalSize[0],
                  k.requiredLocalSize[1], k.requiredLocalSize[2]);
  }
  for (const auto &[kernel, why] : unavailable)
    std::printf("unavailable %s: %s\n", kernel.c_str(), why.c_str());
}

int usage(const char *self) {
  std::fprintf(stderr,
               "usage: %s [--target ptx|cpu] [--sm N] [-o OUT] IN.spv\n"
               "  --target ptx  PTX text for NVIDIA GPUs (default); --sm picks the PTX target\n"
               "                (one of 50 52 53 60 61 62 70 72 75 80; default 80)\n"
               "  --target cpu  the CPU JIT's ELF object for this machine's CPU\n"
               "  -o OUT        default: IN with .ptx or .o in place of .spv\n",
               self);
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  std::string target = "ptx", output, input;
  int sm = 80;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--target" || a == "-o" || a == "--sm") {
      const char *v = value();
      if (!v) return usage(argv[0]);
      if (a == "--target")
        target = v;
      else if (a == "-o")
        output = v;
      else
        sm = std::atoi(v);
    } else if (a == "-h" || a == "--help") {
      usage(argv[0]);
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "%s: unknown option '%s'\n", argv[0], a.c_str());
      return usage(argv[0]);
    } else if (input.empty()) {
      input = a;
    } else {
      std::fprintf(stderr, "%s: one input module only ('%s' and '%s')\n", argv[0], input.c_str(),
                   a.c_str());
      return 2;
    }
  }
  if (input.empty() || (target != "ptx" && target != "cpu")) return usage(argv[0]);
  if (target == "ptx" &&
      std::find(std::begin(xpurt::cuda::kPtxTargets), std::end(xpurt::cuda::kPtxTargets), sm) ==
          std::end(xpurt::cuda::kPtxTargets)) {
    std::fprintf(stderr, "%s: --sm %d is not a PTX target LLVM 15 emits\n", argv[0], sm);
    return usage(argv[0]);
  }
  if (output.empty())
    output = std::filesystem::path(input).replace_extension(target == "ptx" ? ".ptx" : ".o");
  std::ifstream in(input, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in && !in.eof()) {
    std::fprintf(stderr, "%s: cannot read '%s'\n", argv[0], input.c_str());
    return 1;
  }
  try {
    auto spirv = std::as_bytes(std::span(bytes));
    std::string result;
    if (target == "ptx") {
      xpurt::spirv::CheckedModule checked = xpurt::cuda::checkSpirvForCuda(spirv, input);
      xpurt::cuda::PtxModule module = xpurt::cuda::compileSpirvToPtx(checked.words, input, {}, sm);
      printKernels(module.kernels, module.unavailable, true);
      result = std::move(module.ptx);
    } else {
      xpurt::spirv::CheckedModule checked = xpurt::cpu::checkSpirvForCpu(spirv, input);
      // One object file: the module compiled whole, not in parts.
      xpurt::cpu::CacheEntry entry =
          xpurt::cpu::compileSpirvForCpu(checked.words, input, {}, true, true);
      printKernels(entry.kernels.kernels, entry.kernels.unavailable, false);
      result = std::move(entry.objects.front());
    }
    std::ofstream out(output, std::ios::binary | std::ios::trunc);
    out.write(result.data(), static_cast<std::streamsize>(result.size()));
    if (!out) {
      std::fprintf(stderr, "%s: cannot write '%s'\n", argv[0], output.c_str());
      return 1;
    }
  } catch (const xpurt::core::Error &e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
  return 0;
}
