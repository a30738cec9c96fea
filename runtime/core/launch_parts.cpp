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

LaunchParts splitIntoWholeGroups(const NDRange &range) {
  // In each dimension, the slices to run (first group, groups, local size): the full groups,
  // then the partial one.
  std::array<std::array<std::array<uint64_t, 3>, 2>, 3> slices;
  std::array<size_t, 3> counts{};
  for (int d = 0; d < 3; ++d) {
    uint64_t local = range.localSize[d], full = range.globalSize[d] / local;
    uint64_t rest = range.globalSize[d] % local;
    if (full > 0) slices[d][counts[d]++] = {0, full, local};
    if (rest > 0) slices[d][counts[d]++] = {full, 1, rest};
  }
  LaunchParts parts;
  for (size_t k = 0; k < counts[2]; ++k)
    for (size_t j = 0; j < counts[1]; ++j)
      for (size_t i = 0; i < counts[0]; ++i) {
        const auto &x = slices[0][i], &y = slices[1][j], &z = slices[2][k];
        parts.push_back({{x[0], y[0], z[0]}, {x[1], y[1], z[1]}, {x[2], y[2], z[2]}});
      }
  return parts;
}

}  // namespace xpurt::core
