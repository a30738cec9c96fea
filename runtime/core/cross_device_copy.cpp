#include "cross_device_copy.hpp"

#include "error.hpp"

#include <algorithm>

namespace xpurt::core {

CopySide copySideFor(Device &device, const MemoryView &view) {
  Device &owner = view.device();
  if (&owner == &device) return CopySide::Own;
  bool sameBackend = &owner.backend() == &device.backend();
  bool deviceMemory = view.type() == XPURT_ALLOC_TYPE_DEVICE;
  if (sameBackend && !deviceMemory && device.sharesMemoryWith(owner)) return CopySide::Own;
  // SHARED and HOST memory of any driver is host memory; so is the CPU's device storage.
  bool hostMemory = !deviceMemory || owner.storageIsHostMemory();
  if (hostMemory && device.storageIsHostMemory()) return CopySide::Own;
  if (sameBackend && deviceMemory && device.copiesPeerWith(owner)) return CopySide::Peer;
  return hostMemory ? CopySide::Host : CopySide::Unreachable;
}

size_t checkedCopySize(const MemoryView &dst, const MemoryView &src, size_t dstOffset,
                       size_t srcOffset, size_t size) {
  if (size == XPURT_WHOLE_SIZE) {
    size_t srcLeft = src.checkedRange(srcOffset, size, "copyMemoryView (source)");
    size_t dstLeft = dst.checkedRange(dstOffset, size, "copyMemoryView (destination)");
    size = std::min(srcLeft, dstLeft);
  }
  size = src.checkedRange(srcOffset, size, "copyMemoryView (source)");
  dst.checkedRange(dstOffset, size, "copyMemoryView (destination)");
  if (&dst == &src && size != 0) {
    auto a = dstOffset, b = srcOffset;
    if (a < b + size && b < a + size)
      fail(XPURT_ERROR_INVALID_ARGUMENT,
           "copyMemoryView: source [{}, {}) and destination [{}, {}) overlap in the same view", b,
           b + size, a, a + size);
  }
  return size;
}

std::optional<Command> directCopy(Device &device, MemoryView &dst, MemoryView &src,
                                  size_t dstOffset, size_t srcOffset, size_t size) {
  CopySide to = copySideFor(device, dst);
  CopySide from = copySideFor(device, src);
  if (to == CopySide::Unreachable || from == CopySide::Unreachable) return std::nullopt;
  if (to != CopySide::Own && from != CopySide::Own) return std::nullopt;
  Command cmd;
  cmd.type = Command::Type::Copy;
  cmd.dst = {Ref<MemoryView>(&dst), dstOffset, size, XPURT_ACCESS_WRITE, false};
  cmd.src = {Ref<MemoryView>(&src), srcOffset, size, XPURT_ACCESS_READ, false};
  if (to == CopySide::Own && from == CopySide::Own)
    cmd.copyKind = Command::CopyKind::DeviceToDevice;
  else if (to == CopySide::Peer || from == CopySide::Peer)
    cmd.copyKind = Command::CopyKind::Peer;
  else
    cmd.copyKind = from == CopySide::Host ? Command::CopyKind::ToDevice : Command::CopyKind::ToHost;
  return cmd;
}

}  // namespace xpurt::core
