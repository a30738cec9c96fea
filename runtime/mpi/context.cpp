#include "context.hpp"

#include "distributed_graph.hpp"
#include "error.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <tuple>

namespace xpurt::mpi {

namespace {

// Bytes of one MPI message: counts are ints, so larger transfers go as several messages of
// one tag, which MPI keeps in order.
constexpr size_t kMaxMessage = size_t(1) << 30;

std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

std::string describe(const CheckRecord &r) {
  if (r.kind == 1)
    return "launched graph " + std::to_string(r.sequence) + " (the " +
           std::to_string(r.sequence + 1) + "th launch) with " + std::to_string(r.a) +
           " nodes, digest " + std::to_string(r.digest);
  if (r.kind == 2)
    return "created buffer #" + std::to_string(r.sequence) + " of " + std::to_string(r.a) +
           " items of " + std::to_string(r.b) + " bytes";
  if (r.kind == 3)
    return "released the context after " + std::to_string(r.sequence) + " graph launches";
  if (r.kind == 4)
    return "could not create buffer #" + std::to_string(r.sequence) +
           " on its device (its own error says why)";
  return "did something else (record kind " + std::to_string(r.kind) + ")";
}

bool conflict(const Instruction &a, const Instruction &b) {
  for (const ByteAccess &x : a.accesses)
    for (const ByteAccess &y : b.accesses)
      if (x.buffer == y.buffer && (x.write || y.write) && x.lo < y.hi && y.lo < x.hi) return true;
  return false;
}

}  // namespace

std::shared_ptr<Context> Context::create(MPI_Comm comm, XpurtDevice device,
                                         const XpurtMpiOptions &options) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    throw Error(XPURT_ERROR_INVALID_ARGUMENT,
                "xpurtMpiNewContext: MPI is not initialised: call MPI_Init_thread(&argc, &argv, "
                "MPI_THREAD_MULTIPLE, &provided) first");
  int provided = 0;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE)
    throw Error(
        XPURT_ERROR_UNSUPPORTED,
        "xpurtMpiNewContext: MPI was initialised without MPI_THREAD_MULTIPLE (thread level " +
            std::to_string(provided) +
            "); the context's communication thread calls MPI beside the application's: "
            "initialise MPI with MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, "
            "&provided)");
  if (comm == MPI_COMM_NULL)
    throw Error(XPURT_ERROR_INVALID_ARGUMENT, "xpurtMpiNewContext: comm is MPI_COMM_NULL");
  std::shared_ptr<Context> context(new Context(comm, device, options));
  context->thread_ = std::thread([raw = context.get()] { raw->run(); });
  return context;
}

Context::Context(MPI_Comm comm, XpurtDevice device, const XpurtMpiOptions &options) {
  int rc = MPI_Comm_dup(comm, &comm_);
  if (rc != MPI_SUCCESS)
    throw Error(XPURT_ERROR_UNKNOWN, "xpurtMpiNewContext: MPI_Comm_dup: " + mpiError(rc));
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &ranks_);
  int *tagUpperBound = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tagUpperBound, &flag);
  if (flag && tagUpperBound) tagLimit_ = static_cast<uint32_t>(*tagUpperBound);
  if (options.timeoutMs) timeout_ = std::chrono::milliseconds(options.timeoutMs);
  if (const char *trace = std::getenv("XPURT_MPI_TRACE")) tracePath_ = trace;
  // What fails on one rank fails on all, saying which: the others must not wait for it.
  XpurtResult r = device ? xpurtNewTaskQueue(device, &queue_) : XPURT_ERROR_INVALID_HANDLE;
  std::string why = device ? std::string("a queue on its device: ") + xpurtLastErrorMessage()
                           : "its device is NULL";
  std::vector<int> results(static_cast<size_t>(ranks_));
  int mine = static_cast<int>(r);
  MPI_Allgather(&mine, 1, MPI_INT, results.data(), 1, MPI_INT, comm_);
  for (int other = 0; other < ranks_ && r == XPURT_SUCCESS; ++other)
    if (results[static_cast<size_t>(other)] != XPURT_SUCCESS) {
      r = static_cast<XpurtResult>(results[static_cast<size_t>(other)]);
      why = "rank " + std::to_string(other) +
            " could not create its context (its own error says why)";
    }
  if (r != XPURT_SUCCESS) {
    if (queue_) xpurtReleaseTaskQueue(queue_);
    MPI_Comm_free(&comm_);
    throw Error(r, "xpurtMpiNewContext on rank " + std::to_string(rank_) + ": " + why);
  }
  xpurtRetainDevice(device);
  device_ = device;
  XpurtDeviceInfo info{};
  info.structSize = sizeof info;
  stage_ = xpurtDeviceGetInfo(device, &info) == XPURT_SUCCESS && !info.deviceMemoryIsHostMemory;
  peers_.resize(static_cast<size_t>(ranks_));
  for (Peer &p : peers_) p.lastHeard = Clock::now();
  lastHeartbeat_ = Clock::now();
  MPI_Irecv(&controlIn_, sizeof controlIn_, MPI_BYTE, MPI_ANY_SOURCE, kControlTag, comm_,
            &controlRecv_);
}

