// One launch over several devices (xpurtLaunchKernelSplit), as Celerity splits a kernel by
// range mappers: the ND-range is cut along its last dimension into one chunk per queue (whole
// work-groups, as equal as they come); each chunk runs on its queue's device and declares, of
// each COHERENT view argument, the part its range mapper names; the views' copies bring each
// device what its chunk reads (task_queue_coherence.cpp). The launch's event completes once
// every chunk has, failed with the first chunk that failed.
#pragma once

#include "task_queue.hpp"

#include <span>

namespace xpurt::core {

struct SplitArgInput {
  TaskQueue::ArgInput arg;  // a MEMORY_VIEW argument's view must be COHERENT
  uint32_t mapper;          // an XpurtRangeMapper as the application gave it (checked here)
  size_t pitch;             // bytes per item of the split dimension
  size_t halo;              // items before and after the chunk's own (NEIGHBORHOOD)
};

// kernels[i] is the kernel for queues[i]'s device; the counts are equal.
Ref<Event> launchSplit(std::span<TaskQueue *const> queues, std::span<Kernel *const> kernels,
                       std::span<const SplitArgInput> args, uint32_t workDim,
                       const size_t *globalOffset, const size_t *globalSize,
                       const size_t *localSize);

}  // namespace xpurt::core
