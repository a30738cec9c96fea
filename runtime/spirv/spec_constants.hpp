// Specialization constants given to a module: checked against what the module declares before
// the translator sees them (it aborts the process on a value wider than its constant).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace xpurt::spirv {

// The type of a specialization constant as the module declares it.
struct SpecConstantType {
  uint32_t bits;  // bool: 1; a type other than bool, integer and float: 64
  enum class Kind : uint8_t { Bool, Integer, Float, Other } kind;
};

// The specialization constants the module declares, by SpecId; throws INVALID_MODULE if the
// module cannot be parsed. APIs that pass values as untyped bytes (Level Zero) size them by this.
std::map<uint32_t, SpecConstantType> declaredSpecConstants(std::span<const uint32_t> words,
                                                           const std::string &name);

// Throws INVALID_ARGUMENT for an id the module does not declare (naming the ids it does) or a
// value that does not fit its constant's type (bool: 0 or 1; an n-bit integer or float: n bits,
// or a sign-extended negative n-bit integer). Returns the values cut to their constants' width,
// as the translator wants them.
std::vector<std::pair<uint32_t, uint64_t>> checkSpecConstants(
    std::span<const uint32_t> words, std::span<const std::pair<uint32_t, uint64_t>> values,
    const std::string &name);

}  // namespace xpurt::spirv
