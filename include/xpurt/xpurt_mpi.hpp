// xpurt_mpi's C++ API: header-only over include/xpurt/xpurt_mpi.h (which specifies what each
// call does), with owning handles and exceptions (xpurt::Error) as xpurt.hpp has.
//
//   xpurt::mpi::Context ctx(MPI_COMM_WORLD, device);
//   xpurt::mpi::Buffer in(ctx, rows, rowBytes, initial.data()), out(ctx, rows, rowBytes);
//   xpurt::mpi::Graph step(ctx);
//   step.launch(kernel, xpurt::Range(width, rows),
//               {xpurt::mpi::Arg::rows(in, xpurt::Access::Read, 1), xpurt::mpi::Arg::rows(out,
//                xpurt::Access::Write), width, rows});
//   step.read(out, 0, rows, result.data(), 0);
//   step.launch();
//   ctx.wait();
#pragma once

#include <xpurt/xpurt_mpi.h>
#include <xpurt/xpurt.hpp>

#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace xpurt::mpi {

namespace detail {

inline void check(XpurtResult result) {
  if (result != XPURT_SUCCESS) throw Error(result, xpurtMpiLastErrorMessage());
}

}  // namespace detail

// Where a launch runs: a rank number, or one of these.
constexpr int kSplit = XPURT_MPI_SPLIT;  // over every rank, by blocks of work-groups
constexpr int kOwner = XPURT_MPI_OWNER;  // where the first item it writes lives
constexpr int kAllRanks = XPURT_MPI_ALL_RANKS;

