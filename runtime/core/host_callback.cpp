#include "host_callback.hpp"

#include <spdlog/fmt/fmt.h>

#include <utility>

namespace xpurt::core {

static thread_local std::string hostCallbackError;
static thread_local std::string runtimeCallbackFailure;

void setHostCallbackError(const char *message) {
  hostCallbackError = message ? message : "";
}

void setRuntimeCallbackFailure(std::string message) {
  runtimeCallbackFailure = std::move(message);
}

std::string runHostCallback(XpurtHostFunc func, void *userData) {
  hostCallbackError.clear();  // a message an earlier callback set and then succeeded
  runtimeCallbackFailure.clear();
  XpurtResult r = func(userData);
  std::string why = std::exchange(hostCallbackError, std::string());
  std::string whole = std::exchange(runtimeCallbackFailure, std::string());
  if (r == XPURT_SUCCESS) return {};
  if (!whole.empty()) return whole;
  return fmt::format("host callback failed ({}){}{}", xpurtResultString(r), why.empty() ? "" : ": ",
                     why);
}

}  // namespace xpurt::core
