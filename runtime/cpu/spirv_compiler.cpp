#include "spirv_compiler.hpp"

#include "core/config.hpp"
#include "core/log.hpp"
#include "cpu_backend.hpp"
#include "cpu_capabilities.hpp"
#include "jit_engine.hpp"
#include "module_parts.hpp"
#include "spirv/spirv_binary.hpp"
#include "spirv/spirv_reader.hpp"
#include "work_group_builder.hpp"
#include "work_item_vectorizer.hpp"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>

namespace xpurt::cpu {

spirv::CheckedModule checkSpirvForCpu(std::span<const std::byte> bytes, const std::string &name) {
  spirv::CheckedModule checked = spirv::checkModule(bytes, name, kCpuCapabilities, "CPU");
  for (const std::string &warning : checked.warnings) core::log().warn("{}", warning);
  return checked;
}

namespace {

// XPURT_JIT_THREADS: how many threads compile a module's kernels at once (1: the module
// whole, on the calling thread); the processor's hardware threads by default.
size_t jitThreads() {
  static const size_t threads = core::envUnsigned(
      "XPURT_JIT_THREADS", 1, 256, std::max<uint64_t>(1, std::thread::hardware_concurrency()));
  return threads;
}

// XPURT_JIT_DUMP_DIR: the optimised IR of each module compiled (of each part: suffix ".N").
void dumpIr(const llvm::Module &module, const std::string &name, const std::string &suffix) {
  auto dump = core::envValue("XPURT_JIT_DUMP_DIR");
  if (!dump) return;
  std::error_code ec;
  std::string file = (std::filesystem::path(*dump) /
                      (std::filesystem::path(name).filename().string() + suffix + ".ll"))
                         .string();
  llvm::raw_fd_ostream out(file, ec);
  if (!ec) module.print(out, nullptr);
  core::log().info("JIT IR of '{}' written to {}", name, file);
}

// Optimises and compiles parts (largest first) on `threads` threads, the caller's among them,
// each taking the next part when done; an object per part.
std::vector<std::string> compileParts(const JitEngine &engine, const std::vector<ModulePart> &parts,
                                      size_t threads, const std::string &name) {
  std::vector<std::string> objects(parts.size());
  std::atomic<size_t> next{0};
  std::mutex failureMutex;
  std::exception_ptr failure;
  auto work = [&] {
    try {
      std::unique_ptr<llvm::TargetMachine> target = engine.newTargetMachine();
      for (size_t i; (i = next.fetch_add(1)) < parts.size();) {
        llvm::LLVMContext context;
        context.setOpaquePointers(true);
        auto read = llvm::parseBitcodeFile(llvm::MemoryBufferRef(parts[i].bitcode, name), context);
        if (!read)
          core::fail(XPURT_ERROR_UNKNOWN, "JIT of '{}': part {} could not be read back: {}", name,
                     i, llvm::toString(read.takeError()));
        engine.optimize(**read, *target);
        dumpIr(**read, name, "." + std::to_string(i));
        objects[i] = engine.emitObject(**read, name, *target);
      }
    } catch (...) {
      std::lock_guard lock(failureMutex);
      if (!failure) failure = std::current_exception();
      next = parts.size();  // the others stop after their part
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
  for (std::thread &h : helpers) h.join();
  if (failure) std::rethrow_exception(failure);
  return objects;
}

}  // namespace

CacheEntry compileSpirvForCpu(const std::vector<uint32_t> &words, const std::string &name,
                              const core::ModuleOptions &options, bool vectorize, bool oneObject) {
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
  size_t threads = jitThreads();
  std::vector<ModulePart> parts;
  if (threads > 1 && !oneObject) parts = splitByKernel(*module);
  if (parts.empty()) {
    engine.optimize(*module);
    double optimised = lap();
    dumpIr(*module, name, "");
    entry.objects.push_back(engine.emitObject(*module, name));
    core::log().debug(
        "JIT of '{}': read {:.1f} ms, lowering {:.1f} ms, O3 {:.1f} ms, code generation {:.1f} ms",
        name, read, lowered, optimised, lap());
    return entry;
  }
  double split = lap();
  module.reset();
  threads = std::min(threads, parts.size());
  entry.objects = compileParts(engine, parts, threads, name);
  core::log().debug(
      "JIT of '{}': read {:.1f} ms, lowering {:.1f} ms, split {:.1f} ms, O3 and code generation "
      "of {} parts on {} threads {:.1f} ms",
      name, read, lowered, split, parts.size(), threads, lap());
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
