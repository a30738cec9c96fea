// Finding a module and telling its format, the same for every device: by name through
// XPURT_MODULE_PATH, the program's folder and the working folder (NAME.spv, and the device's
// native file where it runs native modules: libNAME.so on the CPU, NAME.bin on Level Zero), by
// path, or from memory. SPIR-V goes to the
// device's loadSpirv, a native library to its loadNativeLibrary.
#pragma once

#include "backend.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace xpurt::core {

// Throws NOT_FOUND, INVALID_MODULE, INVALID_ARGUMENT or UNSUPPORTED with a message that says
// what was looked at and what to do.
Ref<Module> loadModule(Device &device, const ModuleSource &source, const ModuleOptions &options);

// A SPIR-V module in memory (such as a linked one), named `name` in messages.
Ref<Module> loadSpirvModule(Device &device, std::span<const std::byte> spirv,
                            const std::string &name, const ModuleOptions &options);

// The bytes of a native library in memory or in a file (NOT_FOUND where the file cannot be
// read); nullopt for a bare name, which only a dynamic linker's search resolves.
std::optional<std::string> nativeLibraryBytes(const NativeLibrary &library);

// What a device's driver said when it refused to build or load a module's code.
struct DriverModuleFailure {
  XpurtResult code;          // the driver's result as xpurt's; UNKNOWN becomes INVALID_MODULE
  std::string_view module;   // the module's name
  std::string_view driver;   // "CUDA", "Level Zero"
  std::string_view verb;     // what it could not do: "build", "load"
  std::string_view device;   // the device's label
  std::string_view call;     // the driver call that failed
  std::string_view result;   // its result's name
  std::string_view logName;  // "build log", "JIT log"
  std::string_view log;      // the driver's log, may be empty
};

// Throws the error every device reports for such a refusal, quoting the driver's log.
[[noreturn]] void failDriverModule(const DriverModuleFailure &failure);

}  // namespace xpurt::core
