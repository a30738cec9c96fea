#include "ze_completions.hpp"

#include "core/log.hpp"
#include "ze_call.hpp"
#include "ze_device.hpp"
#include "ze_graph.hpp"

namespace xpurt::level_zero {

bool ZeCompletionBackend::needsHostStep(const Pending &p) const {
  return p.work.graph && p.work.graph->hasHostSteps();
}

void ZeCompletionBackend::runHostStep(Pending &p) {
  p.work.graph->runHostSteps();
}

void ZeCompletionBackend::hostCallbackRan(Pending &p) {
  // Commands after the callback wait on its event, signalled here.
  if (ze_result_t r = zeEventHostSignal(p.work.slot->handle); r != ZE_RESULT_SUCCESS)
    core::log().warn("Level Zero: zeEventHostSignal failed with {} after a host callback",
                     resultName(r));
}

core::Reached ZeCompletionBackend::status(Pending &p, ze_result_t r, const char *call,
                                          std::string &failure) const {
  if (r == ZE_RESULT_NOT_READY) return core::Reached::No;
  if (r == ZE_RESULT_SUCCESS) return core::Reached::Yes;
  failure = fmt::format("{} on {} failed: {} returned {}{}", p.command.description(),
                        device_.label(), call, resultName(r),
                        toXpurtResult(r) == XPURT_ERROR_DEVICE_LOST ? " (the device is lost)" : "");
  if (std::string why = device_.context().lastError(); !why.empty())
    failure += "; the driver says: " + why;
  return core::Reached::Failed;
}

core::Reached ZeCompletionBackend::query(Pending &p, std::string &failure) {
  return status(p, zeEventQueryStatus(p.work.slot->handle), "zeEventQueryStatus", failure);
}

core::Reached ZeCompletionBackend::wait(Pending &p, uint64_t timeoutNs, std::string &failure) {
  return status(p, zeEventHostSynchronize(p.work.slot->handle, timeoutNs), "zeEventHostSynchronize",
                failure);
}

std::optional<uint64_t> ZeCompletionBackend::deviceTimeNs(Pending &p) {
  ze_kernel_timestamp_result_t ts{};
  if (!p.work.deviceTimes ||
      zeEventQueryKernelTimestamp(p.work.slot->handle, &ts) != ZE_RESULT_SUCCESS)
    return std::nullopt;
  // Kernel timestamps have kernelTimestampValidBits bits and wrap: the difference is taken
  // modulo that width.
  const ZeDeviceDescription &d = device_.description();
  uint64_t mask = d.kernelTimestampValidBits >= 64
                      ? UINT64_MAX
                      : (uint64_t{1} << d.kernelTimestampValidBits) - 1;
  uint64_t ticks = (ts.global.kernelEnd - ts.global.kernelStart) & mask;
  return static_cast<uint64_t>(static_cast<double>(ticks) * d.nsPerTimestampTick);
}

std::string ZeCompletionBackend::reached(Pending &p, core::Reached r) {
  std::string failure;
  if (p.work.graph && r == core::Reached::Yes)
    failure = p.work.graph->failure();  // its first failed node, named
  // A graph's recording idle for its next launch once nothing holds its end event: by the
  // time the launch's waiters wake, nothing here does. Its events go back to their pool once
  // no later command waits on them either.
  p.work = {};
  p.keep = nullptr;
  return failure;
}

void ZeCompletionBackend::release(Pending &p) {
  p.work = {};
}

}  // namespace xpurt::level_zero
