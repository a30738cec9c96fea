#include "cuda_module.hpp"

#include "core/command.hpp"
#include "core/disk_cache.hpp"
#include "core/jit_worker.hpp"
#include "core/log.hpp"
#include "jit_build_id.h"
#include "ptx_compiler.hpp"
#include "spirv/module_linking.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

namespace xpurt::cuda {
namespace {

constexpr std::string_view kCacheName = "cuda";
constexpr uint64_t kMaxLocalArgumentBytes = uint64_t{1} << 32;

constexpr std::string_view kCubinCacheName = "cuda_cubin";

core::disk_cache::Key cacheKey(std::span<const std::byte> bytes, const core::ModuleOptions &options,
                               std::string material) {
  material = fmt::format("xpurt {}.{}.{} build {} {}|spec=", XPURT_VERSION_MAJOR,
                         XPURT_VERSION_MINOR, XPURT_VERSION_PATCH, XPURT_JIT_BUILD_ID, material);
  for (auto [id, value] : options.specConstants) material += fmt::format("{}:{},", id, value);
  return core::disk_cache::makeKey(bytes, std::move(material));
}

// The PTX for the device's target: from the disk cache, or compiled in the JIT worker.
PtxModule compile(const CudaDevice &device, std::span<const std::byte> bytes,
                  const std::vector<uint32_t> &words, const std::string &name,
                  const core::ModuleOptions &options) {
  int sm = device.description().ptxTarget;
  core::disk_cache::Key key =
      cacheKey(bytes, options, fmt::format("ptx sm_{} {}", sm, libdeviceIdentity()));
  std::optional<std::filesystem::path> dir = core::disk_cache::directory();
  if (dir) {
    if (auto payload = core::disk_cache::read(*dir, kCacheName, key)) {
      if (auto module = deserializePtxModule(*payload)) return std::move(*module);
      core::disk_cache::reject(*dir, kCacheName, key, "malformed");
    }
  }
  std::string payload = core::compileInWorker(fmt::format("cuda_sm_{}", sm), words, name, options);
  auto module = deserializePtxModule(payload);
  if (!module)
    core::fail(XPURT_ERROR_UNKNOWN, "module '{}': the JIT worker's PTX is malformed", name);
  if (dir) core::disk_cache::write(*dir, kCacheName, key, payload);
  return std::move(*module);
}

// The driver's JIT of PTX to the device's own code (cuLink*), or nothing where it fails: the
// caller then loads the PTX itself, which reports the JIT log.
std::optional<std::string> assembleCubin(CudaDevice &device, const std::string &ptx,
                                         const std::string &name) {
  ContextScope scope(device.context());
  CUlinkState link = nullptr;
  if (cu().LinkCreate(0, nullptr, nullptr, &link) != CUDA_SUCCESS) return std::nullopt;
  std::optional<std::string> cubin;
  void *image = nullptr;
  size_t size = 0;
  if (cu().LinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char *>(ptx.c_str()), ptx.size() + 1,
                       name.c_str(), 0, nullptr, nullptr) == CUDA_SUCCESS &&
      cu().LinkComplete(link, &image, &size) == CUDA_SUCCESS && image && size)
    cubin.emplace(static_cast<const char *>(image), size);  // the link state owns the image
  cu().LinkDestroy(link);
  return cubin;
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
    if (code == XPURT_ERROR_UNKNOWN || code == XPURT_ERROR_INVALID_ARGUMENT)
      code = XPURT_ERROR_INVALID_MODULE;
    core::fail(code,
               "module '{}': the CUDA driver could not load it for {} (cuModuleLoadDataEx failed "
               "with {}){}{}",
               name, device.label(), resultName(r), errors.empty() ? "" : "; JIT log:\n", errors);
  }
  if (!info.empty()) core::log().debug("module '{}': CUDA JIT log:\n{}", name, info);
  return module;
}

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
                       std::set<std::string> launchValueKernels)
    : core::Module(std::move(device), std::move(name)),
      handle_(handle),
      signatures_(std::move(signatures)),
      unavailable_(std::move(unavailable)),
      launchValueKernels_(std::move(launchValueKernels)) {}

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
  // The device's own code, cached beside the PTX: loading it skips the driver's PTX JIT, which
  // costs milliseconds even when the driver's own cache has the result. Its key holds the
  // module's bytes, which were checked when it was compiled: a hit skips the checks too.
  const CudaDeviceDescription &d = device->description();
  core::disk_cache::Key cubinKey =
      cacheKey(bytes, options,
               fmt::format("cubin sm_{}{} driver {} {}", d.computeMajor, d.computeMinor,
                           cu().version, libdeviceIdentity()));
  std::optional<std::filesystem::path> dir = core::disk_cache::directory();
  std::optional<PtxModule> ptx;
  CUmodule module = nullptr;
  const char *how = "from the disk cache";
  if (dir) {
    if (auto payload = core::disk_cache::read(*dir, kCubinCacheName, cubinKey)) {
      ptx = deserializePtxModule(*payload);
      if (ptx) {
        try {
          module = loadImage(*device, ptx->ptx.data(), name);
        } catch (const core::Error &e) {
          core::log().debug("module '{}': cached device code not loaded ({}); compiling again",
                            name, e.what());
          ptx.reset();
        }
      }
      if (!ptx) core::disk_cache::reject(*dir, kCubinCacheName, cubinKey, "not loadable");
    }
  }
  if (!ptx) {
    spirv::CheckedModule checked = checkSpirvForCuda(bytes, name);
    // Linked into another module before it is compiled (xpurtLinkModules).
    if (checked.preamble.linkOnly())
      return core::makeRef<spirv::LinkOnlyModule>(std::move(device), name, checked.preamble);
    ptx = compile(*device, bytes, checked.words, name, options);
    std::optional<std::string> cubin = assembleCubin(*device, ptx->ptx, name);
    if (cubin) {
      std::string text = std::exchange(ptx->ptx, std::move(*cubin));
      module = loadImage(*device, ptx->ptx.data(), name);
      if (dir) core::disk_cache::write(*dir, kCubinCacheName, cubinKey, serializePtxModule(*ptx));
      ptx->ptx = std::move(text);
    } else {
      module = loadImage(*device, ptx->ptx.c_str(), name);  // fails with the JIT log
    }
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
                                   std::move(ptx->unavailable), std::move(ptx->launchValueKernels));
}

core::Ref<core::Module> loadCudaNativeModule(core::Ref<CudaDevice> device,
                                             const core::NativeLibrary &library,
                                             const core::ModuleOptions &) {
  std::string bytes;
  if (library.kind == core::NativeLibrary::Kind::Memory) {
    bytes.assign(static_cast<const char *>(library.data), library.size);
  } else if (library.kind == core::NativeLibrary::Kind::File) {
    std::ifstream in(library.path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
    if (!in && !in.eof())
      core::fail(XPURT_ERROR_NOT_FOUND, "module '{}': cannot read '{}'", library.name,
                 library.path);
  } else {
    return nullptr;  // a bare name: a CUDA device has no library search of its own
  }
  std::span<const std::byte> span(reinterpret_cast<const std::byte *>(bytes.data()), bytes.size());
  if (isPtxText(span) && bytes.find('\0') == std::string::npos)
    bytes.push_back('\0');  // the driver reads PTX as a C string
  CUmodule module = loadImage(*device, bytes.data(), library.name);
  return core::makeRef<CudaModule>(std::move(device), library.name, module,
                                   std::map<std::string, core::KernelSignature>{},
                                   std::map<std::string, std::string>{});
}

}  // namespace xpurt::cuda
