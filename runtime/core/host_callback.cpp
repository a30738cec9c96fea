#include "host_callback.hpp"

#include <spdlog/fmt/fmt.h>

#include <utility>

namespace xpurt::core {

static thread_local std::string hostCallbackError;

void setHostCallbackError(const char *message) {
  hostCallbackError = message ? message : "";
}

std::string runHostCallback(XpurtHostFunc func, void *userData) {
  hostCallbackError.clear();  // a message an earlier callback set and then succeeded
  XpurtResult r = func(userData);
  std::string why = std::exchange(hostCallbackError, std::string());
  if (r == XPURT_SUCCESS) return {};
  return fmt::format("host callback failed ({}){}{}", xpurtResultString(r), why.empty() ? "" : ": ",
                     why);
}

}  // namespace xpurt::core
