// A minimal OpenCL host for the PoCL baseline: the same OpenCL C source, built by PoCL's own
// compiler, run through the OpenCL API on the CPU.
#pragma once

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <string>
#include <vector>

namespace xpurt::bench {

class Pocl {
 public:
  // Finds the PoCL platform; available() is false (with why()) if there is none.
  Pocl();
  ~Pocl();
  bool available() const { return context_ != nullptr; }
  const std::string &why() const { return why_; }

  // Builds the program (clBuildProgram) and returns its kernels by name on demand.
  void build(const std::string &source);
  cl_kernel kernel(const char *name);
  // A buffer over host memory (CL_MEM_USE_HOST_PTR: no copies on a CPU device).
  cl_mem wrap(void *host, size_t bytes);
  template <class T>
  void arg(cl_kernel k, unsigned i, const T &value) {
    check(clSetKernelArg(k, i, sizeof(T), &value), "clSetKernelArg");
  }
  void localArg(cl_kernel k, unsigned i, size_t bytes) {
    check(clSetKernelArg(k, i, bytes, nullptr), "clSetKernelArg");
  }
  // Enqueues and waits.
  void run(cl_kernel k, unsigned dims, const size_t *global, const size_t *local);
  void release(cl_mem m) { clReleaseMemObject(m); }
  void releaseProgram();

 private:
  void check(cl_int err, const char *what);
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  std::vector<std::pair<std::string, cl_kernel>> kernels_;
  std::string why_;
};

}  // namespace xpurt::bench
