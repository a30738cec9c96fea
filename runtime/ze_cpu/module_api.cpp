// Modules and their build logs: SPIR-V through the CPU device's intake checks and JIT (in its
// worker process). Native binaries are refused: this device runs SPIR-V only.
#include "api.hpp"
#include "context.hpp"
#include "core/error.hpp"
#include "driver.hpp"
#include "entry.hpp"
#include "kernel.hpp"
#include "spirv/spec_constants.hpp"
#include "spirv/spirv_binary.hpp"

#include <cstring>
#include <memory>

namespace xpurt::ze_cpu {
namespace {

ModuleObject &moduleOf(ze_module_handle_t handle) {
  requireHandle(handle);
  return *fromHandle<ModuleObject>(handle);
}

// Level Zero passes each specialization constant as a pointer to a value whose size is the
// constant's type's (bool: one byte), which only the module knows.
std::vector<std::pair<uint32_t, uint64_t>> specConstantValues(std::span<const uint32_t> words,
                                                              const ze_module_constants_t &given,
                                                              const std::string &name) {
  std::vector<std::pair<uint32_t, uint64_t>> values;
  if (given.numConstants == 0) return values;
  requirePointer(given.pConstantIds);
  requirePointer(given.pConstantValues);
  std::map<uint32_t, spirv::SpecConstantType> declared = spirv::declaredSpecConstants(words, name);
  for (uint32_t i = 0; i < given.numConstants; ++i) {
    uint32_t id = given.pConstantIds[i];
    requirePointer(given.pConstantValues[i]);
    auto it = declared.find(id);
    if (it == declared.end())
      core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                 "module '{}' has no specialization constant with id {}, so the size of its "
                 "value is unknown",
                 name, id);
    uint64_t value = 0;  // the bytes given, zero-extended (little-endian)
    std::memcpy(&value, given.pConstantValues[i], std::max<uint32_t>(it->second.bits / 8, 1));
    values.emplace_back(id, value);
  }
  return values;
}

void giveLog(ze_module_build_log_handle_t *phBuildLog, std::string text) {
  if (phBuildLog)
    *phBuildLog = toHandle<ze_module_build_log_handle_t>(new BuildLog{std::move(text)});
}

}  // namespace

ModuleObject::ModuleObject(core::Ref<core::Module> module, std::vector<std::string> kernelNames)
    : module_(std::move(module)), names_(std::move(kernelNames)) {
  for (const std::string &name : names_) {
    namePointers_.push_back(name.c_str());
    try {
      module_->createKernel(name);
    } catch (const core::Error &e) {
      unresolved_[name] = e.what();
    }
  }
}

