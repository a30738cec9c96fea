#include "jit_worker.hpp"

#include "byte_stream.hpp"
#include "config.hpp"
#include "error.hpp"
#include "log.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <spdlog/sinks/base_sink.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>

extern char **environ;

namespace xpurt::core {
namespace {

constexpr uint32_t kRequestMagic = 0x51574a58;  // "XJWQ"
constexpr uint32_t kAnswerMagic = 0x41574a58;   // "XJWA"
// No compiled module comes near this; a larger answer is not one.
constexpr size_t kMaxAnswerBytes = size_t{1} << 30;
// What is kept of the worker's stderr (an assertion's message, LLVM's report).
constexpr size_t kStderrTail = 4096;

struct Request {
  std::string backend;
  std::string name;
  ModuleOptions options;
  std::vector<uint32_t> words;
};

std::string encodeRequest(std::string_view backend, const std::vector<uint32_t> &words,
                          const std::string &name, const ModuleOptions &options) {
  Writer w;
  w.u32(kRequestMagic);
  w.str(std::string(backend));
  w.str(name);
  w.str(options.buildFlags);
  w.u32(static_cast<uint32_t>(options.specConstants.size()));
  for (auto [id, value] : options.specConstants) {
    w.u32(id);
    w.u64(value);
  }
  w.u64(words.size());
  w.raw(words.data(), words.size() * sizeof(uint32_t));
  return w.take();
}

std::optional<Request> decodeRequest(std::string_view bytes) {
  Reader r(bytes);
  Request q;
  if (r.u32() != kRequestMagic) return std::nullopt;
  q.backend = r.str();
  q.name = r.str();
  q.options.buildFlags = r.str();
  uint32_t specs = r.u32();
  for (uint32_t i = 0; r.ok() && i < specs; ++i) {
    uint32_t id = r.u32();
    q.options.specConstants.emplace_back(id, r.u64());
  }
  uint64_t count = r.u64();
  std::string_view rest = r.rest();
  if (!r.ok() || count != rest.size() / sizeof(uint32_t) || rest.size() % sizeof(uint32_t))
    return std::nullopt;
  q.words.resize(count);
  std::memcpy(q.words.data(), rest.data(), rest.size());
  return q;
}

// The worker's log records, sent back with its answer and logged here at their own level.
struct LogRecord {
  spdlog::level::level_enum level;
  std::string text;
};

class CollectingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::vector<LogRecord> records;

 protected:
  void sink_it_(const spdlog::details::log_msg &msg) override {
    records.push_back({msg.level, std::string(msg.payload.data(), msg.payload.size())});
  }
  void flush_() override {}
};

struct Answer {
  std::vector<LogRecord> logs;
  XpurtResult code = XPURT_SUCCESS;
  std::string message;   // when code is an error
  std::string compiled;  // the compiler's bytes, when it is not
};

std::string encodeAnswer(const Answer &a) {
  Writer w;
  w.u32(kAnswerMagic);
  w.u32(static_cast<uint32_t>(a.logs.size()));
  for (const LogRecord &l : a.logs) {
    w.u8(static_cast<uint8_t>(l.level));
    w.str(l.text);
  }
  w.u32(static_cast<uint32_t>(a.code));
  w.str(a.code == XPURT_SUCCESS ? a.compiled : a.message);
  return w.take();
}

std::optional<Answer> decodeAnswer(std::string_view bytes) {
  Reader r(bytes);
  Answer a;
  if (r.u32() != kAnswerMagic) return std::nullopt;
  uint32_t logs = r.u32();
  for (uint32_t i = 0; r.ok() && i < logs; ++i) {
    uint8_t level = r.u8();
    if (level >= spdlog::level::off) return std::nullopt;
    a.logs.push_back({static_cast<spdlog::level::level_enum>(level), r.str()});
  }
  uint32_t code = r.u32();
  if (code > XPURT_ERROR_UNKNOWN) return std::nullopt;
  a.code = static_cast<XpurtResult>(code);
  (a.code == XPURT_SUCCESS ? a.compiled : a.message) = r.str();
  if (!r.ok() || !r.atEnd()) return std::nullopt;
  return a;
}

// The worker program: in the "xpurt" folder beside the loaded libxpurt.
std::optional<std::string> workerProgram() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void *>(&xpurt_internal_jit_worker_main), &info) || !info.dli_fname)
    return std::nullopt;
  std::filesystem::path path =
      std::filesystem::path(info.dli_fname).parent_path() / "xpurt" / "xpurt-jit-worker";
  if (::access(path.c_str(), X_OK) != 0) return std::nullopt;
  return path.string();
}

