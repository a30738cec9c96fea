// What the CPU queue runs: a kernel of either kind of CPU module (native or SPIR-V).
#pragma once

#include "core/command.hpp"

#include <array>

namespace xpurt::cpu {

class CpuKernel : public core::Kernel {
 public:
  using core::Kernel::Kernel;
  // Runs every task of an ISPCRT-style launch and returns when all have finished. Called
  // inside the device's arena.
  virtual void run(void *params, const std::array<uint32_t, 3> &dims) const = 0;
  // Runs a general launch, already checked by checkLaunch. Called inside the device's arena.
  virtual void run(const core::KernelArgs &args, const core::NDRange &range) const = 0;
};

}  // namespace xpurt::cpu
