// SPIR-V modules on the CPU device: validated, read into LLVM, lowered to work-group
// functions, optimised and compiled by the JIT when loaded.
#pragma once

#include "core/backend.hpp"

#include <cstddef>
#include <span>

namespace xpurt::cpu {

core::Ref<core::Module> loadSpirvModule(core::Ref<core::Device> device,
                                        std::span<const std::byte> bytes, const std::string &name,
                                        const core::ModuleOptions &options);

}  // namespace xpurt::cpu
