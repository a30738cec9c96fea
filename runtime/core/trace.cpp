#include "trace.hpp"

#include "clock.hpp"
#include "config.hpp"
#include "error.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

namespace xpurt::core::trace {

namespace {

// Strings in the file are kernel names and fixed words; escape what JSON requires anyway.
void appendJsonString(std::string &out, std::string_view s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  out += '"';
}

class Writer {
 public:
  explicit Writer(std::string path) : path_(std::move(path)) {
    file_ = std::fopen(path_.c_str(), "w");
    if (!file_) {
      error_ = fmt::format(
          "XPURT_TRACE='{}': the trace file cannot be written ({}); give a path to a file in an "
          "existing, writable folder, or unset XPURT_TRACE",
          path_, std::strerror(errno));
      return;
    }
    origin_ = steadyNowNs();
    buffer_ = fmt::format(
        "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":\"xpurt\"}}}}",
        getpid());
    writeLocked();
    std::atexit([] { trace::flush(); });
  }

  const std::string &error() const { return error_; }

  uint32_t newTrack(const std::string &name) {
    std::lock_guard lock(mutex_);
    uint32_t id = ++tracks_;
    separate();
    buffer_ += fmt::format(
        "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":",
        getpid(), id);
    appendJsonString(buffer_, name);
    buffer_ += fmt::format(
        "}}}},{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{},"
        "\"tid\":{},\"args\":{{\"sort_index\":{}}}}}",
        getpid(), id, id);
    return id;
  }

  void slice(const Slice &s) {
    std::lock_guard lock(mutex_);
    separate();
    buffer_ += "{\"name\":";
    appendJsonString(buffer_, s.name);
    buffer_ += ",\"cat\":";
    appendJsonString(buffer_, s.category);
    uint64_t end = std::max(s.endNs, s.startNs);
    buffer_ += fmt::format(
        ",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{:.3f},\"dur\":{:.3f},\"args\":{{"
        "\"enqueued_us\":{:.3f}",
        getpid(), s.track, us(s.startNs), static_cast<double>(end - s.startNs) / 1000.0,
        us(s.enqueueNs));
    if (s.bytes) buffer_ += fmt::format(",\"bytes\":{}", s.bytes);
    if (s.failed) buffer_ += ",\"failed\":true";
    buffer_ += "}}";
    if (buffer_.size() > (1u << 16)) writeLocked();
  }

  void flow(uint32_t fromTrack, uint64_t fromNs, uint32_t toTrack, uint64_t toNs) {
    std::lock_guard lock(mutex_);
    uint64_t id = ++flows_;
    separate();
    // The start binds to the slice that encloses it (the waited command, ending at fromNs);
    // the end, with "bp":"e", to the slice that encloses its time (the waiting command).
    buffer_ += fmt::format(
        "{{\"name\":\"wait\",\"cat\":\"wait\",\"ph\":\"s\",\"id\":{},\"pid\":{},\"tid\":{},"
        "\"ts\":{:.3f}}},{{\"name\":\"wait\",\"cat\":\"wait\",\"ph\":\"f\",\"bp\":\"e\","
        "\"id\":{},\"pid\":{},\"tid\":{},\"ts\":{:.3f}}}",
        id, getpid(), fromTrack, us(fromNs > 0 ? fromNs - 1 : 0), id, getpid(), toTrack,
        us(toNs + 1));
  }

  void flush() {
    std::lock_guard lock(mutex_);
    writeLocked();
  }

 private:
  double us(uint64_t ns) const {
    return ns >= origin_ ? static_cast<double>(ns - origin_) / 1000.0 : 0.0;
  }

  void separate() {
    if (!buffer_.empty() || written_) buffer_ += ",\n";
  }

  // Appends the buffer and a closing bracket, then steps back over the bracket so the next
  // write replaces it: the file is a complete JSON array after every write.
  void writeLocked() {
    if (!file_ || buffer_.empty()) return;
    if (!written_) std::fputs("[\n", file_);
    std::fputs(buffer_.c_str(), file_);
    long mark = std::ftell(file_);
    std::fputs("\n]\n", file_);
    std::fflush(file_);
    std::fseek(file_, mark, SEEK_SET);
    written_ = true;
    buffer_.clear();
  }

  std::mutex mutex_;
  std::string path_;
  std::string error_;
  std::FILE *file_ = nullptr;
  uint64_t origin_ = 0;
  std::string buffer_;
  bool written_ = false;
  uint32_t tracks_ = 0;
  uint64_t flows_ = 0;
};

// Created on first use and never destroyed: runtime threads may still record at exit.
Writer *writer() {
  static Writer *w = [] {
    auto path = envValue("XPURT_TRACE");
    return path ? new Writer(*path) : nullptr;
  }();
  return w;
}

}  // namespace

bool enabled() {
  Writer *w = writer();
  if (!w) return false;
  if (!w->error().empty()) fail(XPURT_ERROR_INVALID_CONFIG, "{}", w->error());
  return true;
}

uint32_t newTrack(const std::string &name) {
  return writer() ? writer()->newTrack(name) : 0;
}

uint32_t Lanes::first() {
  std::lock_guard lock(mutex_);
  if (lanes_.empty()) lanes_.emplace_back(newTrack(name_), 0);
  return lanes_.front().first;
}

uint32_t Lanes::laneFor(uint64_t startNs, uint64_t endNs) {
  std::lock_guard lock(mutex_);
  for (auto &[track, lastEnd] : lanes_)
    if (lastEnd <= startNs) {
      lastEnd = endNs;
      return track;
    }
  // Every lane is busy at startNs: a slice that overlaps them gets a lane of its own.
  uint32_t track = newTrack(fmt::format("{} {}", name_, lanes_.size() + 1));
  lanes_.emplace_back(track, endNs);
  return track;
}

void slice(const Slice &s) {
  if (writer()) writer()->slice(s);
}

void flow(uint32_t fromTrack, uint64_t fromNs, uint32_t toTrack, uint64_t toNs) {
  if (writer()) writer()->flow(fromTrack, fromNs, toTrack, toNs);
}

void flush() {
  if (writer()) writer()->flush();
}

}  // namespace xpurt::core::trace
