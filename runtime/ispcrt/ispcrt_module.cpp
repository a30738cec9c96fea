// Module options, modules, linking and kernels.
#include "ispcrt_objects.hpp"

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace xpurt::ispcrt {

std::vector<std::shared_ptr<XModule>> Module::kernelSources() const {
  std::lock_guard lock(mutex_);
  if (linked_) return {linked_};
  return parts_;
}

void Module::setLinked(std::shared_ptr<XModule> linked) {
  std::lock_guard lock(mutex_);
  linked_ = std::move(linked);
}

namespace {

// ISPCRT_USE_ZEBIN=1: the module must be a device binary (<name>.bin), not SPIR-V.
bool zebinRequired(const Device &device) {
  const char *v = std::getenv("ISPCRT_USE_ZEBIN");
  if (!v || !*v || device.backend() != "level_zero") return false;
  if (std::strcmp(v, "0") != 0 && std::strcmp(v, "1") != 0)
    fail(ISPCRT_INVALID_ARGUMENT, "ISPCRT_USE_ZEBIN='{}': set 0 or 1", v);
  return v[0] == '1';
}

Ref<Module> load(ISPCRTDevice device, const char *file, ISPCRTModuleOptions opts) {
  Ref<Device> d = lookup<Device>(device, "device");
  if (!file) fail(ISPCRT_INVALID_ARGUMENT, "the module name is NULL");
  if (opts) lookup<ModuleOptions>(opts, "module options");  // its fields change nothing here
  // ISPCRT_IGC_OPTIONS: xpurt's Level Zero backend adds it to every module's build flags.
  XpurtModule m = nullptr;
  check(xpurtLoadModule(d->handle(), file, nullptr, &m));
  auto part = std::make_shared<XModule>(m);
  bool native = false;
  check(xpurtModuleIsNative(m, &native));
  if (zebinRequired(*d) && !native)
    fail(ISPCRT_INVALID_ARGUMENT,
         "ISPCRT_USE_ZEBIN=1, but module '{}' was found as SPIR-V, not as a device binary "
         "({}.bin); build the binary, or unset ISPCRT_USE_ZEBIN",
         file, file);
  return make<Module>(d, std::vector<std::shared_ptr<XModule>>{part}, native);
}

// Looks `name` up in each source in turn (get: the xpurt call); the first that has it wins. If
// none has it, the first source's failure is thrown.
template <class T, class Get>
T findIn(const std::vector<std::shared_ptr<XModule>> &sources, const char *name, Get get) {
  std::optional<Failure> first;
  for (const std::shared_ptr<XModule> &m : sources) {
    T out{};
    XpurtResult r = get(m->get(), name, &out);
    if (r == XPURT_SUCCESS) return out;
    if (!first) first = Failure{fromXpurt(r), xpurtLastErrorMessage()};
    if (r != XPURT_ERROR_NOT_FOUND) break;
  }
  throw *first;
}

std::vector<Ref<Module>> modulesOf(ISPCRTModule *modules, uint32_t n) {
  if (!modules || n == 0)
    fail(ISPCRT_INVALID_ARGUMENT, "link at least one module (modules is {}, numModules {})",
         static_cast<void *>(modules), n);
  std::vector<Ref<Module>> out;
  for (uint32_t i = 0; i < n; ++i) out.push_back(lookup<Module>(modules[i], "modules[i]"));
  return out;
}

XpurtModule link(const Ref<Device> &d, const std::vector<Ref<Module>> &modules) {
  std::vector<XpurtModule> handles;
  for (const Ref<Module> &m : modules)
    for (const std::shared_ptr<XModule> &part : m->parts()) handles.push_back(part->get());
  XpurtModule linked = nullptr;
  check(xpurtLinkModules(d->handle(), handles.data(), static_cast<uint32_t>(handles.size()),
                         nullptr, &linked));
  return linked;
}

}  // namespace
}  // namespace xpurt::ispcrt

using namespace xpurt::ispcrt;

