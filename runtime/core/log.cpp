#include "log.hpp"

#include "config.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace xpurt::core {

spdlog::logger &log() {
  // Not registered with spdlog, so an application's own "xpurt" logger cannot clash with it.
  static auto *logger = [] {
    auto *l = new spdlog::logger("xpurt", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    l->set_pattern("[xpurt] [%l] %v");
    l->set_level(spdlog::level::warn);
    return l;
  }();
  return *logger;
}

void applyLogLevelFromEnv() {
  static const std::vector<const char *> levels = {"trace", "debug",    "info", "warn",
                                                   "error", "critical", "off"};
  size_t level = envChoice("XPURT_LOG_LEVEL", levels, spdlog::level::warn);
  log().set_level(static_cast<spdlog::level::level_enum>(level));
}

}  // namespace xpurt::core
