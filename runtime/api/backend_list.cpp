// The backends of this build: one line each. The only file that names them all.
#include "core/backend.hpp"
#include "cpu/cpu_backend.hpp"

namespace xpurt::core {

std::span<const BackendFactory> backendFactories() {
  static const BackendFactory factories[] = {
      &cpu::createCpuBackend,
  };
  return factories;
}

}  // namespace xpurt::core
