#include "executor.hpp"

#include "command_list.hpp"
#include "core/host_executor.hpp"
#include "core/log.hpp"
#include "core/spin_wait.hpp"
#include "cpu/cpu_kernel.hpp"
#include "cpu/tbb_hand_off.hpp"
#include "driver.hpp"
#include "entry.hpp"
#include "events.hpp"
#include "recorder.hpp"

#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace xpurt::ze_cpu {
namespace {

void fill(std::byte *dst, size_t size, const std::byte *pattern, size_t patternSize) {
  if (patternSize == 1) {
    std::memset(dst, static_cast<int>(pattern[0]), size);
    return;
  }
  // One pattern, then copies of what is written so far, doubling each time.
  size_t written = std::min(size, patternSize);
  std::memcpy(dst, pattern, written);
  while (written < size) {
    size_t n = std::min(written, size - written);
    std::memcpy(dst + written, dst, n);
    written += n;
  }
}

void copyRegion(const CopyRegionPayload &r) {
  auto *dst = static_cast<std::byte *>(r.dst);
  auto *src = static_cast<const std::byte *>(r.src);
  for (uint32_t z = 0; z < r.srcRegion.depth; ++z)
    for (uint32_t y = 0; y < r.srcRegion.height; ++y)
      std::memcpy(dst + (size_t{r.dstRegion.originZ} + z) * r.dstSlicePitch +
                      (size_t{r.dstRegion.originY} + y) * r.dstPitch + r.dstRegion.originX,
                  src + (size_t{r.srcRegion.originZ} + z) * r.srcSlicePitch +
                      (size_t{r.srcRegion.originY} + y) * r.srcPitch + r.srcRegion.originX,
                  r.srcRegion.width);
}

}  // namespace

ze_result_t reportFailure(CommandInterpreter &runner) {
  std::optional<std::string> failure = runner.takeFailure();
  if (!failure) return ZE_RESULT_SUCCESS;
  describeError(std::move(*failure));
  return ZE_RESULT_ERROR_DEVICE_LOST;
}

void EventList::assign(uint32_t count, const ze_event_handle_t *events) {
  size_ = count;
  more_.clear();
  if (count <= inline_.size()) {
    for (uint32_t i = 0; i < count; ++i) inline_[i] = fromHandle<EventObject>(events[i]);
  } else {
    more_.reserve(count);
    for (uint32_t i = 0; i < count; ++i) more_.push_back(fromHandle<EventObject>(events[i]));
  }
}

void CommandInterpreter::run(std::span<RecordedCommand> commands, CommandList *source) {
  for (size_t i = 0; i < commands.size();) {
    RecordedCommand &c = commands[i];
    if (c.kind == CommandKind::ExecuteList) {
      CommandList *list = std::get<CommandList *>(c.payload);
      run(list->commands(), list);
      ++i;
      continue;
    }
    for (EventObject *e : c.waits.view()) e->wait(Deadline::never());
    if (c.kind != CommandKind::Launch) {
      runOne(c, source);
      ++i;
      continue;
    }
    // Launches that follow without waits of their own run in one entry into the arena.
    size_t end = i + 1;
    while (end < commands.size() && commands[end].kind == CommandKind::Launch &&
           commands[end].waits.empty())
      ++end;
    // The arena may run the body on one of its own threads: say so to ThreadSanitizer
    // (oneTBB is not instrumented), as the CPU queue does.
    auto body = [&] {
      for (size_t k = i; k < end; ++k) runOne(commands[k], source);
    };
    cpu::TbbHandOff handOff;
    handOff.handOver([&] { device_.cpu().arena().execute(handOff.wrap(body)); });
    i = end;
  }
}

void CommandInterpreter::runOne(RecordedCommand &c, CommandList *source) {
  if (c.kind == CommandKind::EndOfSubmission) {
    if (Fence *fence = std::get<Fence *>(c.payload))
      fence->signal(submissionFailure_ ? &*submissionFailure_ : nullptr);
    submissionFailure_.reset();
    return;
  }
  bool timed = c.signal && c.signal->pool().hasTimestamps();
  uint64_t start = timed ? deviceTicks() : 0;
  bool ok = execute(c);
  uint64_t end = timed ? deviceTicks() : 0;
  if (!ok) {
    core::log().error("Level Zero CPU driver: {}", failure_);
    if (!submissionFailure_) submissionFailure_ = failure_;
    std::lock_guard lock(failureMutex_);
    if (!failed_.load(std::memory_order_relaxed)) unreportedFailure_ = failure_;
    failed_.store(true, std::memory_order_release);
  }
  // Recorded before the event is signalled: whoever waits for the event finds the record.
  if (recording())
    record(c, ordinal_, index_, source, ok ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_DEVICE_LOST);
  if (c.signal) c.signal->signal(start, end, ok ? nullptr : &failure_);
}

std::optional<std::string> CommandInterpreter::takeFailure() {
  if (!failed_.load(std::memory_order_acquire)) return std::nullopt;
  std::lock_guard lock(failureMutex_);
  failed_.store(false, std::memory_order_relaxed);
  return std::move(unreportedFailure_);
}

