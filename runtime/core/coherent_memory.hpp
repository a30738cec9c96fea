// Coherent memory (COHERENT memory views): memory of no one device. Each device that runs a
// command on it gets a copy of its own, a DEVICE view whose host copy is the coherent view's
// host memory. Which bytes are up to date in each copy, and in the host memory, is tracked from
// what commands declare, as StarPU keeps its data handles: a command that reads bytes its
// device's copy lacks has them copied in first from a place that has them; one that writes
// leaves its device's copy the only one up to date for those bytes. Every queue's pending uses
// of each place are recorded, so that work of different queues on one place is ordered as an
// out-of-order queue orders its own. TaskQueue (task_queue_coherence.cpp) drives it.
#pragma once

#include "event.hpp"

#include <xpurt/xpurt.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace xpurt::core {

class Device;
class MemoryView;

// What a command does with a range of a COHERENT view.
struct CoherentAccess {
  MemoryView *view;
  size_t offset;
  size_t size;  // checked, XPURT_WHOLE_SIZE resolved
  XpurtAccess access;
};

// Byte ranges [begin, end), kept sorted, disjoint and not touching.
class RangeSet {
 public:
  using Range = std::pair<size_t, size_t>;
  void add(size_t begin, size_t end);
  void remove(size_t begin, size_t end);
  // The parts of [begin, end) in the set, and those not in it, in order.
  std::vector<Range> within(size_t begin, size_t end) const;
  std::vector<Range> missing(size_t begin, size_t end) const;
  const std::vector<Range> &ranges() const { return ranges_; }

 private:
  std::vector<Range> ranges_;
};

class CoherentMemory {
 public:
  // appMemory: the host memory (null: zeroed memory allocated here), up to date at first.
  CoherentMemory(void *appMemory, size_t size);

  void *host() const { return host_.get(); }
  // Owns the host memory (or, for the application's, keeps nothing): what copies hold.
  const std::shared_ptr<void> &hostOwner() const { return host_; }
  size_t size() const { return size_; }

  // Everything below is called with mutex() held.
  std::mutex &mutex() { return mutex_; }

  // Places of copies: kHost is the host memory, which devices whose memory is host memory use
  // directly; every other place is one device's storage.
  static constexpr size_t kHost = 0;
  // The place of `device`'s copy and the view that commands on `device` use, made on first use.
  size_t placeOf(Device &device);
  MemoryView &copyFor(Device &device);
  size_t placeCount() const { return places_.size(); }
  // The device of a place other than kHost.
  Device &deviceAt(size_t place) const { return *places_[place].device; }
  const RangeSet &upToDate(size_t place) const { return places_[place].valid; }

  // The pending uses of [begin, end) at place by queues other than `queue` that a use (a read,
  // or a write if `write`) must follow: appended to out.
  void conflicts(size_t place, size_t begin, size_t end, bool write, const void *queue,
                 std::vector<Ref<Event>> &out);
  // A use of [begin, end) at place by queue's command `event`, which follows the uses of those
  // bytes that conflicts() gave and the queue's own earlier ones.
  void noteUse(size_t place, size_t begin, size_t end, bool write, const Ref<Event> &event,
               const void *queue);
  // [begin, end) is now up to date at place (copied there) ...
  void noteCopied(size_t place, size_t begin, size_t end) { places_[place].valid.add(begin, end); }
  // ... or was written there: up to date nowhere else.
  void noteWritten(size_t place, size_t begin, size_t end);

 private:
  struct Use {
    size_t begin;
    size_t end;
    bool write;
    Ref<Event> event;
    const void *queue;
  };
  struct Place {
    Device *device = nullptr;  // null for kHost; kept alive by its copy in copies_
    RangeSet valid;
    std::vector<Use> uses;
    size_t pruneAt = 64;
  };
  struct Copy {
    Device *device;
    Ref<MemoryView> view;
  };

  std::shared_ptr<void> host_;
  size_t size_;
  std::mutex mutex_;
  std::vector<Place> places_;
  std::vector<Copy> copies_;  // one per device, including those whose place is kHost
};

}  // namespace xpurt::core
