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

// Deferred releases and streams that wait on host flags (cuStreamWaitValue32) never overlap.
// A release (cuMemFree, cuMemFreeHost, cuMemHostUnregister, cuModuleUnload) waits for the
// whole device, holding the driver's locks meanwhile; a thread that has enqueued a flag wait
// and not yet handed the command to the thread that sets the flag would block on those locks
// in its next driver call, and the device would wait for the flag forever. So a release runs
// only while no flag is armed, and arming (just before the wait is enqueued) waits for a
// release that runs. Every armed flag is disarmed when it is set or goes back to its pool.
void armHostFlag();
void disarmHostFlag();

// A failure to release something (memory, a module, a stream) as a warning; at debug level
// only once the driver has shut down, at process exit, having freed everything itself.
void warnReleaseFailure(const std::string &message);

// Runs `release` later on a thread of its own. Freeing memory or unloading a module waits for
// the whole device to be idle, and a stream may be waiting on a host flag that only this
// process's threads (the device's host executor running a host callback, the application
// before it lets the callback finish) will set: a free on such a thread would wait forever. Every
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
