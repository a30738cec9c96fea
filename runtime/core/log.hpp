// xpurt's logger (spdlog). Level from XPURT_LOG_LEVEL; default "warn".
#pragma once

#include <spdlog/spdlog.h>

namespace xpurt::core {

spdlog::logger &log();

// Re-reads XPURT_LOG_LEVEL; throws an INVALID_CONFIG Error for a value spdlog does not know.
void applyLogLevelFromEnv();

}  // namespace xpurt::core
