#include "event.hpp"

#include "spin_wait.hpp"

namespace xpurt::core {

void Event::complete(uint64_t deviceTimeNs) {
  timeNs_ = deviceTimeNs;
  publish(kDone);
}

void Event::fail(std::string message, uint64_t deviceTimeNs) {
  error_ = std::move(message);
  timeNs_ = deviceTimeNs;
  publish(kFailed);
}

void Event::publish(uint32_t state) {
  state_.store(state, std::memory_order_seq_cst);
  // A waiter counts itself in sleepers_ before its last look at state_, so it either saw the
  // new state or is woken here.
  if (sleepers_.load(std::memory_order_seq_cst) != 0) state_.notify_all();
}

void Event::wait() const {
  if (!isDone() && helper_) helper_->helpUntil([this] { return isDone(); });
  spinThenSleep(
      sleepers_, [&] { return isDone(); },
      [&] { state_.wait(kPending, std::memory_order_seq_cst); });
}

}  // namespace xpurt::core
