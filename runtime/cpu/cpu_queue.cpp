#include "cpu_queue.hpp"

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/spin_wait.hpp"
#include "native_module.hpp"

#include <chrono>
#include <cstring>

namespace xpurt::cpu {

// How long an idle executor keeps looking for work before it sleeps. Back-to-back commands
// within this window start in well under a microsecond; after it, the first command pays a
// futex wake-up. The cost is one core spinning for this long after each burst of work.
static constexpr std::chrono::microseconds kIdleSpin{50};

static uint64_t nowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

CpuQueue::CpuQueue(core::Ref<CpuDevice> device)
    : core::TaskQueue(device), device_(*device), executor_([this] { executorLoop(); }) {}

CpuQueue::~CpuQueue() {
  {
    std::lock_guard lock(mutex_);
    submitted_.fetch_add(1, std::memory_order_seq_cst);  // the stop signal
  }
  submitted_.notify_one();
  executor_.join();
}

void CpuQueue::submit(core::Command &&cmd) {
  {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(cmd));
    submitted_.fetch_add(1, std::memory_order_seq_cst);
  }
  if (executorSleeping_.load(std::memory_order_seq_cst) != 0) submitted_.notify_one();
}

void CpuQueue::drain() {
  uint32_t target;
  {
    std::lock_guard lock(mutex_);
    target = submitted_.load(std::memory_order_relaxed);
  }
  auto done = [&] {
    return static_cast<int32_t>(completed_.load(std::memory_order_seq_cst) - target) >= 0;
  };
  core::spinThenSleep(drainSleepers_, done, [&] {
    completed_.wait(completed_.load(std::memory_order_seq_cst), std::memory_order_seq_cst);
  });
}

void CpuQueue::awaitWork(uint32_t taken) {
  auto hasWork = [&] { return submitted_.load(std::memory_order_seq_cst) != taken; };
  auto until = std::chrono::steady_clock::now() + kIdleSpin;
  for (unsigned i = 0; !hasWork(); ++i) {
    if ((i & 63) == 0 && std::chrono::steady_clock::now() > until) {
      executorSleeping_.store(1, std::memory_order_seq_cst);
      while (!hasWork()) submitted_.wait(taken, std::memory_order_seq_cst);
      executorSleeping_.store(0, std::memory_order_relaxed);
      break;
    }
    core::cpuRelax();
  }
}

void CpuQueue::executorLoop() {
  uint32_t taken = 0;  // commands (and the stop signal) taken off the queue
  std::deque<core::Command> batch;
  for (;;) {
    awaitWork(taken);
    {
      // Take everything queued at once: enqueueing threads then rarely meet the executor on
      // the lock.
      std::lock_guard lock(mutex_);
      if (pending_.empty()) return;  // only the stop signal is counted without a command
      batch.swap(pending_);
    }
    taken += static_cast<uint32_t>(batch.size());
    for (core::Command &cmd : batch) {
      execute(cmd);
      cmd = core::Command();  // drop the references it held before saying it is complete
      completed_.fetch_add(1, std::memory_order_seq_cst);
      if (drainSleepers_.load(std::memory_order_seq_cst) != 0) completed_.notify_all();
    }
    batch.clear();
  }
}

static void fillPattern(std::byte *dst, size_t size, const std::byte *pattern, size_t n) {
  if (n == 1) {
    std::memset(dst, static_cast<int>(pattern[0]), size);
    return;
  }
  size_t done = std::min(n, size);
  std::memcpy(dst, pattern, done);
  while (done < size) {  // double the filled prefix each step
    size_t chunk = std::min(done, size - done);
    std::memcpy(dst + done, dst, chunk);
    done += chunk;
  }
}

void CpuQueue::execute(core::Command &cmd) {
  using Type = core::Command::Type;
  if (cmd.type == Type::Barrier) return;  // commands already run one after another
  uint64_t start = nowNs();
  std::string failure;
  try {
    switch (cmd.type) {
      case Type::Copy:
        if (cmd.dst != cmd.src && cmd.size) std::memcpy(cmd.dst, cmd.src, cmd.size);
        break;
      case Type::Fill:
        fillPattern(static_cast<std::byte *>(cmd.dst), cmd.size, cmd.pattern.data(),
                    cmd.patternSize);
        break;
      case Type::Launch: {
        auto &kernel = static_cast<NativeKernel &>(*cmd.kernel);
        device_.arena().execute([&] { kernel.run(cmd.params, cmd.dims); });
        break;
      }
      case Type::HostCallback: {
        XpurtResult r = cmd.func(cmd.userData);
        if (r != XPURT_SUCCESS) {
          std::string why = core::takeHostCallbackError();
          failure = fmt::format("host callback failed ({}){}{}", xpurtResultString(r),
                                why.empty() ? "" : ": ", why);
        }
        break;
      }
      case Type::Barrier: break;
    }
  } catch (const std::exception &e) {
    failure = e.what();
  }
  uint64_t time = nowNs() - start;
  if (failure.empty()) {
    cmd.done->complete(time);
  } else {
    core::log().error("{}", failure);
    noteFailure(failure);
    cmd.done->fail(failure, time);
  }
}

}  // namespace xpurt::cpu
