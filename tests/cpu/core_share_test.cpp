// How the CPU device's kernel threads make room for its copy engines (cpu/core_share.hpp).
#include "cpu/core_share.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace xpurt::cpu {
namespace {

using namespace std::chrono_literals;

// Waits up to 10 s for cond; false if it never held.
template <class Cond>
bool eventually(Cond cond) {
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(CoreShare, AKernelThreadStepsAsideWhileACopyEngineClaimsACoreAndReturnsWhenItLetsGo) {
  CoreShare share(2);
  CoreShare::KernelThread first(&share);
  std::atomic<bool> returned{false};
  CoreShare::EngineClaim claim(&share);
  claim.set(true);
  std::thread second([&] {
    CoreShare::KernelThread running(&share);
    share.stepAsideWhileCopying([] { return false; });
    returned = true;
  });
  // Two kernel threads on two cores, one claimed by a copy engine: one of them sleeps.
  ASSERT_TRUE(eventually([&] { return share.kernelThreadsRunning() == 1; }));
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(returned);
  // The last kernel thread running never steps aside, or the launch would stop.
  share.stepAsideWhileCopying([] { return false; });
  EXPECT_EQ(share.kernelThreadsRunning(), 1);
  claim.set(false);
  second.join();
  EXPECT_TRUE(returned);
  EXPECT_EQ(share.kernelThreadsRunning(), 1);  // `first` only
}

TEST(CoreShare, AThreadAsideReturnsWhenItsLaunchRunsOutOfWorkThoughTheCopyGoesOn) {
  CoreShare share(2);
  CoreShare::KernelThread first(&share);
  CoreShare::EngineClaim claim(&share);
  claim.set(true);
  std::atomic<bool> outOfWork{false}, returned{false};
  std::thread second([&] {
    CoreShare::KernelThread running(&share);
    share.stepAsideWhileCopying([&] { return outOfWork.load(); });
    returned = true;
  });
  ASSERT_TRUE(eventually([&] { return share.kernelThreadsRunning() == 1; }));
  outOfWork = true;
  share.launchOutOfWork();
  second.join();
  EXPECT_TRUE(returned);
}

TEST(CoreShare, NobodyStepsAsideWithoutACopyOrOnASingleCore) {
  CoreShare two(2);
  CoreShare::KernelThread a(&two), b(&two), c(&two);
  two.stepAsideWhileCopying([] { return false; });  // no copy engine claims a core
  EXPECT_EQ(two.kernelThreadsRunning(), 3);

  CoreShare one(1);
  CoreShare::KernelThread only(&one);
  CoreShare::EngineClaim claim(&one);
  claim.set(true);
  one.stepAsideWhileCopying([] { return false; });  // the only kernel thread keeps going
  EXPECT_EQ(one.kernelThreadsRunning(), 1);
}

}  // namespace
}  // namespace xpurt::cpu