Context::~Context() {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  if (queue_) {
    xpurtSync(queue_);
    xpurtReleaseTaskQueue(queue_);
  }
  for (auto &[bytes, free] : stagingPool_)
    for (Staging &s : free) xpurtReleaseMemoryView(s.view);
  if (device_) xpurtReleaseDevice(device_);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

std::shared_ptr<Buffer> Context::newBuffer(size_t items, size_t itemSize, const void *initial) {
  std::lock_guard<std::mutex> launchLock(launchMutex_);
  throwIfFailed();
  std::shared_ptr<Buffer> buffer;
  try {
    buffer = std::make_shared<Buffer>(shared_from_this(), buffers_, items, itemSize);
  } catch (const Error &) {
    // The other ranks are told at the check, where they expect this buffer's.
    std::vector<Instruction> failed(1);
    failed[0].kind = Instruction::Kind::Check;
    failed[0].what = "the creation of buffer #" + std::to_string(buffers_);
    failed[0].check = {4, buffers_++, 0, items, itemSize};
    submit(std::move(failed));
    throw;
  }
  ItemRange own = buffer->owned(rank_);
  if (initial && !own.empty())
    std::memcpy(buffer->host() + buffer->local(own.lo * itemSize),
                static_cast<const unsigned char *>(initial) + own.lo * itemSize,
                own.size() * itemSize);
  std::vector<Instruction> instructions(1);
  instructions[0].kind = Instruction::Kind::Check;
  instructions[0].what = "the creation of buffer #" + std::to_string(buffers_);
  instructions[0].check = {2, buffers_, 0, items, itemSize};
  if (!own.empty()) {
    Instruction write;
    write.kind = Instruction::Kind::Write;
    write.what = "the initial contents of buffer #" + std::to_string(buffers_);
    write.byteOffset = own.lo * itemSize;
    write.bytes = own.size() * itemSize;
    write.accesses.push_back(
        {buffer.get(), write.byteOffset, write.byteOffset + write.bytes, true});
    write.buffers.push_back(buffer);
    instructions.push_back(std::move(write));
  }
  ++buffers_;
  submit(std::move(instructions));
  return buffer;
}

void Context::launch(const Graph &graph) {
  std::lock_guard<std::mutex> launchLock(launchMutex_);
  throwIfFailed();
  std::vector<Instruction> instructions(1);
  instructions[0].kind = Instruction::Kind::Check;
  instructions[0].what = "the launch of graph " + std::to_string(launches_);
  instructions[0].check = {1, launches_, graph.digest(), graph.nodes().size(), 0};
  ++launches_;
  lowerGraph(graph, rank_, ranks_, nextTag_, tagLimit_, instructions);
  submit(std::move(instructions));
}

void Context::submit(std::vector<Instruction> instructions) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_)
      throw Error(XPURT_ERROR_INVALID_HANDLE,
                  "the MPI context was released: create a new one (xpurtMpiNewContext)");
    submitted_ += instructions.size();
    for (Instruction &ins : instructions) incoming_.push_back(std::move(ins));
  }
  wake_.notify_one();
}

