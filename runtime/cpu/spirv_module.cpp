#include "spirv_module.hpp"

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/jit_worker.hpp"
#include "core/log.hpp"
#include "core_share.hpp"
#include "cpu_backend.hpp"
#include "cpu_kernel.hpp"
#include "jit_cache.hpp"
#include "jit_engine.hpp"
#include "spirv/module_linking.hpp"
#include "spirv/spirv_reader.hpp"
#include "spirv_compiler.hpp"
#include "tbb_hand_off.hpp"
#include "work_group.hpp"
#include "work_group_builder.hpp"
#include "work_item_vectorizer.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/blocked_range2d.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>

namespace xpurt::cpu {
namespace {

using spirv::KernelInfo;

// Per-thread memory for the groups a thread runs, grown as launches need.
struct ScratchBuffer {
  std::unique_ptr<std::byte[], void (*)(void *)> data{nullptr, std::free};
  size_t size = 0;

  char *get(size_t bytes) {
    if (bytes > size) {
      size_t rounded = (bytes + 4095) / 4096 * 4096;
      data.reset(static_cast<std::byte *>(std::aligned_alloc(128, rounded)));
      if (!data) {
        size = 0;
        throw std::bad_alloc();
      }
      size = rounded;
    }
    return reinterpret_cast<char *>(data.get());
  }
};

char *localMemory(size_t bytes) {
  thread_local ScratchBuffer buffer;
  return buffer.get(bytes);
}

char *privateMemory(size_t bytes) {
  thread_local ScratchBuffer buffer;
  return buffer.get(bytes);
}

// Groups per side of the tiles that runWorkGroups hands its threads.
constexpr uint64_t kGroupTile = 8;
// Pieces of a launch per thread: enough to balance uneven groups and to step aside for a copy
// engine soon, few enough that scheduling them costs nothing measurable.
constexpr uint64_t kPiecesPerThread = 16;

// Work-items per call of a work-group function that merged groups (KernelLayout::
// groupsMayMerge) make up: small groups (a saxpy's of 256) otherwise pay the function's entry
// and loop set-up every few vectors, which cost a memory-bound kernel 13-16 % of its time.
constexpr uint64_t kMergedGroupItems = 4096;

// Runs every work-group of the range, in parallel over the device's arena.
void runWorkGroups(WorkGroupFunction fn, void *const *args, const core::NDRange &r,
                   size_t localBytes, const KernelLayout &layout, const std::string &kernel) {
  size_t privateBytes =
      layout.privateBytesPerItem * r.localSize[0] * r.localSize[1] * r.localSize[2] +
      layout.privateBytesPerGroup;
  uint64_t numGroups[3];
  for (int d = 0; d < 3; ++d)
    numGroups[d] = (r.globalSize[d] + r.localSize[d] - 1) / r.localSize[d];
  // The first group whose work-items parted at a barrier (linear id + 1): its launch fails
  // once every group has run, which the other groups do unharmed.
  std::atomic<uint64_t> divergentGroup{0};
  // Groups of a 2-D or 3-D grid run in square tiles of groups (x by rows of y and z), and the
  // threads split the grid of tiles into blocks: neighbouring groups touch neighbouring memory
  // in both directions (a transpose's reads and writes, the rows and columns sgemm's tiles
  // share), so a thread keeps in its caches what a whole row of groups at a time would not.
  // A 1-D grid, or one with too few tiles to keep every thread busy, runs group by group. The
  // context is set up once per block.
  uint64_t rows = numGroups[1] * numGroups[2];
  auto tilesFor = [&](uint64_t side) {
    return (numGroups[0] + side - 1) / side * ((rows + side - 1) / side);
  };
  uint64_t threads = static_cast<uint64_t>(tbb::this_task_arena::max_concurrency());
  uint64_t side = kGroupTile;
  if (rows == 1 || tilesFor(side) < 4 * threads) side = 1;
  uint64_t tilesX = (numGroups[0] + side - 1) / side, tilesY = (rows + side - 1) / side;
  auto runPiece = [&](const tbb::blocked_range2d<uint64_t> &range) {
    WorkGroupContext ctx{};
    for (int d = 0; d < 3; ++d) {
      ctx.enqueuedLocalSize[d] = r.localSize[d];
      ctx.globalSize[d] = r.globalSize[d];
      ctx.globalOffset[d] = r.globalOffset[d];
      ctx.numGroups[d] = numGroups[d];
    }
    ctx.workDim = r.workDim;
    ctx.localBytes = localBytes;
    ctx.privateBytes = privateBytes;
    ctx.stackTop = reinterpret_cast<uint64_t>(&ctx);  // in this frame, above the function's
    char *local = localBytes ? localMemory(localBytes) : nullptr;
    char *priv = privateBytes ? privateMemory(privateBytes) : nullptr;
    for (uint64_t ty = range.rows().begin(); ty < range.rows().end(); ++ty)
      for (uint64_t tx = range.cols().begin(); tx < range.cols().end(); ++tx) {
        uint64_t firstRow = ty * side, firstCol = tx * side;
        uint64_t endRow = std::min(firstRow + side, rows);
        uint64_t endCol = std::min(firstCol + side, numGroups[0]);
        for (uint64_t row = firstRow; row < endRow; ++row) {
          ctx.groupId[1] = row % numGroups[1];
          ctx.groupId[2] = row / numGroups[1];
          for (int d = 1; d < 3; ++d)
            ctx.localSize[d] =
                std::min(r.localSize[d], r.globalSize[d] - ctx.groupId[d] * r.localSize[d]);
          for (uint64_t col = firstCol; col < endCol; ++col) {
            ctx.groupId[0] = col;
            ctx.localSize[0] = std::min(r.localSize[0], r.globalSize[0] - col * r.localSize[0]);
            fn(args, &ctx, local, priv);
            if (ctx.divergent) {
              uint64_t none = 0;
              divergentGroup.compare_exchange_strong(none, row * numGroups[0] + col + 1);
              ctx.divergent = 0;
            }
          }
        }
      }
  };
  // Pieces end where a thread may step aside for a copy engine (core_share.hpp): the launch's
  // threads count the tiles they ran, and the one that runs the last wakes those asleep. A
  // piece that throws (scratch memory) ends the launch: oneTBB starts no more pieces, so it
  // wakes them too.
  CoreShare *cores = CoreShare::current();
  const uint64_t tiles = tilesX * tilesY;
  std::atomic<uint64_t> tilesRun{0};
  std::atomic<bool> ended{false};
  auto runTiles = [&](const tbb::blocked_range2d<uint64_t> &range) {
    CoreShare::KernelThread running(cores);
    try {
      runPiece(range);
    } catch (...) {
      ended.store(true, std::memory_order_seq_cst);
      if (cores) cores->launchOutOfWork();
      throw;
    }
    if (!cores) return;
    uint64_t ran = range.rows().size() * range.cols().size();
    if (tilesRun.fetch_add(ran, std::memory_order_seq_cst) + ran == tiles)
      cores->launchOutOfWork();
    else
      cores->stepAsideWhileCopying([&] {
        return ended.load(std::memory_order_seq_cst) ||
               tilesRun.load(std::memory_order_seq_cst) == tiles;
      });
  };
  if (tiles == 1) {
    runTiles(tbb::blocked_range2d<uint64_t>(0, 1, 0, 1));
  } else {
    // About kPiecesPerThread pieces per thread, as square as the grid of tiles allows. The
    // simple partitioner keeps every piece not yet started in a deque where others steal it,
    // so a thread asleep between two pieces holds none back.
    uint64_t pieces = kPiecesPerThread * threads;
    double rowsPerColumn = static_cast<double>(tilesY) / static_cast<double>(tilesX);
    uint64_t acrossY = std::clamp<uint64_t>(
        static_cast<uint64_t>(std::llround(std::sqrt(static_cast<double>(pieces) * rowsPerColumn))),
        1, tilesY);
    uint64_t acrossX = std::clamp<uint64_t>(pieces / acrossY, 1, tilesX);
    if (acrossX == tilesX)  // too few columns for their share: the rows take more
      acrossY = std::clamp<uint64_t>(pieces / acrossX, 1, tilesY);
    uint64_t grainX = (tilesX + acrossX - 1) / acrossX, grainY = (tilesY + acrossY - 1) / acrossY;
    TbbHandOff handOff;
    handOff.handOver([&] {
      tbb::parallel_for(tbb::blocked_range2d<uint64_t>(0, tilesY, grainY, 0, tilesX, grainX),
                        handOff.wrap(runTiles), tbb::simple_partitioner());
    });
  }
  if (uint64_t g = divergentGroup.load()) {
    --g;
    core::fail(XPURT_ERROR_UNSUPPORTED,
               "kernel '{}': the work-items of work-group ({}, {}, {}) did not all reach the "
               "same barrier (or work-group or sub-group function); OpenCL leaves that "
               "undefined, and the CPU device runs those only where every work-item of the "
               "group reaches them: such groups stopped there",
               kernel, g % numGroups[0], g / numGroups[0] % numGroups[1],
               g / (numGroups[0] * numGroups[1]));
  }
}

class SpirvKernel final : public CpuKernel {
 public:
  SpirvKernel(core::Ref<core::Module> module, const KernelInfo &info, KernelLayout layout,
              WorkGroupFunction fn)
      : CpuKernel(std::move(module), info.name, info.signature()), layout_(layout), fn_(fn) {}

