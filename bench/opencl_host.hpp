// The OpenCL baselines of the CPU workloads benchmark behind one interface: PoCL in this
// process (pocl_host.cpp) and Intel's CPU runtime in a process of its own
// (opencl_process.cpp). Kernels and buffers are named by small ids.
#pragma once

#include <cstddef>
#include <string>

namespace xpurt::bench {

// Host memory that another process can map too: a memfd, mapped shared.
class SharedMemory {
 public:
  explicit SharedMemory(size_t bytes);
  ~SharedMemory();
  SharedMemory(const SharedMemory &) = delete;
  SharedMemory &operator=(const SharedMemory &) = delete;
  void *data() const { return data_; }
  size_t bytes() const { return bytes_; }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  void *data_ = nullptr;
  size_t bytes_ = 0;
};

class OpenClHost {
 public:
  virtual ~OpenClHost() = default;
  // False (with why()) when the runtime is missing; the benchmarks then skip with why().
  bool available() const { return why_.empty(); }
  const std::string &why() const { return why_; }

  virtual int kernel(const char *name) = 0;
  // A buffer over the memory itself (CL_MEM_USE_HOST_PTR: no copies on a CPU device).
  virtual int wrap(const SharedMemory &memory) = 0;
  virtual void release(int buffer) = 0;
  virtual void setArg(int kernel, unsigned index, const void *value, size_t size) = 0;
  virtual void memArg(int kernel, unsigned index, int buffer) = 0;
  virtual void localArg(int kernel, unsigned index, size_t bytes) = 0;
  // Enqueues and waits.
  virtual void run(int kernel, unsigned dims, const size_t *global, const size_t *local) = 0;

  template <class T>
  void arg(int kernel, unsigned index, const T &value) {
    setArg(kernel, index, &value, sizeof value);
  }

 protected:
  std::string why_ = "not started";
};

}  // namespace xpurt::bench