void Context::throwIfFailed() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failed_) throw Error(failCode_, failMessage_);
}

void Context::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  finished_.wait(lock, [&] { return failed_ || retired_ == submitted_; });
  if (failed_) throw Error(failCode_, failMessage_);
}

void Context::shutdown() {
  std::exception_ptr error;
  try {
    wait();
    // Every rank releases the context here, after the same launches: checked like a launch,
    // so that a rank still launching fails instead of waiting for this one forever.
    std::vector<Instruction> release(1);
    release[0].kind = Instruction::Kind::Check;
    release[0].what = "the release of the context";
    {
      std::lock_guard<std::mutex> launchLock(launchMutex_);
      release[0].check = {3, launches_, 0, buffers_, 0};
    }
    submit(std::move(release));
    wait();
  } catch (...) {
    error = std::current_exception();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  // Now: buffers and graphs may outlive the context's handle, and MPI_Finalize may come first.
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  if (error) std::rethrow_exception(error);
}

XpurtMpiStats Context::stats() const {
  XpurtMpiStats s{};
  s.structSize = sizeof s;
  s.bytesSent = bytesSent_;
  s.bytesReceived = bytesReceived_;
  s.messagesSent = messagesSent_;
  s.messagesReceived = messagesReceived_;
  s.bytesHeld = bytesHeld_;
  return s;
}

void Context::fail(XpurtResult code, const std::string &message, bool tellOthers) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failed_) return;
    failed_ = true;
    failCode_ = code;
    failMessage_ = message;
  }
  finished_.notify_all();
  if (tellOthers)
    for (int p = 0; p < ranks_; ++p)
      if (p != rank_) sendControl(p, kFailure, message);
}

void Context::sendControl(int to, int type, const std::string &text) {
  auto message = std::make_unique<ControlMessage>();
  message->type = type;
  std::strncpy(message->text, text.c_str(), sizeof message->text - 1);
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Isend(message.get(), sizeof *message, MPI_BYTE, to, kControlTag, comm_, &request) ==
      MPI_SUCCESS)
    controlOut_.emplace_back(request, std::move(message));
}

// Whether instruction `index` may start: every earlier instruction it conflicts with (the same
// bytes, one of them writing) has completed, except earlier launches when this instruction
// goes to the device's in-order queue after them (deviceOrdered), which the queue orders.
bool Context::mayStart(size_t index, bool deviceOrdered) const {
  const Instruction &ins = stream_[index];
  if (ins.accesses.empty()) return true;
  for (size_t j = 0; j < index; ++j) {
    const Instruction &before = stream_[j];
    if (before.done || !conflict(before, ins)) continue;
    if (deviceOrdered && before.kind == Instruction::Kind::Launch && before.issued) continue;
    return false;
  }
  return true;
}

// One MPI_Testsome over the messages of every instruction in flight (one progress of MPI, not
// one per message); completed requests become MPI_REQUEST_NULL.
bool Context::testMessages(size_t end) {
  std::vector<MPI_Request *> where;
  for (size_t i = 0; i < end; ++i)
    if (stream_[i].phase == 2)
      for (MPI_Request &request : stream_[i].moreRequests)
        if (request != MPI_REQUEST_NULL) where.push_back(&request);
  if (where.empty()) return false;
  std::vector<MPI_Request> requests(where.size());
  for (size_t i = 0; i < where.size(); ++i) requests[i] = *where[i];
  std::vector<int> indices(where.size());
  int count = 0;
  int rc = MPI_Testsome(static_cast<int>(requests.size()), requests.data(), &count, indices.data(),
                        MPI_STATUSES_IGNORE);
  // Even when it fails, the requests it completed are freed: copy them back first.
  for (size_t i = 0; i < where.size(); ++i) *where[i] = requests[i];
  if (rc != MPI_SUCCESS) {
    fail(XPURT_ERROR_DEVICE_LOST,
         "rank " + std::to_string(rank_) +
             ": MPI failed to move items between ranks: " + mpiError(rc),
         true);
    return true;
  }
  return count > 0 && count != MPI_UNDEFINED;
}

