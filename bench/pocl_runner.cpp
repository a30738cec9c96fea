#include "pocl_runner.hpp"

#include <stdexcept>

namespace xpurt::bench {

Pocl::Pocl() {
  cl_uint count = 0;
  if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) {
    why_ = "no OpenCL platform (install pocl-opencl-icd)";
    return;
  }
  std::vector<cl_platform_id> platforms(count);
  clGetPlatformIDs(count, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    char name[256] = {};
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
    if (std::string(name).find("Portable Computing Language") == std::string::npos) continue;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, &device_, nullptr) != CL_SUCCESS) continue;
    cl_int err = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
    queue_ = clCreateCommandQueueWithProperties(context_, device_, nullptr, &err);
    return;
  }
  why_ = "no PoCL CPU device among the OpenCL platforms";
}

Pocl::~Pocl() {
  releaseProgram();
  if (queue_) clReleaseCommandQueue(queue_);
  if (context_) clReleaseContext(context_);
}

void Pocl::check(cl_int err, const char *what) {
  if (err != CL_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: " + std::to_string(err));
}

void Pocl::build(const std::string &source) {
  releaseProgram();
  const char *text = source.c_str();
  cl_int err = CL_SUCCESS;
  program_ = clCreateProgramWithSource(context_, 1, &text, nullptr, &err);
  check(err, "clCreateProgramWithSource");
  if (clBuildProgram(program_, 1, &device_, "", nullptr, nullptr) != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    throw std::runtime_error("PoCL could not build the workloads: " + log);
  }
}

cl_kernel Pocl::kernel(const char *name) {
  for (auto &[n, k] : kernels_)
    if (n == name) return k;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program_, name, &err);
  check(err, "clCreateKernel");
  kernels_.emplace_back(name, k);
  return k;
}

cl_mem Pocl::wrap(void *host, size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &err);
  check(err, "clCreateBuffer");
  return m;
}

void Pocl::run(cl_kernel k, unsigned dims, const size_t *global, const size_t *local) {
  check(clEnqueueNDRangeKernel(queue_, k, dims, nullptr, global, local, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
  check(clFinish(queue_), "clFinish");
}

void Pocl::releaseProgram() {
  for (auto &[n, k] : kernels_) clReleaseKernel(k);
  kernels_.clear();
  if (program_) clReleaseProgram(program_);
  program_ = nullptr;
}

}  // namespace xpurt::bench
