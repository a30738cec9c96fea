// A launch whose global size is not a multiple of its local size, as launches of whole
// work-groups, for devices whose launches have whole work-groups only (CUDA, Level Zero): in
// each dimension the full groups, then the partial last one as a launch of its own whose
// groups are the remainder's size, as Intel's OpenCL runtime splits such a launch. The kernel
// learns each part's first group id from the backend (and the whole launch's sizes), so the
// work-item functions answer as for one launch.
#pragma once

#include "backend.hpp"
#include "command.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace xpurt::core {

struct LaunchPart {
  std::array<uint64_t, 3> groupBase;  // the id of the part's first work-group
  std::array<uint64_t, 3> groups;     // its work-groups in each dimension
  std::array<uint64_t, 3> localSize;  // their size: the enqueued local size or the remainder
};

// The range a launch command runs: its own, or for a task launch one work-group per task
// (Kernel::taskRange; a native kernel without a signature gets groups of one work-item).
NDRange launchRange(const Command &cmd);

// The parts of `range` (its local size chosen): one for a launch of whole groups, at most
// 2 per dimension, so 8, otherwise; full parts first.
std::vector<LaunchPart> splitIntoWholeGroups(const NDRange &range);

// The launch's work-groups in dimension d, the partial last one included.
inline uint64_t groupCount(const NDRange &range, int d) {
  return (range.globalSize[d] + range.localSize[d] - 1) / range.localSize[d];
}

}  // namespace xpurt::core