class Descriptor {
 public:
  explicit Descriptor(int fd = -1) : fd_(fd) {}
  Descriptor(const Descriptor &) = delete;
  Descriptor &operator=(const Descriptor &) = delete;
  ~Descriptor() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

std::string signalName(int sig) {
  const char *abbrev = sigabbrev_np(sig);
  const char *text = strsignal(sig);
  return fmt::format("signal {} (SIG{}: {})", sig, abbrev ? abbrev : "?", text ? text : "?");
}

std::string stderrNote(const std::string &tail) {
  size_t end = tail.find_last_not_of(" .\n\r\t");
  if (end == std::string::npos) return "";
  return "; it reported: " + tail.substr(0, end + 1);
}

// The words of messages about one job: compiling, or linking (kSpirvLinker).
struct JobWords {
  const char *ing, *ed, *process;
};
JobWords jobWords(std::string_view backend) {
  if (backend == kSpirvLinker) return {"linking", "linked", "that links it"};
  return {"compiling", "compiled", "that translates and compiles it"};
}

// What the worker made of the request: its answer bytes, or an Error saying how it ended.
std::string runWorker(const std::string &program, const std::string &request,
                      const std::string &name, JobWords job) {
  // Read first: a bad value must fail the load before a worker is started.
  uint64_t limitSeconds = envUnsigned("XPURT_JIT_TIMEOUT", 1, 86400, 600);
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
  std::string arg0 = program;
  char *argv[] = {arg0.data(), nullptr};
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  theirs.reset();
  errWrite.reset();
  if (spawned != 0)
    fail(XPURT_ERROR_UNKNOWN,
         "JIT of '{}': the JIT worker '{}' could not start: {}. Where this process may "
         "not start programs, set XPURT_JIT_ISOLATION=off to compile inside it",
         name, program, std::strerror(spawned));
  ::fcntl(ours.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(errRead.get(), F_SETFL, O_NONBLOCK);

  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline = Clock::now() + std::chrono::seconds(limitSeconds);
  std::string answer, errors;
  size_t sent = 0;
  bool answerOpen = true, errorsOpen = true, timedOut = false, tooLarge = false;
  char buffer[65536];
  while (answerOpen || errorsOpen) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      break;
    }
    pollfd fds[2] = {{answerOpen ? ours.get() : -1,
                      static_cast<short>(POLLIN | (sent < request.size() ? POLLOUT : 0)), 0},
                     {errorsOpen ? errRead.get() : -1, POLLIN, 0}};
    int ready = ::poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), 60000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    if (sent < request.size() && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = ::send(ours.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n > 0)
        sent += static_cast<size_t>(n);
      else if (n < 0 && errno != EAGAIN && errno != EINTR)
        sent = request.size();  // it left
      if (sent == request.size()) ::shutdown(ours.get(), SHUT_WR);
    }
    if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
      ssize_t n = ::read(ours.get(), buffer, sizeof buffer);
      if (n > 0)
        answer.append(buffer, static_cast<size_t>(n));
      else if (n == 0 || (errno != EAGAIN && errno != EINTR))
        answerOpen = false;
      if (answer.size() > kMaxAnswerBytes) {
        tooLarge = true;
        break;
      }
    }
    if (fds[1].revents & (POLLIN | POLLERR | POLLHUP)) {
      ssize_t n = ::read(errRead.get(), buffer, sizeof buffer);
      if (n > 0) {
        errors.append(buffer, static_cast<size_t>(n));
        if (errors.size() > kStderrTail) errors.erase(0, errors.size() - kStderrTail);
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        errorsOpen = false;
      }
    }
  }
  if (answerOpen || errorsOpen) ::kill(pid, SIGKILL);
  int status = 0;
  pid_t waited;
  do {
    waited = ::waitpid(pid, &status, 0);
  } while (waited < 0 && errno == EINTR);
  // An application that ignores SIGCHLD has children reaped for it (ECHILD): then the answer
  // alone says whether the worker finished.
  bool statusKnown = waited == pid;

  if (timedOut)
    fail(XPURT_ERROR_INVALID_MODULE,
         "module '{}' was still {} after {} s (XPURT_JIT_TIMEOUT); its JIT worker "
         "was stopped. Raise XPURT_JIT_TIMEOUT if the module is that large",
         name, job.ing, limitSeconds);
  if (tooLarge)
    fail(XPURT_ERROR_INVALID_MODULE,
         "module '{}': the JIT worker's answer grew past {} bytes; it was stopped", name,
         kMaxAnswerBytes);
  if (statusKnown && WIFSIGNALED(status))
    throw WorkerCrashed(
        XPURT_ERROR_INVALID_MODULE,
        fmt::format("module '{}' could not be {}: the JIT worker process {} died of {}{}. This "
                    "process is unaffected; the module is malformed in a way the checks before "
                    "translation do not catch (or LLVM has a bug)",
                    name, job.ed, job.process, signalName(WTERMSIG(status)), stderrNote(errors)));
  if (statusKnown && WIFEXITED(status) && WEXITSTATUS(status) != 0)
    fail(XPURT_ERROR_INVALID_MODULE,
         "module '{}' could not be {}: the JIT worker process {} exited with status {}{}. "
         "This process is unaffected",
         name, job.ed, job.process, WEXITSTATUS(status), stderrNote(errors));
  if (std::string note = stderrNote(errors); !note.empty())
    log().debug("JIT worker for '{}' wrote to stderr{}", name, note);
  return answer;
}

