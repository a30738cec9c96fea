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

// Lower case; a whole unsigned decimal number (false for anything else).
std::string lower(std::string s);
bool parseUnsigned(const std::string &text, uint64_t &out);

}  // namespace xpurt::core
