#include "jit_worker.hpp"

#include "byte_stream.hpp"
#include "config.hpp"
#include "error.hpp"
#include "jit_worker_process.hpp"
#include "log.hpp"

#include <dlfcn.h>
#include <spdlog/sinks/base_sink.h>
#include <sys/resource.h>
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
// No module comes near this; a larger request is not one.
constexpr uint64_t kMaxRequestBytes = uint64_t{1} << 30;
// The settings a worker compiles with: this process's at the time of each request, since a
// worker outlives the environment it was started in.
constexpr std::string_view kSettingsPrefix = "XPURT_";

struct Request {
  std::string backend;
  std::string name;
  ModuleOptions options;
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<uint32_t> words;
};

std::vector<std::pair<std::string, std::string>> currentSettings() {
  std::vector<std::pair<std::string, std::string>> settings;
  for (char **e = environ; *e; ++e) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    if (entry.substr(0, kSettingsPrefix.size()) == kSettingsPrefix && eq != entry.npos)
      settings.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return settings;
}

// In the worker: its XPURT_ settings become those of the request.
void adoptSettings(const std::vector<std::pair<std::string, std::string>> &settings) {
  for (const auto &[name, value] : currentSettings()) ::unsetenv(name.c_str());
  for (const auto &[name, value] : settings) ::setenv(name.c_str(), value.c_str(), 1);
}

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
  std::vector<std::pair<std::string, std::string>> settings = currentSettings();
  w.u32(static_cast<uint32_t>(settings.size()));
  for (const auto &[setting, value] : settings) {
    w.str(setting);
    w.str(value);
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
  uint32_t settings = r.u32();
  for (uint32_t i = 0; r.ok() && i < settings; ++i) {
    std::string name = r.str();
    q.settings.emplace_back(std::move(name), r.str());
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

// What a worker made of the request: its answer bytes, with `worker` the one that answered, or
// an Error saying how it ended.
std::string runWorker(const std::string &program, const std::string &request,
                      const std::string &name, JobWords job,
                      std::unique_ptr<JitWorkerProcess> &worker) {
  // Read first: a bad value must fail the load before a worker is started.
  uint64_t limitSeconds = envUnsigned("XPURT_JIT_TIMEOUT", 1, 86400, 600);
  worker = JitWorkerPool::instance().take(program, name);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limitSeconds);
  JitWorkerProcess::Ending ending;
  std::optional<std::string> answer = worker->exchange(request, deadline, ending);
  if (answer) {
    if (std::string note = stderrNote(ending.stderrTail); !note.empty())
      log().debug("JIT worker for '{}' wrote to stderr{}", name, note);
    return std::move(*answer);
  }
  worker.reset();  // ended and reaped
  if (ending.timedOut)
    fail(XPURT_ERROR_INVALID_MODULE,
         "module '{}' was still {} after {} s (XPURT_JIT_TIMEOUT); its JIT worker "
         "was stopped. Raise XPURT_JIT_TIMEOUT if the module is that large",
         name, job.ing, limitSeconds);
  if (ending.tooLarge)
    fail(XPURT_ERROR_INVALID_MODULE,
         "module '{}': the JIT worker's answer was too large; it was stopped", name);
  int status = ending.status;
  if (ending.statusKnown && WIFSIGNALED(status))
    throw WorkerCrashed(
        XPURT_ERROR_INVALID_MODULE,
        fmt::format("module '{}' could not be {}: the JIT worker process {} died of {}{}. This "
                    "process is unaffected; the module is malformed in a way the checks before "
                    "translation do not catch (or LLVM has a bug)",
                    name, job.ed, job.process, signalName(WTERMSIG(status)),
                    stderrNote(ending.stderrTail)));
  if (ending.statusKnown && WIFEXITED(status) && WEXITSTATUS(status) != 0)
    fail(XPURT_ERROR_INVALID_MODULE,
         "module '{}' could not be {}: the JIT worker process {} exited with status {}{}. "
         "This process is unaffected",
         name, job.ed, job.process, WEXITSTATUS(status), stderrNote(ending.stderrTail));
  fail(XPURT_ERROR_INVALID_MODULE,
       "module '{}' could not be {}: the JIT worker process ended without a complete answer", name,
       job.ed);
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
  std::unique_ptr<JitWorkerProcess> worker;
  std::string bytes =
      runWorker(*program, encodeRequest(backend, words, name, options), name, job, worker);
  std::optional<Answer> answer = decodeAnswer(bytes);
  if (!answer)
    fail(XPURT_ERROR_INVALID_MODULE,
         "module '{}' could not be {}: the JIT worker process gave an answer that is not one "
         "({} bytes)",
         name, job.ed, bytes.size());
  for (const LogRecord &l : answer->logs) log().log(l.level, "{}", l.text);
  if (answer->code != XPURT_SUCCESS) throw Error(answer->code, answer->message);
  // Only a worker that compiled a module serves the next one (jit_worker_process.hpp).
  JitWorkerPool::instance().keep(std::move(worker));
  return std::move(answer->compiled);
}

namespace {

// Reads exactly n bytes: 1 when done, 0 at the end of the input before any, -1 otherwise.
int readExactly(void *to, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t got = ::read(STDIN_FILENO, static_cast<char *>(to) + done, n - done);
    if (got > 0)
      done += static_cast<size_t>(got);
    else if (got == 0)
      return done == 0 ? 0 : -1;
    else if (errno != EINTR)
      return -1;
  }
  return 1;
}

bool writeAll(const void *from, size_t n) {
  for (size_t done = 0; done < n;) {
    ssize_t put = ::write(STDOUT_FILENO, static_cast<const char *>(from) + done, n - done);
    if (put > 0)
      done += static_cast<size_t>(put);
    else if (errno != EINTR)
      return false;
  }
  return true;
}

}  // namespace
}  // namespace xpurt::core

// Answers requests, one frame in and one frame out each (jit_worker_process.hpp), until its
// input ends.
extern "C" XPURT_API int xpurt_internal_jit_worker_main(int, char **) {
  using namespace xpurt;
  // A crash here is reported by the parent; a core file per malformed module would not help.
  rlimit noCore{0, 0};
  ::setrlimit(RLIMIT_CORE, &noCore);
  auto sink = std::make_shared<core::CollectingSink>();
  core::log().sinks().clear();
  core::log().sinks().push_back(sink);
  for (;;) {
    uint64_t size = 0;
    int got = core::readExactly(&size, sizeof size);
    if (got == 0) return 0;  // the parent is done with this worker
    if (got < 0 || size > core::kMaxRequestBytes) return 3;
    std::string request(size, '\0');
    if (core::readExactly(request.data(), size) != 1) return 3;
    sink->records.clear();
    core::Answer answer;
    try {
      std::optional<core::Request> q = core::decodeRequest(request);
      core::Compiler compile = q ? core::findCompiler(q->backend) : nullptr;
      if (!compile) {
        std::fputs("xpurt-jit-worker: malformed request (this program is started by libxpurt)\n",
                   stderr);
        return 2;
      }
      core::adoptSettings(q->settings);
      core::applyLogLevelFromEnv();
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
    uint64_t answerSize = bytes.size();
    if (!core::writeAll(&answerSize, sizeof answerSize) ||
        !core::writeAll(bytes.data(), bytes.size()))
      return 4;
  }
}
