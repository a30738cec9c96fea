// The CUDA driver API, opened at run time (dlopen("libcuda.so.1")), so xpurt builds and runs
// on machines without an NVIDIA driver: there the backend finds no device and says why. CUDA
// results become xpurt errors that name the call and the CUresult, with the code a user acts
// on (DEVICE_LOST for errors that leave the context unusable, OUT_OF_MEMORY, INVALID_MODULE).
#pragma once

#include "core/error.hpp"

#include <cuda.h>

#include <functional>
#include <string>

namespace xpurt::cuda {

struct DriverApi {
#define XPURT_CU(member, symbol) decltype(&::symbol) member = nullptr;
#include "cuda_functions.inc"
#undef XPURT_CU
  int version = 0;  // cuDriverGetVersion: 12040 for CUDA 12.4
};

// The driver, opened and initialised once (cuInit); null if there is none, with `why` saying
// what is missing (no libcuda.so.1, a driver older than CUDA 11.0, cuInit failed).
const DriverApi *openDriver(std::string *why = nullptr);
// The driver, once openDriver has succeeded (every CUDA object of xpurt was made through it).
const DriverApi &cu();

// "CUDA_ERROR_OUT_OF_MEMORY", or the number for a code the driver does not name.
std::string resultName(CUresult result);
XpurtResult toXpurtResult(CUresult result);
// Throws the Error for a failed call: "cuMemAlloc failed with CUDA_ERROR_...: context".
[[noreturn]] void failCall(const char *call, CUresult result, const std::string &context);
inline void check(CUresult result, const char *call, const std::string &context = {}) {
  if (result != CUDA_SUCCESS) failCall(call, result, context);
}

// Runs `release` later on a thread of its own. Freeing memory or unloading a module waits for
// the whole device to be idle, and a stream may be waiting on a host flag that only this
// process's threads (a completion thread running a host callback, the application before it
// lets the callback finish) will set: a free on such a thread would wait forever. Every
// release that may wait for the device goes through here.
void releaseLater(std::function<void()> release);

// Makes a context current on this thread for a scope, as every driver call needs one, and
// puts back what was current before.
class ContextScope {
 public:
  explicit ContextScope(CUcontext context);
  ~ContextScope();
  ContextScope(const ContextScope &) = delete;
  ContextScope &operator=(const ContextScope &) = delete;

 private:
  CUcontext previous_ = nullptr;
  bool switched_ = false;
};

}  // namespace xpurt::cuda