  void run(void *params, const std::array<uint32_t, 3> &dims) const override {
    void *const args[1] = {&params};
    runWorkGroups(fn_, args, taskRange(dims), layout_.staticLocalBytes, layout_, name());
  }

  uint64_t staticLocalBytes() const override { return layout_.staticLocalBytes; }

  // A 1-D range of groups that may merge (and no __local argument), as fewer, larger groups
  // along x: about kMergedGroupItems work-items each, while every thread keeps
  // kPiecesPerThread of them.
  core::NDRange merged(const core::NDRange &range, const core::KernelArgs &given) const {
    bool localArgs = std::any_of(given.args.begin(), given.args.end(),
                                 [](const auto &a) { return a.kind == XPURT_KERNEL_ARG_LOCAL; });
    if (!layout_.groupsMayMerge || localArgs || range.globalSize[1] != 1 ||
        range.globalSize[2] != 1)
      return range;
    uint64_t groups = (range.globalSize[0] + range.localSize[0] - 1) / range.localSize[0];
    uint64_t threads = static_cast<uint64_t>(tbb::this_task_arena::max_concurrency());
    uint64_t factor = std::min(std::max<uint64_t>(1, kMergedGroupItems / range.localSize[0]),
                               std::max<uint64_t>(1, groups / (kPiecesPerThread * threads)));
    core::NDRange m = range;
    m.localSize[0] *= factor;
    return m;
  }

