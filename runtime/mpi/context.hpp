// A communicator's context: the rank's device and in-order queue, and the communication thread
// that runs the rank's instructions (launches, sends, receives, host reads and writes) in the
// order the graphs were launched, each as soon as what it depends on allows, and watches the
// other ranks (heartbeats, failure notices).
#pragma once

#include "instruction.hpp"

#include <xpurt/xpurt_mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace xpurt::mpi {

class Buffer;
class Graph;

// MPI's text for an error code.
std::string mpiError(int code);

class Context : public std::enable_shared_from_this<Context> {
 public:
  using Clock = std::chrono::steady_clock;

  // Collective over comm.
  static std::shared_ptr<Context> create(MPI_Comm comm, XpurtDevice device,
                                         const XpurtMpiOptions &options);
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  XpurtDevice device() const { return device_; }

  // Collective: a new buffer (checked against the other ranks' at the same point).
  std::shared_ptr<Buffer> newBuffer(size_t items, size_t itemSize, const void *initial);
  // Collective: lowers graph for this rank and hands its instructions to the thread.
  void launch(const Graph &graph);
  // Waits until the thread has run every instruction handed to it; throws the first failure.
  void wait();
  // Collective: wait(), then the ranks stop watching each other and the thread ends.
  void shutdown();
  XpurtMpiStats stats() const;
  // Buffers' copies on this rank (Buffer), in bytes: grown or shrunk by delta.
  void held(int64_t delta) { bytesHeld_ += static_cast<uint64_t>(delta); }

 private:
  Context(MPI_Comm comm, XpurtDevice device, const XpurtMpiOptions &options);
  void submit(std::vector<Instruction> instructions);
  void throwIfFailed();
  void run();
  // The thread's steps; each returns whether it changed anything.
  bool advance(size_t index);
  bool mayStart(size_t index, bool deviceOrdered) const;
  bool poll(Instruction &ins);
  bool testMessages(size_t end);
  bool postMessages(Instruction &ins, unsigned char *host);
  bool messagesDone(Instruction &ins);
  Staging takeStaging(size_t bytes);
  void giveBackStaging(Staging &staging);
  bool watchPeers();
  void fail(XpurtResult code, const std::string &message, bool tellOthers);
  void sendControl(int to, int type, const std::string &text);
  void retire();
  void drainAfterFailure();

  // Control messages (heartbeats, failure notices) have tag 0; transfers tags from 1.
  static constexpr int kControlTag = 0;
  static constexpr int kHeartbeat = 1;
  static constexpr int kFailure = 2;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, ranks_ = 1;
  uint32_t tagLimit_ = 32767;
  XpurtDevice device_ = nullptr;
  XpurtTaskQueue queue_ = nullptr;
  std::chrono::milliseconds timeout_{10000};
  bool blockMessages_ = false;  // a check before the instruction has not completed
  bool stage_ = false;  // transfers go through page-locked memory (device memory is not host's)
  std::map<size_t, std::vector<Staging>> stagingPool_;  // free staging, by size

  // Shared between the application's threads and the communication thread.
  mutable std::mutex mutex_;
  std::condition_variable wake_;      // the thread: new instructions, or stop
  std::condition_variable finished_;  // waiters: everything handed over has run, or a failure
  std::vector<Instruction> incoming_;
  uint64_t submitted_ = 0, retired_ = 0;
  bool stopping_ = false;
  bool failed_ = false;
  XpurtResult failCode_ = XPURT_SUCCESS;
  std::string failMessage_;
  std::atomic<uint64_t> bytesSent_{0}, bytesReceived_{0}, messagesSent_{0}, messagesReceived_{0};
  std::atomic<uint64_t> bytesHeld_{0};

  // The application's side, under launchMutex_: launch order, tags, buffer ids.
  std::mutex launchMutex_;
  uint32_t nextTag_ = 1;
  uint64_t launches_ = 0;
  uint32_t buffers_ = 0;

  // The communication thread's own.
  std::deque<Instruction> stream_;
  size_t issuePos_ = 0;  // the first instruction whose place in the device's order is not taken
  struct Peer {
    Clock::time_point lastHeard;
    MPI_Request heartbeat = MPI_REQUEST_NULL;
    int heartbeatMessage = 0;
  };
  std::vector<Peer> peers_;
  Clock::time_point lastHeartbeat_;
  MPI_Request controlRecv_ = MPI_REQUEST_NULL;
  struct ControlMessage {
    int type = 0;
    char text[500] = {};
  } controlIn_;
  std::vector<std::pair<MPI_Request, std::unique_ptr<ControlMessage>>> controlOut_;
  std::vector<std::deque<Instruction>> abandoned_;  // after a failure: what was in flight
  uint64_t completions_ = 0;                        // instructions completed so far
  std::string tracePath_;                           // XPURT_MPI_TRACE: where this rank's trace goes
  std::string trace_;                               // its events so far
  void traceRetired(const Instruction &ins);
  void writeTrace();
  std::thread thread_;
};

}  // namespace xpurt::mpi