Staging Context::takeStaging(size_t bytes) {
  std::vector<Staging> &free = stagingPool_[bytes];
  if (!free.empty()) {
    Staging s = free.back();
    free.pop_back();
    return s;
  }
  Staging s;
  s.bytes = bytes;
  void *host = nullptr;
  if (xpurtNewMemoryView(device_, nullptr, bytes, XPURT_ALLOC_TYPE_HOST, &s.view) !=
          XPURT_SUCCESS ||
      xpurtHostPtr(s.view, &host) != XPURT_SUCCESS)
    throw Error(XPURT_ERROR_OUT_OF_MEMORY,
                "rank " + std::to_string(rank_) + ": " + std::to_string(bytes) +
                    " bytes of page-locked memory for a transfer: " + xpurtLastErrorMessage());
  s.host = static_cast<unsigned char *>(host);
  return s;
}

void Context::giveBackStaging(Staging &staging) {
  if (!staging.view) return;
  stagingPool_[staging.bytes].push_back(staging);
  staging = Staging{};
}

bool Context::poll(Instruction &ins) {
  if (ins.future) {
    bool valid = false;
    xpurtFutureIsValid(ins.future, &valid);
    if (!valid) return false;
    XpurtResult r = xpurtFutureWait(ins.future);
    xpurtReleaseFuture(ins.future);
    ins.future = nullptr;
    if (r != XPURT_SUCCESS) {
      fail(XPURT_ERROR_EXECUTION_FAILED,
           "rank " + std::to_string(rank_) + " failed: " + ins.what +
               " failed on its device: " + xpurtLastErrorMessage(),
           true);
      return false;
    }
    return true;
  }
  if (ins.request != MPI_REQUEST_NULL) {
    int flag = 0;
    MPI_Status status;
    int rc = MPI_Test(&ins.request, &flag, &status);
    if (rc != MPI_SUCCESS) {
      fail(XPURT_ERROR_DEVICE_LOST,
           "rank " + std::to_string(rank_) + " failed: MPI could not move " + ins.what + ": " +
               mpiError(rc),
           true);
      return false;
    }
    return flag != 0;
  }
  return true;
}

