#include "distributed_graph.hpp"

#include "context.hpp"
#include "error.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>

namespace xpurt::mpi {

Buffer::Buffer(std::shared_ptr<Context> context, uint32_t id, size_t items, size_t itemSize)
    : context_(std::move(context)), id_(id), items_(items), itemSize_(itemSize) {
  window_ = planned_ = owned(context_->rank());
  std::tie(view_, host_) = allocate(context_->device(), window_, itemSize_);
  context_->held(static_cast<int64_t>(window_.size() * itemSize_));
  valid_.resize(static_cast<size_t>(context_->ranks()));
  for (int rank = 0; rank < context_->ranks(); ++rank) valid_[rank].add(owned(rank));
}

Buffer::~Buffer() {
  context_->held(-static_cast<int64_t>(window_.size() * itemSize_));
  if (view_) xpurtReleaseMemoryView(view_);
  std::free(host_);
}

std::pair<XpurtMemoryView, unsigned char *> Buffer::allocate(XpurtDevice device, ItemRange window,
                                                             size_t itemSize) {
  // At least one item: a rank may own none.
  size_t bytes = std::max<size_t>(window.size(), 1) * itemSize;
  auto *host = static_cast<unsigned char *>(std::calloc(bytes, 1));
  if (!host)
    throw Error(XPURT_ERROR_OUT_OF_MEMORY,
                std::to_string(bytes) + " bytes of host memory for a buffer's copy on this rank");
  XpurtMemoryView view = nullptr;
  XpurtResult r = xpurtNewMemoryView(device, host, bytes, XPURT_ALLOC_TYPE_DEVICE, &view);
  if (r != XPURT_SUCCESS) {
    std::free(host);
    throw Error(r, "a buffer's copy of " + std::to_string(bytes) +
                       " bytes on this rank's device: " + xpurtLastErrorMessage());
  }
  return {view, host};
}

bool Buffer::plan(ItemRange items, ItemRange &grown) {
  if (items.empty() || (items.lo >= planned_.lo && items.hi <= planned_.hi)) return false;
  planned_ = planned_.empty()
                 ? items
                 : ItemRange{std::min(planned_.lo, items.lo), std::max(planned_.hi, items.hi)};
  grown = planned_;
  return true;
}

void Buffer::replace(XpurtMemoryView view, unsigned char *host, ItemRange window) {
  if (view_) xpurtReleaseMemoryView(view_);
  std::free(host_);
  context_->held(static_cast<int64_t>(window.size() * itemSize_) -
                 static_cast<int64_t>(window_.size() * itemSize_));
  view_ = view;
  host_ = host;
  window_ = window;
}

ItemRange Buffer::owned(int rank) const {
  return blockOf(items_, context_->ranks(), rank);
}

int Buffer::ownerOf(size_t item) const {
  // The last rank whose block starts at or before item (blocks may be empty).
  int lo = 0, hi = context_->ranks() - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (owned(mid).lo <= item)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

ItemRange LaunchArg::touched(ItemRange ids) const {
  ItemRange all{0, buffer->items()};
  switch (mapper) {
    case XPURT_RANGE_MAPPER_ONE_TO_ONE:
      return ids.intersect(all);
    case XPURT_RANGE_MAPPER_NEIGHBORHOOD:
      return ItemRange{ids.lo > halo ? ids.lo - halo : 0, ids.hi + halo}.intersect(all);
    default:
      return all;
  }
}

namespace {

void mix(uint64_t &digest, uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    digest ^= (value >> (8 * i)) & 0xff;
    digest *= 1099511628211ull;
  }
}

bool reads(XpurtAccess a) {
  return a != XPURT_ACCESS_WRITE;
}
bool writes(XpurtAccess a) {
  return a != XPURT_ACCESS_READ;
}

struct Part {
  int rank;
  ItemRange ids;  // of the launch's last dimension
};

// The parts of a launch node: one per rank for a split (whole work-groups, as equal as they
// come; a rank past the last group gets none), else one on the node's rank.
std::vector<Part> partsOf(const Node &node, int ranks) {
  uint32_t d = node.workDim - 1;
  size_t n = node.global[d];
  if (node.rank != XPURT_MPI_SPLIT) return {{node.rank, {0, n}}};
  size_t group = node.hasLocal ? node.local[d] : 1;
  size_t groups = (n + group - 1) / group;
  std::vector<Part> parts;
  for (int r = 0; r < ranks; ++r) {
    ItemRange g = blockOf(groups, ranks, r);
    ItemRange ids{g.lo * group, std::min(g.hi * group, n)};
    if (!ids.empty()) parts.push_back({r, ids});
  }
  return parts;
}

class Lowering {
 public:
  Lowering(int rank, int ranks, uint32_t &nextTag, uint32_t tagLimit, std::vector<Instruction> &out)
      : rank_(rank), ranks_(ranks), nextTag_(nextTag), tagLimit_(tagLimit), out_(out) {}

  // Makes items of buffer up to date on rank `to`, from the ranks that hold them: the owner of
  // each item first, then the others in rank order.
  void bringTo(const std::shared_ptr<Buffer> &buffer, ItemRange items, int to,
               const std::string &why) {
    std::vector<ItemRanges> &valid = buffer->valid();
    for (ItemRange need : valid[to].missing(items)) {
      while (!need.empty()) {
        int owner = buffer->ownerOf(need.lo);
        int from = -1;
        ItemRange got;
        for (int c = -1; c < ranks_ && from < 0; ++c) {
          int candidate = c < 0 ? owner : c;
          if (candidate == to) continue;
          // The first part of `need` this candidate holds, if it starts at need.lo.
          std::vector<ItemRange> held = sourcesOf(*buffer)[candidate].intersect(need);
          if (!held.empty() && held.front().lo == need.lo) {
            from = candidate;
            got = held.front();
          }
        }
        if (from < 0) {
          // No rank holds need.lo up to date (never written since a WRITE elsewhere left it
          // undefined, or a partial overlap): skip to where some rank holds data again.
          size_t next = need.hi;
          for (int c = 0; c < ranks_; ++c) {
            std::vector<ItemRange> held = sourcesOf(*buffer)[c].intersect(need);
            if (c != to && !held.empty()) next = std::min(next, held.front().lo);
          }
          need.lo = next;
          continue;
        }
        transfer(buffer, got, from, to, why);
        valid[to].add(got);
        need.lo = got.hi;
      }
    }
  }

  void transfer(const std::shared_ptr<Buffer> &buffer, ItemRange items, int from, int to,
                const std::string &why) {
    int tag = static_cast<int>(nextTag_);
    nextTag_ = nextTag_ >= tagLimit_ ? 1 : nextTag_ + 1;
    if (from != rank_ && to != rank_) return;
    Instruction ins;
    ins.kind = from == rank_ ? Instruction::Kind::Send : Instruction::Kind::Recv;
    ins.peer = from == rank_ ? to : from;
    ins.tag = tag;
    ins.byteOffset = items.lo * buffer->itemSize();
    ins.bytes = items.size() * buffer->itemSize();
    ins.what = "items [" + std::to_string(items.lo) + ", " + std::to_string(items.hi) +
               ") of buffer #" + std::to_string(buffer->id()) + " from rank " +
               std::to_string(from) + " to rank " + std::to_string(to) + " for " + why;
    ins.accesses.push_back({buffer.get(), ins.byteOffset, ins.byteOffset + ins.bytes,
                            ins.kind == Instruction::Kind::Recv});
    ins.buffers.push_back(buffer);
    sink_->push_back(std::move(ins));
  }

  // Grows this rank's copy of buffer to hold items, if it does not yet (a Resize first).
  void hold(const std::shared_ptr<Buffer> &buffer, ItemRange items) {
    ItemRange grown;
    if (!buffer->plan(items, grown)) return;
    Instruction ins;
    ins.kind = Instruction::Kind::Resize;
    ins.what = "the growth of buffer #" + std::to_string(buffer->id()) + " to items [" +
               std::to_string(grown.lo) + ", " + std::to_string(grown.hi) + ") on rank " +
               std::to_string(rank_);
    ins.window = grown;
    // It replaces the whole copy: everything before it that touches the buffer comes first.
    ins.accesses.push_back({buffer.get(), 0, buffer->items() * buffer->itemSize(), true});
    ins.buffers.push_back(buffer);
    out_.push_back(std::move(ins));
  }

  // A launch's parts; on this rank, each part is cut into the ids whose items are all here
  // already (interior) and those that need items from other ranks (boundary), so that the
  // interior runs while the boundary's items are on their way. This rank's instructions go in
  // the order: its sends (their copies to the host queued before the interior, so the items
  // leave at once), the interior, its receives, the boundary.
  void launch(const Node &node, size_t index) {
    std::string why = "node " + std::to_string(index) + " (a launch)";
    std::vector<Part> parts = partsOf(node, ranks_);
    for (const Part &part : parts)
      if (part.rank == rank_)
        for (const LaunchArg &arg : node.args)
          if (arg.kind == XPURT_KERNEL_ARG_MEMORY_VIEW) hold(arg.buffer, arg.touched(part.ids));
    std::vector<std::vector<ItemRange>> boundary(parts.size());
    for (size_t p = 0; p < parts.size(); ++p)
      if (parts[p].rank == rank_) boundary[p] = idsNeedingOthers(node, parts[p]);
    // Sources are what ranks held before this node: a rank sends its items before it receives
    // the node's (the order above), so it must not pass on what it has not received yet.
    std::map<const Buffer *, std::vector<ItemRanges>> before;
    for (const LaunchArg &arg : node.args)
      if (arg.kind == XPURT_KERNEL_ARG_MEMORY_VIEW)
        before.emplace(arg.buffer.get(), arg.buffer->valid());
    sources_ = &before;
    std::vector<Instruction> moves;
    sink_ = &moves;
    for (const Part &part : parts)
      for (const LaunchArg &arg : node.args)
        if (arg.kind == XPURT_KERNEL_ARG_MEMORY_VIEW && reads(arg.access))
          bringTo(arg.buffer, arg.touched(part.ids), part.rank, why);
    sink_ = &out_;
    sources_ = nullptr;
    for (Instruction &m : moves)
      if (m.kind == Instruction::Kind::Send) out_.push_back(std::move(m));
    for (size_t p = 0; p < parts.size(); ++p) {
      if (parts[p].rank != rank_) continue;
      size_t at = parts[p].ids.lo;
      for (const ItemRange &b : boundary[p]) {
        if (b.lo > at) out_.push_back(launchOf(node, {at, b.lo}, why));
        at = b.hi;
      }
      if (at < parts[p].ids.hi) out_.push_back(launchOf(node, {at, parts[p].ids.hi}, why));
    }
    for (Instruction &m : moves)
      if (m.kind == Instruction::Kind::Recv) out_.push_back(std::move(m));
    for (size_t p = 0; p < parts.size(); ++p)
      for (const ItemRange &b : boundary[p]) out_.push_back(launchOf(node, b, why));
    // What the parts wrote is up to date where they ran, and nowhere else.
    for (const Part &part : parts)
      for (const LaunchArg &arg : node.args)
        if (arg.kind == XPURT_KERNEL_ARG_MEMORY_VIEW && writes(arg.access))
          for (int r = 0; r < ranks_; ++r)
            if (r != part.rank) arg.buffer->valid()[r].remove(arg.touched(part.ids));
    for (const Part &part : parts)
      for (const LaunchArg &arg : node.args)
        if (arg.kind == XPURT_KERNEL_ARG_MEMORY_VIEW && writes(arg.access))
          arg.buffer->valid()[part.rank].add(arg.touched(part.ids));
  }

  // The ids of a part whose items some read argument lacks on the part's rank (before the
  // transfers for it), as ranges of whole work-groups in order.
  std::vector<ItemRange> idsNeedingOthers(const Node &node, const Part &part) const {
    ItemRanges ids;
    for (const LaunchArg &arg : node.args) {
      if (arg.kind != XPURT_KERNEL_ARG_MEMORY_VIEW || !reads(arg.access)) continue;
      for (ItemRange m : arg.buffer->valid()[part.rank].missing(arg.touched(part.ids))) {
        if (arg.mapper == XPURT_RANGE_MAPPER_ALL) return {part.ids};
        if (arg.mapper == XPURT_RANGE_MAPPER_NEIGHBORHOOD)
          m = {m.lo > arg.halo ? m.lo - arg.halo : 0, m.hi + arg.halo};
        ids.add(m.intersect(part.ids));
      }
    }
    size_t group = node.hasLocal ? node.local[node.workDim - 1] : 1;
    std::vector<ItemRange> out;
    for (ItemRange r : ids.intersect(part.ids)) {
      r = ItemRange{r.lo / group * group, (r.hi + group - 1) / group * group}.intersect(part.ids);
      if (!out.empty() && out.back().hi >= r.lo)
        out.back().hi = std::max(out.back().hi, r.hi);
      else
        out.push_back(r);
    }
    return out;
  }

  Instruction launchOf(const Node &node, ItemRange ids, const std::string &why) const {
    uint32_t d = node.workDim - 1;
    Instruction ins;
    ins.kind = Instruction::Kind::Launch;
    ins.what = why + " on ids [" + std::to_string(ids.lo) + ", " + std::to_string(ids.hi) + ")";
    ins.kernel = node.kernel;
    ins.workDim = node.workDim;
    std::copy(node.global, node.global + 3, ins.global);
    std::copy(node.local, node.local + 3, ins.local);
    ins.hasLocal = node.hasLocal;
    ins.offset[d] = ids.lo;
    ins.global[d] = ids.size();
    ins.values.reserve(node.args.size());
    for (const LaunchArg &arg : node.args) {
      XpurtKernelArg a{};
      a.kind = arg.kind;
      if (arg.kind == XPURT_KERNEL_ARG_VALUE) {
        ins.values.push_back(arg.value);
        a.size = arg.value.size();
      } else if (arg.kind == XPURT_KERNEL_ARG_LOCAL) {
        a.size = arg.localBytes;
      } else {
        // The device pointer of item 0, from this rank's copy when the launch is issued.
        a.kind = XPURT_KERNEL_ARG_VALUE;
        a.size = sizeof(void *);
        ins.pointerArgs.emplace_back(ins.args.size(), arg.buffer.get());
        ItemRange t = arg.touched(ids);
        size_t s = arg.buffer->itemSize();
        if (!t.empty())
          ins.accesses.push_back({arg.buffer.get(), t.lo * s, t.hi * s, writes(arg.access)});
        ins.buffers.push_back(arg.buffer);
      }
      ins.args.push_back(a);
    }
    return ins;
  }

  void read(const Node &node, size_t index) {
    std::string why = "node " + std::to_string(index) + " (a read)";
    if (node.rank == XPURT_MPI_ALL_RANKS || node.rank == rank_) hold(node.buffer, node.items);
    for (int r = 0; r < ranks_; ++r) {
      if (node.rank != XPURT_MPI_ALL_RANKS && node.rank != r) continue;
      bringTo(node.buffer, node.items, r, why);
      if (r == rank_) out_.push_back(host(Instruction::Kind::Read, node, why));
    }
  }

  void write(const Node &node, size_t index) {
    std::string why = "node " + std::to_string(index) + " (a write)";
    std::vector<ItemRanges> &valid = node.buffer->valid();
    if (node.rank == XPURT_MPI_ALL_RANKS || node.rank == rank_) hold(node.buffer, node.items);
    for (int r = 0; r < ranks_; ++r) {
      bool writer = node.rank == XPURT_MPI_ALL_RANKS || node.rank == r;
      if (writer) {
        valid[r].add(node.items);
        if (r == rank_) out_.push_back(host(Instruction::Kind::Write, node, why));
      } else {
        valid[r].remove(node.items);
      }
    }
  }

 private:
  Instruction host(Instruction::Kind kind, const Node &node, const std::string &why) {
    Instruction ins;
    ins.kind = kind;
    ins.what = why;
    size_t s = node.buffer->itemSize();
    ins.byteOffset = node.items.lo * s;
    ins.bytes = node.items.size() * s;
    ins.dst = node.dst;
    ins.src = node.src;
    ins.accesses.push_back({node.buffer.get(), ins.byteOffset, ins.byteOffset + ins.bytes,
                            kind == Instruction::Kind::Write});
    ins.buffers.push_back(node.buffer);
    return ins;
  }

  int rank_, ranks_;
  uint32_t &nextTag_;
  uint32_t tagLimit_;
  std::vector<Instruction> &out_;
  std::vector<Instruction> *sink_ = &out_;  // where transfers go
  // Where transfers may come from, if not from what ranks hold now.
  const std::map<const Buffer *, std::vector<ItemRanges>> *sources_ = nullptr;

  const std::vector<ItemRanges> &sourcesOf(Buffer &buffer) const {
    return sources_ ? sources_->at(&buffer) : buffer.valid();
  }
};

}  // namespace

void Graph::add(Node node) {
  mix(digest_, static_cast<uint64_t>(node.kind));
  mix(digest_, static_cast<uint64_t>(static_cast<int64_t>(node.rank)));
  if (node.kind == Node::Kind::Launch) {
    mix(digest_, node.workDim);
    for (int i = 0; i < 3; ++i) {
      mix(digest_, node.global[i]);
      mix(digest_, node.hasLocal ? node.local[i] : 0);
    }
    for (const LaunchArg &arg : node.args) {
      mix(digest_, static_cast<uint64_t>(arg.kind));
      mix(digest_, arg.kind == XPURT_KERNEL_ARG_VALUE ? arg.value.size() : arg.localBytes);
      if (arg.buffer) {
        mix(digest_, arg.buffer->id());
        mix(digest_, static_cast<uint64_t>(arg.access));
        mix(digest_, static_cast<uint64_t>(arg.mapper));
        mix(digest_, arg.halo);
      }
    }
  } else {
    mix(digest_, node.buffer->id());
    mix(digest_, node.items.lo);
    mix(digest_, node.items.hi);
  }
  nodes_.push_back(std::move(node));
}

void lowerGraph(const Graph &graph, int rank, int ranks, uint32_t &nextTag, uint32_t tagLimit,
                std::vector<Instruction> &out) {
  Lowering lowering(rank, ranks, nextTag, tagLimit, out);
  const std::vector<Node> &nodes = graph.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    switch (nodes[i].kind) {
      case Node::Kind::Launch:
        lowering.launch(nodes[i], i);
        break;
      case Node::Kind::Read:
        lowering.read(nodes[i], i);
        break;
      case Node::Kind::Write:
        lowering.write(nodes[i], i);
        break;
    }
  }
}

}  // namespace xpurt::mpi
