#include "spirv_compiler.hpp"

#include "core/config.hpp"
#include "core/log.hpp"
#include "jit_engine.hpp"
#include "spirv/spirv_binary.hpp"
#include "spirv/spirv_reader.hpp"
#include "work_group_builder.hpp"

#include <llvm/Support/raw_ostream.h>

#include <chrono>
#include <filesystem>

namespace xpurt::cpu {
namespace {

// Capabilities of OpenCL kernels the CPU JIT runs. A kernel that calls a builtin of one of
// them that the device lacks is refused by itself, naming the builtin (not the module).
constexpr uint32_t kCpuCapabilities[] = {
    4 /*Addresses*/, 5 /*Linkage*/, 6 /*Kernel*/, 7 /*Vector16*/, 8 /*Float16Buffer*/,
    9 /*Float16*/, 10 /*Float64*/, 11 /*Int64*/, 12 /*Int64Atomics*/, 18 /*Groups*/, 22 /*Int16*/,
    38 /*GenericPointer*/, 39 /*Int8*/, 58 /*SubgroupDispatch*/, 61 /*GroupNonUniform*/,
    62 /*GroupNonUniformVote*/, 63 /*GroupNonUniformArithmetic*/, 64 /*GroupNonUniformBallot*/,
    65 /*GroupNonUniformShuffle*/, 66 /*GroupNonUniformShuffleRelative*/,
    67 /*GroupNonUniformClustered*/, 5568 /*SubgroupShuffleINTEL*/,
    5569 /*SubgroupBufferBlockIOINTEL*/, 5612 /*AtomicFloat32MinMaxEXT*/,
    5613 /*AtomicFloat64MinMaxEXT*/, 6016 /*DotProductInputAll*/, 6017 /*DotProductInput4x8Bit*/,
    6018 /*DotProductInput4x8BitPacked*/, 6019 /*DotProduct*/, 6025 /*BitInstructions*/,
    6026 /*GroupNonUniformRotateKHR*/, 6033 /*AtomicFloat32AddEXT*/, 6034 /*AtomicFloat64AddEXT*/,
    // Hints only, which the JIT may ignore: icpx declares them in most SYCL modules.
    5629 /*ExpectAssumeKHR*/, 5821 /*FunctionFloatControlINTEL*/, 5837 /*FPFastMathModeINTEL*/,
    5892 /*KernelAttributesINTEL*/, 5910 /*MemoryAccessAliasingINTEL*/};

}  // namespace

std::vector<uint32_t> checkSpirvForCpu(std::span<const std::byte> bytes, const std::string &name) {
  std::vector<uint32_t> words = spirv::toWords(bytes, name);
  spirv::Preamble preamble = spirv::readPreamble(words, name);
  spirv::checkSupported(preamble, kCpuCapabilities, "CPU", name);
  for (const std::string &warning : spirv::validate(words, name)) core::log().warn("{}", warning);
  spirv::checkTranslatable(words, name);
  return words;
}

CacheEntry compileSpirvForCpu(const std::vector<uint32_t> &words, const std::string &name,
                              const core::ModuleOptions &options) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point mark = Clock::now();
  auto lap = [&] {  // milliseconds since the previous lap
    Clock::time_point now = Clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - mark).count();
    mark = now;
    return ms;
  };
  if (!options.buildFlags.empty())
    core::log().info("module '{}': build flags '{}' do not apply to the CPU JIT", name,
                     options.buildFlags);
  JitEngine &engine = JitEngine::instance();
  llvm::LLVMContext context;
  context.setOpaquePointers(true);  // else reading typed bitcode first would make it typed
  std::unique_ptr<llvm::Module> module =
      spirv::readModule(context, words, options.specConstants, name);
  CacheEntry entry;
  entry.kernels.kernels = spirv::reflectKernels(*module);
  double read = lap();
  WorkGroupFunctions built = buildWorkGroupFunctions(*module, entry.kernels.kernels,
                                                     engine.dataLayout(), engine.triple(), name);
  entry.kernels.layouts = std::move(built.layouts);
  entry.kernels.unavailable = std::move(built.unavailable);
  for (const auto &[kernel, why] : entry.kernels.unavailable)
    core::log().warn("module '{}': {}; its other kernels are usable", name, why);
  double lowered = lap();
  engine.optimize(*module);
  double optimised = lap();
  if (auto dump = core::envValue("XPURT_JIT_DUMP_DIR")) {  // for looking at what the JIT made
    std::error_code ec;
    std::string file =
        (std::filesystem::path(*dump) / (std::filesystem::path(name).filename().string() + ".ll"))
            .string();
    llvm::raw_fd_ostream out(file, ec);
    if (!ec) module->print(out, nullptr);
    core::log().info("JIT IR of '{}' written to {}", name, file);
    lap();
  }
  entry.object = engine.emitObject(*module, name);
  core::log().debug(
      "JIT of '{}': read {:.1f} ms, lowering {:.1f} ms, O3 {:.1f} ms, code "
      "generation {:.1f} ms",
      name, read, lowered, optimised, lap());
  return entry;
}

}  // namespace xpurt::cpu
