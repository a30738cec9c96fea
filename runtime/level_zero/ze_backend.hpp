// The Level Zero backend: every device of every driver the loader reports, GPUs first.
#pragma once

#include "core/backend.hpp"

#include <memory>

namespace xpurt::level_zero {

std::unique_ptr<core::Backend> createLevelZeroBackend();

}  // namespace xpurt::level_zero
