// Modules and kernels.
#include "api_common.hpp"
#include "core/backend.hpp"
#include "core/jit_worker.hpp"
#include "core/module_loader.hpp"
#include "cpu/ispc_task_system.hpp"
#include "spirv/module_linking.hpp"

#include <cstring>

#include <fmt/format.h>

using namespace xpurt;

namespace {

core::ModuleOptions moduleOptions(const XpurtModuleOptions *given) {
  XpurtModuleOptions options = api::versionedInput(given, "XpurtModuleOptions");
  core::ModuleOptions out;
  if (options.buildFlags) out.buildFlags = options.buildFlags;
  if (options.numSpecConstants && (!options.specConstantIds || !options.specConstantValues))
    core::fail(XPURT_ERROR_INVALID_ARGUMENT,
               "XpurtModuleOptions has {} specialization constants but a NULL id or value array",
               options.numSpecConstants);
  for (uint32_t i = 0; i < options.numSpecConstants; ++i)
    out.specConstants.emplace_back(options.specConstantIds[i], options.specConstantValues[i]);
  return out;
}

XpurtResult load(const char *entry, XpurtDevice device, const core::ModuleSource &source,
                 const XpurtModuleOptions *options, XpurtModule *module) {
  return api::guarded(entry, [&] {
    auto dev = api::lookup<core::Device>(device, "device");
    api::checkOut(module, "module");
    api::publish(module, core::loadModule(*dev, source, moduleOptions(options)));
  });
}

core::ModuleSource named(core::ModuleSource::Kind kind, const char *text) {
  if (!text) core::fail(XPURT_ERROR_INVALID_ARGUMENT, "the module name or path is NULL");
  return core::ModuleSource{kind, text};
}

}  // namespace

extern "C" {

XPURT_API XpurtResult xpurtLoadModule(XpurtDevice device, const char *name,
                                      const XpurtModuleOptions *options, XpurtModule *module) {
  core::ModuleSource source;
  XpurtResult r = api::guarded("xpurtLoadModule",
                               [&] { source = named(core::ModuleSource::Kind::Name, name); });
  return r ? r : load("xpurtLoadModule", device, source, options, module);
}

XPURT_API XpurtResult xpurtLoadModuleFromFile(XpurtDevice device, const char *path,
                                              const XpurtModuleOptions *options,
                                              XpurtModule *module) {
  core::ModuleSource source;
  XpurtResult r = api::guarded("xpurtLoadModuleFromFile",
                               [&] { source = named(core::ModuleSource::Kind::Path, path); });
  return r ? r : load("xpurtLoadModuleFromFile", device, source, options, module);
}

XPURT_API XpurtResult xpurtLoadModuleFromMemory(XpurtDevice device, const void *data, size_t size,
                                                const XpurtModuleOptions *options,
                                                XpurtModule *module) {
  core::ModuleSource source{core::ModuleSource::Kind::Memory, {}, data, size};
  return load("xpurtLoadModuleFromMemory", device, source, options, module);
}

XPURT_API XpurtResult xpurtLinkModules(XpurtDevice device, const XpurtModule *modules,
                                       uint32_t count, const XpurtModuleOptions *options,
                                       XpurtModule *linked) {
  return api::guarded("xpurtLinkModules", [&] {
    auto dev = api::lookup<core::Device>(device, "device");
    api::checkOut(linked, "linked");
    core::ModuleOptions linkedOptions = moduleOptions(options);
    if (!modules || count == 0)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                 "xpurtLinkModules needs a non-NULL array of at least one module (count is {})",
                 count);
    std::vector<core::Ref<core::Module>> parts;  // held while the linker reads them
    std::vector<spirv::LinkInput> inputs;
    std::vector<std::string> names;
    for (uint32_t i = 0; i < count; ++i) {
      auto mod = api::lookup<core::Module>(modules[i], fmt::format("modules[{}]", i).c_str());
      if (&mod->device() != dev.get())
        core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                   "modules[{}] ('{}') was loaded on {}, not on {}: load every module to link "
                   "on the device the linked module is for",
                   i, mod->name(), mod->device().label(), dev->label());
      if (mod->spirv().empty())
        core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                   "modules[{}] ('{}') is a native module; only SPIR-V modules can be linked", i,
                   mod->name());
      inputs.push_back({mod->spirv(), mod->name()});
      names.push_back(mod->name());
      parts.push_back(std::move(mod));
    }
    std::string name = fmt::format("{}", fmt::join(names, " + "));
    std::string bytes =
        core::compileInWorker(core::kSpirvLinker, spirv::packLinkInputs(inputs), name, {});
    std::vector<uint32_t> words(bytes.size() / 4);
    std::memcpy(words.data(), bytes.data(), words.size() * 4);
    api::publish(linked,
                 core::loadSpirvModule(*dev, std::as_bytes(std::span(words)), name, linkedOptions));
  });
}

XPURT_API XpurtResult xpurtNewKernel(XpurtModule module, const char *name, XpurtKernel *kernel) {
  return api::guarded("xpurtNewKernel", [&] {
    auto mod = api::lookup<core::Module>(module, "module");
    api::checkOut(kernel, "kernel");
    if (!name) core::fail(XPURT_ERROR_INVALID_ARGUMENT, "the kernel name is NULL");
    api::publish(kernel, mod->createKernel(name));
  });
}

XPURT_API XpurtResult xpurtModuleIsNative(XpurtModule module, bool *native) {
  return api::guarded("xpurtModuleIsNative", [&] {
    auto mod = api::lookup<core::Module>(module, "module");
    api::checkOut(native, "native");
    *native = mod->spirv().empty();
  });
}

XPURT_API XpurtResult xpurtModuleGetFunctionPointer(XpurtModule module, const char *name,
                                                    void **function) {
  return api::guarded("xpurtModuleGetFunctionPointer", [&] {
    auto mod = api::lookup<core::Module>(module, "module");
    api::checkOut(function, "function");
    if (!name) core::fail(XPURT_ERROR_INVALID_ARGUMENT, "the function name is NULL");
    *function = mod->functionPointer(name);
  });
}

XPURT_API XpurtResult xpurtSetIspcTaskingCallbacks(XpurtIspcLaunchFunc launch,
                                                   XpurtIspcAllocFunc alloc,
                                                   XpurtIspcSyncFunc sync) {
  return api::guarded("xpurtSetIspcTaskingCallbacks", [&] {
    bool all = launch && alloc && sync, none = !launch && !alloc && !sync;
    if (!all && !none)
      core::fail(XPURT_ERROR_INVALID_ARGUMENT,
                 "pass all three of launch, alloc and sync (the application's task system), or "
                 "three NULLs (xpurt's); the callbacks are unchanged");
    cpu::setIspcTaskingCallbacks(launch, alloc, sync);
  });
}

}  // extern "C"
