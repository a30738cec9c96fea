// The per-command record that tests read through ze_cpu_inspect.h.
#pragma once

#include "command.hpp"

#include <atomic>

namespace xpurt::ze_cpu {

namespace detail {
extern std::atomic<bool> recording;
}

// One relaxed load on the path of every command.
inline bool recording() {
  return detail::recording.load(std::memory_order_relaxed);
}

// Records a command that ran on (ordinal, index), appended to `source`.
void record(const RecordedCommand &command, uint32_t ordinal, uint32_t index, CommandList *source,
            ze_result_t result);

}  // namespace xpurt::ze_cpu
