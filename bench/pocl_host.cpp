#include "pocl_host.hpp"

#include <stdexcept>

namespace xpurt::bench {

namespace {

void check(cl_int err, const char *what) {
  if (err != CL_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: " + std::to_string(err));
}

}  // namespace

PoclHost::PoclHost() {
  std::string seen;
  device_ = findCpuDevice("Portable Computing Language", seen);
  if (!device_) {
    why_ = seen.empty() ? "no OpenCL platform (install pocl-opencl-icd)"
                        : "no PoCL CPU device among the OpenCL platforms (install pocl-opencl-icd)";
    return;
  }
  cl_int err = CL_SUCCESS;
  context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  queue_ = clCreateCommandQueueWithProperties(context_, device_, nullptr, &err);
  check(err, "clCreateCommandQueueWithProperties");
  why_.clear();
}

PoclHost::~PoclHost() {
  releaseProgram();
  for (cl_mem m : buffers_)
    if (m) clReleaseMemObject(m);
  if (queue_) clReleaseCommandQueue(queue_);
  if (context_) clReleaseContext(context_);
}

void PoclHost::build(const std::string &source) {
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

int PoclHost::kernel(const char *name) {
  for (size_t i = 0; i < kernels_.size(); ++i)
    if (kernels_[i].first == name) return static_cast<int>(i);
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program_, name, &err);
  check(err, "clCreateKernel");
  kernels_.emplace_back(name, k);
  return static_cast<int>(kernels_.size() - 1);
}

int PoclHost::wrap(const SharedMemory &memory) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, memory.bytes(),
                            memory.data(), &err);
  check(err, "clCreateBuffer");
  buffers_.push_back(m);
  return static_cast<int>(buffers_.size() - 1);
}

void PoclHost::release(int buffer) {
  clReleaseMemObject(buffers_.at(buffer));
  buffers_.at(buffer) = nullptr;
}

void PoclHost::setArg(int kernel, unsigned index, const void *value, size_t size) {
  check(clSetKernelArg(kernels_.at(kernel).second, index, size, value), "clSetKernelArg");
}

void PoclHost::memArg(int kernel, unsigned index, int buffer) {
  cl_mem m = buffers_.at(buffer);
  setArg(kernel, index, &m, sizeof m);
}

void PoclHost::localArg(int kernel, unsigned index, size_t bytes) {
  setArg(kernel, index, nullptr, bytes);
}

void PoclHost::run(int kernel, unsigned dims, const size_t *global, const size_t *local) {
  check(clEnqueueNDRangeKernel(queue_, kernels_.at(kernel).second, dims, nullptr, global, local, 0,
                               nullptr, nullptr),
        "clEnqueueNDRangeKernel");
  check(clFinish(queue_), "clFinish");
}

void PoclHost::releaseProgram() {
  for (auto &[n, k] : kernels_) clReleaseKernel(k);
  kernels_.clear();
  if (program_) clReleaseProgram(program_);
  program_ = nullptr;
}

}  // namespace xpurt::bench
