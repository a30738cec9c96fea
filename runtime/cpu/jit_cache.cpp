#include "jit_cache.hpp"

#include "core/byte_stream.hpp"
#include "core/error.hpp"
#include "jit_build_id.h"
#include "jit_engine.hpp"
#include "spirv/kernel_reflection.hpp"
#include "work_item_vectorizer.hpp"

#include <xpurt/xpurt.h>

namespace xpurt::cpu {
namespace fs = std::filesystem;

namespace {

// The payload's format (CacheEntry), in the key's material: an entry of another one is a miss.
constexpr uint32_t kFormatVersion = 6;
constexpr std::string_view kBackend = "cpu";

}  // namespace

std::string serializeEntry(const CacheEntry &entry) {
  const CompiledKernels &k = entry.kernels;
  core::Writer w;
  w.u32(static_cast<uint32_t>(k.kernels.size()));
  for (const spirv::KernelInfo &info : k.kernels) {
    spirv::writeKernelInfo(w, info);
    auto why = k.unavailable.find(info.name);
    w.str(why == k.unavailable.end() ? std::string() : why->second);
    if (why != k.unavailable.end()) continue;
    const KernelLayout &l = k.layouts.at(info.name);
    w.u64(l.staticLocalBytes);
    w.u64(l.privateBytesPerItem);
    w.u64(l.privateBytesPerGroup);
    w.u32(l.regions);
    w.u32(l.groupsMayMerge ? 1 : 0);
  }
  w.u32(static_cast<uint32_t>(entry.objects.size()));
  for (const std::string &object : entry.objects) w.str(object);
  return w.take();
}

std::optional<CacheEntry> deserializeEntry(std::string_view payload) {
  core::Reader r(payload);
  CacheEntry e;
  uint32_t n = r.u32();
  for (uint32_t i = 0; r.ok() && i < n; ++i) {
    std::optional<spirv::KernelInfo> read = spirv::readKernelInfo(r);
    if (!read) return std::nullopt;
    spirv::KernelInfo info = std::move(*read);
    if (std::string why = r.str(); !why.empty()) {
      e.kernels.unavailable[info.name] = std::move(why);
      e.kernels.kernels.push_back(std::move(info));
      continue;
    }
    KernelLayout l;
    l.staticLocalBytes = r.u64();
    l.privateBytesPerItem = r.u64();
    l.privateBytesPerGroup = r.u64();
    l.regions = r.u32();
    l.groupsMayMerge = r.u32() == 1;
    e.kernels.layouts[info.name] = l;
    e.kernels.kernels.push_back(std::move(info));
  }
  uint32_t objects = r.u32();
  for (uint32_t i = 0; r.ok() && i < objects; ++i) {
    std::string object = r.str();
    if (object.size() < 4 || object.compare(0, 4,
                                            "\x7f"
                                            "ELF") != 0)
      return std::nullopt;
    e.objects.push_back(std::move(object));
  }
  if (!r.ok() || !r.atEnd() || e.objects.empty()) return std::nullopt;
  return e;
}

CacheKey makeCacheKey(std::span<const std::byte> spirv, const core::ModuleOptions &options,
                      const JitEngine &engine) {
  std::string material =
      fmt::format("xpurt {}.{}.{} build {} jit-format {}|{}|{}|{}|vectorize={}|flags={}|spec=",
                  XPURT_VERSION_MAJOR, XPURT_VERSION_MINOR, XPURT_VERSION_PATCH, XPURT_JIT_BUILD_ID,
                  kFormatVersion, engine.triple().str(), engine.cpuName(), engine.cpuFeatures(),
                  workItemVectorizerEnabled(), options.buildFlags);
  for (auto [id, value] : options.specConstants) material += fmt::format("{}:{},", id, value);
  return core::disk_cache::makeKey(spirv, std::move(material));
}

std::optional<CacheEntry> readCacheEntry(const fs::path &dir, const CacheKey &key) {
  std::optional<std::string> payload = core::disk_cache::read(dir, kBackend, key);
  if (!payload) return std::nullopt;
  auto entry = deserializeEntry(*payload);
  if (!entry) core::disk_cache::reject(dir, kBackend, key, "malformed");
  return entry;
}

void writeCacheEntry(const fs::path &dir, const CacheKey &key, const CacheEntry &entry) {
  core::disk_cache::write(dir, kBackend, key, serializeEntry(entry));
}

}  // namespace xpurt::cpu