// A communicator's context (collective to create and to release). The destructor releases it
// too, but cannot throw: call release() to learn whether its work failed.
class Context {
 public:
  Context(MPI_Comm comm, const Device &device, uint32_t timeoutMs = 0) {
    XpurtMpiOptions options{sizeof options, timeoutMs};
    detail::check(xpurtMpiNewContext(comm, device.handle(), &options, &handle_));
  }
  ~Context() {
    if (handle_) xpurtMpiReleaseContext(handle_);
  }
  Context(Context &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Context &operator=(Context &&other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  int rank() const {
    int r = 0;
    detail::check(xpurtMpiContextGetRank(handle(), &r));
    return r;
  }
  int size() const {
    int n = 0;
    detail::check(xpurtMpiContextGetSize(handle(), &n));
    return n;
  }
  void wait() const { detail::check(xpurtMpiWait(handle())); }
  XpurtMpiStats stats() const {
    XpurtMpiStats s{};
    s.structSize = sizeof s;
    detail::check(xpurtMpiGetStats(handle(), &s));
    return s;
  }
  // Collective: waits for the context's work and frees it, throwing what failed.
  void release() { detail::check(xpurtMpiReleaseContext(std::exchange(handle_, nullptr))); }
  XpurtMpiContext handle() const {
    if (!handle_) throw Error(XPURT_ERROR_INVALID_HANDLE, "the MPI context was released");
    return handle_;
  }

 private:
  XpurtMpiContext handle_ = nullptr;
};

// A buffer of items distributed over the ranks by blocks (collective).
class Buffer {
 public:
  Buffer(const Context &context, size_t items, size_t itemSize, const void *initial = nullptr) {
    XpurtMpiBuffer b = nullptr;
    detail::check(xpurtMpiNewBuffer(context.handle(), items, itemSize, initial, &b));
    handle_ = std::shared_ptr<XpurtMpiBuffer_>(b, xpurtMpiReleaseBuffer);
  }
  // The items rank owns: first, count.
  std::pair<size_t, size_t> owned(int rank) const {
    size_t first = 0, count = 0;
    detail::check(xpurtMpiBufferGetOwnedItems(handle(), rank, &first, &count));
    return {first, count};
  }
  XpurtMpiBuffer handle() const { return handle_.get(); }

 private:
  std::shared_ptr<XpurtMpiBuffer_> handle_;
};

// An argument of Graph::launch: a value, local memory, or a buffer with what each part of the
// launch touches of it (item i being global id i of the launch's last dimension).
class Arg {
 public:
  template <class T, class = std::enable_if_t<!std::is_base_of_v<Buffer, T> &&
                                              std::is_trivially_copyable_v<T>>>
  Arg(const T &value) : value_(sizeof(T)) {
    std::memcpy(value_.data(), &value, sizeof(T));
    c_ = XpurtMpiArg{XPURT_KERNEL_ARG_VALUE, sizeof(T), nullptr, nullptr, XPURT_ACCESS_READ,
                     XPURT_RANGE_MAPPER_ALL, 0};
  }
  // The part's own items and `halo` on each side.
  static Arg rows(const Buffer &buffer, Access access, size_t halo = 0) {
    return Arg(buffer, access,
               halo ? XPURT_RANGE_MAPPER_NEIGHBORHOOD : XPURT_RANGE_MAPPER_ONE_TO_ONE, halo);
  }
  // Every item, for every part.
  static Arg all(const Buffer &buffer, Access access = Access::Read) {
    return Arg(buffer, access, XPURT_RANGE_MAPPER_ALL, 0);
  }
  static Arg local(size_t bytes) {
    Arg a;
    a.c_ = XpurtMpiArg{XPURT_KERNEL_ARG_LOCAL, bytes, nullptr, nullptr, XPURT_ACCESS_READ,
                       XPURT_RANGE_MAPPER_ALL, 0};
    return a;
  }
  XpurtMpiArg toC() const {
    XpurtMpiArg c = c_;
    if (c.kind == XPURT_KERNEL_ARG_VALUE) c.value = value_.data();
    return c;
  }

 private:
  Arg() = default;
  Arg(const Buffer &buffer, Access access, XpurtRangeMapper mapper, size_t halo) {
    c_ = XpurtMpiArg{XPURT_KERNEL_ARG_MEMORY_VIEW,     0,      nullptr, buffer.handle(),
                     static_cast<XpurtAccess>(access), mapper, halo};
  }
  XpurtMpiArg c_{};
  std::vector<unsigned char> value_;
};

// A graph every rank records alike and launches together.
class Graph {
 public:
  explicit Graph(const Context &context) {
    XpurtMpiGraph g = nullptr;
    detail::check(xpurtMpiNewGraph(context.handle(), &g));
    handle_ = std::shared_ptr<XpurtMpiGraph_>(g, xpurtMpiReleaseGraph);
  }
  Graph &launch(const Kernel &kernel, const Range &range, std::initializer_list<Arg> args,
                int rank = kSplit) {
    std::vector<XpurtMpiArg> c;
    for (const Arg &a : args) c.push_back(a.toC());
    const size_t *offset = range.globalOffset();
    if (offset[0] || offset[1] || offset[2])
      throw Error(XPURT_ERROR_INVALID_ARGUMENT,
                  "xpurt::mpi::Graph::launch: the range has a global offset, which launches over "
                  "ranks do not take (global id i of the last dimension is item i)");
    detail::check(xpurtMpiGraphAddLaunch(handle(), kernel.handle(), static_cast<uint32_t>(c.size()),
                                         c.data(), range.dimensions(), range.globalSize(),
                                         range.localSize(), rank));
    return *this;
  }
  Graph &read(const Buffer &buffer, size_t first, size_t count, void *dst, int rank) {
    detail::check(xpurtMpiGraphAddRead(handle(), buffer.handle(), first, count, dst, rank));
    return *this;
  }
  Graph &write(const Buffer &buffer, size_t first, size_t count, const void *src, int rank) {
    detail::check(xpurtMpiGraphAddWrite(handle(), buffer.handle(), first, count, src, rank));
    return *this;
  }
  // Collective: runs the graph after those launched before it; returns at once.
  void launch() const { detail::check(xpurtMpiGraphLaunch(handle())); }
  XpurtMpiGraph handle() const { return handle_.get(); }

 private:
  std::shared_ptr<XpurtMpiGraph_> handle_;
};

}  // namespace xpurt::mpi
