// Kernel reflection as bytes: what a backend's compiler running in the JIT worker hands back
// about a module's kernels, and what disk cache entries store. A backend whose device compiles
// SPIR-V itself (Level Zero) still needs the kernels' signatures to check launches: it has the
// worker read the module (the translator may abort on a malformed one) and reflect it.
#pragma once

#include "core/backend.hpp"
#include "core/byte_stream.hpp"
#include "spirv_reader.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xpurt::spirv {

void writeKernelInfo(core::Writer &w, const KernelInfo &info);
// Nothing if the bytes are not a KernelInfo (checked bounds and kinds).
std::optional<KernelInfo> readKernelInfo(core::Reader &r);

// A core::Compiler that only reflects: reads the checked words (with the options'
// specialization constants) and returns every kernel's KernelInfo, serialized.
std::string reflectKernelsSerialized(const std::vector<uint32_t> &words, const std::string &name,
                                     const core::ModuleOptions &options);
// The other end; nothing for malformed bytes.
std::optional<std::vector<KernelInfo>> deserializeKernels(std::string_view bytes);

}  // namespace xpurt::spirv
