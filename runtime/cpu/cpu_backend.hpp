// The CPU backend: one device, the host's cores, on a oneTBB arena.
#pragma once

#include "core/backend.hpp"

namespace xpurt::cpu {

std::unique_ptr<core::Backend> createCpuBackend();

}  // namespace xpurt::cpu
