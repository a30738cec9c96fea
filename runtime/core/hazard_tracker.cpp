#include "hazard_tracker.hpp"

#include <algorithm>

namespace xpurt::core {

static void addIfPending(const Ref<Event> &event, std::vector<Ref<Event>> &deps) {
  if (!event || event->isDone()) return;
  if (std::find(deps.begin(), deps.end(), event) == deps.end()) deps.push_back(event);
}

void HazardTracker::dropCompleted() {
  // Completed commands can hold nothing back. Pruning when the lists have doubled keeps the
  // cost per command constant.
  if (uses_.size() + others_.size() < pruneAt_) return;
  std::erase_if(uses_, [](const Record &r) { return r.event->isDone(); });
  std::erase_if(others_, [](const Ref<Event> &e) { return e->isDone(); });
  pruneAt_ = std::max<size_t>(64, 2 * (uses_.size() + others_.size()));
}

void HazardTracker::addDeclared(std::span<const MemoryUse> uses, const Ref<Event> &event,
                                std::vector<Ref<Event>> &deps) {
  dropCompleted();
  addIfPending(fence_, deps);
  for (const MemoryUse &use : uses) {
    for (const Record &r : uses_) {
      bool overlap = use.begin < r.use.end && r.use.begin < use.end;
      if (overlap && (use.write || r.use.write)) addIfPending(r.event, deps);
    }
  }
  for (const MemoryUse &use : uses)
    if (use.begin < use.end) uses_.push_back({use, event});
  if (uses.empty()) others_.push_back(event);
}

void HazardTracker::addFence(const Ref<Event> &event, std::vector<Ref<Event>> &deps) {
  addIfPending(fence_, deps);
  for (const Record &r : uses_) addIfPending(r.event, deps);
  for (const Ref<Event> &e : others_) addIfPending(e, deps);
  uses_.clear();
  others_.clear();
  fence_ = event;
  pruneAt_ = 64;
}

void HazardTracker::addWait(const Ref<Event> &event, std::vector<Ref<Event>> &deps) {
  addIfPending(fence_, deps);
  // Later commands depend on the wait through the fence; the commands recorded since the old
  // fence keep ordering later ones by their uses. A fence added later depends on this event
  // through fence_.
  fence_ = event;
}

}  // namespace xpurt::core
