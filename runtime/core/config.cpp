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

bool parseUnsigned(const std::string &text, uint64_t &out) {
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

std::string lower(std::string s) {
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

}  // namespace xpurt::core
