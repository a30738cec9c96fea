// XPURT_TRACE=file.json: a Chrome trace-event file (Perfetto, chrome://tracing) with one track
// per queue and engine, one slice per command and flow arrows for cross-queue waits. The file
// is valid JSON after every write: records go in before a closing bracket that is rewritten.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace xpurt::core::trace {

// Whether XPURT_TRACE is set. The first call opens the file; if it cannot be opened, this and
// every later call throw INVALID_CONFIG naming the path and the reason.
bool enabled();

// A track (a row in the viewer) named `name`; ids are never reused.
uint32_t newTrack(const std::string &name);

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
