// The CPU devices' arenas, taken again after their devices are released (cpu/arena_pool.hpp).
#include "cpu/arena_pool.hpp"

#include <gtest/gtest.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

namespace xpurt::cpu {
namespace {

using namespace std::chrono_literals;

// What a device's launch does with its arena: tasks enqueued, a thread joining to run them.
void runTasks(tbb::task_arena &arena, int tasks) {
  tbb::task_group group;
  std::atomic<int> ran{0};
  for (int i = 0; i < tasks; ++i) arena.enqueue(group.defer([&] { ++ran; }));
  std::thread joiner([&] { arena.execute([&] { group.wait(); }); });
  joiner.join();
  ASSERT_EQ(ran.load(), tasks);
}

TEST(ArenaPool, DevicesCreatedOneAfterAnotherShareOneArena) {
  std::set<const tbb::task_arena *> arenas;
  for (int device = 0; device < 50; ++device) {
    PooledArena arena = takeArena(2);
    EXPECT_EQ(arena->max_concurrency(), 2);
    runTasks(*arena, 4);
    arenas.insert(arena.get());
  }
  EXPECT_EQ(arenas.size(), 1u);
  // Two alive at once are two arenas; one of three threads is another.
  PooledArena a = takeArena(2), b = takeArena(2), c = takeArena(3);
  EXPECT_NE(a.get(), b.get());
  EXPECT_EQ(c->max_concurrency(), 3);
}

// With a new arena for each of 500 devices, a task enqueued beside a running one waited seconds
// for oneTBB's worker while other threads kept both cores of a 2-core machine busy (the worker
// yields in every idle arena it visits).
TEST(ArenaPool, ATaskBesideARunningOneStartsAfterManyDevicesWhileTheCoresAreBusy) {
  for (int device = 0; device < 500; ++device) runTasks(*takeArena(2), 4);
  PooledArena arena = takeArena(2);
  std::atomic<bool> stop{false};
  std::vector<std::thread> load;
  for (unsigned i = 0; i < std::max(2u, std::thread::hardware_concurrency()) + 1; ++i)
    load.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  tbb::task_group group;
  std::atomic<bool> open{false}, second{false};
  arena->enqueue(group.defer([&] {
    while (!open.load()) std::this_thread::yield();
  }));
  std::thread joiner([&] { arena->execute([&] { group.wait(); }); });
  std::this_thread::sleep_for(5ms);  // the joining thread holds the first task by now
  arena->enqueue(group.defer([&] { second = true; }));
  // Within a second: it starts in milliseconds with the arena taken again, and took 1.4 to more
  // than 10 s with a new one each time.
  auto deadline = std::chrono::steady_clock::now() + 1s;
  while (!second && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(second) << "a task waited a second for a thread beside a running one";
  open = true;
  joiner.join();
  stop = true;
  for (std::thread &t : load) t.join();
}

}  // namespace
}  // namespace xpurt::cpu
