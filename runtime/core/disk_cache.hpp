// The disk cache of compiled modules, for every backend that compiles: entries under
// XPURT_CACHE_DIR, keyed by the module's bytes and everything else that shapes the code (the
// device, its compiler, the module options, the xpurt build). The container is checked in
// full (magic, format, key, checksum) before the backend reads its payload; an entry that
// fails is removed, logged and rebuilt, never used.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace xpurt::core::disk_cache {

struct Key {
  uint64_t hash[2];
  std::string material;  // what the hash covers besides the module, stored and compared in full
};

Key makeKey(std::span<const std::byte> module, std::string material);

// The cache folder: XPURT_CACHE_DIR, else $XDG_CACHE_HOME/xpurt, else ~/.cache/xpurt; nothing
// if XPURT_CACHE_DIR is "off" or no folder can be made (logged).
std::optional<std::filesystem::path> directory();

// The payload of a sound entry for key; nothing on a miss or a rejected entry. A payload the
// backend cannot read is reported back through reject().
std::optional<std::string> read(const std::filesystem::path &dir, std::string_view backend,
                                const Key &key);
void reject(const std::filesystem::path &dir, std::string_view backend, const Key &key,
            const char *why);
// Best effort: a failure is logged, not thrown. Readers never see half an entry.
void write(const std::filesystem::path &dir, std::string_view backend, const Key &key,
           std::string_view payload);

}  // namespace xpurt::core::disk_cache
