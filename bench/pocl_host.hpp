// PoCL, in this process: the workloads' OpenCL C source built by PoCL's own compiler.
#pragma once

#include "opencl_host.hpp"

#include "opencl_platform.hpp"

#include <string>
#include <vector>

namespace xpurt::bench {

class PoclHost final : public OpenClHost {
 public:
  // Finds the PoCL platform; available() is false (with why()) if there is none.
  PoclHost();
  ~PoclHost() override;

  // Builds the program (clBuildProgram); kernel() then finds its kernels.
  void build(const std::string &source);

  int kernel(const char *name) override;
  int wrap(const SharedMemory &memory) override;
  void release(int buffer) override;
  void setArg(int kernel, unsigned index, const void *value, size_t size) override;
  void memArg(int kernel, unsigned index, int buffer) override;
  void localArg(int kernel, unsigned index, size_t bytes) override;
  void run(int kernel, unsigned dims, const size_t *global, const size_t *local) override;

 private:
  void releaseProgram();
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  std::vector<std::pair<std::string, cl_kernel>> kernels_;
  std::vector<cl_mem> buffers_;
};

}  // namespace xpurt::bench
