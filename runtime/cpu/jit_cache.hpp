// The CPU JIT's entries in the disk cache (core/disk_cache.hpp): machine code plus what the
// runtime needs to launch the kernels, keyed by the SPIR-V, the module options, the CPU and
// its features, and the xpurt build. A payload that is malformed is removed and rebuilt; it
// is never executed.
#pragma once

#include "core/backend.hpp"
#include "core/disk_cache.hpp"
#include "spirv/spirv_reader.hpp"
#include "work_group_builder.hpp"

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace xpurt::cpu {

class JitEngine;

using CacheKey = core::disk_cache::Key;

CacheKey makeCacheKey(std::span<const std::byte> spirv, const core::ModuleOptions &options,
                      const JitEngine &engine);

// What a compiled module holds besides its machine code.
struct CompiledKernels {
  std::vector<spirv::KernelInfo> kernels;
  std::map<std::string, KernelLayout> layouts;     // kernels that were built
  std::map<std::string, std::string> unavailable;  // kernels that were not: why
};

struct CacheEntry {
  CompiledKernels kernels;
  std::vector<std::string> objects;  // ELF, one per part compiled (module_parts.hpp)
};

// A compiled module as bytes, and back; deserializeEntry checks every bound and that each
// object is ELF, and gives nothing for anything malformed.
std::string serializeEntry(const CacheEntry &entry);
std::optional<CacheEntry> deserializeEntry(std::string_view payload);

std::optional<CacheEntry> readCacheEntry(const std::filesystem::path &dir, const CacheKey &key);
// Best effort: a failure is logged, not thrown.
void writeCacheEntry(const std::filesystem::path &dir, const CacheKey &key,
                     const CacheEntry &entry);

}  // namespace xpurt::cpu
