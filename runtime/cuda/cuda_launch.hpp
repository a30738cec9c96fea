// A launch as the driver takes it: the function, grid, block, dynamic shared memory and the
// kernel parameters, made from a command for cuLaunchKernel and for a CUDA graph's kernel
// node alike.
#pragma once

#include "core/command.hpp"
#include "core/launch_parts.hpp"
#include "cuda_device.hpp"

#include <array>
#include <string>
#include <vector>

namespace xpurt::cuda {

struct KernelLaunch {
  CUfunction function = nullptr;
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};  // the selected part's
  uint32_t shared = 0;
  std::vector<void *> params;  // point into the members below and the command's arguments
  void *taskParams = nullptr;
  std::vector<void *> pointers;
  std::vector<uint32_t> offsets;
  // What a kernel that takes launch values gets after its own parameters, in the order of
  // nvptx_lowering.hpp's kLaunchValues; groupBase is the selected part's.
  struct Values {
    uint32_t workDim = 1;
    uint64_t globalOffset[3] = {0, 0, 0};
    uint64_t globalSize[3] = {1, 1, 1};
    uint32_t numGroups[3] = {1, 1, 1};
    uint32_t enqueuedLocalSize[3] = {1, 1, 1};
    uint32_t groupBase[3] = {0, 0, 0};
  } values;
  // The launches of whole blocks it takes: one, or more where the last work-group of a
  // dimension is partial (core::splitIntoWholeGroups). None for an empty range.
  core::LaunchParts parts;

  KernelLaunch() = default;
  KernelLaunch(const KernelLaunch &) = delete;  // params point into it
  KernelLaunch &operator=(const KernelLaunch &) = delete;
  // Sets grid, block and values.groupBase to part `index`'s.
  void select(size_t index);
  // As made, keeping the vectors' capacity: a queue reuses one for its launches.
  void clear();
  // "kernel 'k', 4x1x1 blocks of 256x1x1, 0 bytes of dynamic shared memory", for messages.
  std::string describe(const core::Command &cmd) const;
};

// Fills `launch` (cleared first) for the launch command `cmd` on `device`, its first part
// selected; throws
// OUT_OF_RANGE for a grid the device cannot run. The parameters stay valid while `cmd` and
// `launch` live.
void prepareLaunch(const CudaDevice &device, const core::Command &cmd, KernelLaunch &launch);

}  // namespace xpurt::cuda
