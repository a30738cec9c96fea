// What the core's completion engine (core/completions.hpp) needs of a Level Zero queue: the
// event each command signals, read with zeEventQueryStatus (the device's poller) or
// zeEventHostSynchronize; device time from kernel timestamps when the queue profiles; a host
// callback's event signalled from the host once it has run; a graph's host steps and the
// failure of its first failed node. Events go back for reuse once the command and every
// command waiting on them have completed.
#pragma once

#include "core/completions.hpp"
#include "ze_events.hpp"

#include <memory>
#include <vector>

namespace xpurt::level_zero {

class GraphRecording;
class ZeDevice;

struct ZeWork {
  SlotRef slot;  // the event the command signals
  // The events it waits on, not reused before it completes: an in-order queue's previous
  // command's, and others.
  SlotRef after;
  std::vector<SlotRef> waits;
  // A graph's launch: its host steps run before its end (`slot`) can be signalled, and its
  // nodes' failures fail it.
  std::shared_ptr<GraphRecording> graph;
  bool deviceTimes = false;  // the event records kernel timestamps
};
using PendingCommand = core::PendingCommand<ZeWork>;
using Completions = core::Completions<ZeWork>;

class ZeCompletionBackend final : public core::CompletionBackend<ZeWork> {
 public:
  explicit ZeCompletionBackend(ZeDevice &device) : device_(device) {}

  bool needsHostStep(const Pending &p) const override;
  void runHostStep(Pending &p) override;
  void hostCallbackRan(Pending &p) override;
  core::Reached query(Pending &p, std::string &failure) override;
  core::Reached wait(Pending &p, uint64_t timeoutNs, std::string &failure) override;
  std::optional<uint64_t> deviceTimeNs(Pending &p) override;
  std::string reached(Pending &p, core::Reached r) override;
  void release(Pending &p) override;

 private:
  core::Reached status(Pending &p, ze_result_t r, const char *call, std::string &failure) const;
  ZeDevice &device_;  // outlives the queue's commands (Completions::waitIdle)
};

}  // namespace xpurt::level_zero