// Compiles in this process; the only choice where no worker can be started.
bool isolationWanted() {
  static const std::vector<const char *> choices = {"off", "on"};
  return envChoice("XPURT_JIT_ISOLATION", choices, 1) == 1;
}

}  // namespace

std::string compileInWorker(std::string_view backend, const std::vector<uint32_t> &words,
                            const std::string &name, const ModuleOptions &options) {
  Compiler compile = findCompiler(backend);
  if (!compile)
    fail(XPURT_ERROR_UNKNOWN, "module '{}': the {} backend has no compiler in this build", name,
         backend);
  if (!isolationWanted()) return compile(words, name, options);
  static const std::optional<std::string> program = workerProgram();
  if (!program) {
    static std::once_flag warned;
    std::call_once(warned, [] {
      log().warn(
          "the JIT worker program (xpurt/xpurt-jit-worker beside libxpurt) is missing: SPIR-V "
          "modules are compiled inside this process, where a malformed one can end it. "
          "Reinstall xpurt, or set XPURT_JIT_ISOLATION=off to silence this");
    });
    return compile(words, name, options);
  }
  JobWords job = jobWords(backend);
  std::string bytes = runWorker(*program, encodeRequest(backend, words, name, options), name, job);
  std::optional<Answer> answer = decodeAnswer(bytes);
  if (!answer)
    fail(XPURT_ERROR_INVALID_MODULE,
         "module '{}' could not be {}: the JIT worker process ended without a complete "
         "answer ({} bytes)",
         name, job.ed, bytes.size());
  for (const LogRecord &l : answer->logs) log().log(l.level, "{}", l.text);
  if (answer->code != XPURT_SUCCESS) throw Error(answer->code, answer->message);
  return std::move(answer->compiled);
}

}  // namespace xpurt::core

extern "C" XPURT_API int xpurt_internal_jit_worker_main(int, char **) {
  using namespace xpurt;
  // A crash here is reported by the parent; a core file per malformed module would not help.
  rlimit noCore{0, 0};
  ::setrlimit(RLIMIT_CORE, &noCore);
  std::string request;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n > 0)
      request.append(buffer, static_cast<size_t>(n));
    else if (n == 0)
      break;
    else if (errno != EINTR)
      return 3;
  }
  auto sink = std::make_shared<core::CollectingSink>();
  core::log().sinks().clear();
  core::log().sinks().push_back(sink);
  core::Answer answer;
  try {
    core::applyLogLevelFromEnv();
    std::optional<core::Request> q = core::decodeRequest(request);
    core::Compiler compile = q ? core::findCompiler(q->backend) : nullptr;
    if (!compile) {
      std::fputs("xpurt-jit-worker: malformed request (this program is started by libxpurt)\n",
                 stderr);
      return 2;
    }
    answer.compiled = compile(q->words, q->name, q->options);
  } catch (const core::Error &e) {
    answer.code = e.code();
    answer.message = e.what();
  } catch (const std::bad_alloc &) {
    answer.code = XPURT_ERROR_OUT_OF_MEMORY;
    answer.message = "the JIT ran out of memory compiling the module";
  } catch (const std::exception &e) {
    answer.code = XPURT_ERROR_UNKNOWN;
    answer.message = std::string("the JIT failed: ") + e.what();
  }
  answer.logs = std::move(sink->records);
  std::string bytes = core::encodeAnswer(answer);
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = ::write(STDOUT_FILENO, bytes.data() + done, bytes.size() - done);
    if (n > 0)
      done += static_cast<size_t>(n);
    else if (errno != EINTR)
      return 4;
  }
  return 0;
}
