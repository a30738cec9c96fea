// Errors, reference counting and the error function.
#include "api_common.hpp"
#include "core/host_callback.hpp"
#include "core/log.hpp"

#include <mutex>
#include <optional>

namespace xpurt::api {
namespace {

struct ErrorFunc {
  XpurtErrorFunc func = nullptr;
  void *userData = nullptr;
};
std::mutex errorFuncMutex;
ErrorFunc errorFunc;
thread_local std::string lastError;

}  // namespace

XpurtResult report(XpurtResult code, const std::string &message) noexcept {
  try {
    lastError = message;
    core::log().debug("{} ({})", message, xpurtResultString(code));
    ErrorFunc f;
    {
      std::lock_guard lock(errorFuncMutex);
      f = errorFunc;
    }
    if (f.func) f.func(code, lastError.c_str(), f.userData);
  } catch (...) {
    // Reporting must not turn one error into a crash.
  }
  return code;
}

}  // namespace xpurt::api

using namespace xpurt;

extern "C" {

XPURT_API uint32_t xpurtGetVersion(void) {
  return XPURT_VERSION;
}

XPURT_API const char *xpurtResultString(XpurtResult result) {
  switch (result) {
    case XPURT_SUCCESS:
      return "XPURT_SUCCESS";
    case XPURT_ERROR_INVALID_ARGUMENT:
      return "XPURT_ERROR_INVALID_ARGUMENT";
    case XPURT_ERROR_INVALID_HANDLE:
      return "XPURT_ERROR_INVALID_HANDLE";
    case XPURT_ERROR_OUT_OF_RANGE:
      return "XPURT_ERROR_OUT_OF_RANGE";
    case XPURT_ERROR_NOT_FOUND:
      return "XPURT_ERROR_NOT_FOUND";
    case XPURT_ERROR_INVALID_MODULE:
      return "XPURT_ERROR_INVALID_MODULE";
    case XPURT_ERROR_UNSUPPORTED:
      return "XPURT_ERROR_UNSUPPORTED";
    case XPURT_ERROR_INVALID_CONFIG:
      return "XPURT_ERROR_INVALID_CONFIG";
    case XPURT_ERROR_OUT_OF_MEMORY:
      return "XPURT_ERROR_OUT_OF_MEMORY";
    case XPURT_ERROR_EXECUTION_FAILED:
      return "XPURT_ERROR_EXECUTION_FAILED";
    case XPURT_ERROR_UNKNOWN:
      return "XPURT_ERROR_UNKNOWN";
    case XPURT_ERROR_DEVICE_LOST:
      return "XPURT_ERROR_DEVICE_LOST";
  }
  return "(not an XpurtResult)";
}

XPURT_API const char *xpurtLastErrorMessage(void) {
  return api::lastError.c_str();
}

XPURT_API void xpurtSetErrorFunc(XpurtErrorFunc func, void *userData) {
  std::lock_guard lock(api::errorFuncMutex);
  api::errorFunc = {func, userData};
}

namespace {

// One reference more or less on a handle; of `kind` where one is given (the typed entries).
XpurtResult changeCount(const char *entry, const void *handle, std::optional<core::ObjectKind> kind,
                        bool retain) {
  return api::guarded(entry, [&] {
    if (!handle)
      core::fail(XPURT_ERROR_INVALID_HANDLE, "the {} handle is NULL",
                 kind ? core::objectKindName(*kind) : "xpurt");
    auto &registry = core::HandleRegistry::instance();
    core::ObjectKind found{};
    using Change = core::HandleRegistry::Change;
    Change r = retain ? registry.retainHandle(handle, kind, &found)
                      : registry.releaseHandle(handle, kind, &found);
    if (r == Change::NotLive)
      core::fail(XPURT_ERROR_INVALID_HANDLE,
                 "{} is not a live xpurt handle: it was released{}, or never created", handle,
                 retain ? "" : " already");
    if (r == Change::WrongKind)
      core::fail(XPURT_ERROR_INVALID_HANDLE, "handle is a {} handle where a {} handle was expected",
                 core::objectKindName(found), core::objectKindName(*kind));
  });
}

}  // namespace

XPURT_API XpurtResult xpurtRetain(void *handle) {
  return changeCount("xpurtRetain", handle, std::nullopt, true);
}

XPURT_API XpurtResult xpurtRelease(void *handle) {
  return changeCount("xpurtRelease", handle, std::nullopt, false);
}

#define XPURT_TYPED_COUNTING(Name, Kind)                                             \
  XPURT_API XpurtResult xpurtRetain##Name(Xpurt##Name handle) {                      \
    return changeCount("xpurtRetain" #Name, handle, core::ObjectKind::Kind, true);   \
  }                                                                                  \
  XPURT_API XpurtResult xpurtRelease##Name(Xpurt##Name handle) {                     \
    return changeCount("xpurtRelease" #Name, handle, core::ObjectKind::Kind, false); \
  }
XPURT_TYPED_COUNTING(Device, Device)
XPURT_TYPED_COUNTING(Context, Context)
XPURT_TYPED_COUNTING(MemoryView, MemoryView)
XPURT_TYPED_COUNTING(TaskQueue, TaskQueue)
XPURT_TYPED_COUNTING(Module, Module)
XPURT_TYPED_COUNTING(Kernel, Kernel)
XPURT_TYPED_COUNTING(Future, Event)
XPURT_TYPED_COUNTING(Graph, Graph)
XPURT_TYPED_COUNTING(GraphExec, GraphExec)
#undef XPURT_TYPED_COUNTING

XPURT_API void xpurtHostCallbackSetError(const char *message) {
  core::setHostCallbackError(message);
}

}  // extern "C"
