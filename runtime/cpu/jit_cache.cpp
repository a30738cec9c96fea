#include "jit_cache.hpp"

#include "byte_stream.hpp"
#include "core/config.hpp"
#include "core/log.hpp"
#include "jit_build_id.h"
#include "jit_engine.hpp"

#include <fcntl.h>
#include <llvm/Support/xxhash.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xpurt/xpurt.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace xpurt::cpu {
namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'X', 'P', 'U', 'R', 'T', 'J', 'I', 'T'};
constexpr uint32_t kFormatVersion = 3;
// No compiled module comes near this; a larger "entry" is not one of ours.
constexpr uint64_t kMaxEntryBytes = uint64_t{1} << 30;

uint64_t fnv1a(std::string_view bytes, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v) {
  return fmt::format("{:016x}", v);
}

}  // namespace

std::string serializeEntry(const CacheEntry &entry) {
  const CompiledKernels &k = entry.kernels;
  Writer w;
  w.u32(static_cast<uint32_t>(k.kernels.size()));
  for (const spirv::KernelInfo &info : k.kernels) {
    w.str(info.name);
    w.u32(static_cast<uint32_t>(info.args.size()));
    for (const spirv::KernelArg &a : info.args) {
      w.u8(static_cast<uint8_t>(a.kind));
      w.u32(a.size);
      w.str(a.typeName);
    }
    for (uint32_t d : info.requiredLocalSize) w.u32(d);
    auto why = k.unavailable.find(info.name);
    w.str(why == k.unavailable.end() ? std::string() : why->second);
    if (why != k.unavailable.end()) continue;
    const KernelLayout &l = k.layouts.at(info.name);
    w.u64(l.staticLocalBytes);
    w.u64(l.privateBytesPerItem);
    w.u64(l.privateBytesPerGroup);
    w.u32(l.regions);
  }
  w.str(entry.object);
  return w.take();
}

std::optional<CacheEntry> deserializeEntry(std::string_view payload) {
  Reader r(payload);
  CacheEntry e;
  uint32_t n = r.u32();
  for (uint32_t i = 0; r.ok() && i < n; ++i) {
    spirv::KernelInfo info;
    info.name = r.str();
    uint32_t args = r.u32();
    for (uint32_t a = 0; r.ok() && a < args; ++a) {
      spirv::KernelArg arg{};
      uint8_t kind = r.u8();
      if (kind > static_cast<uint8_t>(spirv::KernelArg::Kind::Struct)) return std::nullopt;
      arg.kind = static_cast<spirv::KernelArg::Kind>(kind);
      arg.size = r.u32();
      arg.typeName = r.str();
      info.args.push_back(std::move(arg));
    }
    for (uint32_t &d : info.requiredLocalSize) d = r.u32();
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
    e.kernels.layouts[info.name] = l;
    e.kernels.kernels.push_back(std::move(info));
  }
  e.object = r.str();
  if (!r.ok() || !r.atEnd() || e.object.size() < 4 ||
      e.object.compare(0, 4,
                       "\x7f"
                       "ELF") != 0)
    return std::nullopt;
  return e;
}

namespace {

fs::path entryPath(const fs::path &dir, const CacheKey &key) {
  return dir / ("cpu-" + hex(key.hash[0]) + hex(key.hash[1]) + ".xjit");
}

}  // namespace

CacheKey makeCacheKey(std::span<const std::byte> spirv, const core::ModuleOptions &options,
                      const JitEngine &engine) {
  std::string material = fmt::format(
      "xpurt {}.{}.{} build {} jit-format {}|{}|{}|{}|flags={}|spec=", XPURT_VERSION_MAJOR,
      XPURT_VERSION_MINOR, XPURT_VERSION_PATCH, XPURT_JIT_BUILD_ID, kFormatVersion,
      engine.triple().str(), engine.cpuName(), engine.cpuFeatures(), options.buildFlags);
  for (auto [id, value] : options.specConstants) material += fmt::format("{}:{},", id, value);
  std::string_view bytes(reinterpret_cast<const char *>(spirv.data()), spirv.size());
  CacheKey key;
  key.hash[0] =
      llvm::xxHash64(llvm::StringRef(bytes.data(), bytes.size())) ^ llvm::xxHash64(material);
  key.hash[1] = fnv1a(material, fnv1a(bytes));
  key.material = std::move(material);
  return key;
}

