// Shared by the C entry points: the guard that turns exceptions into result codes (and calls
// the error function), and the checked conversion from a handle to the object it names.
#pragma once

#include "core/error.hpp"
#include "core/handle_registry.hpp"
#include "core/object.hpp"

#include <xpurt/xpurt.h>

#include <algorithm>
#include <cstring>

namespace xpurt::api {

// Records the failure for xpurtLastErrorMessage, logs it and calls the error function.
XpurtResult report(XpurtResult code, const std::string &message) noexcept;

// Runs body; every exception becomes a result code and a message that begins with `entry`.
template <class Body>
XpurtResult guarded(const char *entry, Body &&body) noexcept {
  try {
    body();
    return XPURT_SUCCESS;
  } catch (const core::Error &e) {
    return report(e.code(), fmt::format("{}: {}", entry, e.what()));
  } catch (const std::bad_alloc &) {
    return report(XPURT_ERROR_OUT_OF_MEMORY, fmt::format("{}: out of memory", entry));
  } catch (const std::exception &e) {
    return report(XPURT_ERROR_UNKNOWN, fmt::format("{}: {}", entry, e.what()));
  } catch (...) {
    return report(XPURT_ERROR_UNKNOWN, fmt::format("{}: unknown failure", entry));
  }
}

// The live object of `kind` that `handle` names; `what` names the argument in errors.
inline core::Ref<core::Object> lookupKind(const void *handle, core::ObjectKind kind,
                                          const char *what) {
  if (!handle)
    core::fail(XPURT_ERROR_INVALID_HANDLE, "the {} handle ({}) is NULL", core::objectKindName(kind),
               what);
  core::Ref<core::Object> obj = core::HandleRegistry::instance().lookup(handle);
  if (!obj)
    core::fail(XPURT_ERROR_INVALID_HANDLE,
               "{} ({}) is not a live xpurt handle: it was released, or never created", handle,
               what);
  if (obj->kind() != kind)
    core::fail(XPURT_ERROR_INVALID_HANDLE, "{} is a {} handle where a {} handle was expected", what,
               core::objectKindName(obj->kind()), core::objectKindName(kind));
  return obj;
}

template <class T>
core::Ref<T> lookup(const void *handle, const char *what) {
  return core::staticRefCast<T>(lookupKind(handle, T::kKind, what));
}

// A caller's options struct in this library's layout: fields that a caller built against an
// older, smaller header lacks are zero (their defaults); fields of a newer, larger one are not
// read. structSize must hold at least itself and at most 4 KiB: anything else is not a size.
template <class T>
T versionedInput(const T *in, const char *typeName) {
  T out{};
  if (!in) return out;
  uint32_t size = in->structSize;
  if (size < sizeof(uint32_t) || size > 4096)
    core::fail(XPURT_ERROR_INVALID_ARGUMENT,
               "{}.structSize is {}; set it to sizeof({}) ({} in this header)", typeName, size,
               typeName, sizeof(T));
  std::memcpy(static_cast<void *>(&out), in, std::min<size_t>(size, sizeof out));
  out.structSize = sizeof(T);
  return out;
}

// Writes value to a caller's output struct of the caller's structSize: the fields an older,
// smaller header lacks are not written; a newer, larger struct keeps its extra bytes.
template <class T>
void versionedOutput(T *out, const T &value, const char *what, const char *typeName) {
  if (!out) core::fail(XPURT_ERROR_INVALID_ARGUMENT, "the output pointer {} is NULL", what);
  uint32_t size = out->structSize;
  if (size < sizeof(uint32_t) || size > 4096)
    core::fail(XPURT_ERROR_INVALID_ARGUMENT,
               "{}->structSize is {}; set it to sizeof({}) ({} in this header) before the call",
               what, size, typeName, sizeof(T));
  std::memcpy(static_cast<void *>(out), &value, std::min<size_t>(size, sizeof(T)));
  out->structSize = size;
}

template <class T>
void checkOut(T *out, const char *what) {
  if (!out) core::fail(XPURT_ERROR_INVALID_ARGUMENT, "the output pointer {} is NULL", what);
}

// Hands obj out through the typed C handle pointer.
template <class Handle, class T>
void publish(Handle *out, const core::Ref<T> &obj) {
  *out =
      static_cast<Handle>(core::HandleRegistry::instance().publish(core::Ref<core::Object>(obj)));
}

}  // namespace xpurt::api
