#include "coherent_memory.hpp"

#include "backend.hpp"
#include "error.hpp"
#include "memory_view.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace xpurt::core {

void RangeSet::add(size_t begin, size_t end) {
  if (begin >= end) return;
  // Ranges that overlap or touch [begin, end) merge with it.
  auto first = std::lower_bound(ranges_.begin(), ranges_.end(), begin,
                                [](const Range &r, size_t b) { return r.second < b; });
  auto last = first;
  while (last != ranges_.end() && last->first <= end) {
    begin = std::min(begin, last->first);
    end = std::max(end, last->second);
    ++last;
  }
  first = ranges_.erase(first, last);
  ranges_.insert(first, {begin, end});
}

void RangeSet::remove(size_t begin, size_t end) {
  if (begin >= end) return;
  std::vector<Range> kept;
  kept.reserve(ranges_.size() + 1);
  for (const Range &r : ranges_) {
    if (r.second <= begin || r.first >= end) {
      kept.push_back(r);
      continue;
    }
    if (r.first < begin) kept.push_back({r.first, begin});
    if (r.second > end) kept.push_back({end, r.second});
  }
  ranges_ = std::move(kept);
}

std::vector<RangeSet::Range> RangeSet::within(size_t begin, size_t end) const {
  std::vector<Range> out;
  for (const Range &r : ranges_) {
    size_t b = std::max(begin, r.first), e = std::min(end, r.second);
    if (b < e) out.push_back({b, e});
  }
  return out;
}

std::vector<RangeSet::Range> RangeSet::missing(size_t begin, size_t end) const {
  std::vector<Range> out;
  size_t at = begin;
  for (const Range &r : within(begin, end)) {
    if (at < r.first) out.push_back({at, r.first});
    at = r.second;
  }
  if (at < end) out.push_back({at, end});
  return out;
}

CoherentMemory::CoherentMemory(void *appMemory, size_t size) : size_(size) {
  if (appMemory) {
    host_ = std::shared_ptr<void>(appMemory, [](void *) {});
  } else {
    // Page-aligned, so that drivers lock whole pages of it alone.
    constexpr size_t kPage = 4096;
    void *memory = std::aligned_alloc(kPage, (size + kPage - 1) / kPage * kPage);
    if (!memory)
      fail(XPURT_ERROR_OUT_OF_MEMORY, "no host memory for a {}-byte coherent memory view", size);
    std::memset(memory, 0, size);
    host_ = std::shared_ptr<void>(memory, [](void *p) { std::free(p); });
  }
  places_.emplace_back();
  places_[kHost].valid.add(0, size);
}

size_t CoherentMemory::placeOf(Device &device) {
  if (device.deviceMemoryIsHostMemory()) return kHost;
  for (size_t i = 1; i < places_.size(); ++i)
    if (places_[i].device == &device) return i;
  copyFor(device);
  places_.emplace_back().device = &device;
  return places_.size() - 1;
}

MemoryView &CoherentMemory::copyFor(Device &device) {
  for (const Copy &c : copies_)
    if (c.device == &device) return *c.view;
  Ref<MemoryView> view = MemoryView::createCopyOf(Ref<Device>(&device), *this);
  // A copy that found the host memory locked by another copy (CUDA registers it for every
  // GPU) copies from it as locked memory while its commands run: the copy that locked it stays
  // until then.
  if (view->hostCopyLockedElsewhere())
    for (const Copy &c : copies_)
      if (c.view->pinsHostCopy()) {
        view->keepAlongside(c.view);
        break;
      }
  return *copies_.emplace_back(Copy{&device, std::move(view)}).view;
}

void CoherentMemory::conflicts(size_t place, size_t begin, size_t end, bool write,
                               const void *queue, std::vector<Ref<Event>> &out) {
  for (const Use &u : places_[place].uses) {
    if (u.queue == queue || !(write || u.write)) continue;
    if (u.begin < end && begin < u.end && !u.event->isDone() &&
        std::find(out.begin(), out.end(), u.event) == out.end())
      out.push_back(u.event);
  }
}

void CoherentMemory::noteUse(size_t place, size_t begin, size_t end, bool write,
                             const Ref<Event> &event, const void *queue) {
  Place &p = places_[place];
  // Completed uses hold nothing back; pruning when the list has doubled keeps the cost per use
  // constant.
  if (p.uses.size() >= p.pruneAt) {
    std::erase_if(p.uses, [](const Use &u) { return u.event->isDone(); });
    p.pruneAt = std::max<size_t>(64, 2 * p.uses.size());
  }
  if (!event || begin >= end) return;
  if (write) {
    // A write follows every earlier use of its bytes here (other queues' through conflicts,
    // the queue's own through its order): what must follow those uses follows the write. Only
    // the uses of other bytes stay, so that a place's list does not grow with every step of a
    // program that runs ahead of its devices.
    std::vector<Use> kept;
    kept.reserve(p.uses.size() + 1);
    for (Use &u : p.uses) {
      if (u.event->isDone()) continue;
      if (u.end <= begin || u.begin >= end) {
        kept.push_back(std::move(u));
        continue;
      }
      if (u.begin < begin) kept.push_back({u.begin, begin, u.write, u.event, u.queue});
      if (u.end > end) kept.push_back({end, u.end, u.write, u.event, u.queue});
    }
    p.uses = std::move(kept);
  }
  p.uses.push_back({begin, end, write, event, queue});
}

void CoherentMemory::noteWritten(size_t place, size_t begin, size_t end) {
  for (size_t i = 0; i < places_.size(); ++i) {
    if (i == place)
      places_[i].valid.add(begin, end);
    else
      places_[i].valid.remove(begin, end);
  }
}

}  // namespace xpurt::core