  void checkDeviceLimits(const core::KernelArgs &given, const core::NDRange &) const override {
    if (uint64_t bytes = localLayout(given, nullptr); bytes > kMaxLocalBytesPerGroup)
      core::fail(
          XPURT_ERROR_OUT_OF_RANGE,
          "kernel '{}' would need {} of __local memory per work-group ({} bytes of static "
          "__local variables plus the __local arguments); the CPU device gives at most {} "
          "bytes: ask for less local memory",
          name(),
          bytes == UINT64_MAX ? std::string("more than that") : std::to_string(bytes) + " bytes",
          layout_.staticLocalBytes, kMaxLocalBytesPerGroup);
  }

  // The group's __local memory: static variables, then each __local argument, each 128-byte
  // aligned. Checked at launch against kMaxLocalBytesPerGroup, so nothing here can wrap.
  uint64_t localLayout(const core::KernelArgs &given, std::vector<uint64_t> *offsets) const {
    uint64_t bytes = (layout_.staticLocalBytes + 127) / 128 * 128;
    for (size_t i = 0; i < given.args.size(); ++i) {
      const auto &a = given.args[i];
      if (a.kind != XPURT_KERNEL_ARG_LOCAL) continue;
      uint64_t asked;  // the launch stored the size it was given, not the 32-bit summary
      std::memcpy(&asked, given.data.data() + a.offset, sizeof asked);
      if (offsets) (*offsets)[i] = bytes;
      if (asked > kMaxLocalBytesPerGroup || bytes > kMaxLocalBytesPerGroup) return UINT64_MAX;
      bytes += (asked + 127) / 128 * 128;
    }
    return bytes;
  }

