#include "config.hpp"

#include "error.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <sstream>

namespace xpurt::core {

std::optional<std::string> envValue(const char *name) {
  const char *v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

static bool parseUnsigned(const std::string &text, uint64_t &out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

uint64_t envUnsigned(const char *name, uint64_t min, uint64_t max, uint64_t fallback) {
  auto v = envValue(name);
  if (!v) return fallback;
  uint64_t n = 0;
  if (!parseUnsigned(*v, n) || n < min || n > max)
    fail(XPURT_ERROR_INVALID_CONFIG, "{}='{}' is not valid: use a whole number from {} to {}", name,
         *v, min, max);
  return n;
}

static std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

size_t envChoice(const char *name, const std::vector<const char *> &words, size_t fallback) {
  auto v = envValue(name);
  if (!v) return fallback;
  std::string value = lower(*v);
  for (size_t i = 0; i < words.size(); ++i)
    if (value == words[i]) return i;
  std::string list;
  for (const char *w : words) list += (list.empty() ? "" : ", ") + std::string(w);
  fail(XPURT_ERROR_INVALID_CONFIG, "{}='{}' is not valid: use one of {}", name, *v, list);
}

std::vector<std::string> envPathList(const char *name) {
  std::vector<std::string> dirs;
  auto v = envValue(name);
  if (!v) return dirs;
  std::stringstream in(*v);
  for (std::string dir; std::getline(in, dir, ':');)
    if (!dir.empty()) dirs.push_back(dir);
  return dirs;
}

std::optional<DeviceSelector> deviceSelectorFromEnv() {
  auto v = envValue("XPURT_DEVICE");
  if (!v) return std::nullopt;
  std::string text = lower(*v);
  DeviceSelector sel;
  auto colon = text.find(':');
  sel.backend = text.substr(0, colon);
  bool known = sel.backend == "cpu" || sel.backend == "gpu" || sel.backend == "auto" ||
               sel.backend == "level_zero" || sel.backend == "cuda";
  uint64_t index = 0;
  bool indexOk = colon == std::string::npos ||
                 (parseUnsigned(text.substr(colon + 1), index) && index <= UINT32_MAX);
  if (!known || !indexOk || (sel.backend == "auto" && colon != std::string::npos))
    fail(XPURT_ERROR_INVALID_CONFIG,
         "XPURT_DEVICE='{}' is not a device: use cpu, gpu, auto, level_zero or cuda, optionally "
         "followed by :<index> (for example cuda:0)",
         *v);
  if (sel.backend == "auto") sel.backend.clear();
  sel.index = static_cast<uint32_t>(index);
  return sel;
}

}  // namespace xpurt::core
