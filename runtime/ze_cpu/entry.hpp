// The frame of every entry point: the call counter, injected faults, the state before zeInit,
// and exceptions turned into result codes (nothing throws across the C boundary).
#pragma once

#include <level_zero/ze_api.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace xpurt::ze_cpu {

enum class ApiId : uint16_t {
#define XPURT_ZE_API(name) name,
#include "api_functions.inc"
#undef XPURT_ZE_API
  Count
};

// Thrown below an entry point: the result that the call returns.
struct Failure {
  ze_result_t result;
};
[[noreturn]] inline void fail(ze_result_t result) {
  throw Failure{result};
}
inline void requireHandle(const void *handle) {
  if (!handle) fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}
inline void requirePointer(const void *pointer) {
  if (!pointer) fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}
// An optional wait list: a count without events is ZE_RESULT_ERROR_INVALID_SIZE.
inline void requireWaitList(uint32_t count, const ze_event_handle_t *events) {
  if (count > 0 && !events) fail(ZE_RESULT_ERROR_INVALID_SIZE);
}

// Handles are pointers to the driver's objects: the loader hands them through unchanged when
// it has one driver, as here.
template <class Object, class Handle>
Object *fromHandle(Handle handle) {
  return reinterpret_cast<Object *>(handle);
}
template <class Handle, class Object>
Handle toHandle(Object *object) {
  return reinterpret_cast<Handle>(object);
}

// A string handed out through a size and a buffer (build logs, kernel names), as Level Zero
// does: without a buffer, the size it needs with its terminating NUL; else as much as fits,
// NUL-terminated.
ze_result_t copyString(const std::string &text, size_t *pSize, char *buffer);

// What zeDriverGetLastErrorDescription gives the calling thread: why its last failed call
// failed. Entry points that know more than their result code (a kernel's failure, a build
// log) say it here; otherwise the frame names the function and its result.
void describeError(std::string text);
const std::string &lastErrorDescription();

namespace detail {

extern std::atomic<uint64_t> apiCalls;
extern thread_local uint64_t threadApiCalls;  // this thread's share of apiCalls
extern std::atomic<bool> faultsArmed;
extern std::atomic<bool> initialized;

// The injected result for this call of `id`, or ZE_RESULT_SUCCESS.
ze_result_t injectedFault(ApiId id);
// The result for the exception being handled (described for the thread).
ze_result_t resultOfCurrentException(ApiId id) noexcept;
// Describes a failed call's result, unless its body described it already.
void noteFailure(ApiId id, ze_result_t result) noexcept;

}  // namespace detail

// Runs one entry point's body. The checks before it cost an atomic increment and two relaxed
// loads, for the hot paths (appends) that the benchmarks count.
template <class Body>
ze_result_t entry(ApiId id, Body &&body) noexcept {
  detail::apiCalls.fetch_add(1, std::memory_order_relaxed);
  ++detail::threadApiCalls;
  if (detail::faultsArmed.load(std::memory_order_relaxed)) [[unlikely]]
    if (ze_result_t fault = detail::injectedFault(id); fault != ZE_RESULT_SUCCESS) return fault;
  if (id != ApiId::zeInit && !detail::initialized.load(std::memory_order_acquire)) [[unlikely]]
    return ZE_RESULT_ERROR_UNINITIALIZED;
  try {
    ze_result_t result = body();
    if (result != ZE_RESULT_SUCCESS && result != ZE_RESULT_NOT_READY) [[unlikely]]
      detail::noteFailure(id, result);
    return result;
  } catch (...) {
    return detail::resultOfCurrentException(id);
  }
}

// Parses a fault list (ze_cpu_inspect.h); prints why and returns false on a bad one.
bool setFaults(const char *spec);

}  // namespace xpurt::ze_cpu
