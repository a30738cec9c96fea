#include "disk_cache.hpp"

#include "byte_stream.hpp"
#include "config.hpp"
#include "log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

namespace xpurt::core::disk_cache {
namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'X', 'P', 'U', 'R', 'T', 'J', 'I', 'T'};
constexpr uint32_t kContainerVersion = 4;
// No compiled module comes near this; a larger "entry" is not one of ours.
constexpr uint64_t kMaxEntryBytes = uint64_t{1} << 30;

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// 64-bit hashes of bytes, independent of each other (a key uses both).
uint64_t hashWords(std::string_view bytes, uint64_t seed) {
  uint64_t h = mix(seed ^ bytes.size());
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, bytes.data() + i, 8);
    h = mix(h ^ w) + 0x9e3779b97f4a7c15ull;
  }
  uint64_t tail = 0;
  if (i < bytes.size()) std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
  return mix(h ^ tail ^ 0xff);
}

uint64_t fnv1a(std::string_view bytes, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The entry's file: <backend>-<hash>.xjit in dir.
fs::path entryPath(const fs::path &dir, std::string_view backend, const Key &key) {
  return dir / fmt::format("{}-{:016x}{:016x}.xjit", backend, key.hash[0], key.hash[1]);
}

}  // namespace

Key makeKey(std::span<const std::byte> module, std::string material) {
  std::string_view bytes(reinterpret_cast<const char *>(module.data()), module.size());
  Key key;
  key.hash[0] = hashWords(bytes, 0) ^ hashWords(material, 1);
  key.hash[1] = fnv1a(material, fnv1a(bytes));
  key.material = std::move(material);
  return key;
}

std::optional<fs::path> directory() {
  fs::path dir;
  if (auto v = envValue("XPURT_CACHE_DIR")) {
    if (*v == "off") return std::nullopt;
    dir = *v;
  } else if (auto xdg = envValue("XDG_CACHE_HOME")) {
    dir = fs::path(*xdg) / "xpurt";
  } else if (auto home = envValue("HOME")) {
    dir = fs::path(*home) / ".cache" / "xpurt";
  } else {
    return std::nullopt;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    log().warn(
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
      log().warn("JIT cache entry '{}' cannot be opened ({}); not used", path.string(),
                 std::strerror(errno));
    return std::nullopt;
  }
  std::unique_ptr<int, void (*)(int *)> closer(&fd, [](int *f) { ::close(*f); });
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
      static_cast<uint64_t>(st.st_size) > kMaxEntryBytes) {
    log().warn("JIT cache entry '{}' is not a regular file of at most {} bytes; not used",
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

void reject(const fs::path &dir, std::string_view backend, const Key &key, const char *why) {
  fs::path path = entryPath(dir, backend, key);
  log().warn("JIT cache entry '{}' is {}; rebuilding it", path.string(), why);
  std::error_code ec;
  fs::remove(path, ec);
}

std::optional<std::string> read(const fs::path &dir, std::string_view backend, const Key &key) {
  std::optional<std::string> file = readRegularFile(entryPath(dir, backend, key));
  if (!file) return std::nullopt;
  auto refuse = [&](const char *why) -> std::optional<std::string> {
    reject(dir, backend, key, why);
    return std::nullopt;
  };
  Reader r(*file);
  char magic[8];
  for (char &c : magic) c = static_cast<char>(r.u8());
  if (!r.ok() || std::memcmp(magic, kMagic, 8) != 0) return refuse("not an xpurt cache entry");
  if (r.u32() != kContainerVersion) return refuse("of another format version");
  uint64_t h0 = r.u64(), h1 = r.u64();
  std::string material = r.str();
  if (!r.ok() || h0 != key.hash[0] || h1 != key.hash[1] || material != key.material)
    return refuse("for another module, device or version");
  uint64_t checksum = r.u64();
  std::string_view payload = r.rest();
  if (!r.ok() || hashWords(payload, 2) != checksum) return refuse("corrupt (checksum mismatch)");
  return std::string(payload);
}

void write(const fs::path &dir, std::string_view backend, const Key &key,
           std::string_view payload) {
  Writer w;
  w.raw(kMagic, sizeof kMagic);
  w.u32(kContainerVersion);
  w.u64(key.hash[0]);
  w.u64(key.hash[1]);
  w.str(key.material);
  w.u64(hashWords(payload, 2));
  w.raw(payload.data(), payload.size());
  std::string bytes = w.take();
  // Written beside the entry, then renamed over it: readers never see half an entry.
  fs::path path = entryPath(dir, backend, key);
  fs::path temp = path;
  temp += fmt::format(".{}.tmp", getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      log().warn("could not write JIT cache entry '{}'", temp.string());
      std::error_code ec;
      fs::remove(temp, ec);
      return;
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    log().warn("could not store JIT cache entry '{}': {}", path.string(), ec.message());
    fs::remove(temp, ec);
  }
}

}  // namespace xpurt::core::disk_cache
