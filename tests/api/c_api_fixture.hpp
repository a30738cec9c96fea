// A CPU device, queue and test module through the C API, and a check that the runtime still
// works after an error.
#pragma once

#include <xpurt/xpurt.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "test_params.h"

namespace xpurt::test {

// The result and message of the last call, for EXPECT_* with a readable failure.
#define EXPECT_XPURT(expected, call)                                     \
  do {                                                                   \
    XpurtResult r_ = (call);                                             \
    EXPECT_EQ(r_, expected) << #call << ": " << xpurtLastErrorMessage(); \
  } while (0)

inline std::string lastMessage() {
  return xpurtLastErrorMessage();
}

// The bytes of a file the build put beside the test program (a module); empty if none.
inline std::string readBesideTests(const char *file) {
  std::ifstream in(std::filesystem::read_symlink("/proc/self/exe").parent_path() / file,
                   std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(xpurtGetDevice(XPURT_DEVICE_TYPE_CPU, 0, &device), XPURT_SUCCESS);
    ASSERT_EQ(xpurtNewTaskQueue(device, &queue), XPURT_SUCCESS);
    ASSERT_EQ(xpurtLoadModule(device, "xpurt_test_kernels", nullptr, &module), XPURT_SUCCESS)
        << lastMessage();
    ASSERT_EQ(xpurtNewKernel(module, "write_index", &kernel), XPURT_SUCCESS);
  }
  void TearDown() override {
    for (void *h : {(void *)kernel, (void *)module, (void *)queue, (void *)device}) {
      if (h) {
        EXPECT_EQ(xpurtRelease(h), XPURT_SUCCESS) << lastMessage();
      }
    }
  }

  // Runs write_index over 32 tasks and checks the results.
  void expectUsable() {
    XpurtMemoryView out = nullptr, params = nullptr;
    ASSERT_EQ(
        xpurtNewMemoryView(device, nullptr, 32 * sizeof(int32_t), XPURT_ALLOC_TYPE_SHARED, &out),
        XPURT_SUCCESS);
    ASSERT_EQ(
        xpurtNewMemoryView(device, nullptr, sizeof(IndexParams), XPURT_ALLOC_TYPE_SHARED, &params),
        XPURT_SUCCESS);
    void *outPtr = nullptr, *paramsPtr = nullptr;
    xpurtDevicePtr(out, &outPtr);
    xpurtHostPtr(params, &paramsPtr);
    static_cast<IndexParams *>(paramsPtr)->out = static_cast<int32_t *>(outPtr);
    EXPECT_XPURT(XPURT_SUCCESS, xpurtLaunch1D(queue, kernel, params, 32, nullptr));
    EXPECT_XPURT(XPURT_SUCCESS, xpurtSync(queue));
    for (int i = 0; i < 32; ++i) EXPECT_EQ(static_cast<int32_t *>(outPtr)[i], i + 1);
    xpurtRelease(out);
    xpurtRelease(params);
  }

  XpurtDevice device = nullptr;
  XpurtTaskQueue queue = nullptr;
  XpurtModule module = nullptr;
  XpurtKernel kernel = nullptr;
};

inline bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

}  // namespace xpurt::test
