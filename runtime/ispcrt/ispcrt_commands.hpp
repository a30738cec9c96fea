// The commands that task queues enqueue at once and command lists record: each checks its
// handles when it is made and keeps the objects it uses until it is gone.
#pragma once

#include "ispcrt_objects.hpp"

namespace xpurt::ispcrt {

using Enqueue = CommandList::Command;

// An in-order queue with profiling on: ISPCRT's futures carry the time their command took.
XQueue newQueue(const Device &device, XpurtEngine engine);

// ISPCRT's native handle of a queue: the CUDA stream; NULL on the CPU (as ISPCRT's CPU device);
// none on Level Zero, whose queues are immediate command lists, not command queues.
void *queueNativeHandle(const Device &device, XpurtTaskQueue queue);

// The whole view from its host copy to its device storage, and back.
Enqueue copyToDevice(ISPCRTMemoryView view);
Enqueue copyToHost(ISPCRTMemoryView view);
// size bytes from the device storage of src to that of dst.
Enqueue copyMemoryView(ISPCRTMemoryView dst, ISPCRTMemoryView src, size_t size);
// d0 * d1 * d2 tasks, each given params' device pointer (NULL without params).
Enqueue launch(ISPCRTKernel kernel, ISPCRTMemoryView params, size_t d0, size_t d1, size_t d2);

}  // namespace xpurt::ispcrt
