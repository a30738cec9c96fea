// Contexts. A context owns the memory allocated in it (freed with it, if the application did
// not); every other object only checks that it was given one.
#pragma once

#include "entry.hpp"

#include <level_zero/ze_api.h>

namespace xpurt::ze_cpu {

class ContextObject {};

inline ContextObject &contextOf(ze_context_handle_t handle) {
  requireHandle(handle);
  return *fromHandle<ContextObject>(handle);
}

}  // namespace xpurt::ze_cpu