  void run(const core::KernelArgs &given, const core::NDRange &range) const override {
    std::vector<void *> args(given.args.size());
    std::vector<uint64_t> localOffsets(given.args.size());
    size_t localBytes = localLayout(given, &localOffsets);
    // Memory view arguments are resolved now, from the ranges the command names.
    std::vector<void *> pointers(given.args.size());
    for (const core::KernelArgs::ViewArg &v : given.views) pointers[v.index] = v.ref.pointer();
    for (size_t i = 0; i < given.args.size(); ++i) {
      const auto &a = given.args[i];
      if (a.kind == XPURT_KERNEL_ARG_LOCAL) {
        args[i] = &localOffsets[i];
      } else if (a.kind == XPURT_KERNEL_ARG_MEMORY_VIEW) {
        args[i] = &pointers[i];
      } else {
        args[i] = const_cast<std::byte *>(given.data.data() + a.offset);
      }
    }
    runWorkGroups(fn_, args.data(), merged(range, given), localBytes, layout_, name());
  }

 private:
  KernelLayout layout_;
  WorkGroupFunction fn_;
};

// A module's machine code and kernels, shared by every load of the same module.
struct CompiledModule {
  std::unique_ptr<JitEngine::Code> code;
  CompiledKernels kernels;
  std::map<std::string, WorkGroupFunction> functions;
};

class SpirvModule final : public core::Module {
 public:
  SpirvModule(core::Ref<core::Device> device, std::string name,
              std::shared_ptr<const CompiledModule> compiled)
      : core::Module(std::move(device), std::move(name)), compiled_(std::move(compiled)) {}

  core::Ref<core::Kernel> createKernel(const std::string &kernelName) override {
    const CompiledKernels &k = compiled_->kernels;
    if (auto why = k.unavailable.find(kernelName); why != k.unavailable.end())
      core::fail(XPURT_ERROR_UNSUPPORTED,
                 "{} (module '{}'); the module's other kernels can be used: rewrite this one "
                 "without those builtins, or run it on another device",
                 why->second, name());
    for (const KernelInfo &info : k.kernels)
      if (info.name == kernelName)
        return core::makeRef<SpirvKernel>(core::Ref<core::Module>(this), info,
                                          k.layouts.at(kernelName),
                                          compiled_->functions.at(kernelName));
    std::string list;
    for (const KernelInfo &info : k.kernels) list += (list.empty() ? "" : ", ") + info.name;
    core::fail(XPURT_ERROR_NOT_FOUND, "kernel '{}' is not in module '{}' (its kernels: {})",
               kernelName, name(), list);
  }

