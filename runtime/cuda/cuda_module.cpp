#include "cuda_module.hpp"

#include "core/command.hpp"
#include "core/disk_cache.hpp"
#include "core/jit_worker.hpp"
#include "core/log.hpp"
#include "core/module_loader.hpp"
#include "jit_build_id.h"
#include "ptx_compiler.hpp"
#include "spirv/module_linking.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <utility>

namespace xpurt::cuda {
namespace {

constexpr std::string_view kCacheName = "cuda";
constexpr uint64_t kMaxLocalArgumentBytes = uint64_t{1} << 32;

core::disk_cache::Key cacheKey(std::span<const std::byte> bytes, const core::ModuleOptions &options,
                               std::string material) {
  material = fmt::format("xpurt {}.{}.{} build {} {}|spec=", XPURT_VERSION_MAJOR,
                         XPURT_VERSION_MINOR, XPURT_VERSION_PATCH, XPURT_JIT_BUILD_ID, material);
  for (auto [id, value] : options.specConstants) material += fmt::format("{}:{},", id, value);
  return core::disk_cache::makeKey(bytes, std::move(material));
}

core::disk_cache::Key ptxKey(const CudaDevice &device, std::span<const std::byte> bytes,
                             const core::ModuleOptions &options) {
  return cacheKey(bytes, options,
                  fmt::format("ptx sm_{} {}", device.description().ptxTarget, libdeviceIdentity()));
}

// The PTX for the device's target, compiled in the JIT worker and written to the disk cache.
PtxModule compile(const CudaDevice &device, const std::vector<uint32_t> &words,
                  const std::string &name, const core::ModuleOptions &options,
                  const std::optional<std::filesystem::path> &dir,
                  const core::disk_cache::Key &key) {
  std::string payload = core::compileInWorker(
      fmt::format("cuda_sm_{}", device.description().ptxTarget), words, name, options);
  auto module = deserializePtxModule(payload);
  if (!module)
    core::fail(XPURT_ERROR_UNKNOWN, "module '{}': the JIT worker's PTX is malformed", name);
  if (dir) core::disk_cache::write(*dir, kCacheName, key, payload);
  return std::move(*module);
}

// cuModuleLoadDataEx with the driver's JIT logs; throws INVALID_MODULE quoting the error log.
CUmodule loadImage(CudaDevice &device, const void *image, const std::string &name) {
  ContextScope scope(device.context());
  constexpr size_t kLogSize = 16 * 1024;
  std::string errors(kLogSize, '\0'), info(kLogSize, '\0');
  CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errors.data(), reinterpret_cast<void *>(kLogSize), info.data(),
                    reinterpret_cast<void *>(kLogSize)};
  CUmodule module = nullptr;
  CUresult r = cu().ModuleLoadDataEx(&module, image, 4, keys, values);
  errors.resize(std::strlen(errors.c_str()));
  info.resize(std::strlen(info.c_str()));
  if (r != CUDA_SUCCESS) {
    XpurtResult code = toXpurtResult(r);
    // The driver says INVALID_VALUE of PTX it cannot read.
    if (code == XPURT_ERROR_INVALID_ARGUMENT) code = XPURT_ERROR_INVALID_MODULE;
    core::failDriverModule({code, name, "CUDA", "load", device.label(), "cuModuleLoadDataEx",
                            resultName(r), "JIT log", errors});
  }
  if (!info.empty()) core::log().debug("module '{}': CUDA JIT log:\n{}", name, info);
  return module;
}

constexpr std::string_view kVprintf = "vprintf";

bool isPtxText(std::span<const std::byte> bytes) {
  std::string_view text(reinterpret_cast<const char *>(bytes.data()),
                        std::min<size_t>(bytes.size(), 4096));
  return text.find(".version") != std::string_view::npos &&
         text.find(".target") != std::string_view::npos;
}

}  // namespace

uint64_t layoutLocalArguments(const core::KernelArgs &args, std::vector<uint32_t> *offsets) {
  uint64_t bytes = 0;
  if (offsets) offsets->assign(args.args.size(), 0);
  for (size_t i = 0; i < args.args.size(); ++i) {
    const auto &a = args.args[i];
    if (a.kind != XPURT_KERNEL_ARG_LOCAL) continue;
    uint64_t asked;  // the launch stored the size it was given
    std::memcpy(&asked, args.data.data() + a.offset, sizeof asked);
    if (asked > kMaxLocalArgumentBytes || bytes > kMaxLocalArgumentBytes) return UINT64_MAX;
    if (offsets) (*offsets)[i] = static_cast<uint32_t>(bytes);
    bytes += (asked + 15) / 16 * 16;
  }
  return bytes;
}

