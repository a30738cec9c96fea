#include "jit_worker_process.hpp"

#include "error.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

extern char **environ;

namespace xpurt::core {
namespace {

// No compiled module comes near this; a larger answer is not one.
constexpr uint64_t kMaxAnswerBytes = uint64_t{1} << 30;
// What is kept of the worker's stderr (an assertion's message, LLVM's report).
constexpr size_t kStderrTail = 4096;

// Reads what is there into `to`; false once the other end has closed (or failed).
bool readAvailable(int fd, std::string &to) {
  char buffer[65536];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n > 0) {
    to.append(buffer, static_cast<size_t>(n));
    return true;
  }
  return n < 0 && (errno == EAGAIN || errno == EINTR);
}

// The file name of the library this code is part of: libxpurt, or a library with a copy of
// xpurt's JIT of its own (xpurt's Level Zero driver for the CPU), whose workers are its own.
std::string thisLibrary() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void *>(&readAvailable), &info) || !info.dli_fname) return "?";
  return std::filesystem::path(info.dli_fname).filename().string();
}

}  // namespace

void Descriptor::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::unique_ptr<JitWorkerProcess> JitWorkerProcess::start(const std::string &program,
                                                          const std::string &name) {
  int sockets[2], errPipe[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    fail(XPURT_ERROR_UNKNOWN, "JIT of '{}': no socket for the JIT worker: {}", name,
         std::strerror(errno));
  Descriptor ours(sockets[0]), theirs(sockets[1]);
  if (::pipe2(errPipe, O_CLOEXEC) != 0)
    fail(XPURT_ERROR_UNKNOWN, "JIT of '{}': no pipe for the JIT worker: {}", name,
         std::strerror(errno));
  Descriptor errRead(errPipe[0]), errWrite(errPipe[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, theirs.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, theirs.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, errWrite.get(), STDERR_FILENO);
  // Nothing else of this process's: a kept worker holding the write end of an application's
  // pipe would keep its reader from ever seeing the end.
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
  // The worker ignores its arguments; argv[0] says which library it works for (ps shows it).
  static const std::string library = thisLibrary();
  std::string arg0 = program + " for " + library;
  char *argv[] = {arg0.data(), nullptr};
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    fail(XPURT_ERROR_UNKNOWN,
         "JIT of '{}': the JIT worker '{}' could not start: {}. Where this process may "
         "not start programs, set XPURT_JIT_ISOLATION=off to compile inside it",
         name, program, std::strerror(spawned));
  ::fcntl(ours.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(errRead.get(), F_SETFL, O_NONBLOCK);
  return std::unique_ptr<JitWorkerProcess>(
      new JitWorkerProcess(pid, ours.release(), errRead.release()));
}

JitWorkerProcess::~JitWorkerProcess() {
  if (!reaped_) {
    ::kill(pid_, SIGKILL);
    reap(nullptr);
  }
}

void JitWorkerProcess::reap(Ending *ending) {
  int status = 0;
  pid_t waited;
  do {
    waited = ::waitpid(pid_, &status, 0);
  } while (waited < 0 && errno == EINTR);
  reaped_ = true;
  // An application that ignores SIGCHLD, or reaps children itself, leaves no status (ECHILD).
  if (ending) {
    ending->statusKnown = waited == pid_;
    ending->status = status;
  }
}

bool JitWorkerProcess::alive() {
  if (reaped_) return false;
  int status = 0;
  pid_t waited = ::waitpid(pid_, &status, WNOHANG);
  if (waited == 0) return true;
  if (waited == pid_ || (waited < 0 && errno == ECHILD)) reaped_ = true;
  return false;
}

void JitWorkerProcess::forget() {
  socket_.reset();
  errors_.reset();
  reaped_ = true;
}

std::optional<std::string> JitWorkerProcess::exchange(
    const std::string &request, std::chrono::steady_clock::time_point deadline, Ending &ending) {
  // A frame: the size, then the bytes; the answer comes back the same way.
  std::string frame(sizeof(uint64_t), '\0');
  uint64_t size = request.size();
  std::memcpy(frame.data(), &size, sizeof size);
  frame += request;

  std::string answer, errors;
  size_t sent = 0;
  bool answerOpen = true, errorsOpen = true;
  auto complete = [&] {
    if (answer.size() < sizeof(uint64_t)) return false;
    uint64_t want;
    std::memcpy(&want, answer.data(), sizeof want);
    if (want > kMaxAnswerBytes) ending.tooLarge = true;
    return !ending.tooLarge && answer.size() - sizeof want >= want;
  };
  // Until the answer is whole; once the worker has closed its end, its stderr to the end.
  while (!complete() && !ending.tooLarge && (answerOpen || errorsOpen)) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ending.timedOut = true;
      break;
    }
    pollfd fds[2] = {{answerOpen ? socket_.get() : -1,
                      static_cast<short>(POLLIN | (sent < frame.size() ? POLLOUT : 0)), 0},
                     {errorsOpen ? errors_.get() : -1, POLLIN, 0}};
    int ready = ::poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), 60000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    if (sent < frame.size() && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = ::send(socket_.get(), frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
      if (n > 0)
        sent += static_cast<size_t>(n);
      else if (n < 0 && errno != EAGAIN && errno != EINTR)
        sent = frame.size();  // it left
    }
    if (fds[0].revents & (POLLIN | POLLERR | POLLHUP))
      answerOpen = readAvailable(socket_.get(), answer);
    if (fds[1].revents & (POLLIN | POLLERR | POLLHUP)) {
      errorsOpen = readAvailable(errors_.get(), errors);
      if (errors.size() > kStderrTail) errors.erase(0, errors.size() - kStderrTail);
    }
  }
  ending.stderrTail = std::move(errors);
  if (complete()) return answer.substr(sizeof(uint64_t));
  if (answerOpen || errorsOpen) ::kill(pid_, SIGKILL);  // at the deadline, or too large
  reap(&ending);
  return std::nullopt;
}

JitWorkerPool::JitWorkerPool() : owner_(::getpid()) {}

JitWorkerPool &JitWorkerPool::instance() {
  static auto *pool = new JitWorkerPool;
  return *pool;
}

std::unique_ptr<JitWorkerProcess> JitWorkerPool::take(const std::string &program,
                                                      const std::string &name) {
  {
    std::lock_guard lock(mutex_);
    if (owner_ != ::getpid()) {  // a child of fork(): the workers are the parent's
      for (auto &w : idle_) w->forget();
      idle_.clear();
      owner_ = ::getpid();
    }
    while (!idle_.empty()) {
      std::unique_ptr<JitWorkerProcess> w = std::move(idle_.back());
      idle_.pop_back();
      if (w->alive()) return w;  // else alive() has reaped it
    }
  }
  return JitWorkerProcess::start(program, name);
}

void JitWorkerPool::keep(std::unique_ptr<JitWorkerProcess> worker) {
  {
    std::lock_guard lock(mutex_);
    if (owner_ == ::getpid() && idle_.size() < kIdleWorkers) {
      idle_.push_back(std::move(worker));
      return;
    }
  }
  worker.reset();  // ends it, outside the lock
}

}  // namespace xpurt::core
