// ISPC's task-system entry points, which ISPC-compiled CPU code (and native kernels written in
// its style) call to run tasks: ISPCAlloc, ISPCLaunch and ISPCSync, on oneTBB. They run in the
// arena of the launching thread, which for a kernel launch is the CPU device's arena.
//
// A handle is per launching function: the first ISPCAlloc or ISPCLaunch creates it, ISPCSync
// waits for every task launched with it, frees its allocations and ends it.
//
// The latest launch of a handle is held back until the next launch or the sync, which then
// runs it on the calling thread together with the arena's workers: the common launch-then-sync
// costs one parallel_for and no extra task, while several launches before a sync still overlap.

#include "ispc_task_system.hpp"

#include "tbb_hand_off.hpp"

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <vector>

namespace {

// The application's task system (xpurtSetIspcTaskingCallbacks), where it gave one. Each set
// makes a new record, kept to the end of the process: a launch may still be reading the one
// it replaces.
struct Callbacks {
  XpurtIspcLaunchFunc launch;
  XpurtIspcAllocFunc alloc;
  XpurtIspcSyncFunc sync;
};
std::atomic<const Callbacks *> applicationCallbacks{nullptr};

using xpurt::cpu::TbbHandOff;

using TaskFunc = void (*)(void *data, int threadIndex, int threadCount, int taskIndex,
                          int taskCount, int taskIndex0, int taskIndex1, int taskIndex2,
                          int taskCount0, int taskCount1, int taskCount2);

struct Launch {
  TaskFunc func = nullptr;
  void *data = nullptr;
  int count[3] = {0, 0, 0};
};

struct LaunchGroup {
  tbb::task_group tasks;
  TbbHandOff handOff;  // for the tasks of `tasks`
  Launch heldBack;     // func is null when there is none
  std::vector<void *> allocations;
};

LaunchGroup &groupOf(void **handle) {
  if (!*handle) *handle = new LaunchGroup;
  return *static_cast<LaunchGroup *>(*handle);
}

void runTask(const Launch &l, int index) {
  int c0 = l.count[0], c1 = l.count[1], c2 = l.count[2];
  int i0 = index % c0, i1 = index / c0 % c1, i2 = index / (c0 * c1);
  l.func(l.data, tbb::this_task_arena::current_thread_index(),
         tbb::this_task_arena::max_concurrency(), index, c0 * c1 * c2, i0, i1, i2, c0, c1, c2);
}

// Every task of the launch, spread over the arena; returns when all have run.
void runLaunch(const Launch &l) {
  int total = l.count[0] * l.count[1] * l.count[2];
  if (total == 1) {
    runTask(l, 0);
    return;
  }
  auto body = [&](int i) { runTask(l, i); };
  TbbHandOff handOff;
  handOff.handOver([&] { tbb::parallel_for(0, total, handOff.wrap(body)); });
}

}  // namespace

extern "C" {

XPURT_API void *ISPCAlloc(void **handle, int64_t size, int32_t alignment) {
  if (const Callbacks *c = applicationCallbacks.load(std::memory_order_acquire))
    return c->alloc(handle, size, alignment);
  LaunchGroup &group = groupOf(handle);
  size_t align = alignment < 16 ? 16 : static_cast<size_t>(alignment);
  size_t bytes = (static_cast<size_t>(size) + align - 1) / align * align;
  void *p = std::aligned_alloc(align, bytes ? bytes : align);
  if (p) group.allocations.push_back(p);
  return p;
}

XPURT_API void ISPCLaunch(void **handle, void *f, void *data, int count0, int count1, int count2) {
  if (const Callbacks *c = applicationCallbacks.load(std::memory_order_acquire))
    return c->launch(handle, f, data, count0, count1, count2);
  if (count0 <= 0 || count1 <= 0 || count2 <= 0) return;
  LaunchGroup &group = groupOf(handle);
  if (group.heldBack.func) {
    group.handOff.send();
    group.tasks.run([&handOff = group.handOff, l = group.heldBack] {
      auto body = [&] { runLaunch(l); };
      handOff.wrap(body)();
    });
  }
  group.heldBack = Launch{reinterpret_cast<TaskFunc>(f), data, {count0, count1, count2}};
}

XPURT_API void ISPCSync(void *handle) {
  if (const Callbacks *c = applicationCallbacks.load(std::memory_order_acquire))
    return c->sync(handle);
  if (!handle) return;
  auto *group = static_cast<LaunchGroup *>(handle);
  if (group->heldBack.func) runLaunch(group->heldBack);
  group->tasks.wait();
  group->handOff.joined();
  for (void *p : group->allocations) std::free(p);
  delete group;
}

}  // extern "C"

namespace xpurt::cpu {

void setIspcTaskingCallbacks(XpurtIspcLaunchFunc launch, XpurtIspcAllocFunc alloc,
                             XpurtIspcSyncFunc sync) {
  static std::mutex mutex;
  static auto *records = new std::deque<Callbacks>;  // its elements never move
  const Callbacks *c = nullptr;
  if (launch) {
    std::lock_guard lock(mutex);
    c = &records->emplace_back(Callbacks{launch, alloc, sync});
  }
  applicationCallbacks.store(c, std::memory_order_release);
}

}  // namespace xpurt::cpu
