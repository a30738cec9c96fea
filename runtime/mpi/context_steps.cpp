// The steps of Context's instructions, each taken by the communication thread when what it
// waits for allows: when one may start (mayStart), its messages (postMessages, testMessages,
// messagesDone), page-locked staging, and each kind's phases (advance).
#include "context.hpp"

#include "distributed_graph.hpp"
#include "error.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace xpurt::mpi {

namespace {

// Bytes of one MPI message: counts are ints, so larger transfers go as several messages of
// one tag, which MPI keeps in order.
constexpr size_t kMaxMessage = size_t(1) << 30;

bool conflict(const Instruction &a, const Instruction &b) {
  for (const ByteAccess &x : a.accesses)
    for (const ByteAccess &y : b.accesses)
      if (x.buffer == y.buffer && (x.write || y.write) && x.lo < y.hi && y.lo < x.hi) return true;
  return false;
}

}  // namespace

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
      for (MPI_Request &request : stream_[i].messages)
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

// Posts a send's or a receive's messages (at most kMaxMessage bytes each) from or into host.
bool Context::postMessages(Instruction &ins, unsigned char *host) {
  bool send = ins.kind == Instruction::Kind::Send;
  for (size_t at = 0; at < ins.bytes || at == 0; at += kMaxMessage) {
    int n = static_cast<int>(std::min(kMaxMessage, ins.bytes - at));
    MPI_Request request = MPI_REQUEST_NULL;
    int rc = send ? MPI_Isend(host + at, n, MPI_BYTE, ins.peer, ins.tag, comm_, &request)
                  : MPI_Irecv(host + at, n, MPI_BYTE, ins.peer, ins.tag, comm_, &request);
    if (rc != MPI_SUCCESS) {
      fail(XPURT_ERROR_DEVICE_LOST,
           "rank " + std::to_string(rank_) + " could not " + (send ? "send " : "receive ") +
               ins.what + ": " + mpiError(rc),
           true);
      return false;
    }
    ins.messages.push_back(request);
    if (ins.bytes == 0) break;
  }
  return true;
}

// A send's or a receive's messages have all gone or come (testMessages completes them): a
// send is done, a receive goes on to its copy to the device.
bool Context::messagesDone(Instruction &ins) {
  for (MPI_Request request : ins.messages)
    if (request != MPI_REQUEST_NULL) return false;
  ins.messages.clear();
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
        unsigned char *host = ins.staging.view
                                  ? ins.staging.host
                                  : ins.buffers[0]->host() + ins.buffers[0]->local(ins.byteOffset);
        if (ins.kind == Instruction::Kind::Read) {
          if (ins.dst) std::memcpy(ins.dst, host, ins.bytes);
          ins.done = true;
          return true;
        }
        if (!postMessages(ins, host)) return false;
        ins.phase = 2;
        return true;
      }
      return messagesDone(ins);

    case Instruction::Kind::Recv:
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
        if (!postMessages(ins, stage_ ? ins.staging.host : b.host() + b.local(ins.byteOffset)))
          return false;
        ins.phase = 2;
        return true;
      }
      if (ins.phase == 2) return messagesDone(ins);
      if (ins.phase == 3) {
        if (!atIssue) return false;
        XpurtMemoryView view = ins.buffers[0]->view();
        size_t at = ins.buffers[0]->local(ins.byteOffset);
        if (!device(ins.staging.view ? xpurtCopyMemoryView(queue_, view, ins.staging.view, at, 0,
                                                           ins.bytes, &ins.future)
                                     : xpurtCopyToDevice(queue_, view, at, ins.bytes, &ins.future),
                    "a copy to the device"))
          return false;
        ins.issued = true;
        ins.phase = 4;
        return true;
      }
      if (!poll(ins)) return false;
      giveBackStaging(ins.staging);
      ins.done = true;
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