CudaModule::CudaModule(core::Ref<CudaDevice> device, std::string name, CUmodule handle,
                       std::map<std::string, core::KernelSignature> signatures,
                       std::map<std::string, std::string> unavailable,
                       std::set<std::string> launchValueKernels, bool prints)
    : core::Module(std::move(device), std::move(name)),
      handle_(handle),
      signatures_(std::move(signatures)),
      unavailable_(std::move(unavailable)),
      launchValueKernels_(std::move(launchValueKernels)),
      prints_(prints) {}

CudaModule::~CudaModule() {
  try {
    releaseLater([context = cudaDevice().sharedContext(), module = handle_, name = name()] {
      try {
        ContextScope scope(context->handle());
        if (CUresult r = cu().ModuleUnload(module); r != CUDA_SUCCESS)
          warnReleaseFailure(fmt::format("CUDA: cuModuleUnload failed with {}", resultName(r)));
      } catch (const core::Error &e) {
        warnReleaseFailure(fmt::format("CUDA: module '{}' not unloaded: {}", name, e.what()));
      }
    });
  } catch (const std::exception &e) {
    warnReleaseFailure(fmt::format("CUDA: module '{}' not unloaded: {}", name(), e.what()));
  }
}

core::Ref<core::Kernel> CudaModule::createKernel(const std::string &kernelName) {
  if (auto it = unavailable_.find(kernelName); it != unavailable_.end())
    core::fail(XPURT_ERROR_UNSUPPORTED, "kernel '{}' of module '{}' cannot run on {}: {}",
               kernelName, name(), cudaDevice().label(), it->second);
  ContextScope scope(cudaDevice().context());
  CUfunction function = nullptr;
  CUresult r = cu().ModuleGetFunction(&function, handle_, kernelName.c_str());
  if (r == CUDA_ERROR_NOT_FOUND || (r == CUDA_ERROR_INVALID_VALUE && kernelName.empty())) {
    std::string list;
    for (const auto &[k, s] : signatures_) list += (list.empty() ? "" : ", ") + k;
    core::fail(XPURT_ERROR_NOT_FOUND, "kernel '{}' is not in module '{}'{}{}", kernelName, name(),
               list.empty() ? "" : " (its kernels: ", list.empty() ? "" : list + ")");
  }
  check(r, "cuModuleGetFunction", fmt::format("kernel '{}' of module '{}'", kernelName, name()));
  std::optional<core::KernelSignature> signature;
  if (auto it = signatures_.find(kernelName); it != signatures_.end()) signature = it->second;
  return core::makeRef<CudaKernel>(core::Ref<CudaModule>(this), kernelName, function,
                                   std::move(signature), launchValueKernels_.count(kernelName) > 0);
}

CudaKernel::CudaKernel(core::Ref<CudaModule> module, std::string name, CUfunction function,
                       std::optional<core::KernelSignature> signature, bool takesLaunchValues)
    : core::Kernel(std::move(module), std::move(name), std::move(signature)),
      function_(function),
      takesLaunchValues_(takesLaunchValues) {
  int value = 0;
  if (cu().FuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function) ==
      CUDA_SUCCESS)
    maxThreads_ = static_cast<uint32_t>(value);
  if (cu().FuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function) == CUDA_SUCCESS)
    staticShared_ = static_cast<uint32_t>(value);
}

void CudaKernel::allowDynamicShared(uint32_t bytes) {
  std::lock_guard lock(sharedMutex_);
  if (bytes <= dynamicSharedAllowed_) return;
  check(cu().FuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              static_cast<int>(bytes)),
        "cuFuncSetAttribute",
        fmt::format("{} bytes of shared memory for kernel '{}'", bytes, name()));
  dynamicSharedAllowed_ = bytes;
}

void CudaKernel::checkDeviceLimits(const core::KernelArgs &args, const core::NDRange &range) const {
  const CudaDeviceDescription &d = static_cast<CudaModule &>(module()).cudaDevice().description();
  uint64_t threads = range.localSize[0] * range.localSize[1] * range.localSize[2];
  if (threads > maxThreads_)
    core::fail(XPURT_ERROR_OUT_OF_RANGE,
               "kernel '{}': work-groups of {} work-items; it runs at most {} per work-group on "
               "this device (its registers allow no more): use smaller work-groups",
               name(), threads, maxThreads_);
  uint64_t local = layoutLocalArguments(args, nullptr);
  uint64_t total = local == UINT64_MAX ? UINT64_MAX : local + staticShared_;
  if (total > d.maxSharedMemoryOptIn)
    core::fail(
        XPURT_ERROR_OUT_OF_RANGE,
        "kernel '{}' would need {} of __local memory per work-group ({} bytes of static "
        "__local variables plus the __local arguments); the device gives at most {} "
        "bytes: ask for less local memory",
        name(),
        total == UINT64_MAX ? std::string("more than that") : std::to_string(total) + " bytes",
        staticShared_, d.maxSharedMemoryOptIn);
}