bool Context::advance(size_t index) {
  Instruction &ins = stream_[index];
  if (ins.done) return false;
  const bool atIssue = index == issuePos_;
  auto device = [&](XpurtResult r, const char *call) {
    if (r == XPURT_SUCCESS) return true;
    fail(r,
         "rank " + std::to_string(rank_) + " failed: " + call + " for " + ins.what + ": " +
             xpurtLastErrorMessage(),
         true);
    return false;
  };
  switch (ins.kind) {
    case Instruction::Kind::Check:
      // Posted as soon as the thread sees it (checks are collectives: every rank posts them in
      // the same order, its stream's), and waited for by nothing: a mismatch fails the context
      // whatever the rest is doing, even a receive that will never be matched.
      if (ins.phase == 0) {
        ins.gathered.resize(static_cast<size_t>(ranks_));
        int rc = MPI_Iallgather(&ins.check, sizeof(CheckRecord), MPI_BYTE, ins.gathered.data(),
                                sizeof(CheckRecord), MPI_BYTE, comm_, &ins.request);
        if (rc != MPI_SUCCESS) {
          fail(XPURT_ERROR_DEVICE_LOST,
               "rank " + std::to_string(rank_) + ": " + ins.what +
                   ": MPI_Iallgather: " + mpiError(rc),
               true);
          return false;
        }
        ins.phase = 1;
        ins.issued = true;
        return true;
      }
      if (!poll(ins)) return false;
      for (int r = 0; r < ranks_; ++r) {
        const CheckRecord &theirs = ins.gathered[static_cast<size_t>(r)];
        if (std::memcmp(&theirs, &ins.check, sizeof theirs) != 0) {
          fail(XPURT_ERROR_INVALID_ARGUMENT,
               "the ranks did not do the same: rank " + std::to_string(rank_) + " " +
                   describe(ins.check) + " where rank " + std::to_string(r) + " " +
                   describe(theirs) +
                   "; every rank must create the same buffers and record and launch the same "
                   "graphs in the same order",
               false);
          return false;
        }
      }
      for (Peer &p : peers_) p.lastHeard = Clock::now();
      ins.done = true;
      return true;

    case Instruction::Kind::Launch:
      if (!ins.issued) {
        if (!atIssue || !mayStart(index, true)) return false;
        ins.pointers.assign(ins.pointerArgs.size(), nullptr);
        for (size_t k = 0; k < ins.pointerArgs.size(); ++k) {
          const Buffer &b = *ins.pointerArgs[k].second;
          void *base = nullptr;
          if (!device(xpurtDevicePtr(b.view(), &base), "xpurtDevicePtr")) return false;
          // Item 0's address, which may lie before the copy (the kernel touches only what the
          // window holds).
          ins.pointers[k] = reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(base) -
                                                     b.window().lo * b.itemSize());
          ins.args[ins.pointerArgs[k].first].value = &ins.pointers[k];
        }
        for (size_t a = 0, v = 0, k = 0; a < ins.args.size(); ++a) {
          if (k < ins.pointerArgs.size() && ins.pointerArgs[k].first == a) {
            ++k;
            continue;
          }
          if (ins.args[a].kind == XPURT_KERNEL_ARG_VALUE)
            ins.args[a].value = ins.values[v++].data();
        }
        if (!device(
                xpurtLaunchKernel(queue_, ins.kernel->get(), static_cast<uint32_t>(ins.args.size()),
                                  ins.args.data(), ins.workDim, ins.offset, ins.global,
                                  ins.hasLocal ? ins.local : nullptr, &ins.future),
                "xpurtLaunchKernel"))
          return false;
        ins.issued = true;
        return true;
      }
      if (!poll(ins)) return false;
      ins.done = true;
      return true;

    case Instruction::Kind::Send:
    case Instruction::Kind::Read:
      if (ins.phase == 0) {
        if (!atIssue || !mayStart(index, true)) return false;
        const Buffer &b = *ins.buffers[0];
        if (ins.kind == Instruction::Kind::Send && stage_) {
          ins.staging = takeStaging(ins.bytes);
          if (!device(xpurtCopyMemoryView(queue_, ins.staging.view, b.view(), 0,
                                          b.local(ins.byteOffset), ins.bytes, &ins.future),
                      "xpurtCopyMemoryView"))
            return false;
        } else if (!device(xpurtCopyToHost(queue_, b.view(), b.local(ins.byteOffset), ins.bytes,
                                           &ins.future),
                           "xpurtCopyToHost")) {
          return false;
        }
        ins.issued = true;
        ins.phase = 1;
        return true;
      }
      if (ins.phase == 1) {
        if (blockMessages_ || !poll(ins)) return false;
        const unsigned char *host =
            ins.staging.view ? ins.staging.host
                             : ins.buffers[0]->host() + ins.buffers[0]->local(ins.byteOffset);
        if (ins.kind == Instruction::Kind::Read) {
          if (ins.dst) std::memcpy(ins.dst, host, ins.bytes);
          ins.done = true;
          return true;
        }
        for (size_t at = 0; at < ins.bytes || at == 0; at += kMaxMessage) {
          size_t n = std::min(kMaxMessage, ins.bytes - at);
          MPI_Request request = MPI_REQUEST_NULL;
          int rc = MPI_Isend(host + at, static_cast<int>(n), MPI_BYTE, ins.peer, ins.tag, comm_,
                             &request);
          if (rc != MPI_SUCCESS) {
            fail(XPURT_ERROR_DEVICE_LOST,
                 "rank " + std::to_string(rank_) + " could not send " + ins.what + ": " +
                     mpiError(rc),
                 true);
            return false;
          }
          ins.moreRequests.push_back(request);
          if (ins.bytes == 0) break;
        }
        ins.phase = 2;
        return true;
      }
      [[fallthrough]];
    case Instruction::Kind::Recv:
      if (ins.kind == Instruction::Kind::Recv) {
        if (ins.phase == 0) {
          if (blockMessages_) return false;
          // Nothing has completed since it last could not start: it still cannot.
          if (ins.blockedAt == completions_) return false;
          if (!mayStart(index, false)) {
            ins.blockedAt = completions_;
            return false;
          }
          if (stage_) ins.staging = takeStaging(ins.bytes);
          const Buffer &b = *ins.buffers[0];
          unsigned char *host = stage_ ? ins.staging.host : b.host() + b.local(ins.byteOffset);
          for (size_t at = 0; at < ins.bytes || at == 0; at += kMaxMessage) {
            size_t n = std::min(kMaxMessage, ins.bytes - at);
            MPI_Request request = MPI_REQUEST_NULL;
            int rc = MPI_Irecv(host + at, static_cast<int>(n), MPI_BYTE, ins.peer, ins.tag, comm_,
                               &request);
            if (rc != MPI_SUCCESS) {
              fail(XPURT_ERROR_DEVICE_LOST,
                   "rank " + std::to_string(rank_) + " could not receive " + ins.what + ": " +
                       mpiError(rc),
                   true);
              return false;
            }
            ins.moreRequests.push_back(request);
            if (ins.bytes == 0) break;
          }
          ins.phase = 2;
          return true;
        }
        if (ins.phase == 3) {
          if (!atIssue) return false;
          XpurtMemoryView view = ins.buffers[0]->view();
          size_t at = ins.buffers[0]->local(ins.byteOffset);
          if (!device(ins.staging.view
                          ? xpurtCopyMemoryView(queue_, view, ins.staging.view, at, 0, ins.bytes,
                                                &ins.future)
                          : xpurtCopyToDevice(queue_, view, at, ins.bytes, &ins.future),
                      "a copy to the device"))
            return false;
          ins.issued = true;
          ins.phase = 4;
          return true;
        }
        if (ins.phase == 4) {
          if (!poll(ins)) return false;
          giveBackStaging(ins.staging);
          ins.done = true;
          return true;
        }
      }
      // Phase 2 of a send or a receive: its messages, which testMessages completes.
      for (MPI_Request request : ins.moreRequests)
        if (request != MPI_REQUEST_NULL) return false;
      ins.moreRequests.clear();
      peers_[static_cast<size_t>(ins.peer)].lastHeard = Clock::now();
      if (ins.kind == Instruction::Kind::Send) {
        bytesSent_ += ins.bytes;
        ++messagesSent_;
        giveBackStaging(ins.staging);
        ins.done = true;
      } else {
        bytesReceived_ += ins.bytes;
        ++messagesReceived_;
        ins.phase = 3;
      }
      return true;

    case Instruction::Kind::Resize:
      // A new copy holding the new window, the old one's items copied in; the instructions
      // after it that touch the buffer wait for it (its access is the whole buffer).
      if (ins.phase == 0) {
        if (!atIssue || !mayStart(index, false)) return false;
        Buffer &b = *ins.buffers[0];
        std::tie(ins.staging.view, ins.staging.host) =
            Buffer::allocate(device_, ins.window, b.itemSize());
        ItemRange old = b.window();
        if (!old.empty() && !device(xpurtCopyMemoryView(queue_, ins.staging.view, b.view(),
                                                        (old.lo - ins.window.lo) * b.itemSize(), 0,
                                                        old.size() * b.itemSize(), &ins.future),
                                    "xpurtCopyMemoryView"))
          return false;
        ins.issued = true;
        ins.phase = 1;
        return true;
      }
      if (!poll(ins)) return false;
      ins.buffers[0]->replace(ins.staging.view, ins.staging.host, ins.window);
      ins.staging = Staging{};
      ins.done = true;
      return true;

    case Instruction::Kind::Write:
      if (ins.phase == 0) {
        if (!atIssue || !mayStart(index, false)) return false;
        const Buffer &b = *ins.buffers[0];
        if (ins.src) std::memcpy(b.host() + b.local(ins.byteOffset), ins.src, ins.bytes);
        if (!device(xpurtCopyToDevice(queue_, b.view(), b.local(ins.byteOffset), ins.bytes,
                                      &ins.future),
                    "xpurtCopyToDevice"))
          return false;
        ins.issued = true;
        ins.phase = 1;
        return true;
      }
      if (!poll(ins)) return false;
      ins.done = true;
      return true;
  }
  return false;
}

}  // namespace xpurt::mpi