bool CommandInterpreter::execute(RecordedCommand &c) {
  switch (c.kind) {
    case CommandKind::Copy: {
      const auto &p = std::get<CopyPayload>(c.payload);
      cpu::CoreShare::Copying copying(copyEngine());
      std::memmove(p.dst, p.src, p.size);
      break;
    }
    case CommandKind::CopyRegion: {
      cpu::CoreShare::Copying copying(copyEngine());
      copyRegion(std::get<CopyRegionPayload>(c.payload));
      break;
    }
    case CommandKind::Fill: {
      const auto &p = std::get<FillPayload>(c.payload);
      cpu::CoreShare::Copying copying(copyEngine());
      fill(static_cast<std::byte *>(p.dst), p.size, p.pattern(), p.patternSize);
      break;
    }
    case CommandKind::Launch:
      return launch(std::get<LaunchPayload>(c.payload));
    case CommandKind::ResetEvent:
      std::get<EventObject *>(c.payload)->reset();
      break;
    case CommandKind::QueryKernelTimestamps: {
      const auto &p = std::get<TimestampQueryPayload>(c.payload);
      for (size_t i = 0; i < p.events.size(); ++i) {
        size_t offset = p.offsets.empty() ? i * sizeof(ze_kernel_timestamp_result_t) : p.offsets[i];
        ze_kernel_timestamp_result_t result = p.events[i]->timestamps();
        std::memcpy(static_cast<std::byte *>(p.dst) + offset, &result, sizeof result);
      }
      break;
    }
    case CommandKind::WriteGlobalTimestamp: {
      uint64_t now = deviceTicks();
      std::memcpy(std::get<uint64_t *>(c.payload), &now, sizeof now);
      break;
    }
    default:  // barriers, event signals and waits (done around every command), hints
      break;
  }
  return true;
}

cpu::CoreShare *CommandInterpreter::copyEngine() const {
  return ordinal_ == kCopyOrdinal ? &device_.cpu().cores() : nullptr;
}

bool CommandInterpreter::launch(const LaunchPayload &l) {
  core::NDRange range = l.range;
  if (l.indirectCounts) {
    const ze_group_count_t counts = *l.indirectCounts;
    range.globalSize = {uint64_t{counts.groupCountX} * range.localSize[0],
                        uint64_t{counts.groupCountY} * range.localSize[1],
                        uint64_t{counts.groupCountZ} * range.localSize[2]};
    range.workDim = range.globalSize[2] > 1 ? 3 : range.globalSize[1] > 1 ? 2 : 1;
  }
  if (range.globalSize[0] == 0 || range.globalSize[1] == 0 || range.globalSize[2] == 0)
    return true;  // no work-groups: nothing to run
  const auto &kernel = static_cast<const cpu::CpuKernel &>(*l.args->kernel);
  try {
    cpu::CoreShare::Launching launching(&device_.cpu().cores());
    kernel.run(l.args->args, range);
    return true;
  } catch (const std::exception &e) {
    failure_ = "launch of kernel '" + kernel.name() + "' failed: " + e.what();
    return false;
  }
}

Executor::Executor(DeviceObject &device, uint32_t ordinal, uint32_t index, CommandList *owner)
    : device_(device), runner_(device, ordinal, index), owner_(owner) {}

Executor::~Executor() {
  std::unique_lock lock(mutex_);
  sleepingSynchronizers_.fetch_add(1, std::memory_order_seq_cst);
  workDone_.wait(lock, [&] { return !scheduled_; });
  sleepingSynchronizers_.fetch_sub(1, std::memory_order_seq_cst);
}

void Executor::submit(std::span<RecordedCommand> commands) {
  bool post;
  {
    std::lock_guard lock(mutex_);
    for (RecordedCommand &c : commands) pending_.push_back(std::move(c));
    submitted_ += commands.size();
    post = !scheduled_;
    scheduled_ = true;
  }
  // An idle executor thread takes the turn within a microsecond (it looks for work before it
  // sleeps), so appends close together do not pay a wake-up each.
  if (post) device_.cpu().hostExecutor().post([this] { turn(); });
}

void Executor::turn() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (pending_.empty()) {
        scheduled_ = false;
        // The destructor may be waiting for the turn to end: after this, `this` is not used.
        if (sleepingSynchronizers_.load(std::memory_order_seq_cst) > 0) workDone_.notify_all();
        return;
      }
      batch_.swap(pending_);  // both keep their capacity
    }
    runner_.run(batch_, owner_);
    size_t ran = batch_.size();
    batch_.clear();  // releases the launches' arguments before anyone is told they ran
    completed_.fetch_add(ran, std::memory_order_seq_cst);
    if (sleepingSynchronizers_.load(std::memory_order_seq_cst) > 0) {
      std::lock_guard lock(mutex_);
      workDone_.notify_all();
    }
  }
}

ze_result_t Executor::synchronize(const Deadline &deadline) {
  uint64_t target;
  {
    std::lock_guard lock(mutex_);
    target = submitted_;
  }
  auto done = [&] { return completed_.load(std::memory_order_seq_cst) >= target; };
  if (!done()) {
    if (deadline.passed()) return ZE_RESULT_NOT_READY;  // a timeout of 0 asks for the state only
    uint64_t spinUntil = core::steadyNowNs() + 20'000;
    for (unsigned i = 1; !done(); ++i) {
      if ((i & 63) == 0) {
        if (deadline.passed()) return ZE_RESULT_NOT_READY;
        if (core::steadyNowNs() > spinUntil) break;
      }
      core::cpuRelax();
    }
    // Counted before looking again, so that the executor, which counts completions before it
    // looks at the count of sleepers, cannot miss us.
    sleepingSynchronizers_.fetch_add(1, std::memory_order_seq_cst);
    core::HostExecutor::Blocking blocking;
    std::unique_lock lock(mutex_);
    bool timedOut = false;
    while (!done() && !timedOut) {
      if (deadline.forever())
        workDone_.wait(lock);
      else
        timedOut = workDone_.wait_for(lock, std::chrono::nanoseconds(deadline.remainingNs())) ==
                       std::cv_status::timeout &&
                   deadline.passed();
    }
    sleepingSynchronizers_.fetch_sub(1, std::memory_order_seq_cst);
    if (!done()) return ZE_RESULT_NOT_READY;
  }
  return reportFailure(runner_);
}

}  // namespace xpurt::ze_cpu
