// An OpenCL runtime in a process of its own (opencl_child.cpp), for Intel's CPU runtime for
// OpenCL: it brings its own oneTBB and LLVM, which cannot share this process with xpurt's.
// Buffers are SharedMemory that the child maps too, so results are checked here as for the
// other implementations. Each request waits for its answer; a run's answer comes once the
// kernel has finished, so timing a run() here times the kernel plus one pipe round trip.
#pragma once

#include "opencl_host.hpp"

#include <sys/types.h>

#include <cstdio>
#include <string>
#include <vector>

namespace xpurt::bench {

class OpenClProcess final : public OpenClHost {
 public:
  // Starts `program` with `platformPart` (part of the platform's name) and the environment
  // additions `env` ("NAME=value"). available() is false (with why()) if it did not come up.
  OpenClProcess(const std::string &program, const std::string &platformPart,
                const std::vector<std::string> &env);
  ~OpenClProcess() override;

  // Builds the program from a SPIR-V file (clCreateProgramWithIL).
  void build(const std::string &spirvPath);

  int kernel(const char *name) override;
  int wrap(const SharedMemory &memory) override;
  void release(int buffer) override;
  void setArg(int kernel, unsigned index, const void *value, size_t size) override;
  void memArg(int kernel, unsigned index, int buffer) override;
  void localArg(int kernel, unsigned index, size_t bytes) override;
  void run(int kernel, unsigned dims, const size_t *global, const size_t *local) override;

 private:
  // Sends one request and returns the value of its "ok" answer; throws with the child's error.
  std::string request(const std::string &line);
  pid_t pid_ = -1;
  FILE *to_ = nullptr, *from_ = nullptr;
};

}  // namespace xpurt::bench
