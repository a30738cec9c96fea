// The objects every rank creates alike (buffers distributed by blocks, graphs of launches and
// host reads and writes), and their lowering to the instructions of one rank: the nodes that
// run there and the transfers that bring each node the items it reads (lowerGraph).
#pragma once

#include "instruction.hpp"
#include "item_ranges.hpp"

#include <xpurt/xpurt_mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xpurt::mpi {

class Context;

// The r-th of `parts` blocks of `count` (as equal as they come).
inline ItemRange blockOf(size_t count, int parts, int r) {
  // floor(count * i / parts), without count * i overflowing.
  auto at = [&](size_t i) {
    size_t p = static_cast<size_t>(parts);
    return count / p * i + count % p * i / p;
  };
  return {at(static_cast<size_t>(r)), at(static_cast<size_t>(r) + 1)};
}

// A buffer of items distributed over the ranks by blocks. `valid` says, identically on every
// rank, which items each rank's copy has up to date (changed only by lowerGraph and the
// constructor, in launch order). This rank's copy is a DEVICE view of a window of the items:
// at first the rank's own block, grown (never shrunk) to cover every item the rank's
// instructions touch. Lowering plans the growth (plan()); the communication thread carries it
// out, in order, with a Resize instruction (replace()), and reads view(), host() and window().
class Buffer {
 public:
  Buffer(std::shared_ptr<Context> context, uint32_t id, size_t items, size_t itemSize);
  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  uint32_t id() const { return id_; }
  size_t items() const { return items_; }
  size_t itemSize() const { return itemSize_; }
  ItemRange owned(int rank) const;
  int ownerOf(size_t item) const;
  const std::shared_ptr<Context> &context() const { return context_; }
  std::vector<ItemRanges> &valid() { return valid_; }

  // Lowering: whether this rank's window must grow to hold `items`, and to what.
  bool plan(ItemRange items, ItemRange &grown);
  // The communication thread: this rank's copy now.
  XpurtMemoryView view() const { return view_; }
  unsigned char *host() const { return host_; }
  ItemRange window() const { return window_; }
  // Bytes of a global byte offset in this rank's copy.
  size_t local(size_t byteOffset) const { return byteOffset - window_.lo * itemSize_; }
  // A new copy of `window` items (a view of this rank's device, and its host memory).
  static std::pair<XpurtMemoryView, unsigned char *> allocate(XpurtDevice device, ItemRange window,
                                                              size_t itemSize);
  void replace(XpurtMemoryView view, unsigned char *host, ItemRange window);

 private:
  std::shared_ptr<Context> context_;
  uint32_t id_;
  size_t items_, itemSize_;
  ItemRange planned_;  // lowering's
  unsigned char *host_ = nullptr;
  XpurtMemoryView view_ = nullptr;
  ItemRange window_;
  std::vector<ItemRanges> valid_;
};

struct LaunchArg {
  XpurtKernelArgKind kind = XPURT_KERNEL_ARG_VALUE;
  std::vector<unsigned char> value;  // VALUE
  size_t localBytes = 0;             // LOCAL
  std::shared_ptr<Buffer> buffer;    // MEMORY_VIEW
  XpurtAccess access = XPURT_ACCESS_READ;
  XpurtRangeMapper mapper = XPURT_RANGE_MAPPER_ALL;
  size_t halo = 0;
  ItemRange touched(ItemRange ids) const;  // the items a part with these ids touches
};

struct Node {
  enum class Kind { Launch, Read, Write } kind = Kind::Launch;
  int rank = XPURT_MPI_SPLIT;
  // Launch
  std::shared_ptr<KernelRef> kernel;
  std::vector<LaunchArg> args;
  uint32_t workDim = 1;
  size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
  bool hasLocal = false;
  // Read, Write
  std::shared_ptr<Buffer> buffer;
  ItemRange items;
  void *dst = nullptr;
  const void *src = nullptr;
};

class Graph {
 public:
  explicit Graph(std::shared_ptr<Context> context) : context_(std::move(context)) {}
  const std::shared_ptr<Context> &context() const { return context_; }
  void add(Node node);
  const std::vector<Node> &nodes() const { return nodes_; }
  // A digest of what every rank must record alike (kinds, ranks, sizes, buffers, mappers):
  // compared between ranks when the graph is launched.
  uint64_t digest() const { return digest_; }

 private:
  std::shared_ptr<Context> context_;
  std::vector<Node> nodes_;
  uint64_t digest_ = 1469598103934665603ull;
};

// Appends to `out` the instructions of rank `rank` (of `ranks`) for one launch of graph, and
// records in each buffer's `valid` what the launch leaves up to date where. Transfers take tags
// from nextTag (advanced alike on every rank). Every rank computes every rank's transfers, so
// that all agree on who sends what; a rank keeps only its own instructions.
void lowerGraph(const Graph &graph, int rank, int ranks, uint32_t &nextTag, uint32_t tagLimit,
                std::vector<Instruction> &out);

}  // namespace xpurt::mpi
