#include "cuda_driver.hpp"

#include "core/config.hpp"
#include "core/log.hpp"

#include <dlfcn.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

namespace xpurt::cuda {
namespace {

// Drivers before CUDA 11.0 lack cuDevicePrimaryCtxRelease_v2 and the PTX ISA xpurt emits;
// before 11.4, cuGraphInstantiateWithFlags.
constexpr int kOldestDriver = 11040;

struct LoadedDriver {
  DriverApi api;
  bool usable = false;
  std::string why;
};

void load(LoadedDriver &d) {
  // XPURT_CUDA_DRIVER names another library (a test's stand-in for libcuda).
  std::string library = core::envValue("XPURT_CUDA_DRIVER").value_or("libcuda.so.1");
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    d.why = fmt::format("no CUDA driver: {} could not be opened ({}); install the NVIDIA driver",
                        library, dlerror());
    return;
  }
  std::string missing;
  auto find = [&](const char *symbol) -> void * {
    void *f = dlsym(handle, symbol);
    size_t n = std::strlen(symbol);
    if (!f && n > 3 && std::strcmp(symbol + n - 3, "_v2") == 0)  // an older driver's version
      f = dlsym(handle, std::string(symbol, n - 3).c_str());
    if (!f) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
    return f;
  };
#define XPURT_CU(member, symbol) \
  d.api.member = reinterpret_cast<decltype(d.api.member)>(find(#symbol));
#include "cuda_functions.inc"
#undef XPURT_CU
  if (d.api.DriverGetVersion) d.api.DriverGetVersion(&d.api.version);
  if (!missing.empty() || d.api.version < kOldestDriver) {
    d.why = fmt::format(
        "the CUDA driver in {} is too old (CUDA {}.{}{}{}); xpurt needs CUDA {}.{} or newer: "
        "update the NVIDIA driver",
        library, d.api.version / 1000, d.api.version % 1000 / 10,
        missing.empty() ? "" : "; it lacks ", missing, kOldestDriver / 1000,
        kOldestDriver % 1000 / 10);
    return;
  }
  if (CUresult r = d.api.Init(0); r != CUDA_SUCCESS) {
    d.why =
        fmt::format("the CUDA driver did not initialise: cuInit failed with {}{}", resultName(r),
                    r == CUDA_ERROR_NO_DEVICE ? " (no NVIDIA GPU is visible)" : "");
    return;
  }
  d.usable = true;
}

LoadedDriver &loaded() {
  // Every driver call comes through here: after the first, one inline check of the guard
  // (std::call_once would call into libc each time).
  struct Once {
    LoadedDriver driver;
    Once() { load(driver); }
  };
  static Once once;
  return once.driver;
}

}  // namespace

const DriverApi *openDriver(std::string *why) {
  LoadedDriver &d = loaded();
  if (!d.usable && why) *why = d.why;
  return d.usable ? &d.api : nullptr;
}

const DriverApi &cu() {
  return loaded().api;
}

std::string resultName(CUresult result) {
  const char *name = nullptr;
  const DriverApi &api = loaded().api;
  if (api.GetErrorName && api.GetErrorName(result, &name) == CUDA_SUCCESS && name) return name;
  return fmt::format("CUresult {}", static_cast<int>(result));
}

XpurtResult toXpurtResult(CUresult result) {
  switch (result) {
    // Errors after which the context cannot be used again: the process must start over.
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
      return XPURT_ERROR_DEVICE_LOST;
    case CUDA_ERROR_OUT_OF_MEMORY:
      return XPURT_ERROR_OUT_OF_MEMORY;
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND:
      return XPURT_ERROR_INVALID_MODULE;
    case CUDA_ERROR_NOT_FOUND:
      return XPURT_ERROR_NOT_FOUND;
    case CUDA_ERROR_NOT_SUPPORTED:
      return XPURT_ERROR_UNSUPPORTED;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
      return XPURT_ERROR_INVALID_ARGUMENT;
    default:
      return XPURT_ERROR_UNKNOWN;
  }
}

void failCall(const char *call, CUresult result, const std::string &context) {
  std::string message = fmt::format("{} failed with {}", call, resultName(result));
  const char *text = nullptr;
  if (cu().GetErrorString && cu().GetErrorString(result, &text) == CUDA_SUCCESS && text)
    message += fmt::format(" ({})", text);
  if (!context.empty()) message += ": " + context;
  if (toXpurtResult(result) == XPURT_ERROR_DEVICE_LOST)
    message +=
        "; the CUDA context is lost with its memory and queued work: release the device's objects "
        "and create the device again";
  throw core::Error(toXpurtResult(result), message);
}

namespace {

struct FlagGate {
  std::mutex mutex;  // held while a release runs
  std::condition_variable idle;
  size_t armed = 0;
};

FlagGate &flagGate() {
  static FlagGate *gate = new FlagGate;  // outlives every static destructor
  return *gate;
}

// One thread for every deferred release, started on first use and never joined: releases
// still queued at exit are left to the process's end, which frees everything anyway.
class Releaser {
 public:
  Releaser() {
    std::thread([this] { run(); }).detach();
  }
  void post(std::function<void()> release) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(release));
    }
    ready_.notify_one();
  }

 private:
  void run() {
    for (;;) {
      std::function<void()> release;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !queue_.empty(); });
        release = std::move(queue_.front());
        queue_.pop_front();
      }
      FlagGate &gate = flagGate();
      std::unique_lock lock(gate.mutex);
      gate.idle.wait(lock, [&] { return gate.armed == 0; });
      release();
    }
  }
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
};

}  // namespace

void armHostFlag() {
  std::lock_guard lock(flagGate().mutex);
  ++flagGate().armed;
}

void disarmHostFlag() {
  FlagGate &gate = flagGate();
  {
    std::lock_guard lock(gate.mutex);
    --gate.armed;
  }
  gate.idle.notify_all();
}

void releaseLater(std::function<void()> release) {
  static Releaser *releaser = new Releaser;  // outlives every static destructor
  releaser->post(std::move(release));
}

void warnReleaseFailure(const std::string &message) {
  CUcontext current = nullptr;
  if (cu().CtxGetCurrent(&current) == CUDA_ERROR_DEINITIALIZED)
    core::log().debug("{} (the CUDA driver has shut down)", message);
  else
    core::log().warn("{}", message);
}

ContextScope::ContextScope(CUcontext context) {
  const DriverApi &api = cu();
  if (api.CtxGetCurrent(&previous_) == CUDA_SUCCESS && previous_ == context) return;
  check(api.CtxSetCurrent(context), "cuCtxSetCurrent");
  switched_ = true;
}

ContextScope::~ContextScope() {
  if (switched_) cu().CtxSetCurrent(previous_);
}

}  // namespace xpurt::cuda
