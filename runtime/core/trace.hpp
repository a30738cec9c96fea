// XPURT_TRACE=file.json: a Chrome trace-event file (Perfetto, chrome://tracing) with one track
// per queue and engine, one slice per command and flow arrows for cross-queue waits. The file
// is valid JSON after every write: records go in before a closing bracket that is rewritten.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cstdint>
#include <string>
#include <string_view>

namespace xpurt::core::trace {

// Whether XPURT_TRACE is set. The first call opens the file; if it cannot be opened, this and
// every later call throw INVALID_CONFIG naming the path and the reason.
bool enabled();

// A track (a row in the viewer) named `name`; ids are never reused.
uint32_t newTrack(const std::string &name);

// Tracks for an engine whose commands may run side by side (an out-of-order queue's
// launches): a slice goes on the first lane free for its whole time, and a lane is added when
// none is, so slices of one track never overlap. Shared by the continuations that record the
// slices, which may outlive the queue. Thread-safe.
class Lanes {
 public:
  explicit Lanes(std::string name) : name_(std::move(name)) {}
  uint32_t first();  // the first lane's track, made now
  uint32_t laneFor(uint64_t startNs, uint64_t endNs);

 private:
  std::mutex mutex_;
  std::string name_;
  std::vector<std::pair<uint32_t, uint64_t>> lanes_;  // track, end of its last slice
};

struct Slice {
  uint32_t track = 0;
  std::string_view name;      // kernel name, "copy to device", …
  std::string_view category;  // "kernel", "copy", "fill", "host", "wait"
  uint64_t enqueueNs = 0;     // steady clock
  uint64_t startNs = 0;
  uint64_t endNs = 0;
  uint64_t bytes = 0;  // copies and fills
  bool failed = false;
};
void slice(const Slice &s);

// An arrow from the end of one slice to the start of another (a cross-queue wait).
void flow(uint32_t fromTrack, uint64_t fromNs, uint32_t toTrack, uint64_t toNs);

// Writes what is buffered (also done at exit).
void flush();

}  // namespace xpurt::core::trace
