// A launch as the driver takes it: the function, grid, block, dynamic shared memory and the
// kernel parameters, made from a command for cuLaunchKernel and for a CUDA graph's kernel
// node alike.
#pragma once

#include "core/command.hpp"
#include "cuda_device.hpp"

#include <array>
#include <string>
#include <vector>

namespace xpurt::cuda {

struct KernelLaunch {
  CUfunction function = nullptr;
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  uint32_t shared = 0;
  std::vector<void *> params;  // point into the members below and the command's arguments
  void *taskParams = nullptr;
  std::vector<void *> pointers;
  std::vector<uint32_t> offsets;
  uint32_t workDim = 1;
  uint64_t globalOffset[3] = {0, 0, 0};

  KernelLaunch() = default;
  KernelLaunch(const KernelLaunch &) = delete;  // params point into it
  KernelLaunch &operator=(const KernelLaunch &) = delete;
  // "kernel 'k', 4x1x1 blocks of 256x1x1, 0 bytes of dynamic shared memory", for messages.
  std::string describe(const core::Command &cmd) const;
};

// Fills `launch` for the launch command `cmd` on `device`; throws OUT_OF_RANGE for a grid the
// device cannot run. The parameters stay valid while `cmd` and `launch` live.
void prepareLaunch(const CudaDevice &device, const core::Command &cmd, KernelLaunch &launch);

}  // namespace xpurt::cuda
