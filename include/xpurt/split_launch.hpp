// xpurt — the C++ API of launches split over several devices (included by xpurt/xpurt.hpp).
//
//   xpurt::CoherentArray<float> in(values), out(n);
//   xpurt::launchSplit({q0, q1}, {k0, k1}, xpurt::Range(n),  // a kernel per queue's device
//                      {xpurt::SplitArg::rows(in, xpurt::Access::Read, sizeof(float), 1),
//                       xpurt::SplitArg::rows(out, xpurt::Access::Write, sizeof(float))});
#pragma once

#include <xpurt/xpurt.hpp>

namespace xpurt {

// An argument of a split launch (launchSplit): a value, or a COHERENT view with the part of it
// each chunk touches, as items of the split dimension of `pitch` bytes from `offset`.
class SplitArg {
 public:
  template <class T, class = std::enable_if_t<!std::is_base_of_v<MemoryView, T> &&
                                              std::is_trivially_copyable_v<T>>>
  SplitArg(const T &value) : arg_(value) {}
  // The whole view (from offset) for every chunk.
  static SplitArg all(const MemoryView &view, Access access = Access::Read, size_t offset = 0) {
    return SplitArg(Arg(view, offset, access), XPURT_RANGE_MAPPER_ALL, 0, 0);
  }
  // The chunk's own items (rows) and `halo` items on each side.
  static SplitArg rows(const MemoryView &view, Access access, size_t pitch, size_t halo = 0,
                       size_t offset = 0) {
    return SplitArg(Arg(view, offset, access),
                    halo ? XPURT_RANGE_MAPPER_NEIGHBORHOOD : XPURT_RANGE_MAPPER_ONE_TO_ONE, pitch,
                    halo);
  }
  XpurtSplitArg toC() const { return {arg_.toC(), mapper_, pitch_, halo_}; }

 private:
  SplitArg(Arg arg, XpurtRangeMapper mapper, size_t pitch, size_t halo)
      : arg_(std::move(arg)), mapper_(mapper), pitch_(pitch), halo_(halo) {}
  Arg arg_;
  XpurtRangeMapper mapper_ = XPURT_RANGE_MAPPER_ALL;
  size_t pitch_ = 0, halo_ = 0;
};

// One launch over several devices (xpurtLaunchKernelSplit): the range split along its last
// dimension, chunk i on queues[i] with kernels[i] (that queue's device's).
class SplitLaunch {
 public:
  static Future launch(const std::vector<TaskQueue> &queues, const std::vector<Kernel> &kernels,
                       const Range &range, std::initializer_list<SplitArg> args) {
    if (queues.size() != kernels.size())
      throw Error(XPURT_ERROR_INVALID_ARGUMENT,
                  "launchSplit: " + std::to_string(queues.size()) + " queues and " +
                      std::to_string(kernels.size()) + " kernels; give a kernel per queue");
    std::vector<XpurtTaskQueue> q;
    std::vector<XpurtKernel> k;
    for (size_t i = 0; i < queues.size(); ++i) {
      q.push_back(queues[i].handle());
      k.push_back(kernels[i].handle());
    }
    std::vector<XpurtSplitArg> c;
    for (const SplitArg &a : args) c.push_back(a.toC());
    XpurtFuture f = nullptr;
    detail::check(xpurtLaunchKernelSplit(static_cast<uint32_t>(q.size()), q.data(), k.data(),
                                         static_cast<uint32_t>(c.size()), c.data(), range.dims_,
                                         range.offset_, range.global_,
                                         range.hasLocal_ ? range.local_ : nullptr, &f));
    return Future::adopt(f);
  }
};

inline Future launchSplit(const std::vector<TaskQueue> &queues, const std::vector<Kernel> &kernels,
                          const Range &range, std::initializer_list<SplitArg> args) {
  return SplitLaunch::launch(queues, kernels, range, args);
}

}  // namespace xpurt