std::optional<fs::path> cacheDirectory() {
  fs::path dir;
  if (auto v = core::envValue("XPURT_CACHE_DIR")) {
    if (*v == "off") return std::nullopt;
    dir = *v;
  } else if (auto xdg = core::envValue("XDG_CACHE_HOME")) {
    dir = fs::path(*xdg) / "xpurt";
  } else if (auto home = core::envValue("HOME")) {
    dir = fs::path(*home) / ".cache" / "xpurt";
  } else {
    return std::nullopt;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    core::log().warn(
        "JIT cache folder '{}' (XPURT_CACHE_DIR) cannot be used: {}; compiling "
        "without the disk cache",
        dir.string(), ec ? ec.message() : "not a folder");
    return std::nullopt;
  }
  return dir;
}

// The bytes of a regular file of at most kMaxEntryBytes; nothing for anything else. Opened
// without following a symbolic link and without blocking (a FIFO would wait for a writer),
// then checked on the open descriptor, so what is read is what was checked.
static std::optional<std::string> readRegularFile(const fs::path &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT)
      core::log().warn("JIT cache entry '{}' cannot be opened ({}); not used", path.string(),
                       std::strerror(errno));
    return std::nullopt;
  }
  std::unique_ptr<int, void (*)(int *)> closer(&fd, [](int *f) { ::close(*f); });
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
      static_cast<uint64_t>(st.st_size) > kMaxEntryBytes) {
    core::log().warn("JIT cache entry '{}' is not a regular file of at most {} bytes; not used",
                     path.string(), kMaxEntryBytes);
    return std::nullopt;
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;  // shrank while being read: a miss
    done += static_cast<size_t>(n);
  }
  return bytes;
}

std::optional<CacheEntry> readCacheEntry(const fs::path &dir, const CacheKey &key) {
  fs::path path = entryPath(dir, key);
  std::optional<std::string> file = readRegularFile(path);
  if (!file) return std::nullopt;
  std::string bytes = std::move(*file);
  auto reject = [&](const char *why) -> std::optional<CacheEntry> {
    core::log().warn("JIT cache entry '{}' is {}; rebuilding it", path.string(), why);
    std::error_code ec;
    fs::remove(path, ec);
    return std::nullopt;
  };
  Reader r(bytes);
  char magic[8];
  for (char &c : magic) c = static_cast<char>(r.u8());
  if (!r.ok() || std::memcmp(magic, kMagic, 8) != 0) return reject("not an xpurt cache entry");
  if (r.u32() != kFormatVersion) return reject("of another format version");
  uint64_t h0 = r.u64(), h1 = r.u64();
  std::string material = r.str();
  if (!r.ok() || h0 != key.hash[0] || h1 != key.hash[1] || material != key.material)
    return reject("for another module, CPU or version");
  uint64_t checksum = r.u64();
  std::string_view payload = r.rest();
  if (!r.ok() || llvm::xxHash64(llvm::StringRef(payload.data(), payload.size())) != checksum)
    return reject("corrupt (checksum mismatch)");
  auto entry = deserializeEntry(payload);
  if (!entry) return reject("malformed");
  return entry;
}

void writeCacheEntry(const fs::path &dir, const CacheKey &key, const CacheEntry &entry) {
  std::string payload = serializeEntry(entry);
  Writer w;
  w.raw(kMagic, sizeof kMagic);
  w.u32(kFormatVersion);
  w.u64(key.hash[0]);
  w.u64(key.hash[1]);
  w.str(key.material);
  w.u64(llvm::xxHash64(payload));
  w.raw(payload.data(), payload.size());
  std::string bytes = w.take();
  // Written beside the entry, then renamed over it: readers never see half an entry.
  fs::path path = entryPath(dir, key);
  fs::path temp = path;
  temp += fmt::format(".{}.tmp", getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      core::log().warn("could not write JIT cache entry '{}'", temp.string());
      std::error_code ec;
      fs::remove(temp, ec);
      return;
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    core::log().warn("could not store JIT cache entry '{}': {}", path.string(), ec.message());
    fs::remove(temp, ec);
  }
}

}  // namespace xpurt::cpu