namespace api {

ze_result_t zeModuleCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                           const ze_module_desc_t *desc, ze_module_handle_t *phModule,
                           ze_module_build_log_handle_t *phBuildLog) {
  return entry(ApiId::zeModuleCreate, [&] {
    contextOf(hContext);
    DeviceObject &device = deviceOf(hDevice);
    requirePointer(desc);
    requirePointer(desc->pInputModule);
    requirePointer(phModule);
    if (desc->format > ZE_MODULE_FORMAT_NATIVE) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->inputSize == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    *phModule = nullptr;
    if (desc->format == ZE_MODULE_FORMAT_NATIVE) {
      giveLog(phBuildLog,
              "this device (" + device.name() +
                  ") takes SPIR-V modules only (ZE_MODULE_FORMAT_IL_SPIRV); it has no native "
                  "binary format, and a binary for another device cannot run on it");
      return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    std::string name = "zeModuleCreate input (" + std::to_string(desc->inputSize) + " bytes)";
    std::span<const std::byte> bytes(reinterpret_cast<const std::byte *>(desc->pInputModule),
                                     desc->inputSize);
    std::unique_ptr<ModuleObject> module;
    try {
      std::vector<uint32_t> words = spirv::toWords(bytes, name);
      core::ModuleOptions options;
      if (desc->pBuildFlags) options.buildFlags = desc->pBuildFlags;
      if (desc->pConstants)
        options.specConstants = specConstantValues(words, *desc->pConstants, name);
      core::Ref<core::Module> compiled = device.cpu().loadSpirv(bytes, name, options);
      module = std::make_unique<ModuleObject>(std::move(compiled),
                                              spirv::readPreamble(words, name).kernels);
    } catch (const core::Error &e) {
      describeError(e.what());
      if (e.code() == XPURT_ERROR_OUT_OF_MEMORY) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
      giveLog(phBuildLog, e.what());
      return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    // A successful build logs only kernels that cannot be created (unresolved builtins).
    std::string log;
    for (const auto &[kernel, why] : module->unresolved()) log += why + "\n";
    giveLog(phBuildLog, std::move(log));
    *phModule = toHandle<ze_module_handle_t>(module.release());
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeModuleDestroy(ze_module_handle_t hModule) {
  return entry(ApiId::zeModuleDestroy, [&] {
    delete &moduleOf(hModule);  // launches that still hold its code keep it alive
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeModuleDynamicLink(uint32_t numModules, ze_module_handle_t *phModules,
                                ze_module_build_log_handle_t *phLinkLog) {
  return entry(ApiId::zeModuleDynamicLink, [&] {
    requirePointer(phModules);
    for (uint32_t i = 0; i < numModules; ++i) moduleOf(phModules[i]);
    giveLog(phLinkLog,
            "the CPU device compiles every module by itself: a module's imports cannot be "
            "resolved from another module");
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
  });
}

ze_result_t zeModuleBuildLogDestroy(ze_module_build_log_handle_t hModuleBuildLog) {
  return entry(ApiId::zeModuleBuildLogDestroy, [&] {
    requireHandle(hModuleBuildLog);
    delete fromHandle<BuildLog>(hModuleBuildLog);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeModuleBuildLogGetString(ze_module_build_log_handle_t hModuleBuildLog, size_t *pSize,
                                      char *pBuildLog) {
  return entry(ApiId::zeModuleBuildLogGetString, [&] {
    requireHandle(hModuleBuildLog);
    return copyString(fromHandle<BuildLog>(hModuleBuildLog)->text, pSize, pBuildLog);
  });
}

ze_result_t zeModuleGetNativeBinary(ze_module_handle_t hModule, size_t *pSize,
                                    uint8_t *pModuleNativeBinary) {
  return entry(ApiId::zeModuleGetNativeBinary, [&] {
    (void)pModuleNativeBinary;
    moduleOf(hModule);
    requirePointer(pSize);
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;  // compiled code lives in the JIT's memory only
  });
}

ze_result_t zeModuleGetKernelNames(ze_module_handle_t hModule, uint32_t *pCount,
                                   const char **pNames) {
  return entry(ApiId::zeModuleGetKernelNames, [&] {
    const std::vector<const char *> &names = moduleOf(hModule).kernelNames();
    requirePointer(pCount);
    auto total = static_cast<uint32_t>(names.size());
    if (*pCount == 0 || !pNames) {
      *pCount = total;
      return ZE_RESULT_SUCCESS;
    }
    *pCount = std::min(*pCount, total);
    std::copy_n(names.begin(), *pCount, pNames);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeModuleGetProperties(ze_module_handle_t hModule,
                                  ze_module_properties_t *pModuleProperties) {
  return entry(ApiId::zeModuleGetProperties, [&] {
    ModuleObject &module = moduleOf(hModule);
    requirePointer(pModuleProperties);
    pModuleProperties->flags = module.unresolved().empty() ? 0 : ZE_MODULE_PROPERTY_FLAG_IMPORTS;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeModuleGetFunctionPointer(ze_module_handle_t hModule, const char *pFunctionName,
                                       void **pfnFunction) {
  return entry(ApiId::zeModuleGetFunctionPointer, [&] {
    moduleOf(hModule);
    requirePointer(pFunctionName);
    requirePointer(pfnFunction);
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;  // the JIT exports no device functions
  });
}

}  // namespace api
}  // namespace xpurt::ze_cpu
