// The communication thread of a Context: runs the stream of instructions, watches the other
// ranks, and ends with the ranks agreeing that all is done.
#include "context.hpp"

#include "distributed_graph.hpp"
#include "error.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace xpurt::mpi {

namespace {

// Receives may be posted this far ahead of the device's order (where their bytes are free).
constexpr size_t kLookAhead = 256;

}  // namespace

void Context::run() {
  Clock::time_point idleSince;
  int idle = 0;
  for (;;) {
    bool progress = false;
    bool failed;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!incoming_.empty()) {
        for (Instruction &ins : incoming_) stream_.push_back(std::move(ins));
        incoming_.clear();
        progress = true;
      }
      failed = failed_;
      if (stopping_ && stream_.empty()) break;
    }
    if (failed && !stream_.empty()) drainAfterFailure();
    // Every instruction up to the device's order and a look-ahead past it: launches and copies
    // are issued in order, receives posted early, checks posted in order, and what is in
    // flight polled.
    size_t end = std::min(stream_.size(), issuePos_ + kLookAhead);
    if (testMessages(end)) progress = true;
    // The queue is in order: its commands complete in the order they were issued, which is
    // the stream's, so only the first one still in flight is polled.
    bool deviceBusy = false;
    blockMessages_ = false;
    for (size_t i = 0; i < end && !failed_; ++i) {
      Instruction &ins = stream_[i];
      if (ins.future && deviceBusy) continue;
      bool begun = ins.issued || ins.phase != 0, done = ins.done, issued = ins.issued;
      Clock::time_point before = tracePath_.empty() ? Clock::time_point() : Clock::now();
      bool advanced = false;
      try {
        advanced = advance(i);
      } catch (const Error &e) {
        fail(e.code(), e.what(), true);
        break;
      } catch (const std::exception &e) {
        fail(XPURT_ERROR_OUT_OF_MEMORY, "rank " + std::to_string(rank_) + " failed: " + e.what(),
             true);
        break;
      }
      if (advanced) {
        progress = true;
        if (!begun && (ins.issued || ins.phase != 0 || ins.done)) ins.started = Clock::now();
        if (!issued && ins.issued && !tracePath_.empty()) ins.issueCall = Clock::now() - before;
        if (!done && ins.done) {
          ins.finished = Clock::now();
          ++completions_;
        }
      }
      if (ins.future) deviceBusy = true;
      // Until every rank is known to have done the same, no message of what follows moves and
      // no host read hands bytes over (they could be another graph's).
      if (ins.kind == Instruction::Kind::Check && !ins.done) blockMessages_ = true;
      while (issuePos_ < stream_.size() && stream_[issuePos_].issued) ++issuePos_;
    }
    retire();
    if (watchPeers()) progress = true;
    if (progress) {
      idle = 0;
      continue;
    }
    // Nothing moved. While work is in flight, yield for up to two milliseconds (a message or a
    // kernel may be about to finish, and the time to notice it adds to every step of a loop of
    // launches), then sleep up to 50 microseconds at a time; with nothing in flight, sleep up
    // to 5 milliseconds (heartbeats alone). New work wakes the thread.
    if (idle++ == 0) idleSince = Clock::now();
    if (!stream_.empty() && Clock::now() - idleSince < std::chrono::milliseconds(2)) {
      std::this_thread::yield();
      continue;
    }
    int cap = stream_.empty() ? 5000 : 50;
    auto pause = std::chrono::microseconds(std::min(cap, 2 << std::min(idle, 12)));
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait_for(lock, pause, [&] { return !incoming_.empty() || stopping_; });
  }

  if (!tracePath_.empty()) writeTrace();
  if (controlRecv_ != MPI_REQUEST_NULL) {
    MPI_Cancel(&controlRecv_);
    MPI_Wait(&controlRecv_, MPI_STATUS_IGNORE);
  }
  // Messages still on their way to a rank that died may never complete: give them a moment
  // (receives cancelled first), then let MPI free the control messages' requests.
  auto deadline = Clock::now() + std::chrono::milliseconds(100);
  auto settle = [&](MPI_Request &request) {
    while (request != MPI_REQUEST_NULL) {
      int flag = 0;
      if (MPI_Test(&request, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag) break;
      if (Clock::now() > deadline) return false;
      std::this_thread::yield();
    }
    request = MPI_REQUEST_NULL;
    return true;
  };
  for (Peer &p : peers_)
    if (!settle(p.heartbeat)) MPI_Request_free(&p.heartbeat);
  for (auto &out : controlOut_)
    if (!settle(out.first)) {
      MPI_Request_free(&out.first);
      (void)out.second.release();  // MPI may still read it: never freed
    }
  // What a failure left in flight: device work is waited for; a message or a check that does not
  // complete keeps its instruction, memory and all (and so the context), for the life of the
  // process, since MPI may still write into it.
  for (std::deque<Instruction> &instructions : abandoned_) {
    bool settled = true;
    for (Instruction &ins : instructions) {
      if (ins.future) {
        xpurtFutureWait(ins.future);
        xpurtReleaseFuture(ins.future);
        ins.future = nullptr;
      }
      for (MPI_Request &request : ins.messages) {
        if (request != MPI_REQUEST_NULL && ins.kind == Instruction::Kind::Recv)
          MPI_Cancel(&request);
        settled = settle(request) && settled;
      }
      settled = settle(ins.request) && settled;
    }
    if (!settled) {
      static auto *kept = new std::vector<std::deque<Instruction>>;
      kept->push_back(std::move(instructions));
      continue;
    }
    for (Instruction &ins : instructions) {
      if (ins.kind == Instruction::Kind::Resize && ins.staging.view) {
        // A buffer's new copy, not pooled staging.
        xpurtReleaseMemoryView(ins.staging.view);
        std::free(ins.staging.host);
        ins.staging = Staging{};
      }
      giveBackStaging(ins.staging);
    }
  }
  // Their buffers hold the context: keeping them would keep it alive for ever. The
  // application's handle still holds it here (shutdown joins this thread before it lets go).
  abandoned_.clear();
}

