// What one rank does for a launched graph, in order: checks that every rank launched the same,
// kernel launches on the rank's device, and transfers between ranks (Context runs them).
#pragma once

#include "item_ranges.hpp"

#include <mpi.h>
#include <xpurt/xpurt.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xpurt::mpi {

class Buffer;

// Page-locked host memory a transfer goes through on a device whose memory is not host memory
// (a HOST view of the device: copied to and from by the device's copy engines).
struct Staging {
  XpurtMemoryView view = nullptr;
  unsigned char *host = nullptr;
  size_t bytes = 0;
};

// A kernel handle held for as long as a graph or an instruction may launch it.
class KernelRef {
 public:
  explicit KernelRef(XpurtKernel kernel) : kernel_(kernel) { xpurtRetainKernel(kernel_); }
  ~KernelRef() { xpurtReleaseKernel(kernel_); }
  KernelRef(const KernelRef &) = delete;
  KernelRef &operator=(const KernelRef &) = delete;
  XpurtKernel get() const { return kernel_; }

 private:
  XpurtKernel kernel_;
};

// Bytes [lo, hi) of a buffer's copy on this rank that an instruction reads or writes.
struct ByteAccess {
  const Buffer *buffer = nullptr;
  size_t lo = 0, hi = 0;
  bool write = false;
};

// What every rank must have done alike, gathered from all ranks before anything after it runs.
struct CheckRecord {
  uint64_t kind = 0;  // 1: a graph launch, 2: a buffer's creation
  uint64_t sequence = 0;
  uint64_t digest = 0;
  uint64_t a = 0, b = 0;  // graph: nodes, 0; buffer: items, item size
};

struct Instruction {
  enum class Kind { Check, Launch, Send, Recv, Read, Write, Resize } kind = Kind::Launch;
  std::string what;  // for errors: which node or transfer
  std::vector<ByteAccess> accesses;
  std::vector<std::shared_ptr<Buffer>> buffers;  // kept alive while the instruction lives

  // Check
  CheckRecord check;
  // Launch
  std::shared_ptr<KernelRef> kernel;
  std::vector<XpurtKernelArg> args;  // VALUE args point into values
  std::vector<std::vector<unsigned char>> values;
  std::vector<std::pair<size_t, const Buffer *>> pointerArgs;  // args that get a buffer's item 0
  std::vector<void *> pointers;                                // their values, at issue
  uint32_t workDim = 1;
  size_t offset[3] = {0, 0, 0}, global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
  bool hasLocal = false;
  // Resize: this rank's new window of the buffer
  ItemRange window;
  // Send, Recv (peer, tag), Read (dst), Write (src; NULL: the bytes are in the host copy);
  // byteOffset is of the whole buffer (Buffer::local gives the copy's)
  size_t byteOffset = 0, bytes = 0;
  int peer = -1;
  int tag = 0;
  void *dst = nullptr;
  const void *src = nullptr;

  // Progress (Context's communication thread alone)
  int phase = 0;
  uint64_t blockedAt = UINT64_MAX;  // Context::completions_ when it last could not start
  std::chrono::steady_clock::time_point started, finished;  // for XPURT_MPI_TRACE
  std::chrono::steady_clock::duration issueCall{};          // its enqueue's time, traced
  bool issued = false;  // its place in the device's order is taken
  bool done = false;
  XpurtFuture future = nullptr;
  MPI_Request request = MPI_REQUEST_NULL;  // Check
  std::vector<MPI_Request> messages;
  Staging staging;  // Send, Recv where the context stages   // Send, Recv: one per message
  std::vector<CheckRecord> gathered;
};

}  // namespace xpurt::mpi
