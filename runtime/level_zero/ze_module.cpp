#include "ze_module.hpp"

#include "core/config.hpp"
#include "core/disk_cache.hpp"
#include "core/jit_worker.hpp"
#include "core/log.hpp"
#include "core/module_loader.hpp"
#include "jit_build_id.h"
#include "spirv/extension_lowering.hpp"
#include "spirv/kernel_reflection.hpp"
#include "spirv/launch_values.hpp"
#include "spirv/module_linking.hpp"
#include "spirv/spirv_binary.hpp"
#include "ze_call.hpp"
#include "ze_handles.hpp"

#include <fmt/format.h>

namespace xpurt::level_zero {
namespace {

constexpr std::string_view kCacheName = "level_zero";

// The kernels' signatures, from the disk cache or reflected in the JIT worker.
std::vector<spirv::KernelInfo> reflect(std::span<const std::byte> bytes,
                                       const std::vector<uint32_t> &words, const std::string &name,
                                       const core::ModuleOptions &options) {
  std::string material =
      fmt::format("xpurt {}.{}.{} build {} reflection|flags={}|spec=", XPURT_VERSION_MAJOR,
                  XPURT_VERSION_MINOR, XPURT_VERSION_PATCH, XPURT_JIT_BUILD_ID, options.buildFlags);
  for (auto [id, value] : options.specConstants) material += fmt::format("{}:{},", id, value);
  core::disk_cache::Key key = core::disk_cache::makeKey(bytes, std::move(material));
  std::optional<std::filesystem::path> dir = core::disk_cache::directory();
  if (dir) {
    if (auto payload = core::disk_cache::read(*dir, kCacheName, key)) {
      if (auto kernels = spirv::deserializeKernels(*payload)) return std::move(*kernels);
      core::disk_cache::reject(*dir, kCacheName, key, "malformed");
    }
  }
  std::string payload = core::compileInWorker("level_zero", words, name, options);
  auto kernels = spirv::deserializeKernels(payload);
  if (!kernels)
    core::fail(XPURT_ERROR_UNKNOWN, "module '{}': the JIT worker's reflection is malformed", name);
  if (dir) core::disk_cache::write(*dir, kCacheName, key, payload);
  return std::move(*kernels);
}

std::string buildLog(ze_module_build_log_handle_t log) {
  if (!log) return {};
  size_t size = 0;
  std::string text;
  if (zeModuleBuildLogGetString(log, &size, nullptr) == ZE_RESULT_SUCCESS && size > 0) {
    text.resize(size);
    if (zeModuleBuildLogGetString(log, &size, text.data()) != ZE_RESULT_SUCCESS) text.clear();
    while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
  }
  DestroyingHandles destroying;
  zeModuleBuildLogDestroy(log);
  return text;
}

// zeModuleCreate with the options; throws INVALID_MODULE with the build log on failure.
ze_module_handle_t createModule(ZeDevice &device, ze_module_format_t format,
                                std::span<const std::byte> bytes, const std::string &name,
                                const core::ModuleOptions &options) {
  std::string flags = buildFlags(options.buildFlags);
  std::vector<uint32_t> ids;
  std::vector<const void *> values;
  for (const auto &[id, value] : options.specConstants) {
    ids.push_back(id);
    // Level Zero reads as many bytes as the constant's type has, from the start: the low
    // bytes of the 64-bit value on this little-endian host.
    values.push_back(&value);
  }
  ze_module_constants_t constants{static_cast<uint32_t>(ids.size()), ids.data(), values.data()};
  auto desc = zeStruct<ze_module_desc_t>(ZE_STRUCTURE_TYPE_MODULE_DESC);
  desc.format = format;
  desc.inputSize = bytes.size();
  desc.pInputModule = reinterpret_cast<const uint8_t *>(bytes.data());
  desc.pBuildFlags = flags.c_str();
  desc.pConstants = ids.empty() ? nullptr : &constants;
  ze_module_handle_t module = nullptr;
  ze_module_build_log_handle_t log = nullptr;
  ze_result_t r = createHandle([&] {
    return zeModuleCreate(device.context().handle(), device.handle(), &desc, &module, &log);
  });
  std::string text = buildLog(log);
  if (r != ZE_RESULT_SUCCESS)
    core::failDriverModule({toXpurtResult(r), name, "Level Zero", "build", device.label(),
                            "zeModuleCreate", resultName(r), "build log", text});
  if (!text.empty()) core::log().info("module '{}': build log:\n{}", name, text);
  return module;
}

std::vector<std::string> kernelNames(ze_module_handle_t module) {
  uint32_t count = 0;
  check(zeModuleGetKernelNames(module, &count, nullptr), "zeModuleGetKernelNames");
  std::vector<const char *> names(count);
  check(zeModuleGetKernelNames(module, &count, names.data()), "zeModuleGetKernelNames");
  return {names.begin(), names.begin() + count};
}

}  // namespace

std::string buildFlags(const std::string &moduleFlags) {
  std::string flags = moduleFlags;
  if (auto igc = core::envValue("ISPCRT_IGC_OPTIONS"); igc && !igc->empty()) {
    char how = (*igc)[0];
    std::string rest = igc->substr(1);
    if (how == '+')
      flags += (flags.empty() ? "" : " ") + rest;
    else if (how == '=')
      flags = rest;
    else
      core::fail(XPURT_ERROR_INVALID_CONFIG,
                 "ISPCRT_IGC_OPTIONS='{}' must start with '+' (add these options) or '=' "
                 "(use only these options)",
                 *igc);
  }
  return flags;
}

ZeModule::ZeModule(core::Ref<ZeDevice> device, std::string name, ze_module_handle_t handle,
                   std::map<std::string, core::KernelSignature> signatures,
                   std::vector<uint32_t> spirv, core::ModuleOptions options)
    : core::Module(std::move(device), std::move(name)),
      handle_(handle),
      signatures_(std::move(signatures)),
      spirv_(std::move(spirv)),
      options_(std::move(options)) {}

ZeModule::~ZeModule() {
  DestroyingHandles destroying;
  if (variant_ && variant_->handle != handle_)
    if (ze_result_t r = zeModuleDestroy(variant_->handle); r != ZE_RESULT_SUCCESS)
      core::log().warn("Level Zero: zeModuleDestroy failed with {}", resultName(r));
  if (ze_result_t r = zeModuleDestroy(handle_); r != ZE_RESULT_SUCCESS)
    core::log().warn("Level Zero: zeModuleDestroy failed with {}", resultName(r));
}

ZeModule::LaunchValueVariant ZeModule::launchValueVariant() {
  std::lock_guard lock(variantMutex_);
  if (variant_) return *variant_;
  if (spirv_.empty())
    core::fail(XPURT_ERROR_UNSUPPORTED,
               "module '{}' is a native binary: {} launches its kernels in whole work-groups "
               "without a global offset only",
               name(), device().label());
  spirv::LaunchValueModule rewritten = spirv::addLaunchValues(spirv_, name());
  LaunchValueVariant variant{handle_, rewritten.takesLaunchValues};
  if (rewritten.takesLaunchValues) {
    core::log().debug(
        "module '{}': built again with its kernels taking the launch's values, "
        "for a partial work-group or a global offset",
        name());
    std::span<const std::byte> il = std::as_bytes(std::span<const uint32_t>(rewritten.words));
    variant.handle = createModule(static_cast<ZeDevice &>(device()), ZE_MODULE_FORMAT_IL_SPIRV, il,
                                  name(), options_);
  }
  variant_ = variant;
  return variant;
}

core::Ref<core::Kernel> ZeModule::createKernel(const std::string &kernelName) {
  std::vector<std::string> names = kernelNames(handle_);
  if (std::find(names.begin(), names.end(), kernelName) == names.end()) {
    std::string list;
    for (const std::string &n : names) list += (list.empty() ? "" : ", ") + n;
    core::fail(XPURT_ERROR_NOT_FOUND, "kernel '{}' is not in module '{}' (its kernels: {})",
               kernelName, name(), list);
  }
  std::optional<core::KernelSignature> signature;
  if (auto it = signatures_.find(kernelName); it != signatures_.end()) signature = it->second;
  return core::makeRef<ZeKernel>(core::Ref<ZeModule>(this), kernelName, std::move(signature));
}

ZeKernel::ZeKernel(core::Ref<ZeModule> module, std::string name,
                   std::optional<core::KernelSignature> signature)
    : core::Kernel(std::move(module), std::move(name), std::move(signature)) {
  auto desc = zeStruct<ze_kernel_desc_t>(ZE_STRUCTURE_TYPE_KERNEL_DESC);
  desc.pKernelName = this->name().c_str();
  check(createHandle([&] { return zeKernelCreate(zeModule().handle(), &desc, &prototype_); }),
        "zeKernelCreate",
        fmt::format("kernel '{}' of module '{}'", this->name(), zeModule().name()));
}

ZeKernel::~ZeKernel() {
  DestroyingHandles destroying;
  if (prototype_) zeKernelDestroy(prototype_);
}

std::optional<std::array<uint64_t, 3>> ZeKernel::suggestLocalSize(
    const core::NDRange &range) const {
  for (uint64_t g : range.globalSize)
    if (g > UINT32_MAX) return std::nullopt;  // the call takes 32-bit sizes
  std::lock_guard lock(suggestedMutex_);
  if (auto it = suggested_.find(range.globalSize); it != suggested_.end()) return it->second;
  uint32_t x = 0, y = 0, z = 0;
  if (zeKernelSuggestGroupSize(prototype_, static_cast<uint32_t>(range.globalSize[0]),
                               static_cast<uint32_t>(range.globalSize[1]),
                               static_cast<uint32_t>(range.globalSize[2]), &x, &y,
                               &z) != ZE_RESULT_SUCCESS ||
      x == 0 || y == 0 || z == 0)
    return std::nullopt;  // the runtime chooses
  if (suggested_.size() > 256) suggested_.clear();
  std::array<uint64_t, 3> local{x, y, z};
  suggested_.emplace(range.globalSize, local);
  return local;
}

core::Ref<core::Module> loadZeSpirvModule(core::Ref<ZeDevice> device,
                                          std::span<const std::byte> bytes, const std::string &name,
                                          const core::ModuleOptions &options) {
  // The driver's compiler decides which capabilities it takes: the intake checks everything
  // else (header, validation, what the translator reading the module for reflection needs).
  spirv::CheckedModule checked = spirv::checkModule(bytes, name, device->label());
  for (const std::string &w : checked.warnings)
    core::log().debug("SPIR-V module '{}': {}", name, w);
  // Linked into another module before the driver sees it (xpurtLinkModules).
  if (checked.preamble.linkOnly())
    return core::makeRef<spirv::LinkOnlyModule>(std::move(device), name, checked.preamble);
  std::map<std::string, core::KernelSignature> signatures;
  for (const spirv::KernelInfo &k : reflect(bytes, checked.words, name, options))
    signatures.emplace(k.name, k.signature());
  // The driver gets the module with newer extensions' instructions in core SPIR-V: the Level
  // Zero API does not say which extensions its compiler reads.
  spirv::LoweredModule lowered = spirv::lowerNewerExtensions(checked.words, name);
  if (!lowered.extensions.empty())
    core::log().debug("SPIR-V module '{}': {} rewritten in core SPIR-V for the driver", name,
                      fmt::join(lowered.extensions, ", "));
  std::span<const std::byte> il = std::as_bytes(std::span<const uint32_t>(lowered.words));
  ze_module_handle_t module = createModule(*device, ZE_MODULE_FORMAT_IL_SPIRV, il, name, options);
  return core::makeRef<ZeModule>(std::move(device), name, module, std::move(signatures),
                                 std::move(lowered.words), options);
}

core::Ref<core::Module> loadZeNativeModule(core::Ref<ZeDevice> device,
                                           const core::NativeLibrary &library,
                                           const core::ModuleOptions &options) {
  std::optional<std::string> bytes = core::nativeLibraryBytes(library);
  if (!bytes) return nullptr;  // a bare name: a Level Zero device has no library search of its own
  std::span<const std::byte> data(reinterpret_cast<const std::byte *>(bytes->data()),
                                  bytes->size());
  ze_module_handle_t module =
      createModule(*device, ZE_MODULE_FORMAT_NATIVE, data, library.name, options);
  return core::makeRef<ZeModule>(std::move(device), library.name, module,
                                 std::map<std::string, core::KernelSignature>{});
}

}  // namespace xpurt::level_zero
