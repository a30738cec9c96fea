// What runtime/core asks of the library it is linked into (libxpurt defines these in
// runtime/api/backend_list.cpp): here, the CPU backend alone, which this driver runs on.
#include "core/backend.hpp"
#include "core/jit_worker.hpp"
#include "cpu/cpu_backend.hpp"

#include <xpurt/xpurt.h>

#include <iterator>

namespace xpurt::core {

std::span<const BackendFactory> backendFactories() {
  static const BackendFactory factories[] = {&cpu::createCpuBackend};
  return factories;
}

// In-process compilation (XPURT_JIT_ISOLATION=off, or no worker program) uses the same
// compiler as the worker process.
Compiler findCompiler(std::string_view backend) {
  if (backend == cpu::kCpuScalarCompiler) return &cpu::compileSpirvForCpuScalarSerialized;
  return backend == "cpu" ? &cpu::compileSpirvForCpuSerialized : nullptr;
}

}  // namespace xpurt::core

// Named in core's messages about host callbacks, which this driver never queues; libxpurt's
// names are not reachable from here (and must not be: this library binds nothing of it).
extern "C" const char *xpurtResultString(XpurtResult result) {
  static const char *const names[] = {"XPURT_SUCCESS",
                                      "XPURT_ERROR_INVALID_ARGUMENT",
                                      "XPURT_ERROR_INVALID_HANDLE",
                                      "XPURT_ERROR_OUT_OF_RANGE",
                                      "XPURT_ERROR_NOT_FOUND",
                                      "XPURT_ERROR_INVALID_MODULE",
                                      "XPURT_ERROR_UNSUPPORTED",
                                      "XPURT_ERROR_INVALID_CONFIG",
                                      "XPURT_ERROR_OUT_OF_MEMORY",
                                      "XPURT_ERROR_EXECUTION_FAILED",
                                      "XPURT_ERROR_UNKNOWN",
                                      "XPURT_ERROR_DEVICE_LOST"};
  auto index = static_cast<size_t>(result);
  return index < std::size(names) ? names[index] : "an unknown XpurtResult";
}
