#include "graph_placement.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace xpurt::core::placement {

namespace {

// Where each byte range of each piece of data is up to date as placed nodes run.
class Validity {
 public:
  explicit Validity(const std::vector<Valid> &initial) {
    // Entries may overlap (a range up to date in two places): their places add up.
    for (const Valid &v : initial) {
      std::vector<Segment> parts;
      forEachPart(v.data, v.begin, v.end, 0, [&](uint64_t b, uint64_t e, uint64_t places) {
        parts.push_back({b, e, places | v.places});
      });
      for (const Segment &s : parts) set(v.data, s.begin, s.end, s.places);
    }
  }

  // Calls fn(bytes, places) for each part of [begin, end) of data, with where it is up to date.
  template <class Fn>
  void forEach(uint32_t data, uint64_t begin, uint64_t end, Fn fn) const {
    forEachPart(data, begin, end, kHostOnly,
                [&](uint64_t b, uint64_t e, uint64_t places) { fn(e - b, places); });
  }

  // Reads add place; writes make it the only one.
  void read(uint32_t data, uint64_t begin, uint64_t end, uint32_t place) {
    std::vector<Segment> parts;
    forEachPart(data, begin, end, kHostOnly, [&](uint64_t b, uint64_t e, uint64_t places) {
      parts.push_back({b, e, places | (uint64_t{1} << place)});
    });
    for (const Segment &s : parts) set(data, s.begin, s.end, s.places);
  }
  void write(uint32_t data, uint64_t begin, uint64_t end, uint32_t place) {
    set(data, begin, end, uint64_t{1} << place);
  }

 private:
  struct Segment {
    uint64_t begin, end, places;
  };

  // Bytes no segment names: up to date in host memory alone.
  static constexpr uint64_t kHostOnly = 1;

  // Calls fn(begin, end, places) for each part of [begin, end); gaps get `gap`.
  template <class Fn>
  void forEachPart(uint32_t data, uint64_t begin, uint64_t end, uint64_t gap, Fn fn) const {
    uint64_t at = begin;
    auto it = segments_.find(data);
    if (it != segments_.end())
      for (const Segment &s : it->second) {
        if (s.end <= at) continue;
        if (s.begin >= end) break;
        if (s.begin > at) fn(at, s.begin, gap);
        uint64_t from = std::max(at, s.begin), to = std::min(end, s.end);
        fn(from, to, s.places);
        at = to;
      }
    if (at < end) fn(at, end, gap);
  }

  void set(uint32_t data, uint64_t begin, uint64_t end, uint64_t places) {
    if (begin >= end) return;
    std::vector<Segment> &list = segments_[data];
    std::vector<Segment> out;
    out.reserve(list.size() + 2);
    for (const Segment &s : list) {
      if (s.end <= begin || s.begin >= end) {
        out.push_back(s);
        continue;
      }
      if (s.begin < begin) out.push_back({s.begin, begin, s.places});
      if (s.end > end) out.push_back({end, s.end, s.places});
    }
    out.push_back({begin, end, places});
    std::sort(out.begin(), out.end(),
              [](const Segment &a, const Segment &b) { return a.begin < b.begin; });
    list = std::move(out);
  }

  std::map<uint32_t, std::vector<Segment>> segments_;
};

}  // namespace

std::vector<uint32_t> place(const Problem &p) {
  std::vector<double> busyUntil(p.devices, 0.0);
  std::vector<double> finish(p.nodes.size(), 0.0);
  std::vector<uint32_t> device(p.nodes.size(), 0);
  Validity validity(p.initial);
  for (size_t n = 0; n < p.nodes.size(); ++n) {
    const Node &node = p.nodes[n];
    std::vector<uint32_t> candidates;
    for (uint32_t d = 0; d < p.devices; ++d)
      if (std::isnan(node.runNs[d])) candidates.push_back(d);
    if (candidates.empty())
      for (uint32_t d = 0; d < p.devices; ++d)
        if (node.runNs[d] != kNever) candidates.push_back(d);
    double best = kNever;
    uint32_t chosen = candidates.empty() ? 0 : candidates.front();
    for (uint32_t d : candidates) {
      uint32_t to = p.placeOfDevice[d];
      double ready = 0;
      for (uint32_t pred : node.preds)
        ready = std::max(ready, finish[pred] + (device[pred] == d ? 0.0 : kCrossDeviceWaitNs));
      double copyNs = 0;
      for (const Use &u : node.uses) {
        if (!u.read) continue;
        validity.forEach(u.data, u.begin, u.end, [&](uint64_t bytes, uint64_t places) {
          if (places & (uint64_t{1} << to)) return;
          double perByte = kNever;
          for (uint32_t from = 0; from < p.places; ++from)
            if (places & (uint64_t{1} << from))
              perByte = std::min(perByte, p.nsPerByte[from * p.places + to]);
          copyNs += static_cast<double>(bytes) * perByte;
        });
      }
      double run = std::isnan(node.runNs[d]) ? kUnmeasuredNs : node.runNs[d];
      double end = std::max(ready, busyUntil[d]) + copyNs + run;
      // Ties go to the device free first, then to the first listed.
      if (end < best || (end == best && busyUntil[d] < busyUntil[chosen])) {
        best = end;
        chosen = d;
      }
    }
    device[n] = chosen;
    finish[n] = best;
    busyUntil[chosen] = best;
    uint32_t at = p.placeOfDevice[chosen];
    for (const Use &u : node.uses) {
      if (u.write)
        validity.write(u.data, u.begin, u.end, at);
      else if (u.read)
        validity.read(u.data, u.begin, u.end, at);
    }
  }
  return device;
}

}  // namespace xpurt::core::placement
