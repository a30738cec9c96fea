// Copies between memory views of different devices (xpurtCopyMemoryView on a queue of either
// device): how a device reaches each side, and the one command that copies where it reaches
// both. TaskQueue::copyView uses these, and when the queue's device reaches the other side
// only through the other device, has that device copy (or each device copy half, through
// page-locked host memory).
#pragma once

#include "command.hpp"

#include <optional>

namespace xpurt::core {

// How a device's queue reaches the memory a view names (its DEVICE storage, or its one
// allocation).
enum class CopySide {
  Own,          // the device's memory, memory of its context, or, for a device whose memory
                // is host memory (the CPU), any host memory
  Peer,         // DEVICE memory of another device of its backend it copies to and from
  Host,         // host memory of another device (the CPU's, another driver's SHARED or HOST)
  Unreachable,  // DEVICE memory of a device it cannot copy with
};

CopySide copySideFor(Device &device, const MemoryView &view);

// Checks both ranges (XPURT_WHOLE_SIZE: as much as both views hold from their offsets) and a
// copy within one view for overlap; returns the size.
size_t checkedCopySize(const MemoryView &dst, const MemoryView &src, size_t dstOffset,
                       size_t srcOffset, size_t size);

// The command a queue of `device` runs for the copy (ranges checked), if the device reaches
// both sides and one of them is its own; nullopt otherwise.
std::optional<Command> directCopy(Device &device, MemoryView &dst, MemoryView &src,
                                  size_t dstOffset, size_t srcOffset, size_t size);

}  // namespace xpurt::core
