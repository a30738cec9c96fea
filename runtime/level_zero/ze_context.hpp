// What the devices of one Level Zero driver share: the driver, one context for all its devices
// (so SHARED and HOST memory serve each of them), and entry points newer than the headers
// xpurt builds against, looked up at run time.
#pragma once

#include <level_zero/ze_api.h>

#include <string>

namespace xpurt::level_zero {

// Entry points a driver may offer beyond Level Zero 1.4; null where it does not.
struct ZeExtensions {
  // ZE_experimental_global_offset: launches with a global offset (zeKernelSetGlobalOffsetExp,
  // called through the loader, which dispatches it to the driver).
  bool globalOffset = false;
  // Level Zero 1.10: why the calling thread's last call failed, in the driver's words.
  using LastErrorDescription = ze_result_t (*)(ze_driver_handle_t, const char **);
  LastErrorDescription lastErrorDescription = nullptr;
};

class ZeContext {
 public:
  // Creates the context for every device of the driver; throws on failure.
  explicit ZeContext(ze_driver_handle_t driver);
  ~ZeContext();
  ZeContext(const ZeContext &) = delete;
  ZeContext &operator=(const ZeContext &) = delete;

  ze_driver_handle_t driver() const { return driver_; }
  ze_context_handle_t handle() const { return context_; }
  const ZeExtensions &extensions() const { return extensions_; }
  // The driver's description of the calling thread's last failed call, or "".
  std::string lastError() const;

 private:
  ze_driver_handle_t driver_;
  ze_context_handle_t context_ = nullptr;
  ZeExtensions extensions_;
};

}  // namespace xpurt::level_zero
