// Reading XPURT_* environment variables. A bad value is an Error that names the variable, the
// value and what it should be.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xpurt::core {

// The value of an environment variable, or nothing if it is unset or empty.
std::optional<std::string> envValue(const char *name);

// An unsigned integer variable in [min, max], or fallback if unset.
uint64_t envUnsigned(const char *name, uint64_t min, uint64_t max, uint64_t fallback);

// One of the listed words (case-insensitive), as its index in words; fallback if unset.
size_t envChoice(const char *name, const std::vector<const char *> &words, size_t fallback);

// A ':'-separated list of folders.
std::vector<std::string> envPathList(const char *name);

// XPURT_DEVICE: which device AUTO means.
struct DeviceSelector {
  std::string backend;  // "cpu", "gpu", "level_zero", "cuda", or "" for auto
  uint32_t index = 0;
};
std::optional<DeviceSelector> deviceSelectorFromEnv();

}  // namespace xpurt::core
