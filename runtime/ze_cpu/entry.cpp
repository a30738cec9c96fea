#include "entry.hpp"

#include "core/error.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

namespace xpurt::ze_cpu {
namespace detail {

std::atomic<uint64_t> apiCalls{0};
thread_local uint64_t threadApiCalls = 0;
std::atomic<bool> faultsArmed{false};
std::atomic<bool> initialized{false};

}  // namespace detail

namespace {

constexpr std::string_view kApiNames[] = {
#define XPURT_ZE_API(name) #name,
#include "api_functions.inc"
#undef XPURT_ZE_API
};
static_assert(std::size(kApiNames) == static_cast<size_t>(ApiId::Count));

struct NamedResult {
  std::string_view name;
  ze_result_t value;
};
#define XPURT_ZE_RESULT(name) \
  NamedResult {               \
#name, name               \
  }
constexpr NamedResult kResults[] = {
    XPURT_ZE_RESULT(ZE_RESULT_NOT_READY),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_DEVICE_LOST),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_MODULE_LINK_FAILURE),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE),
    XPURT_ZE_RESULT(ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX),
    XPURT_ZE_RESULT(ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE),
    XPURT_ZE_RESULT(ZE_RESULT_EXP_ERROR_REMOTE_DEVICE),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_NOT_AVAILABLE),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE),
    XPURT_ZE_RESULT(ZE_RESULT_WARNING_DROPPED_DATA),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_UNINITIALIZED),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_VERSION),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_SIZE),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_SIZE),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_NAME),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_OVERLAPPING_REGIONS),
    XPURT_ZE_RESULT(ZE_RESULT_WARNING_ACTION_REQUIRED),
    XPURT_ZE_RESULT(ZE_RESULT_ERROR_UNKNOWN),
};
#undef XPURT_ZE_RESULT

// One injected fault per entry point: `result` while armed (0 otherwise); `countdown` -1 for
// every call, else the calls left until the one that fails.
struct Fault {
  std::atomic<int32_t> result{0};
  std::atomic<int64_t> countdown{0};
};
std::array<Fault, static_cast<size_t>(ApiId::Count)> faults;
std::mutex faultsMutex;  // serialises setFaults

struct ParsedFault {
  size_t api;
  ze_result_t result;
  int64_t countdown;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool parseFault(std::string_view entry, ParsedFault &out) {
  auto bad = [&](const char *why) {
    std::fprintf(stderr, "xpurt ze_cpu: fault '%.*s' refused: %s\n", static_cast<int>(entry.size()),
                 entry.data(), why);
    return false;
  };
  size_t equals = entry.find('=');
  if (equals == std::string_view::npos)
    return bad(
        "write zeFunctionName=ZE_RESULT_ERROR_NAME or zeFunctionName=ZE_RESULT_ERROR_NAME@N");
  std::string_view function = trim(entry.substr(0, equals));
  std::string_view result = trim(entry.substr(equals + 1));
  out.countdown = -1;
  if (size_t at = result.find('@'); at != std::string_view::npos) {
    std::string_view count = trim(result.substr(at + 1));
    result = trim(result.substr(0, at));
    uint64_t n = 0;
    if (count.empty() || count.size() > 18) return bad("N must be a whole number from 1");
    for (char c : count) {
      if (c < '0' || c > '9') return bad("N must be a whole number from 1");
      n = n * 10 + static_cast<uint64_t>(c - '0');
    }
    if (n == 0) return bad("N counts calls from 1");
    out.countdown = static_cast<int64_t>(n);
  }
  out.api = std::size(kApiNames);
  for (size_t i = 0; i < std::size(kApiNames); ++i)
    if (kApiNames[i] == function) out.api = i;
  if (out.api == std::size(kApiNames))
    return bad("this driver implements no Level Zero function of that name");
  const NamedResult *named = nullptr;
  for (const NamedResult &r : kResults)
    if (r.name == result) named = &r;
  if (!named) return bad("not the name of a ze_result_t other than ZE_RESULT_SUCCESS");
  out.result = named->value;
  return true;
}

// Why the thread's last failed call failed; `described`: its body said so itself.
thread_local std::string lastError;
thread_local bool described = false;

std::string_view resultName(ze_result_t result) {
  for (const NamedResult &r : kResults)
    if (r.value == result) return r.name;
  return "an unknown result";
}

ze_result_t resultOfXpurtError(const core::Error &e) {
  switch (e.code()) {
    case XPURT_ERROR_OUT_OF_MEMORY:
      return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    case XPURT_ERROR_INVALID_ARGUMENT:
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    case XPURT_ERROR_UNSUPPORTED:
      return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    case XPURT_ERROR_DEVICE_LOST:
      return ZE_RESULT_ERROR_DEVICE_LOST;
    default:
      return ZE_RESULT_ERROR_UNKNOWN;
  }
}

}  // namespace

