#include "native_module.hpp"

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "elf_check.hpp"
#include "spirv_module.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace xpurt::cpu {
namespace fs = std::filesystem;
using core::fail;

namespace {

enum class Format { Elf, SpirV, Unknown };

Format sniff(const void *data, size_t size) {
  static const unsigned char elf[4] = {0x7f, 'E', 'L', 'F'};
  static const uint32_t spirvMagic = 0x07230203;
  if (size >= 4 && std::memcmp(data, elf, 4) == 0) return Format::Elf;
  uint32_t word = 0;
  if (size >= 4) std::memcpy(&word, data, 4);
  if (word == spirvMagic || __builtin_bswap32(word) == spirvMagic) return Format::SpirV;
  return Format::Unknown;
}

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

core::Ref<core::Module> loadFile(core::Ref<core::Device> device, const std::string &path,
                                 const core::ModuleOptions &options) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    fail(XPURT_ERROR_NOT_FOUND, "module file '{}' does not exist", path);
  if (!fs::is_regular_file(status))
    fail(XPURT_ERROR_INVALID_MODULE, "module path '{}' is not a regular file", path);
  char head[4] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(head, sizeof head);
  switch (sniff(head, static_cast<size_t>(in.gcount()))) {
    case Format::Elf: {
      checkLibraryFile(path);
      // A path without a slash would send dlopen to the system search path instead.
      std::string openPath = path.find('/') == std::string::npos ? "./" + path : path;
      return openLibrary(std::move(device), openPath, path, options);
    }
    case Format::SpirV: {
      in.seekg(0, std::ios::end);
      std::vector<std::byte> bytes(static_cast<size_t>(in.tellg()));
      in.seekg(0);
      in.read(reinterpret_cast<char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      if (!in) fail(XPURT_ERROR_INVALID_MODULE, "module file '{}' could not be read", path);
      return loadSpirvModule(std::move(device), bytes, path, options);
    }
    case Format::Unknown:
      break;
  }
  fail(XPURT_ERROR_INVALID_MODULE,
       "module file '{}' is neither a shared library (ELF) nor a SPIR-V module", path);
}

std::vector<fs::path> searchFolders() {
  std::vector<fs::path> dirs;
  for (auto &d : core::envPathList("XPURT_MODULE_PATH")) dirs.emplace_back(d);
  std::error_code ec;
  if (auto exe = fs::read_symlink("/proc/self/exe", ec); !ec) dirs.push_back(exe.parent_path());
  if (auto cwd = fs::current_path(ec); !ec) dirs.push_back(cwd);
  return dirs;
}

core::Ref<core::Module> loadByName(core::Ref<core::Device> device, const std::string &name,
                                   const core::ModuleOptions &options) {
  if (name.empty()) fail(XPURT_ERROR_INVALID_ARGUMENT, "the module name is empty");
  if (name.find('/') != std::string::npos) return loadFile(std::move(device), name, options);
  std::string library = "lib" + name + ".so", spirv = name + ".spv";
  std::string looked;
  for (const fs::path &dir : searchFolders()) {
    std::error_code ec;
    if (fs::is_regular_file(dir / library, ec))
      return loadFile(std::move(device), (dir / library).string(), options);
    if (fs::is_regular_file(dir / spirv, ec))
      return loadFile(std::move(device), (dir / spirv).string(), options);
    looked += (looked.empty() ? "" : ", ") + dir.string();
  }
  // Last, the dynamic linker's own search (LD_LIBRARY_PATH, the system folders).
  if (void *lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    try {
      checkOptions(options, library);
    } catch (...) {
      dlclose(lib);
      throw;
    }
    return core::makeRef<NativeModule>(std::move(device), library, lib);
  }
  fail(XPURT_ERROR_NOT_FOUND,
       "module '{}' not found: no {} or {} in {} (XPURT_MODULE_PATH, the program's folder, the "
       "working folder) nor on the library path; load it by path, or add its folder to "
       "XPURT_MODULE_PATH",
       name, library, spirv, looked.empty() ? "any folder" : looked);
}

core::Ref<core::Module> loadMemory(core::Ref<core::Device> device, const void *data, size_t size,
                                   const core::ModuleOptions &options) {
  if (!data || size == 0)
    fail(XPURT_ERROR_INVALID_ARGUMENT, "a module in memory needs a non-NULL buffer and a size");
  switch (sniff(data, size)) {
    case Format::SpirV:
      return loadSpirvModule(std::move(device),
                             std::span(static_cast<const std::byte *>(data), size), "<memory>",
                             options);
    case Format::Unknown:
      fail(XPURT_ERROR_INVALID_MODULE,
           "the {}-byte buffer is neither a shared library (ELF) nor a SPIR-V module", size);
    case Format::Elf:
      break;
  }
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
                                         const core::ModuleSource &source,
                                         const core::ModuleOptions &options) {
  switch (source.kind) {
    case core::ModuleSource::Kind::Name:
      return loadByName(std::move(device), source.text, options);
    case core::ModuleSource::Kind::Path:
      if (source.text.empty()) fail(XPURT_ERROR_INVALID_ARGUMENT, "the module path is empty");
      return loadFile(std::move(device), source.text, options);
    case core::ModuleSource::Kind::Memory:
      return loadMemory(std::move(device), source.data, source.size, options);
  }
  fail(XPURT_ERROR_INVALID_ARGUMENT, "unknown module source");
}

}  // namespace xpurt::cpu
