// The one clock of command times, trace records and enqueue stamps.
#pragma once

#include <chrono>
#include <cstdint>

namespace xpurt::core {

// Nanoseconds on the steady clock.
inline uint64_t steadyNowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace xpurt::core
