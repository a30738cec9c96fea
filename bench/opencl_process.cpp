#include "opencl_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char **environ;

namespace xpurt::bench {

OpenClProcess::OpenClProcess(const std::string &program, const std::string &platformPart,
                             const std::vector<std::string> &env) {
  int down[2], up[2];  // requests to the child, answers from it
  if (pipe2(down, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  if (pipe2(up, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, down[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, up[1], STDOUT_FILENO);
  std::vector<std::string> vars(env);
  for (char **e = environ; *e; ++e) vars.emplace_back(*e);  // the first of a name wins
  std::vector<char *> envp;
  for (auto &v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  std::string name = program, part = platformPart;
  char *argv[] = {name.data(), part.data(), nullptr};
  int err = posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(down[0]);
  close(up[1]);
  if (err != 0) {
    close(down[1]);
    close(up[0]);
    pid_ = -1;
    why_ = "cannot start " + program + ": " + std::strerror(err);
    return;
  }
  to_ = fdopen(down[1], "w");
  from_ = fdopen(up[0], "r");
  try {
    request("");  // the child's first answer says whether it found the platform
    why_.clear();
  } catch (const std::exception &e) {
    why_ = e.what();
  }
}

OpenClProcess::~OpenClProcess() {
  if (to_) fclose(to_);  // end of requests: the child exits
  if (from_) fclose(from_);
  if (pid_ > 0) {
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

std::string OpenClProcess::request(const std::string &line) {
  if (!line.empty()) {
    if (!available()) throw std::runtime_error(why_);
    std::fputs(line.c_str(), to_);
    std::fputc('\n', to_);
    std::fflush(to_);
  }
  std::string answer;
  for (int c; (c = std::fgetc(from_)) != EOF && c != '\n';) answer += static_cast<char>(c);
  if (answer == "ok") return "";
  if (answer.rfind("ok ", 0) == 0) return answer.substr(3);
  if (answer.rfind("error ", 0) == 0) throw std::runtime_error(answer.substr(6));
  throw std::runtime_error("the OpenCL process ended" +
                           (line.empty() ? std::string() : " at '" + line + "'"));
}

void OpenClProcess::build(const std::string &spirvPath) {
  request("build " + spirvPath);
}

int OpenClProcess::kernel(const char *name) {
  return std::stoi(request(std::string("kernel ") + name));
}

int OpenClProcess::wrap(const SharedMemory &memory) {
  return std::stoi(request("buffer " + std::to_string(getpid()) + " " +
                           std::to_string(memory.fd()) + " " + std::to_string(memory.bytes())));
}

void OpenClProcess::release(int buffer) {
  request("release " + std::to_string(buffer));
}

void OpenClProcess::setArg(int kernel, unsigned index, const void *value, size_t size) {
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  for (size_t i = 0; i < size; ++i) {
    unsigned byte = static_cast<const unsigned char *>(value)[i];
    hex += digits[byte >> 4];
    hex += digits[byte & 15];
  }
  request("arg " + std::to_string(kernel) + " " + std::to_string(index) + " bytes " + hex);
}

void OpenClProcess::memArg(int kernel, unsigned index, int buffer) {
  request("arg " + std::to_string(kernel) + " " + std::to_string(index) + " mem " +
          std::to_string(buffer));
}

void OpenClProcess::localArg(int kernel, unsigned index, size_t bytes) {
  request("arg " + std::to_string(kernel) + " " + std::to_string(index) + " local " +
          std::to_string(bytes));
}

void OpenClProcess::run(int kernel, unsigned dims, const size_t *global, const size_t *local) {
  std::string line = "run " + std::to_string(kernel) + " " + std::to_string(dims);
  for (unsigned d = 0; d < 3; ++d) line += " " + std::to_string(d < dims ? global[d] : 1);
  for (unsigned d = 0; d < 3; ++d)
    line += " " + std::to_string(local ? (d < dims ? local[d] : 1) : 0);
  request(line);
}

}  // namespace xpurt::bench
