// Dependencies of out-of-order work from what each command declares it touches. One tracker
// serves an out-of-order queue now and the copy/compute split inside a backend and graph
// edges later: it knows memory only as byte ranges and commands only by their events.
#pragma once

#include "event.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace xpurt::core {

// Bytes [begin, end) of one memory (a view's device storage or its host copy, named by their
// addresses), read or written.
struct MemoryUse {
  uintptr_t begin = 0;
  uintptr_t end = 0;
  bool write = false;
};

class HazardTracker {
 public:
  // A command that declares its memory uses: it depends on the last fence and on every
  // earlier command with a conflicting use (read after write, write after read, write after
  // write of overlapping bytes). Appends those events to deps; records the command.
  void addDeclared(std::span<const MemoryUse> uses, const Ref<Event> &event,
                   std::vector<Ref<Event>> &deps);
  // A command that orders everything before it against everything after it (a barrier, a
  // launch or host callback that declares nothing): it depends on every earlier command.
  void addFence(const Ref<Event> &event, std::vector<Ref<Event>> &deps);
  // A wait for other work (futures of other queues): every later command depends on event,
  // which depends on the last fence; earlier commands are not held back.
  void addWait(const Ref<Event> &event, std::vector<Ref<Event>> &deps);

 private:
  struct Record {
    MemoryUse use;
    Ref<Event> event;
  };
  void dropCompleted();

  Ref<Event> fence_;                // every later command depends on it
  std::vector<Record> uses_;        // since the fence
  std::vector<Ref<Event>> others_;  // commands since the fence that declared no memory
  size_t pruneAt_ = 64;
};

}  // namespace xpurt::core
