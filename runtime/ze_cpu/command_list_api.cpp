// Command lists and what can be appended to them.
#include "api.hpp"
#include "command_list.hpp"
#include "context.hpp"
#include "driver.hpp"
#include "entry.hpp"
#include "events.hpp"
#include "kernel.hpp"

#include <bit>
#include <cstring>

namespace xpurt::ze_cpu {
namespace {

CommandList &listOf(ze_command_list_handle_t handle) {
  requireHandle(handle);
  return *fromHandle<CommandList>(handle);
}

// The part of every append that names events: the command waits for `waits`, then signals
// `signal` (may be null) when it has run.
RecordedCommand commandFor(CommandList &list, CommandKind kind, ze_event_handle_t signal,
                           uint32_t numWaits, const ze_event_handle_t *waits) {
  requireWaitList(numWaits, waits);
  for (uint32_t i = 0; i < numWaits; ++i) requireHandle(waits[i]);
  if (list.closed()) fail(ZE_RESULT_ERROR_INVALID_ARGUMENT);  // reset it to append again
  RecordedCommand c;
  c.kind = kind;
  c.signal = fromHandle<EventObject>(signal);
  c.waits.assign(numWaits, waits);
  return c;
}

// The extent of a non-empty copy region in its buffer: its first byte and one past its last.
std::pair<uintptr_t, uintptr_t> regionBytes(const void *base, const ze_copy_region_t &r,
                                            uint32_t pitch, uint32_t slicePitch) {
  uintptr_t first = reinterpret_cast<uintptr_t>(base) + uint64_t{r.originZ} * slicePitch +
                    uint64_t{r.originY} * pitch + r.originX;
  uintptr_t last =
      first + uint64_t{r.depth - 1} * slicePitch + uint64_t{r.height - 1} * pitch + r.width;
  return {first, last};
}

ze_result_t appendLaunch(ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel,
                         const ze_group_count_t *counts, const ze_group_count_t *indirectCounts,
                         ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                         ze_event_handle_t *phWaitEvents) {
  CommandList &list = listOf(hCommandList);
  requireHandle(hKernel);
  if (!list.runsLaunches()) return ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE;  // a copy engine
  RecordedCommand c =
      commandFor(list, CommandKind::Launch, hSignalEvent, numWaitEvents, phWaitEvents);
  c.payload = fromHandle<KernelObject>(hKernel)->launch(counts, indirectCounts);
  return list.append(std::move(c));
}

}  // namespace

namespace api {

ze_result_t zeCommandListCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                const ze_command_list_desc_t *desc,
                                ze_command_list_handle_t *phCommandList) {
  return entry(ApiId::zeCommandListCreate, [&] {
    contextOf(hContext);
    DeviceObject &device = deviceOf(hDevice);
    requirePointer(desc);
    requirePointer(phCommandList);
    if (desc->flags > 0x7) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->commandQueueGroupOrdinal >= kQueueGroupCount) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    auto *list = new CommandList(device, desc->commandQueueGroupOrdinal);
    *phCommandList = toHandle<ze_command_list_handle_t>(list);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeCommandListCreateImmediate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                         const ze_command_queue_desc_t *altdesc,
                                         ze_command_list_handle_t *phCommandList) {
  return entry(ApiId::zeCommandListCreateImmediate, [&] {
    contextOf(hContext);
    DeviceObject &device = deviceOf(hDevice);
    bool synchronous = checkQueueDesc(altdesc);
    requirePointer(phCommandList);
    auto *list = new CommandList(device, altdesc->ordinal, altdesc->index, synchronous);
    *phCommandList = toHandle<ze_command_list_handle_t>(list);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeCommandListDestroy(ze_command_list_handle_t hCommandList) {
  return entry(ApiId::zeCommandListDestroy, [&] {
    delete &listOf(hCommandList);  // an immediate list finishes its commands first
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeCommandListClose(ze_command_list_handle_t hCommandList) {
  return entry(ApiId::zeCommandListClose, [&] {
    CommandList &list = listOf(hCommandList);
    if (!list.immediate()) list.close();  // an immediate list is never closed
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeCommandListReset(ze_command_list_handle_t hCommandList) {
  return entry(ApiId::zeCommandListReset, [&] {
    listOf(hCommandList).reset();
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeCommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t hCommandList,
                                                    uint64_t *dstptr,
                                                    ze_event_handle_t hSignalEvent,
                                                    uint32_t numWaitEvents,
                                                    ze_event_handle_t *phWaitEvents) {
  return entry(ApiId::zeCommandListAppendWriteGlobalTimestamp, [&] {
    CommandList &list = listOf(hCommandList);
    requirePointer(dstptr);
    RecordedCommand c = commandFor(list, CommandKind::WriteGlobalTimestamp, hSignalEvent,
                                   numWaitEvents, phWaitEvents);
    c.payload = dstptr;
    return list.append(std::move(c));
  });
}

ze_result_t zeCommandListAppendBarrier(ze_command_list_handle_t hCommandList,
                                       ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                       ze_event_handle_t *phWaitEvents) {
  return entry(ApiId::zeCommandListAppendBarrier, [&] {
    CommandList &list = listOf(hCommandList);
    // Commands run one after the other already: a barrier only waits and signals.
    return list.append(
        commandFor(list, CommandKind::Barrier, hSignalEvent, numWaitEvents, phWaitEvents));
  });
}

ze_result_t zeCommandListAppendMemoryRangesBarrier(ze_command_list_handle_t hCommandList,
                                                   uint32_t numRanges, const size_t *pRangeSizes,
                                                   const void **pRanges,
                                                   ze_event_handle_t hSignalEvent,
                                                   uint32_t numWaitEvents,
                                                   ze_event_handle_t *phWaitEvents) {
  return entry(ApiId::zeCommandListAppendMemoryRangesBarrier, [&] {
    CommandList &list = listOf(hCommandList);
    (void)numRanges;
    requirePointer(pRangeSizes);
    requirePointer(pRanges);
    return list.append(commandFor(list, CommandKind::MemoryRangesBarrier, hSignalEvent,
                                  numWaitEvents, phWaitEvents));
  });
}

ze_result_t zeCommandListAppendMemoryCopy(ze_command_list_handle_t hCommandList, void *dstptr,
                                          const void *srcptr, size_t size,
                                          ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                          ze_event_handle_t *phWaitEvents) {
  return entry(ApiId::zeCommandListAppendMemoryCopy, [&] {
    CommandList &list = listOf(hCommandList);
    requirePointer(dstptr);
    requirePointer(srcptr);
    RecordedCommand c =
        commandFor(list, CommandKind::Copy, hSignalEvent, numWaitEvents, phWaitEvents);
    c.payload = CopyPayload{dstptr, srcptr, size};
    return list.append(std::move(c));
  });
}

ze_result_t zeCommandListAppendMemoryFill(ze_command_list_handle_t hCommandList, void *ptr,
                                          const void *pattern, size_t pattern_size, size_t size,
                                          ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                          ze_event_handle_t *phWaitEvents) {
  return entry(ApiId::zeCommandListAppendMemoryFill, [&] {
    CommandList &list = listOf(hCommandList);
    requirePointer(ptr);
    requirePointer(pattern);
    if (!std::has_single_bit(pattern_size) || pattern_size > kMaxFillPatternSize)
      return ZE_RESULT_ERROR_INVALID_SIZE;
    RecordedCommand c =
        commandFor(list, CommandKind::Fill, hSignalEvent, numWaitEvents, phWaitEvents);
    FillPayload fill{ptr, size, pattern_size, {}, nullptr};
    if (pattern_size > fill.shortPattern.size()) {
      fill.longPattern = std::make_unique<std::byte[]>(pattern_size);
      std::memcpy(fill.longPattern.get(), pattern, pattern_size);
    } else {
      std::memcpy(fill.shortPattern.data(), pattern, pattern_size);
    }
    c.payload = std::move(fill);
    return list.append(std::move(c));
  });
}

ze_result_t zeCommandListAppendMemoryCopyRegion(
    ze_command_list_handle_t hCommandList, void *dstptr, const ze_copy_region_t *dstRegion,
    uint32_t dstPitch, uint32_t dstSlicePitch, const void *srcptr,
    const ze_copy_region_t *srcRegion, uint32_t srcPitch, uint32_t srcSlicePitch,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
  return entry(ApiId::zeCommandListAppendMemoryCopyRegion, [&] {
    CommandList &list = listOf(hCommandList);
    requirePointer(dstptr);
    requirePointer(dstRegion);
    requirePointer(srcptr);
    requirePointer(srcRegion);
    if (dstRegion->width != srcRegion->width || dstRegion->height != srcRegion->height ||
        dstRegion->depth != srcRegion->depth)
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // the two regions must be the same size
    RecordedCommand c =
        commandFor(list, CommandKind::CopyRegion, hSignalEvent, numWaitEvents, phWaitEvents);
    if (srcRegion->width > 0 && srcRegion->height > 0 && srcRegion->depth > 0) {
      auto [dstFirst, dstEnd] = regionBytes(dstptr, *dstRegion, dstPitch, dstSlicePitch);
      auto [srcFirst, srcEnd] = regionBytes(srcptr, *srcRegion, srcPitch, srcSlicePitch);
      if (dstFirst < srcEnd && srcFirst < dstEnd) return ZE_RESULT_ERROR_OVERLAPPING_REGIONS;
    }
    c.payload = CopyRegionPayload{dstptr,   srcptr,        *dstRegion, *srcRegion,
                                  dstPitch, dstSlicePitch, srcPitch,   srcSlicePitch};
    return list.append(std::move(c));
  });
}

ze_result_t zeCommandListAppendMemoryCopyFromContext(ze_command_list_handle_t hCommandList,
                                                     void *dstptr, ze_context_handle_t hContextSrc,
                                                     const void *srcptr, size_t size,
                                                     ze_event_handle_t hSignalEvent,
                                                     uint32_t numWaitEvents,
                                                     ze_event_handle_t *phWaitEvents) {
  return entry(ApiId::zeCommandListAppendMemoryCopyFromContext, [&] {
    CommandList &list = listOf(hCommandList);
    contextOf(hContextSrc);  // every context's memory is this process's
    requirePointer(dstptr);
    requirePointer(srcptr);
    RecordedCommand c =
        commandFor(list, CommandKind::Copy, hSignalEvent, numWaitEvents, phWaitEvents);
    c.payload = CopyPayload{dstptr, srcptr, size};
    return list.append(std::move(c));
  });
}

ze_result_t zeCommandListAppendMemoryPrefetch(ze_command_list_handle_t hCommandList,
                                              const void *ptr, size_t size) {
  return entry(ApiId::zeCommandListAppendMemoryPrefetch, [&] {
    CommandList &list = listOf(hCommandList);
    (void)size;
    requirePointer(ptr);
    // Memory never moves on this device: the hint is kept as a command that does nothing.
    return list.append(commandFor(list, CommandKind::Prefetch, nullptr, 0, nullptr));
  });
}

ze_result_t zeCommandListAppendMemAdvise(ze_command_list_handle_t hCommandList,
                                         ze_device_handle_t hDevice, const void *ptr, size_t size,
                                         ze_memory_advice_t advice) {
  return entry(ApiId::zeCommandListAppendMemAdvise, [&] {
    CommandList &list = listOf(hCommandList);
    deviceOf(hDevice);
    (void)size;
    requirePointer(ptr);
    if (advice > ZE_MEMORY_ADVICE_BIAS_UNCACHED) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return list.append(commandFor(list, CommandKind::MemAdvise, nullptr, 0, nullptr));
  });
}

ze_result_t zeCommandListAppendSignalEvent(ze_command_list_handle_t hCommandList,
                                           ze_event_handle_t hEvent) {
  return entry(ApiId::zeCommandListAppendSignalEvent, [&] {
    CommandList &list = listOf(hCommandList);
    requireHandle(hEvent);
    return list.append(commandFor(list, CommandKind::SignalEvent, hEvent, 0, nullptr));
  });
}

ze_result_t zeCommandListAppendWaitOnEvents(ze_command_list_handle_t hCommandList,
                                            uint32_t numEvents, ze_event_handle_t *phEvents) {
  return entry(ApiId::zeCommandListAppendWaitOnEvents, [&] {
    CommandList &list = listOf(hCommandList);
    requirePointer(phEvents);
    return list.append(commandFor(list, CommandKind::WaitEvents, nullptr, numEvents, phEvents));
  });
}

ze_result_t zeCommandListAppendEventReset(ze_command_list_handle_t hCommandList,
                                          ze_event_handle_t hEvent) {
  return entry(ApiId::zeCommandListAppendEventReset, [&] {
    CommandList &list = listOf(hCommandList);
    requireHandle(hEvent);
    RecordedCommand c = commandFor(list, CommandKind::ResetEvent, nullptr, 0, nullptr);
    c.payload = fromHandle<EventObject>(hEvent);
    return list.append(std::move(c));
  });
}

ze_result_t zeCommandListAppendQueryKernelTimestamps(
    ze_command_list_handle_t hCommandList, uint32_t numEvents, ze_event_handle_t *phEvents,
    void *dstptr, const size_t *pOffsets, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
    ze_event_handle_t *phWaitEvents) {
  return entry(ApiId::zeCommandListAppendQueryKernelTimestamps, [&] {
    CommandList &list = listOf(hCommandList);
    requirePointer(phEvents);
    requirePointer(dstptr);
    RecordedCommand c = commandFor(list, CommandKind::QueryKernelTimestamps, hSignalEvent,
                                   numWaitEvents, phWaitEvents);
    TimestampQueryPayload query{{}, dstptr, {}};
    for (uint32_t i = 0; i < numEvents; ++i) {
      requireHandle(phEvents[i]);
      query.events.push_back(fromHandle<EventObject>(phEvents[i]));
    }
    if (pOffsets) query.offsets.assign(pOffsets, pOffsets + numEvents);
    c.payload = std::move(query);
    return list.append(std::move(c));
  });
}

ze_result_t zeCommandListAppendLaunchKernel(ze_command_list_handle_t hCommandList,
                                            ze_kernel_handle_t hKernel,
                                            const ze_group_count_t *pLaunchFuncArgs,
                                            ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                            ze_event_handle_t *phWaitEvents) {
  return entry(ApiId::zeCommandListAppendLaunchKernel, [&] {
    requirePointer(pLaunchFuncArgs);
    return appendLaunch(hCommandList, hKernel, pLaunchFuncArgs, nullptr, hSignalEvent,
                        numWaitEvents, phWaitEvents);
  });
}

ze_result_t zeCommandListAppendLaunchKernelIndirect(ze_command_list_handle_t hCommandList,
                                                    ze_kernel_handle_t hKernel,
                                                    const ze_group_count_t *pLaunchArgumentsBuffer,
                                                    ze_event_handle_t hSignalEvent,
                                                    uint32_t numWaitEvents,
                                                    ze_event_handle_t *phWaitEvents) {
  return entry(ApiId::zeCommandListAppendLaunchKernelIndirect, [&] {
    requirePointer(pLaunchArgumentsBuffer);
    // The group counts are read from the buffer when the launch runs.
    return appendLaunch(hCommandList, hKernel, nullptr, pLaunchArgumentsBuffer, hSignalEvent,
                        numWaitEvents, phWaitEvents);
  });
}

}  // namespace api
}  // namespace xpurt::ze_cpu
