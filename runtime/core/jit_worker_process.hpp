// The JIT worker processes of jit_worker.hpp: one started, handed a request and read back, and
// the idle ones kept for the next module. A worker answers requests one after another until
// its input ends, so a process pays the worker's start (a new process initialising LLVM, tens
// of milliseconds) once rather than once a module. A worker is kept only after a request it
// answered with a compiled module: one that failed, crashed or ran past its time limit is
// ended, so what a malformed module did to a worker never reaches the next module.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xpurt::core {

// A descriptor closed with its owner.
class Descriptor {
 public:
  explicit Descriptor(int fd = -1) : fd_(fd) {}
  Descriptor(const Descriptor &) = delete;
  Descriptor &operator=(const Descriptor &) = delete;
  ~Descriptor() { reset(); }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset();

 private:
  int fd_;
};

class JitWorkerProcess {
 public:
  // How a request ended when no answer came back.
  struct Ending {
    bool timedOut = false, tooLarge = false;
    bool statusKnown = false;  // false where the application reaps children itself
    int status = 0;            // waitpid's
    std::string stderrTail;    // what the worker wrote to stderr meanwhile
  };

  // Starts `program`; `name` is the module's, for messages. Throws UNKNOWN where it cannot.
  static std::unique_ptr<JitWorkerProcess> start(const std::string &program,
                                                 const std::string &name);
  // Ends the worker (SIGKILL) and reaps it, unless it has ended and been reaped already.
  ~JitWorkerProcess();

  // Sends one request and returns its answer, or nullopt and `ending` filled in: the worker
  // has then ended (stopped at the deadline, or on its own) and been reaped.
  std::optional<std::string> exchange(const std::string &request,
                                      std::chrono::steady_clock::time_point deadline,
                                      Ending &ending);

  // Whether it is still running (an idle worker may have been killed meanwhile); reaps it if not.
  bool alive();
  // Lets go of a worker inherited through fork(): its descriptors are closed, the process is
  // left alone (it is the parent's).
  void forget();

 private:
  JitWorkerProcess(pid_t pid, int socket, int errors)
      : pid_(pid), socket_(socket), errors_(errors) {}
  void reap(Ending *ending);

  pid_t pid_;
  bool reaped_ = false;
  Descriptor socket_, errors_;
};

// The idle workers of this process. Thread-safe.
class JitWorkerPool {
 public:
  // The process's pool, never destroyed: its idle workers end when this process's
  // descriptors close at exit (their input ends).
  static JitWorkerPool &instance();

  // An idle worker that is still running, or a new one.
  std::unique_ptr<JitWorkerProcess> take(const std::string &program, const std::string &name);
  // Keeps a worker that answered for the next request (ends it if enough are idle).
  void keep(std::unique_ptr<JitWorkerProcess> worker);

 private:
  // Enough for the threads that compile at once on two to four cores.
  static constexpr size_t kIdleWorkers = 4;
  std::mutex mutex_;
  pid_t owner_;
  std::vector<std::unique_ptr<JitWorkerProcess>> idle_;
  JitWorkerPool();
};

}  // namespace xpurt::core