extern "C" {

ISPCRT_API ISPCRTModuleOptions ispcrtNewModuleOptionsEmpty(ISPCRTDevice device) {
  return guarded("ispcrtNewModuleOptionsEmpty", ISPCRTModuleOptions{}, [&] {
    lookup<Device>(device, "device");
    return handOut<ISPCRTModuleOptions>(make<ModuleOptions>());
  });
}

ISPCRT_API ISPCRTModuleOptions ispcrtNewModuleOptions(ISPCRTDevice device,
                                                      ISPCRTModuleType moduleType,
                                                      bool libraryCompilation, uint32_t stackSize) {
  return guarded("ispcrtNewModuleOptions", ISPCRTModuleOptions{}, [&] {
    lookup<Device>(device, "device");
    if (moduleType != ISPCRT_VECTOR_MODULE && moduleType != ISPCRT_SCALAR_MODULE)
      fail(ISPCRT_INVALID_ARGUMENT,
           "{} is not an ISPCRTModuleType: use ISPCRT_VECTOR_MODULE or ISPCRT_SCALAR_MODULE",
           static_cast<int>(moduleType));
    Ref<ModuleOptions> o = make<ModuleOptions>();
    o->moduleType = moduleType;
    o->libraryCompilation = libraryCompilation;
    o->stackSize = stackSize;
    return handOut<ISPCRTModuleOptions>(std::move(o));
  });
}

ISPCRT_API uint32_t ispcrtModuleOptionsGetStackSize(ISPCRTModuleOptions opts) {
  return guarded("ispcrtModuleOptionsGetStackSize", 0u, [&] {
    Ref<ModuleOptions> o = lookup<ModuleOptions>(opts, "options");
    std::lock_guard lock(o->mutex);
    return o->stackSize;
  });
}

ISPCRT_API bool ispcrtModuleOptionsGetLibraryCompilation(ISPCRTModuleOptions opts) {
  return guarded("ispcrtModuleOptionsGetLibraryCompilation", false, [&] {
    Ref<ModuleOptions> o = lookup<ModuleOptions>(opts, "options");
    std::lock_guard lock(o->mutex);
    return o->libraryCompilation;
  });
}

ISPCRT_API ISPCRTModuleType ispcrtModuleOptionsGetModuleType(ISPCRTModuleOptions opts) {
  return guarded("ispcrtModuleOptionsGetModuleType", ISPCRT_VECTOR_MODULE, [&] {
    Ref<ModuleOptions> o = lookup<ModuleOptions>(opts, "options");
    std::lock_guard lock(o->mutex);
    return o->moduleType;
  });
}

ISPCRT_API void ispcrtModuleOptionsSetStackSize(ISPCRTModuleOptions opts, uint32_t size) {
  guardedVoid("ispcrtModuleOptionsSetStackSize", [&] {
    Ref<ModuleOptions> o = lookup<ModuleOptions>(opts, "options");
    std::lock_guard lock(o->mutex);
    o->stackSize = size;
  });
}

ISPCRT_API void ispcrtModuleOptionsSetLibraryCompilation(ISPCRTModuleOptions opts, bool library) {
  guardedVoid("ispcrtModuleOptionsSetLibraryCompilation", [&] {
    Ref<ModuleOptions> o = lookup<ModuleOptions>(opts, "options");
    std::lock_guard lock(o->mutex);
    o->libraryCompilation = library;
  });
}

ISPCRT_API void ispcrtModuleOptionsSetModuleType(ISPCRTModuleOptions opts, ISPCRTModuleType type) {
  guardedVoid("ispcrtModuleOptionsSetModuleType", [&] {
    Ref<ModuleOptions> o = lookup<ModuleOptions>(opts, "options");
    if (type != ISPCRT_VECTOR_MODULE && type != ISPCRT_SCALAR_MODULE)
      fail(ISPCRT_INVALID_ARGUMENT,
           "{} is not an ISPCRTModuleType: use ISPCRT_VECTOR_MODULE or ISPCRT_SCALAR_MODULE",
           static_cast<int>(type));
    std::lock_guard lock(o->mutex);
    o->moduleType = type;
  });
}

ISPCRT_API ISPCRTModule ispcrtLoadModule(ISPCRTDevice device, const char *moduleFile) {
  return guarded("ispcrtLoadModule", ISPCRTModule{},
                 [&] { return handOut<ISPCRTModule>(load(device, moduleFile, nullptr)); });
}

ISPCRT_API ISPCRTModule ispcrtLoadModuleWithOptions(ISPCRTDevice device, const char *moduleFile,
                                                    ISPCRTModuleOptions opts) {
  return guarded("ispcrtLoadModuleWithOptions", ISPCRTModule{}, [&] {
    if (!opts) fail(ISPCRT_INVALID_ARGUMENT, "the module options handle is NULL");
    return handOut<ISPCRTModule>(load(device, moduleFile, opts));
  });
}

ISPCRT_API void ispcrtDynamicLinkModules(ISPCRTDevice device, ISPCRTModule *modules,
                                         uint32_t numModules) {
  guardedVoid("ispcrtDynamicLinkModules", [&] {
    Ref<Device> d = lookup<Device>(device, "device");
    std::vector<Ref<Module>> parts = modulesOf(modules, numModules);
    bool allNative = true;
    for (const Ref<Module> &m : parts) allNative &= m->native();
    // Native CPU modules resolve their symbols when loaded, as ISPCRT's CPU device's do.
    if (allNative) return;
    auto linked = std::make_shared<XModule>(link(d, parts));
    for (const Ref<Module> &m : parts) m->setLinked(linked);
  });
}

ISPCRT_API ISPCRTModule ispcrtStaticLinkModules(ISPCRTDevice device, ISPCRTModule *modules,
                                                uint32_t numModules) {
  return guarded("ispcrtStaticLinkModules", ISPCRTModule{}, [&] {
    Ref<Device> d = lookup<Device>(device, "device");
    std::vector<Ref<Module>> parts = modulesOf(modules, numModules);
    size_t native = 0;
    for (const Ref<Module> &m : parts) native += m->native();
    if (native == parts.size()) {  // native CPU modules: one module of all their libraries
      std::vector<std::shared_ptr<XModule>> all;
      for (const Ref<Module> &m : parts)
        all.insert(all.end(), m->parts().begin(), m->parts().end());
      return handOut<ISPCRTModule>(make<Module>(d, std::move(all), true));
    }
    if (native != 0)
      fail(ISPCRT_INVALID_ARGUMENT,
           "{} of the {} modules are native libraries and the others SPIR-V: link modules of "
           "one kind",
           native, parts.size());
    auto linked = std::make_shared<XModule>(link(d, parts));
    return handOut<ISPCRTModule>(
        make<Module>(d, std::vector<std::shared_ptr<XModule>>{linked}, false));
  });
}

ISPCRT_API void *ispcrtFunctionPtr(ISPCRTModule module, const char *name) {
  return guarded("ispcrtFunctionPtr", static_cast<void *>(nullptr), [&] {
    Ref<Module> m = lookup<Module>(module, "module");
    if (!name) fail(ISPCRT_INVALID_ARGUMENT, "the function name is NULL");
    return findIn<void *>(m->kernelSources(), name, xpurtModuleGetFunctionPointer);
  });
}

ISPCRT_API ISPCRTKernel ispcrtNewKernel(ISPCRTDevice device, ISPCRTModule module,
                                        const char *name) {
  return guarded("ispcrtNewKernel", ISPCRTKernel{}, [&] {
    lookup<Device>(device, "device");
    Ref<Module> m = lookup<Module>(module, "module");
    if (!name) fail(ISPCRT_INVALID_ARGUMENT, "the kernel name is NULL");
    XpurtKernel k = findIn<XpurtKernel>(m->kernelSources(), name, xpurtNewKernel);
    return handOut<ISPCRTKernel>(make<Kernel>(m, XKernel(k)));
  });
}

}  // extern "C"

extern "C" {

ISPCRT_API void ispcrtSetTaskingCallbacks(ISPCRTTaskingLaunchFType launch,
                                          ISPCRTTaskingAllocFType alloc,
                                          ISPCRTTaskingSyncFType sync) {
  guardedVoid("ispcrtSetTaskingCallbacks",
              [&] { check(xpurtSetIspcTaskingCallbacks(launch, alloc, sync)); });
}

}  // extern "C"