void Context::retire() {
  size_t n = 0;
  while (!stream_.empty() && stream_.front().done) {
    if (!tracePath_.empty()) traceRetired(stream_.front());
    stream_.pop_front();
    if (issuePos_) --issuePos_;
    ++n;
  }
  if (!n) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    retired_ += n;
  }
  finished_.notify_all();
}

// After a failure nothing more runs; what is in flight is kept (with its buffers) until the
// thread ends, when device work is waited for and messages are cancelled.
void Context::drainAfterFailure() {
  size_t n = stream_.size();
  // The whole deque, so that what MPI holds pointers into (a check's record, a message's
  // bytes) stays where it is.
  abandoned_.push_back(std::move(stream_));
  stream_.clear();
  issuePos_ = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    retired_ += n;
  }
  finished_.notify_all();
}

bool Context::watchPeers() {
  bool progress = false;
  Clock::time_point now = Clock::now();
  // Control messages: heartbeats and other ranks' failures.
  for (;;) {
    int flag = 0;
    MPI_Status status;
    if (controlRecv_ == MPI_REQUEST_NULL ||
        MPI_Test(&controlRecv_, &flag, &status) != MPI_SUCCESS || !flag)
      break;
    progress = true;
    int from = status.MPI_SOURCE;
    if (from >= 0 && from < ranks_) peers_[static_cast<size_t>(from)].lastHeard = now;
    if (controlIn_.type == kFailure) {
      controlIn_.text[sizeof controlIn_.text - 1] = 0;
      std::string text = controlIn_.text;
      fail(XPURT_ERROR_EXECUTION_FAILED,
           "rank " + std::to_string(from) + " failed, so rank " + std::to_string(rank_) +
               " stopped: " + text,
           false);
    }
    controlIn_ = ControlMessage{};
    MPI_Irecv(&controlIn_, sizeof controlIn_, MPI_BYTE, MPI_ANY_SOURCE, kControlTag, comm_,
              &controlRecv_);
  }
  for (auto it = controlOut_.begin(); it != controlOut_.end();) {
    int flag = 0;
    if (MPI_Test(&it->first, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag)
      it = controlOut_.erase(it);
    else
      ++it;
  }
  // Heartbeats, a quarter of the timeout apart; one at a time to each rank.
  if (now - lastHeartbeat_ >= timeout_ / 4) {
    lastHeartbeat_ = now;
    for (int p = 0; p < ranks_; ++p) {
      if (p == rank_) continue;
      Peer &peer = peers_[static_cast<size_t>(p)];
      int flag = 1;
      if (peer.heartbeat != MPI_REQUEST_NULL &&
          MPI_Test(&peer.heartbeat, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        fail(XPURT_ERROR_DEVICE_LOST,
             "rank " + std::to_string(p) + " cannot be reached from rank " + std::to_string(rank_) +
                 " (MPI failed to send to it): its process died",
             true);
        return true;
      }
      if (!flag) continue;
      peer.heartbeatMessage = kHeartbeat;
      MPI_Isend(&peer.heartbeatMessage, sizeof peer.heartbeatMessage, MPI_BYTE, p, kControlTag,
                comm_, &peer.heartbeat);
    }
  }
  if (failed_) return progress;
  // A rank this one waits for (a receive from it; every rank for a check) that has not been
  // heard from for longer than the timeout has died or hangs.
  auto silent = [&](int p) {
    return p != rank_ && now - peers_[static_cast<size_t>(p)].lastHeard > timeout_;
  };
  for (const Instruction &ins : stream_) {
    int suspect = -1;
    if ((ins.kind == Instruction::Kind::Recv || ins.kind == Instruction::Kind::Send) &&
        ins.phase == 2 && silent(ins.peer))
      suspect = ins.peer;
    if (ins.kind == Instruction::Kind::Check && ins.phase == 1 && !ins.done)
      for (int p = 0; p < ranks_ && suspect < 0; ++p)
        if (silent(p)) suspect = p;
    if (suspect >= 0) {
      fail(XPURT_ERROR_DEVICE_LOST,
           "rank " + std::to_string(suspect) + " has not been heard from for " +
               std::to_string(timeout_.count()) +
               " ms (no heartbeat): its process died or "
               "hangs; rank " +
               std::to_string(rank_) + " was waiting for " + ins.what,
           true);
      return true;
    }
  }
  return progress;
}

}  // namespace xpurt::mpi

namespace xpurt::mpi {

// A Chrome trace event per instruction, from when it began (issued, or its message posted) to
// when it completed, on one track per kind: the device's queue, sends, receives, host reads and
// writes, checks. Times are of the monotonic clock, which the ranks of one node share.
void Context::traceRetired(const Instruction &ins) {
  static const char *const kinds[] = {"check", "launch", "send", "receive", "read", "write"};
  auto us = [](Clock::time_point t) {
    return std::chrono::duration<double, std::micro>(t.time_since_epoch()).count();
  };
  int track = static_cast<int>(ins.kind);
  std::string name;
  for (char c : ins.what) name += c == '"' || c == '\\' ? '\'' : c;
  char event[160];
  std::snprintf(event, sizeof event,
                "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,", rank_, track,
                us(ins.started), us(ins.finished) - us(ins.started));
  double call = std::chrono::duration<double, std::micro>(ins.issueCall).count();
  trace_ += std::string(trace_.empty() ? "" : ",\n") + event + "\"cat\":\"" + kinds[track] +
            "\",\"name\":\"" + kinds[track] + ": " + name +
            "\",\"args\":{\"enqueue_us\":" + std::to_string(call) + "}}";
}

void Context::writeTrace() {
  std::string path = tracePath_ + "." + std::to_string(rank_) + ".json";
  if (FILE *f = std::fopen(path.c_str(), "w")) {
    std::fprintf(f, "{\"traceEvents\":[\n%s\n]}\n", trace_.c_str());
    std::fclose(f);
  }
}

}  // namespace xpurt::mpi
