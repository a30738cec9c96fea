// An OpenCL host in a process of its own, driven line by line over stdin/stdout by the CPU
// workloads benchmark (opencl_process.hpp). It exists for Intel's CPU runtime for OpenCL,
// which brings its own oneTBB and LLVM: loaded beside xpurt's (Debian's oneTBB 2021, LLVM 15)
// in one process, one of each pair would serve both. This program links the OpenCL ICD loader
// alone, so the runtime it loads finds its own libraries.
//
//   xpurt_bench_opencl_child <platform name part>
//
// Requests, one per line; each is answered "ok [value]" or "error <why>":
//   build <spirv file>                     clCreateProgramWithIL + clBuildProgram
//   kernel <name>                          -> kernel id
//   buffer <pid> <fd> <bytes>              maps /proc/<pid>/fd/<fd> (shared memory of the
//                                          benchmark) and wraps it, USE_HOST_PTR -> buffer id
//   release <buffer id>
//   arg <kernel id> <index> mem <buffer id> | bytes <hex> | local <bytes>
//   run <kernel id> <dims> <g0> <g1> <g2> <l0> <l1> <l2>   enqueue and wait
#include "opencl_platform.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cl_int err, const char *what) {
  if (err != CL_SUCCESS) throw Failure(std::string(what) + " returned " + std::to_string(err));
}

struct Mapping {
  cl_mem mem = nullptr;
  void *host = nullptr;
  size_t bytes = 0;
};

class Host {
 public:
  explicit Host(const std::string &platformPart) {
    std::string seen;
    device_ = xpurt::bench::findCpuDevice(platformPart, seen);
    if (!device_ && seen.empty())
      throw Failure("no OpenCL platform found (OCL_ICD_VENDORS: " + env("OCL_ICD_VENDORS") + ")");
    if (!device_)
      throw Failure("no CPU device of a platform named '" + platformPart + "' (found: " + seen +
                    ")");
    cl_int err = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
    check(err, "clCreateContext");
    queue_ = clCreateCommandQueueWithProperties(context_, device_, nullptr, &err);
    check(err, "clCreateCommandQueueWithProperties");
  }

  std::string handle(const std::string &line) {
    std::istringstream in(line);
    std::string op;
    in >> op;
    if (op == "build") return build(rest(in));
    if (op == "kernel") return kernel(rest(in));
    if (op == "buffer") {
      long pid = 0;
      int fd = -1;
      size_t bytes = 0;
      in >> pid >> fd >> bytes;
      return buffer(pid, fd, bytes);
    }
    if (op == "release") {
      size_t id = 0;
      in >> id;
      release(at(buffers_, id, "buffer"));
      return "";
    }
    if (op == "arg") return arg(in);
    if (op == "run") return run(in);
    throw Failure("unknown request '" + op + "'");
  }

 private:
  static std::string env(const char *name) {
    const char *v = std::getenv(name);
    return v ? v : "(unset)";
  }
  static std::string rest(std::istringstream &in) {
    std::string s;
    std::getline(in >> std::ws, s);
    return s;
  }
  template <class T>
  static T &at(std::vector<T> &v, size_t id, const char *what) {
    if (id >= v.size()) throw Failure(std::string("no ") + what + " " + std::to_string(id));
    return v[id];
  }

  std::string build(const std::string &path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw Failure("cannot read " + path);
    std::string il((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    for (cl_kernel k : kernels_) clReleaseKernel(k);
    kernels_.clear();
    kernelNames_.clear();
    if (program_) clReleaseProgram(program_);
    cl_int err = CL_SUCCESS;
    program_ = clCreateProgramWithIL(context_, il.data(), il.size(), &err);
    check(err, "clCreateProgramWithIL");
    if (clBuildProgram(program_, 1, &device_, "", nullptr, nullptr) != CL_SUCCESS) {
      size_t size = 0;
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      for (char &c : log)
        if (c == '\n' || c == '\0') c = ' ';
      throw Failure("clBuildProgram failed: " + log);
    }
    return "";
  }

  std::string kernel(const std::string &name) {
    if (!program_) throw Failure("no program built");
    for (size_t i = 0; i < kernelNames_.size(); ++i)
      if (kernelNames_[i] == name) return std::to_string(i);
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(program_, name.c_str(), &err);
    check(err, "clCreateKernel");
    kernels_.push_back(k);
    kernelNames_.push_back(name);
    return std::to_string(kernels_.size() - 1);
  }

  std::string buffer(long pid, int fd, size_t bytes) {
    std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
    int own = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (own < 0) throw Failure("cannot open " + path + ": " + std::strerror(errno));
    void *host = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, own, 0);
    close(own);
    if (host == MAP_FAILED) throw Failure("cannot map " + path + ": " + std::strerror(errno));
    cl_int err = CL_SUCCESS;
    cl_mem mem =
        clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &err);
    if (err != CL_SUCCESS) munmap(host, bytes);
    check(err, "clCreateBuffer");
    buffers_.push_back({mem, host, bytes});
    return std::to_string(buffers_.size() - 1);
  }

  static void release(Mapping &m) {
    if (m.mem) clReleaseMemObject(m.mem), munmap(m.host, m.bytes);
    m = Mapping{};
  }

  std::string arg(std::istringstream &in) {
    size_t id = 0;
    cl_uint index = 0;
    std::string kind;
    in >> id >> index >> kind;
    cl_kernel k = at(kernels_, id, "kernel");
    if (kind == "mem") {
      size_t buffer = 0;
      in >> buffer;
      cl_mem mem = at(buffers_, buffer, "buffer").mem;
      check(clSetKernelArg(k, index, sizeof mem, &mem), "clSetKernelArg");
    } else if (kind == "bytes") {
      std::string hex;
      in >> hex;
      std::vector<unsigned char> bytes(hex.size() / 2);
      for (size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<unsigned char>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
      check(clSetKernelArg(k, index, bytes.size(), bytes.data()), "clSetKernelArg");
    } else if (kind == "local") {
      size_t bytes = 0;
      in >> bytes;
      check(clSetKernelArg(k, index, bytes, nullptr), "clSetKernelArg");
    } else {
      throw Failure("unknown argument kind '" + kind + "'");
    }
    return "";
  }

  std::string run(std::istringstream &in) {
    size_t id = 0;
    cl_uint dims = 0;
    size_t global[3] = {}, local[3] = {};
    in >> id >> dims >> global[0] >> global[1] >> global[2] >> local[0] >> local[1] >> local[2];
    if (dims < 1 || dims > 3) throw Failure("dims must be 1 to 3");
    check(clEnqueueNDRangeKernel(queue_, at(kernels_, id, "kernel"), dims, nullptr, global,
                                 local[0] ? local : nullptr, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
    check(clFinish(queue_), "clFinish");
    return "";
  }

  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  std::vector<cl_kernel> kernels_;
  std::vector<std::string> kernelNames_;
  std::vector<Mapping> buffers_;
};

void reply(const std::string &text) {
  std::cout << text << '\n' << std::flush;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: xpurt_bench_opencl_child <platform name part>\n";
    return 2;
  }
  std::unique_ptr<Host> host;
  try {
    host = std::make_unique<Host>(argv[1]);
    reply("ok");
  } catch (const std::exception &e) {
    reply(std::string("error ") + e.what());
    return 1;
  }
  for (std::string line; std::getline(std::cin, line);) {
    try {
      std::string value = host->handle(line);
      reply(value.empty() ? "ok" : "ok " + value);
    } catch (const std::exception &e) {
      reply(std::string("error ") + e.what());
    }
  }
  return 0;
}
