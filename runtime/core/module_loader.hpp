// Finding a module and telling its format, the same for every device: by name through
// XPURT_MODULE_PATH, the program's folder and the working folder (NAME.spv, and the device's
// native file where it runs native modules: libNAME.so on the CPU, NAME.bin on Level Zero), by
// path, or from memory. SPIR-V goes to the
// device's loadSpirv, a native library to its loadNativeLibrary.
#pragma once

#include "backend.hpp"

namespace xpurt::core {

// Throws NOT_FOUND, INVALID_MODULE, INVALID_ARGUMENT or UNSUPPORTED with a message that says
// what was looked at and what to do.
Ref<Module> loadModule(Device &device, const ModuleSource &source, const ModuleOptions &options);

// A SPIR-V module in memory (such as a linked one), named `name` in messages.
Ref<Module> loadSpirvModule(Device &device, std::span<const std::byte> spirv,
                            const std::string &name, const ModuleOptions &options);

}  // namespace xpurt::core
