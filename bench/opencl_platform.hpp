// Finding a CPU device of an OpenCL platform by part of its name: shared by the PoCL host and
// the process that hosts Intel's runtime (which links the ICD loader alone, so header-only).
#pragma once

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <string>
#include <vector>

namespace xpurt::bench {

// The CPU device of the first platform whose name contains `platformPart`, or nullptr; `seen`
// gets the names of all platforms, for the message.
inline cl_device_id findCpuDevice(const std::string &platformPart, std::string &seen) {
  cl_uint count = 0;
  if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) return nullptr;
  std::vector<cl_platform_id> platforms(count);
  clGetPlatformIDs(count, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    char name[256] = {};
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
    seen += std::string(seen.empty() ? "" : ", ") + name;
    if (std::string(name).find(platformPart) == std::string::npos) continue;
    cl_device_id device = nullptr;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, &device, nullptr) == CL_SUCCESS) return device;
  }
  return nullptr;
}

}  // namespace xpurt::bench