core::Ref<core::Module> loadCudaSpirvModule(core::Ref<CudaDevice> device,
                                            std::span<const std::byte> bytes,
                                            const std::string &name,
                                            const core::ModuleOptions &options) {
  auto start = std::chrono::steady_clock::now();
  if (!options.buildFlags.empty())
    core::log().info("module '{}': build flags '{}' do not apply to the PTX compiler", name,
                     options.buildFlags);
  // The PTX, cached on disk: its key holds the module's bytes, which were checked when it was
  // compiled, so a hit skips the checks too. The driver compiles it for the device as a whole
  // program and keeps the result in its own cache (CUDA_CACHE_PATH): a load that finds it there
  // costs as much as loading a cubin. (The driver's linker, cuLink*, would give a cubin to cache
  // here, but compiles PTX as relocatable code for linking, which made vector_math 4% slower.)
  core::disk_cache::Key key = ptxKey(*device, bytes, options);
  std::optional<std::filesystem::path> dir = core::disk_cache::directory();
  std::optional<PtxModule> ptx;
  CUmodule module = nullptr;
  const char *how = "from the disk cache";
  if (dir) {
    if (auto payload = core::disk_cache::read(*dir, kCacheName, key)) {
      ptx = deserializePtxModule(*payload);
      if (ptx) {
        try {
          module = loadImage(*device, ptx->ptx.c_str(), name);
        } catch (const core::Error &e) {
          core::log().debug("module '{}': cached PTX not loaded ({}); compiling again", name,
                            e.what());
          ptx.reset();
        }
      }
      if (!ptx) core::disk_cache::reject(*dir, kCacheName, key, "not loadable");
    }
  }
  if (!ptx) {
    spirv::CheckedModule checked = checkSpirvForCuda(bytes, name);
    // Linked into another module before it is compiled (xpurtLinkModules).
    if (checked.preamble.linkOnly())
      return core::makeRef<spirv::LinkOnlyModule>(std::move(device), name, checked.preamble);
    ptx = compile(*device, checked.words, name, options, dir, key);
    module = loadImage(*device, ptx->ptx.c_str(), name);  // fails with the JIT log
    how = "compiled";
  }
  core::log().debug(
      "SPIR-V module '{}' {} for {} in {:.2f} ms", name, how, device->label(),
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  std::map<std::string, core::KernelSignature> signatures;
  for (const spirv::KernelInfo &k : ptx->kernels)
    if (!ptx->unavailable.count(k.name)) signatures.emplace(k.name, k.signature());
  for (const auto &[kernel, why] : ptx->unavailable)
    core::log().warn("module '{}': kernel '{}' cannot run on {}: {}; its other kernels are usable",
                     name, kernel, device->label(), why);
  return core::makeRef<CudaModule>(std::move(device), name, module, std::move(signatures),
                                   std::move(ptx->unavailable), std::move(ptx->launchValueKernels),
                                   ptx->ptx.find(kVprintf) != std::string::npos);
}

core::Ref<core::Module> loadCudaNativeModule(core::Ref<CudaDevice> device,
                                             const core::NativeLibrary &library,
                                             const core::ModuleOptions &) {
  std::optional<std::string> read = core::nativeLibraryBytes(library);
  if (!read) return nullptr;  // a bare name: a CUDA device has no library search of its own
  std::string bytes = std::move(*read);
  std::span<const std::byte> span(reinterpret_cast<const std::byte *>(bytes.data()), bytes.size());
  if (isPtxText(span) && bytes.find('\0') == std::string::npos)
    bytes.push_back('\0');  // the driver reads PTX as a C string
  CUmodule module = loadImage(*device, bytes.data(), library.name);
  // PTX names vprintf where it calls it; so does a cubin's symbol table.
  return core::makeRef<CudaModule>(std::move(device), library.name, module,
                                   std::map<std::string, core::KernelSignature>{},
                                   std::map<std::string, std::string>{}, std::set<std::string>{},
                                   bytes.find(kVprintf) != std::string::npos);
}

}  // namespace xpurt::cuda
