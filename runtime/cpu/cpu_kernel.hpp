// What the CPU queue runs: a kernel of either kind of CPU module (native or SPIR-V).
#pragma once

#include "core/command.hpp"

#include <array>
#include <cstdint>

namespace xpurt::cpu {

// __local memory per work-group: each thread keeps one such buffer, so a bound keeps a bad size
// from becoming a huge allocation (OpenCL CPU devices report far less: 32 KiB to 256 KiB).
inline constexpr uint64_t kMaxLocalBytesPerGroup = uint64_t{1} << 30;

class CpuKernel : public core::Kernel {
 public:
  using core::Kernel::Kernel;
  // Bytes of __local memory the kernel's own variables take per work-group (not counting
  // __local arguments).
  virtual uint64_t staticLocalBytes() const { return 0; }
  // Runs every task of an ISPCRT-style launch and returns when all have finished. Called
  // inside the device's arena.
  virtual void run(void *params, const std::array<uint32_t, 3> &dims) const = 0;
  // Runs a general launch, already checked by checkLaunch. Called inside the device's arena.
  virtual void run(const core::KernelArgs &args, const core::NDRange &range) const = 0;
};

}  // namespace xpurt::cpu
