#include "launch_parts.hpp"

namespace xpurt::core {

NDRange launchRange(const Command &cmd) {
  if (cmd.type != Command::Type::Launch) return cmd.range;
  if (cmd.kernel->signature()) return cmd.kernel->taskRange(cmd.dims);
  NDRange range;
  range.localSize = {1, 1, 1};
  for (int d = 0; d < 3; ++d) range.globalSize[d] = cmd.dims[d];
  return range;
}

std::vector<LaunchPart> splitIntoWholeGroups(const NDRange &range) {
  // In each dimension, the slices to run: (first group, groups, local size).
  std::array<std::vector<std::array<uint64_t, 3>>, 3> slices;
  for (int d = 0; d < 3; ++d) {
    uint64_t local = range.localSize[d], full = range.globalSize[d] / local;
    uint64_t rest = range.globalSize[d] % local;
    if (full > 0) slices[d].push_back({0, full, local});
    if (rest > 0) slices[d].push_back({full, 1, rest});
  }
  std::vector<LaunchPart> parts;
  for (const auto &z : slices[2])
    for (const auto &y : slices[1])
      for (const auto &x : slices[0])
        parts.push_back({{x[0], y[0], z[0]}, {x[1], y[1], z[1]}, {x[2], y[2], z[2]}});
  return parts;
}

}  // namespace xpurt::core
