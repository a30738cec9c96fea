// Level Zero results as xpurt errors: every failing call becomes an Error that names the call
// and its ze_result_t, with the xpurt code a user can act on (DEVICE_LOST for a lost device,
// OUT_OF_MEMORY for either kind of memory, INVALID_MODULE for a build failure).
#pragma once

#include "core/error.hpp"

#include <level_zero/ze_api.h>

#include <concepts>
#include <string>

namespace xpurt::level_zero {

// "ZE_RESULT_ERROR_DEVICE_LOST", or the number for a code this header does not know.
std::string resultName(ze_result_t result);

// The xpurt code for a failing result.
XpurtResult toXpurtResult(ze_result_t result);

// Throws the Error for a failed call: "zeMemAllocDevice failed with ZE_RESULT_...: context".
[[noreturn]] void failCall(const char *call, ze_result_t result, const std::string &context);

// A Level Zero descriptor or properties structure: zeroed, with its structure type.
template <class T>
T zeStruct(ze_structure_type_t type) {
  T value{};
  value.stype = type;
  return value;
}

inline void check(ze_result_t result, const char *call, const std::string &context = {}) {
  if (result != ZE_RESULT_SUCCESS) failCall(call, result, context);
}

// The same, the context made by `context()` only on failure: on a command's path, formatting
// a message costs as much as the append itself.
template <std::invocable Context>
void check(ze_result_t result, const char *call, Context &&context) {
  if (result != ZE_RESULT_SUCCESS) failCall(call, result, context());
}

}  // namespace xpurt::level_zero
