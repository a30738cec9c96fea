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

// The parts of a launch: one for a launch of whole groups, at most 2 per dimension, so 8,
// otherwise. Held in place: a launch allocates nothing for them.
class LaunchParts {
 public:
  static constexpr size_t kMax = 8;
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  const LaunchPart &operator[](size_t i) const { return parts_[i]; }
  const LaunchPart *begin() const { return parts_.data(); }
  const LaunchPart *end() const { return parts_.data() + count_; }
  void push_back(const LaunchPart &part) { parts_[count_++] = part; }

 private:
  std::array<LaunchPart, kMax> parts_{};
  size_t count_ = 0;
};

// The parts of `range` (its local size chosen), full parts first.
LaunchParts splitIntoWholeGroups(const NDRange &range);

// The launch's work-groups in dimension d, the partial last one included.
inline uint64_t groupCount(const NDRange &range, int d) {
  return (range.globalSize[d] + range.localSize[d] - 1) / range.localSize[d];
}

}  // namespace xpurt::core
