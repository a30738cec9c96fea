#include "native_module.hpp"

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "elf_check.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace xpurt::cpu {
using core::fail;

namespace {

class NativeModule final : public core::Module {
 public:
  NativeModule(core::Ref<core::Device> device, std::string name, void *library)
      : core::Module(std::move(device), std::move(name)), library_(library) {}
  ~NativeModule() override { dlclose(library_); }

  core::Ref<core::Kernel> createKernel(const std::string &kernelName) override {
    if (kernelName.empty()) fail(XPURT_ERROR_INVALID_ARGUMENT, "the kernel name is empty");
    std::string symbol = kernelName + "_cpu_entry_point";
    void *entry = dlsym(library_, symbol.c_str());
    if (!entry)
      fail(XPURT_ERROR_NOT_FOUND,
           "kernel '{}' is not in module '{}': it exports no symbol '{}' (a native CPU kernel "
           "exports <kernel>_cpu_entry_point(void *params, int d0, int d1, int d2))",
           kernelName, name(), symbol);
    return core::makeRef<NativeKernel>(core::Ref<core::Module>(this), kernelName,
                                       reinterpret_cast<NativeKernel::EntryPoint>(entry));
  }

  void *functionPointer(const std::string &function) override {
    if (function.empty()) fail(XPURT_ERROR_INVALID_ARGUMENT, "the function name is empty");
    void *f = dlsym(library_, function.c_str());
    if (!f) fail(XPURT_ERROR_NOT_FOUND, "module '{}' exports no function '{}'", name(), function);
    return f;
  }

 private:
  void *library_;
};

void checkOptions(const core::ModuleOptions &options, const std::string &name) {
  if (!options.specConstants.empty())
    fail(XPURT_ERROR_UNSUPPORTED,
         "module '{}' is a native CPU library: specialization constants apply to SPIR-V modules "
         "only",
         name);
  if (!options.buildFlags.empty())
    core::log().info("module '{}' is a native CPU library; build flags '{}' do not apply", name,
                     options.buildFlags);
}

core::Ref<core::Module> openLibrary(core::Ref<core::Device> device, const std::string &openPath,
                                    const std::string &name, const core::ModuleOptions &options) {
  checkOptions(options, name);
  // RTLD_LOCAL: modules do not see each other's symbols; ISPCLaunch & co. resolve against
  // libxpurt, which the application already loaded.
  void *library = dlopen(openPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library)
    fail(XPURT_ERROR_INVALID_MODULE, "module '{}' could not be loaded as a native CPU library: {}",
         name, dlerror());
  core::log().debug("loaded native CPU module '{}'", name);
  return core::makeRef<NativeModule>(std::move(device), name, library);
}

// The file's ELF structure, before dlopen maps it.
void checkLibraryFile(const std::string &path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    fail(XPURT_ERROR_INVALID_MODULE, "module file '{}' cannot be opened: {}", path,
         std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    close(fd);
    fail(XPURT_ERROR_INVALID_MODULE, "module file '{}' cannot be examined", path);
  }
  try {
    checkSharedObject(
        [&](uint64_t offset, void *out, size_t n) {
          return pread(fd, out, n, static_cast<off_t>(offset)) == static_cast<ssize_t>(n);
        },
        static_cast<uint64_t>(st.st_size), path);
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);
}

core::Ref<core::Module> loadMemory(core::Ref<core::Device> device, const void *data, size_t size,
                                   const core::ModuleOptions &options) {
  checkSharedObject(
      [&](uint64_t offset, void *out, size_t n) {
        if (offset > size || n > size - offset) return false;
        std::memcpy(out, static_cast<const char *>(data) + offset, n);
        return true;
      },
      size, "<memory>");
  // The dynamic linker loads from files only: hand it an anonymous in-memory one.
  int fd = memfd_create("xpurt-module", MFD_CLOEXEC);
  if (fd < 0) fail(XPURT_ERROR_UNKNOWN, "memfd_create failed: {}", std::strerror(errno));
  const char *p = static_cast<const char *>(data);
  for (size_t left = size; left > 0;) {
    ssize_t n = write(fd, p + (size - left), left);
    if (n <= 0) {
      close(fd);
      fail(XPURT_ERROR_UNKNOWN, "could not stage the module in memory: {}", std::strerror(errno));
    }
    left -= static_cast<size_t>(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    auto module = openLibrary(std::move(device), path, "<memory>", options);
    close(fd);  // the mapping outlives the descriptor
    return module;
  } catch (...) {
    close(fd);
    throw;
  }
}

}  // namespace

core::Ref<core::Module> loadNativeModule(core::Ref<core::Device> device,
                                         const core::NativeLibrary &library,
                                         const core::ModuleOptions &options) {
  switch (library.kind) {
    case core::NativeLibrary::Kind::File:
      checkLibraryFile(library.path);
      return openLibrary(std::move(device), library.path, library.name, options);
    case core::NativeLibrary::Kind::Memory:
      return loadMemory(std::move(device), library.data, library.size, options);
    case core::NativeLibrary::Kind::SystemSearch:
      break;
  }
  // The dynamic linker's own search (LD_LIBRARY_PATH, the system folders): no file to check
  // first, as for the libraries a program links.
  void *lib = dlopen(library.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) return nullptr;
  try {
    checkOptions(options, library.name);
  } catch (...) {
    dlclose(lib);
    throw;
  }
  return core::makeRef<NativeModule>(std::move(device), library.name, lib);
}

}  // namespace xpurt::cpu
