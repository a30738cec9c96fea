#include "module_loader.hpp"

#include "config.hpp"
#include "error.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

namespace xpurt::core {
namespace fs = std::filesystem;

namespace {

// A native module: an ELF file (a shared library, a GPU binary) or PTX text.
enum class Format { NativeLibrary, Spirv, Unknown };
constexpr size_t kSniffBytes = 4096;  // enough to tell any of them apart

// PTX is text that declares its ISA version and target near the top.
bool isPtx(const void *data, size_t size) {
  std::string_view text(static_cast<const char *>(data), std::min<size_t>(size, kSniffBytes));
  return text.find(".version") != std::string_view::npos &&
         text.find(".target") != std::string_view::npos;
}

Format sniff(const void *data, size_t size) {
  static const unsigned char elf[4] = {0x7f, 'E', 'L', 'F'};
  static const uint32_t spirvMagic = 0x07230203;
  if (size >= 4 && std::memcmp(data, elf, 4) == 0) return Format::NativeLibrary;
  uint32_t word = 0;
  if (size >= 4) std::memcpy(&word, data, 4);
  if (word == spirvMagic || __builtin_bswap32(word) == spirvMagic) return Format::Spirv;
  // After the magic numbers: a binary module's strings may hold the same words.
  if (isPtx(data, size)) return Format::NativeLibrary;
  return Format::Unknown;
}

[[noreturn]] void refuseNative(const Device &device, const std::string &name) {
  fail(XPURT_ERROR_UNSUPPORTED,
       "module '{}' is a native module (ELF or PTX), which the {} device '{}' cannot run; load the "
       "module as SPIR-V on this device",
       name, device.backend().name(), device.info().name);
}

Ref<Module> loadFile(Device &device, const std::string &path, const ModuleOptions &options) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    fail(XPURT_ERROR_NOT_FOUND, "module file '{}' does not exist", path);
  if (!fs::is_regular_file(status))
    fail(XPURT_ERROR_INVALID_MODULE, "module path '{}' is not a regular file", path);
  char head[kSniffBytes] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(head, sizeof head);
  in.clear();  // a file shorter than the buffer is read whole
  switch (sniff(head, static_cast<size_t>(in.gcount()))) {
    case Format::NativeLibrary: {
      if (!device.loadsNativeLibraries()) refuseNative(device, path);
      NativeLibrary library{NativeLibrary::Kind::File, path, path, nullptr, 0};
      // A path without a slash would send the dynamic linker to its search path instead.
      if (path.find('/') == std::string::npos) library.path = "./" + path;
      return device.loadNativeLibrary(library, options);
    }
    case Format::Spirv: {
      in.seekg(0, std::ios::end);
      std::vector<std::byte> bytes(static_cast<size_t>(in.tellg()));
      in.seekg(0);
      in.read(reinterpret_cast<char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      if (!in) fail(XPURT_ERROR_INVALID_MODULE, "module file '{}' could not be read", path);
      return loadSpirvModule(device, bytes, path, options);
    }
    case Format::Unknown:
      break;
  }
  fail(XPURT_ERROR_INVALID_MODULE,
       "module file '{}' is neither a shared library (ELF) nor a SPIR-V module (nor a GPU "
       "binary or PTX)",
       path);
}

std::vector<fs::path> searchFolders() {
  std::vector<fs::path> dirs;
  for (auto &d : envPathList("XPURT_MODULE_PATH")) dirs.emplace_back(d);
  std::error_code ec;
  if (auto exe = fs::read_symlink("/proc/self/exe", ec); !ec) dirs.push_back(exe.parent_path());
  if (auto cwd = fs::current_path(ec); !ec) dirs.push_back(cwd);
  return dirs;
}

Ref<Module> loadByName(Device &device, const std::string &name, const ModuleOptions &options) {
  if (name.empty()) fail(XPURT_ERROR_INVALID_ARGUMENT, "the module name is empty");
  if (name.find('/') != std::string::npos) return loadFile(device, name, options);
  bool native = device.loadsNativeLibraries();
  bool libraryPath = native && device.searchesLibraryPath();
  std::string library = native ? device.nativeLibraryFileName(name) : std::string();
  std::string spirv = name + ".spv";
  std::string looked;
  for (const fs::path &dir : searchFolders()) {
    std::error_code ec;
    if (native && fs::is_regular_file(dir / library, ec))
      return loadFile(device, (dir / library).string(), options);
    if (fs::is_regular_file(dir / spirv, ec))
      return loadFile(device, (dir / spirv).string(), options);
    looked += (looked.empty() ? "" : ", ") + dir.string();
  }
  // Last, the dynamic linker's own search (LD_LIBRARY_PATH, the system folders).
  if (libraryPath) {
    NativeLibrary system{NativeLibrary::Kind::SystemSearch, library, library, nullptr, 0};
    if (Ref<Module> found = device.loadNativeLibrary(system, options)) return found;
  }
  fail(XPURT_ERROR_NOT_FOUND,
       "module '{}' not found: no {}{} in {} (XPURT_MODULE_PATH, the program's folder, the "
       "working folder){}; load it by path, or add its folder to XPURT_MODULE_PATH",
       name, native ? library + " or " : "", spirv, looked.empty() ? "any folder" : looked,
       libraryPath ? " nor on the library path" : "");
}

Ref<Module> loadMemory(Device &device, const void *data, size_t size,
                       const ModuleOptions &options) {
  if (!data || size == 0)
    fail(XPURT_ERROR_INVALID_ARGUMENT, "a module in memory needs a non-NULL buffer and a size");
  switch (sniff(data, size)) {
    case Format::Spirv:
      return loadSpirvModule(device, std::span(static_cast<const std::byte *>(data), size),
                             "<memory>", options);
    case Format::NativeLibrary:
      if (!device.loadsNativeLibraries()) refuseNative(device, "<memory>");
      return device.loadNativeLibrary(
          {NativeLibrary::Kind::Memory, std::string(), "<memory>", data, size}, options);
    case Format::Unknown:
      break;
  }
  fail(XPURT_ERROR_INVALID_MODULE,
       "the {}-byte buffer is neither a shared library (ELF) nor a SPIR-V module (nor a GPU "
       "binary or PTX)",
       size);
}

}  // namespace

Ref<Module> loadSpirvModule(Device &device, std::span<const std::byte> spirv,
                            const std::string &name, const ModuleOptions &options) {
  Ref<Module> module = device.loadSpirv(spirv, name, options);
  module->keepSpirv(spirv, options);
  return module;
}

Ref<Module> Module::loadedOn(Device &device) {
  if (&device == &this->device()) return Ref<Module>(this);
  if (spirv_.empty())
    fail(XPURT_ERROR_UNSUPPORTED,
         "module '{}' is a native library of {}: its kernels run there only, not on {}", name(),
         this->device().label(), device.label());
  std::lock_guard lock(copiesMutex_);
  for (const auto &[d, m] : copies_)
    if (d == &device) return m;
  Ref<Module> copy = loadSpirvModule(device, spirv_, name(), options_);
  copies_.emplace_back(&device, copy);
  return copy;
}

Ref<Module> loadModule(Device &device, const ModuleSource &source, const ModuleOptions &options) {
  switch (source.kind) {
    case ModuleSource::Kind::Name:
      return loadByName(device, source.text, options);
    case ModuleSource::Kind::Path:
      if (source.text.empty()) fail(XPURT_ERROR_INVALID_ARGUMENT, "the module path is empty");
      return loadFile(device, source.text, options);
    case ModuleSource::Kind::Memory:
      return loadMemory(device, source.data, source.size, options);
  }
  fail(XPURT_ERROR_INVALID_ARGUMENT, "unknown module source");
}

void failDriverModule(const DriverModuleFailure &f) {
  XpurtResult code = f.code == XPURT_ERROR_UNKNOWN ? XPURT_ERROR_INVALID_MODULE : f.code;
  fail(code, "module '{}': the {} driver could not {} it for {} ({} failed with {}){}{}", f.module,
       f.driver, f.verb, f.device, f.call, f.result, f.log.empty() ? "" : "; ",
       f.log.empty() ? std::string() : fmt::format("{}:\n{}", f.logName, f.log));
}

std::optional<std::string> nativeLibraryBytes(const NativeLibrary &library) {
  if (library.kind == NativeLibrary::Kind::Memory)
    return std::string(static_cast<const char *>(library.data), library.size);
  if (library.kind != NativeLibrary::Kind::File) return std::nullopt;
  std::ifstream in(library.path, std::ios::binary);
  std::string bytes(std::istreambuf_iterator<char>(in), {});
  if (!in && !in.eof())
    fail(XPURT_ERROR_NOT_FOUND, "module '{}': cannot read '{}'", library.name, library.path);
  return bytes;
}

}  // namespace xpurt::core
