// The CPU JIT's disk cache: compiled modules (machine code plus what the runtime needs to
// launch their kernels) under XPURT_CACHE_DIR, keyed by the SPIR-V, the module options, the
// CPU and its features, and the xpurt version. An entry that is corrupt, truncated or made for
// another key is detected, removed and rebuilt; it is never executed.
#pragma once

#include "core/backend.hpp"
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

struct CacheKey {
  uint64_t hash[2];
  std::string material;  // what the hash covers besides the SPIR-V, stored and compared in full
};

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
  std::string object;  // ELF
};

// A compiled module as bytes, and back; deserializeEntry checks every bound and that the
// object is ELF, and gives nothing for anything malformed.
std::string serializeEntry(const CacheEntry &entry);
std::optional<CacheEntry> deserializeEntry(std::string_view payload);

// The cache folder: XPURT_CACHE_DIR, else $XDG_CACHE_HOME/xpurt, else ~/.cache/xpurt; nothing
// if XPURT_CACHE_DIR is "off" or no folder can be made (logged).
std::optional<std::filesystem::path> cacheDirectory();

std::optional<CacheEntry> readCacheEntry(const std::filesystem::path &dir, const CacheKey &key);
// Best effort: a failure is logged, not thrown.
void writeCacheEntry(const std::filesystem::path &dir, const CacheKey &key,
                     const CacheEntry &entry);

}  // namespace xpurt::cpu
