#include "spirv_compiler.hpp"

#include "core/config.hpp"
#include "core/log.hpp"
#include "cpu_backend.hpp"
#include "cpu_capabilities.hpp"
#include "jit_engine.hpp"
#include "spirv/spirv_binary.hpp"
#include "spirv/spirv_reader.hpp"
#include "work_group_builder.hpp"
#include "work_item_vectorizer.hpp"

#include <llvm/Support/raw_ostream.h>

#include <chrono>
#include <filesystem>

namespace xpurt::cpu {

spirv::CheckedModule checkSpirvForCpu(std::span<const std::byte> bytes, const std::string &name) {
  spirv::CheckedModule checked = spirv::checkModule(bytes, name, kCpuCapabilities, "CPU");
  for (const std::string &warning : checked.warnings) core::log().warn("{}", warning);
  return checked;
}

CacheEntry compileSpirvForCpu(const std::vector<uint32_t> &words, const std::string &name,
                              const core::ModuleOptions &options, bool vectorize) {
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
  unsigned width =
      vectorize && workItemVectorizerEnabled() ? vectorWidthFor(engine.cpuFeatures()) : 0;
  WorkGroupFunctions built = buildWorkGroupFunctions(
      *module, entry.kernels.kernels, engine.dataLayout(), engine.triple(), name, width);
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

std::string compileSpirvForCpuSerialized(const std::vector<uint32_t> &words,
                                         const std::string &name,
                                         const core::ModuleOptions &options) {
  return serializeEntry(compileSpirvForCpu(words, name, options));
}

std::string compileSpirvForCpuScalarSerialized(const std::vector<uint32_t> &words,
                                               const std::string &name,
                                               const core::ModuleOptions &options) {
  return serializeEntry(compileSpirvForCpu(words, name, options, false));
}

}  // namespace xpurt::cpu
