#include "event.hpp"

#include "host_executor.hpp"
#include "spin_wait.hpp"

namespace xpurt::core {

void Event::complete(CommandTimes times) {
  times_ = times;
  publish(kDone);
}

void Event::fail(std::string message, CommandTimes times) {
  error_ = std::move(message);
  times_ = times;
  publish(kFailed);
}

void Event::publish(uint32_t state) {
  state_.store(state, std::memory_order_seq_cst);
  // A waiter counts itself in sleepers_ before its last look at state_, so it either saw the
  // new state or is woken here.
  if (sleepers_.load(std::memory_order_seq_cst) != 0) state_.notify_all();
  // then() raises the flag before it looks at state_: either it saw the state and ran its
  // continuation itself, or the continuation is in the list taken here.
  if (hasContinuations_.load(std::memory_order_seq_cst)) {
    std::vector<std::function<void()>> ready;
    {
      std::lock_guard lock(continuationMutex_);
      ready.swap(continuations_);
    }
    // The continuations may drop the last references to this event: keep it until done.
    Ref<const Event> self(this);
    for (auto &fn : ready) fn();
  }
}

void Event::then(std::function<void()> fn) {
  {
    std::lock_guard lock(continuationMutex_);
    hasContinuations_.store(true, std::memory_order_seq_cst);
    if (state_.load(std::memory_order_seq_cst) == kPending) {
      continuations_.push_back(std::move(fn));
      return;
    }
  }
  fn();
}

void Event::wait() const {
  if (!isDone() && driver_) driver_->helpUntil([this] { return isDone(); });
  spinThenSleep(
      sleepers_, [&] { return isDone(); },
      [&] {
        HostExecutor::Blocking blocking;  // a host job waiting: its executor may need a thread
        state_.wait(kPending, std::memory_order_seq_cst);
      });
}

}  // namespace xpurt::core
