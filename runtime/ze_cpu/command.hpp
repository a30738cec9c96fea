// A command appended to a command list: what it waits for, what it does, what it signals.
// Everything a command needs is captured when it is appended (fill patterns, kernel arguments,
// wait lists), as the specification asks; memory is only named, and touched when it runs.
#pragma once

#include "core/backend.hpp"
#include "launch_args.hpp"
#include "ze_cpu_inspect.h"

#include <level_zero/ze_api.h>

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <variant>
#include <vector>

namespace xpurt::ze_cpu {

class CommandList;
class EventObject;
class Fence;

enum class CommandKind : uint8_t {
  Copy = XPURT_ZE_CPU_COMMAND_COPY,
  CopyRegion = XPURT_ZE_CPU_COMMAND_COPY_REGION,
  Fill = XPURT_ZE_CPU_COMMAND_FILL,
  Launch = XPURT_ZE_CPU_COMMAND_LAUNCH,
  Barrier = XPURT_ZE_CPU_COMMAND_BARRIER,
  MemoryRangesBarrier = XPURT_ZE_CPU_COMMAND_MEMORY_RANGES_BARRIER,
  SignalEvent = XPURT_ZE_CPU_COMMAND_SIGNAL_EVENT,
  WaitEvents = XPURT_ZE_CPU_COMMAND_WAIT_EVENTS,
  ResetEvent = XPURT_ZE_CPU_COMMAND_RESET_EVENT,
  QueryKernelTimestamps = XPURT_ZE_CPU_COMMAND_QUERY_KERNEL_TIMESTAMPS,
  WriteGlobalTimestamp = XPURT_ZE_CPU_COMMAND_WRITE_GLOBAL_TIMESTAMP,
  Prefetch = XPURT_ZE_CPU_COMMAND_PREFETCH,
  MemAdvise = XPURT_ZE_CPU_COMMAND_MEM_ADVISE,
  // A command queue's own work, never appended by the application (and never recorded).
  ExecuteList = 100,
  EndOfSubmission,  // signals the submission's fence, if it has one
};

// Events a command waits for: a few inline, so that common appends allocate nothing.
class EventList {
 public:
  void assign(uint32_t count, const ze_event_handle_t *events);
  std::span<EventObject *const> view() const {
    return more_.empty() ? std::span<EventObject *const>(inline_.data(), size_) : std::span(more_);
  }
  bool empty() const { return size_ == 0; }

 private:
  std::array<EventObject *, XPURT_ZE_CPU_RECORD_INLINE_WAITS> inline_{};
  uint32_t size_ = 0;
  std::vector<EventObject *> more_;
};

struct CopyPayload {
  void *dst;
  const void *src;
  size_t size;
};

struct CopyRegionPayload {
  void *dst;
  const void *src;
  ze_copy_region_t dstRegion, srcRegion;
  uint32_t dstPitch, dstSlicePitch, srcPitch, srcSlicePitch;
};

struct FillPayload {
  void *dst;
  size_t size;
  size_t patternSize;
  std::array<std::byte, 16> shortPattern;
  std::unique_ptr<std::byte[]> longPattern;  // patterns of more than 16 bytes
  const std::byte *pattern() const { return longPattern ? longPattern.get() : shortPattern.data(); }
};

struct LaunchPayload {
  LaunchArgsRef args;  // the kernel and its arguments as they were at the append
  core::NDRange range;
  const ze_group_count_t
      *indirectCounts;  // read when it runs (zeCommandListAppendLaunchKernelIndirect)
};

struct TimestampQueryPayload {
  std::vector<EventObject *> events;
  void *dst;
  std::vector<size_t> offsets;  // empty: one result after the other
};

struct RecordedCommand {
  CommandKind kind;
  EventObject *signal = nullptr;  // completed after the command ran
  EventList waits;                // completed before it starts
  std::variant<std::monostate, CopyPayload, CopyRegionPayload, FillPayload, LaunchPayload,
               TimestampQueryPayload, EventObject * /*ResetEvent*/,
               uint64_t * /*WriteGlobalTimestamp*/, CommandList * /*ExecuteList*/,
               Fence * /*EndOfSubmission, or null*/>
      payload;
};

}  // namespace xpurt::ze_cpu