namespace detail {

ze_result_t injectedFault(ApiId id) {
  Fault &f = faults[static_cast<size_t>(id)];
  int32_t result = f.result.load(std::memory_order_acquire);
  if (result == 0) return ZE_RESULT_SUCCESS;
  if (f.countdown.load(std::memory_order_relaxed) < 0) return static_cast<ze_result_t>(result);
  if (f.countdown.fetch_sub(1, std::memory_order_acq_rel) != 1) return ZE_RESULT_SUCCESS;
  // This was the call: the fault is spent.
  f.result.store(0, std::memory_order_release);
  return static_cast<ze_result_t>(result);
}

ze_result_t resultOfCurrentException(ApiId id) noexcept {
  ze_result_t result = ZE_RESULT_ERROR_UNKNOWN;
  try {
    throw;
  } catch (const Failure &f) {
    result = f.result;
  } catch (const core::Error &e) {
    result = resultOfXpurtError(e);
    describeError(e.what());
  } catch (const std::bad_alloc &) {
    result = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  } catch (const std::exception &e) {
    describeError(std::string("unexpected error: ") + e.what());
  } catch (...) {
  }
  noteFailure(id, result);
  return result;
}

void noteFailure(ApiId id, ze_result_t result) noexcept {
  if (std::exchange(described, false)) return;
  try {
    lastError = std::string(kApiNames[static_cast<size_t>(id)]) + " returned " +
                std::string(resultName(result));
  } catch (...) {
    lastError.clear();
  }
}

}  // namespace detail

void describeError(std::string text) {
  lastError = std::move(text);
  described = true;
}

const std::string &lastErrorDescription() {
  return lastError;
}

ze_result_t copyString(const std::string &text, size_t *pSize, char *buffer) {
  requirePointer(pSize);
  if (!buffer) {
    *pSize = text.size() + 1;
    return ZE_RESULT_SUCCESS;
  }
  if (*pSize == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
  size_t n = std::min(text.size(), *pSize - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
  return ZE_RESULT_SUCCESS;
}

bool setFaults(const char *spec) {
  std::vector<ParsedFault> parsed;
  std::string_view rest = spec ? spec : "";
  while (!trim(rest).empty()) {
    size_t comma = rest.find(',');
    std::string_view entry = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (entry.empty()) continue;
    ParsedFault fault{};
    if (!parseFault(entry, fault)) return false;
    parsed.push_back(fault);
  }
  std::lock_guard lock(faultsMutex);
  detail::faultsArmed.store(false, std::memory_order_relaxed);
  for (Fault &f : faults) f.result.store(0, std::memory_order_relaxed);
  for (const ParsedFault &p : parsed) {
    faults[p.api].countdown.store(p.countdown, std::memory_order_relaxed);
    faults[p.api].result.store(p.result, std::memory_order_release);
  }
  detail::faultsArmed.store(!parsed.empty(), std::memory_order_release);
  return true;
}

}  // namespace xpurt::ze_cpu
