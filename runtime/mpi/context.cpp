#include "context.hpp"

#include "distributed_graph.hpp"
#include "error.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <tuple>

namespace xpurt::mpi {

std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

namespace {

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

}  // namespace xpurt::mpi
