#include "backend.hpp"

#include "log.hpp"

#include <algorithm>

namespace xpurt::core {

// Defined next to the backends (runtime/api/backend_list.cpp), so core names none of them.
std::span<const BackendFactory> backendFactories();

std::span<Backend *const> backends() {
  // Created once and never destroyed: devices refer to their backend, and an application may
  // release its last device from a static destructor.
  static const std::vector<Backend *> *list = [] {
    auto *all = new std::vector<Backend *>;
    for (BackendFactory make : backendFactories()) {
      try {
        if (auto backend = make()) all->push_back(backend.release());
      } catch (const std::exception &e) {
        log().warn("a backend could not start and is left out: {}", e.what());
      }
    }
    std::stable_partition(all->begin(), all->end(),
                          [](Backend *b) { return b->deviceType() == XPURT_DEVICE_TYPE_GPU; });
    return all;
  }();
  return *list;
}

}  // namespace xpurt::core