 private:
  std::shared_ptr<const CompiledModule> compiled_;
};

std::shared_ptr<CompiledModule> link(CacheEntry entry, const std::string &name) {
  auto compiled = std::make_shared<CompiledModule>();
  compiled->code = JitEngine::instance().load(entry.objects, name);
  for (const KernelInfo &k : entry.kernels.kernels) {
    if (entry.kernels.unavailable.count(k.name)) continue;
    std::string why;
    auto fn = reinterpret_cast<WorkGroupFunction>(
        compiled->code->lookup(workGroupFunctionName(k.name), &why));
    if (!fn)
      core::fail(XPURT_ERROR_UNKNOWN,
                 "kernel '{}' of '{}' could not be linked into the process ({}): it calls a "
                 "function that neither the module, the OpenCL builtin library nor the process "
                 "defines",
                 k.name, name, why);
    compiled->functions[k.name] = fn;
  }
  compiled->kernels = std::move(entry.kernels);
  return compiled;
}

// Modules compiled in this process, while any load of them lives (and no longer).
struct MemoryCache {
  std::mutex mutex;
  std::map<std::pair<uint64_t, uint64_t>, std::pair<std::string, std::weak_ptr<CompiledModule>>>
      entries;  // key hash -> (key material, module)
};

MemoryCache &memoryCache() {
  static auto *cache = new MemoryCache;
  return *cache;
}

}  // namespace

core::Ref<core::Module> loadSpirvModule(core::Ref<core::Device> device,
                                        std::span<const std::byte> bytes, const std::string &name,
                                        const core::ModuleOptions &options) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  CacheKey key = makeCacheKey(bytes, options, JitEngine::instance());
  std::pair<uint64_t, uint64_t> hash{key.hash[0], key.hash[1]};
  MemoryCache &memory = memoryCache();
  {
    std::lock_guard lock(memory.mutex);
    auto it = memory.entries.find(hash);
    if (it != memory.entries.end() && it->second.first == key.material)
      if (auto compiled = it->second.second.lock())
        return core::makeRef<SpirvModule>(std::move(device), name, std::move(compiled));
  }
  std::optional<std::filesystem::path> dir = core::disk_cache::directory();
  std::optional<CacheEntry> entry = dir ? readCacheEntry(*dir, key) : std::nullopt;
  const char *how = "from the disk cache";
  if (!entry) {
    spirv::CheckedModule checked = checkSpirvForCpu(bytes, name);
    // Never compiled, so never cached: this path sees every load of such a module.
    if (checked.preamble.linkOnly())
      return core::makeRef<spirv::LinkOnlyModule>(std::move(device), name, checked.preamble);
    std::string compiled;
    try {
      compiled = core::compileInWorker("cpu", checked.words, name, options);
    } catch (const core::WorkerCrashed &e) {
      // LLVM 15's x86 back end fails on some vector code of the work-item vectoriser's (16-bit
      // elements on AVX-512: "Cannot select: v16i16 = X86ISD::VZEXT_MOVL"): compiled again
      // without it, rather than refused.
      if (!workItemVectorizerEnabled()) throw;
      core::log().warn("{} Compiling it again with work-items one at a time", e.what());
      compiled = core::compileInWorker(kCpuScalarCompiler, checked.words, name, options);
    }
    entry = deserializeEntry(compiled);
    if (!entry)
      core::fail(XPURT_ERROR_UNKNOWN, "module '{}': the JIT's compiled module is malformed", name);
    if (dir) writeCacheEntry(*dir, key, *entry);
    how = "compiled";
  }
  std::shared_ptr<CompiledModule> compiled = link(std::move(*entry), name);
  {
    std::lock_guard lock(memory.mutex);
    // Entries of modules no load holds any more go now: the cache never outgrows what lives.
    std::erase_if(memory.entries, [](const auto &e) { return e.second.second.expired(); });
    memory.entries[hash] = {key.material, compiled};
  }
  core::log().debug("SPIR-V module '{}' {} in {:.2f} ms", name, how, elapsed());
  return core::makeRef<SpirvModule>(std::move(device), name, std::move(compiled));
}

}  // namespace xpurt::cpu
