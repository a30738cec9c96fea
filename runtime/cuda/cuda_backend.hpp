// The CUDA backend: every NVIDIA GPU the CUDA driver reports, the driver opened at run time.
#pragma once

#include "core/backend.hpp"

#include <memory>

namespace xpurt::cuda {

std::unique_ptr<core::Backend> createCudaBackend();

}  // namespace xpurt::cuda
