// Creating and releasing every kind of object many times leaves the process as it was: no
// thread, file descriptor or child process is left behind.
#include "c_api_fixture.hpp"

#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace xpurt::test {
namespace {

size_t countEntries(const char *folder) {
  size_t n = 0;
  for ([[maybe_unused]] const auto &e : std::filesystem::directory_iterator(folder)) ++n;
  return n;
}

size_t threads() {
  return countEntries("/proc/self/task");
}
size_t descriptors() {
  return countEntries("/proc/self/fd");
}
size_t residentKiB() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6));
  return 0;
}

class ResourceTest : public CApiTest {
 protected:
  // The thread count once it is at most want, or after 5 s.
  size_t settledThreads(size_t want) {
    size_t n = threads();
    for (int i = 0; i < 500 && n > want; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      n = threads();
    }
    return n;
  }

  // One of everything, used once and released.
  void createUseRelease() {
    XpurtDevice d = nullptr;
    XpurtTaskQueue q = nullptr;
    XpurtModule m = nullptr;
    XpurtKernel k = nullptr;
    XpurtMemoryView out = nullptr, params = nullptr;
    ASSERT_EQ(xpurtGetDevice(XPURT_DEVICE_TYPE_CPU, 0, &d), XPURT_SUCCESS);
    ASSERT_EQ(xpurtNewTaskQueue(d, &q), XPURT_SUCCESS);
    ASSERT_EQ(xpurtLoadModule(d, "xpurt_test_kernels", nullptr, &m), XPURT_SUCCESS);
    ASSERT_EQ(xpurtNewKernel(m, "write_index", &k), XPURT_SUCCESS);
    ASSERT_EQ(xpurtNewMemoryView(d, nullptr, 4 * sizeof(int32_t), XPURT_ALLOC_TYPE_SHARED, &out),
              XPURT_SUCCESS);
    ASSERT_EQ(xpurtNewMemoryView(d, nullptr, sizeof(IndexParams), XPURT_ALLOC_TYPE_SHARED, &params),
              XPURT_SUCCESS);
    void *outPtr = nullptr, *paramsPtr = nullptr;
    xpurtDevicePtr(out, &outPtr);
    xpurtHostPtr(params, &paramsPtr);
    static_cast<IndexParams *>(paramsPtr)->out = static_cast<int32_t *>(outPtr);
    XpurtFuture f = nullptr;
    ASSERT_EQ(xpurtLaunch1D(q, k, params, 4, &f), XPURT_SUCCESS);
    ASSERT_EQ(xpurtFutureWait(f), XPURT_SUCCESS);
    ASSERT_EQ(static_cast<int32_t *>(outPtr)[3], 4);
    for (void *h :
         {(void *)f, (void *)params, (void *)out, (void *)k, (void *)m, (void *)q, (void *)d})
      ASSERT_EQ(xpurtRelease(h), XPURT_SUCCESS);
  }
};

TEST_F(ResourceTest, TenThousandObjectLifetimesLeaveThreadsAndDescriptorsFlat) {
  for (int i = 0; i < 100; ++i) createUseRelease();  // warm up: pools, the first dlopen
  size_t threadsBefore = threads(), fdsBefore = descriptors(), rssBefore = residentKiB();
  for (int i = 0; i < 10000; ++i) {
    createUseRelease();
    if (HasFatalFailure()) return;
  }
  // Every round starts and ends a queue's thread; oneTBB may start a worker or two more on
  // demand (up to its limit) and keeps them, which is no leak of ours.
  EXPECT_LE(settledThreads(threadsBefore + 2), threadsBefore + 2);
  EXPECT_EQ(descriptors(), fdsBefore);
  // Memory is reported, not asserted: glibc keeps the pages of the arenas it gives threads
  // started while others hold one, which grows RSS by 10 to 60 MB over these rounds depending
  // on the machine's load, then stays flat. Leaks are LeakSanitizer's part (CI's ASan run).
  RecordProperty("rss_growth_kib",
                 std::to_string(residentKiB() - std::min(rssBefore, residentKiB())));
}

// Each compile starts a JIT worker process: none is left running or unreaped, and no
// descriptor stays open.
TEST_F(ResourceTest, CompilingInWorkersLeavesNoProcessOrDescriptorBehind) {
  ScopedEnv noCache("XPURT_CACHE_DIR", "off");
  std::string bytes = readBesideTests("simple.spv");
  ASSERT_FALSE(bytes.empty());
  size_t fdsBefore = descriptors();
  for (int i = 0; i < 30; ++i) {
    XpurtModule m = nullptr;
    ASSERT_EQ(xpurtLoadModuleFromMemory(device, bytes.data(), bytes.size(), nullptr, &m),
              XPURT_SUCCESS)
        << lastMessage();
    ASSERT_EQ(xpurtRelease(m), XPURT_SUCCESS);  // the next load compiles again
  }
  EXPECT_EQ(descriptors(), fdsBefore);
  errno = 0;
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);  // no child at all, running or unreaped
  EXPECT_EQ(errno, ECHILD);
}

}  // namespace
}  // namespace xpurt::test
