// Sets of item ranges [lo, hi) of a distributed buffer: what a rank holds up to date, what a
// part of a launch touches.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <map>
#include <vector>

namespace xpurt::mpi {

struct ItemRange {
  size_t lo = 0, hi = 0;
  bool empty() const { return lo >= hi; }
  size_t size() const { return hi > lo ? hi - lo : 0; }
  bool overlaps(const ItemRange &o) const { return lo < o.hi && o.lo < hi; }
  ItemRange intersect(const ItemRange &o) const { return {std::max(lo, o.lo), std::min(hi, o.hi)}; }
  bool operator==(const ItemRange &) const = default;
};

// Disjoint, non-adjacent ranges, ordered; each kept as lo -> hi.
class ItemRanges {
 public:
  void add(ItemRange r) {
    if (r.empty()) return;
    auto it = ranges_.lower_bound(r.lo);
    if (it != ranges_.begin() && std::prev(it)->second >= r.lo) --it;
    while (it != ranges_.end() && it->first <= r.hi) {
      r.lo = std::min(r.lo, it->first);
      r.hi = std::max(r.hi, it->second);
      it = ranges_.erase(it);
    }
    ranges_.emplace(r.lo, r.hi);
  }
  void remove(ItemRange r) {
    if (r.empty()) return;
    auto it = ranges_.lower_bound(r.lo);
    if (it != ranges_.begin() && std::prev(it)->second > r.lo) --it;
    std::vector<ItemRange> keep;
    while (it != ranges_.end() && it->first < r.hi) {
      if (it->first < r.lo) keep.push_back({it->first, r.lo});
      if (it->second > r.hi) keep.push_back({r.hi, it->second});
      it = ranges_.erase(it);
    }
    for (const ItemRange &k : keep) ranges_.emplace(k.lo, k.hi);
  }
  // The parts of r this set holds, in order.
  std::vector<ItemRange> intersect(ItemRange r) const {
    std::vector<ItemRange> out;
    if (r.empty()) return out;
    auto it = ranges_.upper_bound(r.lo);
    if (it != ranges_.begin()) --it;
    for (; it != ranges_.end() && it->first < r.hi; ++it) {
      ItemRange part = r.intersect({it->first, it->second});
      if (!part.empty()) out.push_back(part);
    }
    return out;
  }
  // The parts of r this set lacks, in order.
  std::vector<ItemRange> missing(ItemRange r) const {
    std::vector<ItemRange> out;
    size_t at = r.lo;
    for (const ItemRange &held : intersect(r)) {
      if (held.lo > at) out.push_back({at, held.lo});
      at = held.hi;
    }
    if (at < r.hi) out.push_back({at, r.hi});
    return out;
  }
  bool operator==(const ItemRanges &) const = default;

 private:
  std::map<size_t, size_t> ranges_;
};

}  // namespace xpurt::mpi
