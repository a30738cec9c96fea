// What the completion engine (completions.hpp) keeps of a pending command, and what it needs
// of the backend whose device runs it: whether the device has reached the command's end, and
// what is the backend's own (device events, host steps, staging).
#pragma once

#include "command.hpp"
#include "event.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace xpurt::core {

enum class Reached : uint8_t { No, Yes, Failed };

template <class Work>
struct PendingCommand {
  Ref<Event> done;                    // its future (null for a barrier nobody waits on)
  Command command;                    // holds the views, kernel and params it uses
  std::vector<Ref<Event>> hostWaits;  // its host work waits for these first
  std::shared_ptr<void> keep;         // memory the device reads until it completes
  uint64_t submitNs = 0;              // when it was submitted: a trace's start without device times
  Work work;                          // the backend's: its device events, staging, ...
  // Finishing: reached or failed, its backend releasing what it held (withPending no longer
  // hands it out), its future not yet completed.
  enum class Stage : uint8_t { Queued, OnHost, OnDevice, Finishing, Finished };
  Stage stage = Stage::Queued;  // under the Completions' mutex

  bool isHostCallback() const { return command.type == Command::Type::HostCallback; }
};

template <class Work>
class CompletionBackend {
 public:
  using Pending = PendingCommand<Work>;
  virtual ~CompletionBackend() = default;
  // Whether the command has host work to do before its device work can end (a staging buffer
  // to fill, a graph's host steps). runHostStep does it on the device's host executor, once
  // every command before it in the queue has completed and its hostWaits have. It may block.
  virtual bool needsHostStep(const Pending &) const { return false; }
  virtual void runHostStep(Pending &) {}
  // After a host callback has run (failed or not): lets device work that follows it go.
  virtual void hostCallbackRan(Pending &) {}
  // Whether the device has reached the command's end; a failure says what failed in `failure`.
  virtual Reached query(Pending &, std::string &failure) = 0;
  // As query, waiting for up to about timeoutNs.
  virtual Reached wait(Pending &, uint64_t timeoutNs, std::string &failure) = 0;
  // Once reached: the time the device took, where measured.
  virtual std::optional<uint64_t> deviceTimeNs(Pending &) { return std::nullopt; }
  // Once reached or failed, before its future completes: host work after it (staged data
  // copied out), what must go at once (a graph's recording, reused by its next launch); no
  // other thread looks at its work from now on (withPending). Returns the failure of a part of
  // it (a graph's node) when the device work itself succeeded.
  virtual std::string reached(Pending &, Reached) { return {}; }
  // Gives back what the command held (its device events), on a thread that submits.
  virtual void release(Pending &) {}
};

}  // namespace xpurt::core
