// Native CPU kernels for the conformance tests, written as ISPC's CPU output would be.
#include <xpurt/cpu_kernel.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "test_params.h"

static void writeIndexTask(void *data, int, int, int taskIndex, int, int, int, int, int, int, int) {
  static_cast<IndexParams *>(data)->out[taskIndex] = taskIndex + 1;
}
XPURT_CPU_KERNEL(write_index, writeIndexTask)

static void recordDimsTask(void *data, int, int, int taskIndex, int taskCount, int i0, int i1,
                           int i2, int c0, int c1, int c2) {
  int32_t *o = static_cast<DimsParams *>(data)->out + 8 * taskIndex;
  const int32_t values[8] = {i0, i1, i2, c0, c1, c2, taskIndex, taskCount};
  std::memcpy(o, values, sizeof values);
}
XPURT_CPU_KERNEL(record_dims, recordDimsTask)

static void addTask(void *data, int, int, int taskIndex, int taskCount, int, int, int, int, int,
                    int) {
  auto *p = static_cast<AddParams *>(data);
  long begin = static_cast<long>(p->count) * taskIndex / taskCount;
  long end = static_cast<long>(p->count) * (taskIndex + 1) / taskCount;
  for (long i = begin; i < end; ++i) p->data[i] += p->value;
}
XPURT_CPU_KERNEL(add_value, addTask)

static void gateTask(void *data, int, int, int, int, int, int, int, int, int, int) {
  auto *p = static_cast<GateParams *>(data);
  // Atomic accesses: the host thread reads and writes these flags while the task runs.
  __atomic_store_n(p->started, 1, __ATOMIC_RELEASE);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!__atomic_load_n(p->release, __ATOMIC_ACQUIRE) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
}
XPURT_CPU_KERNEL(gate, gateTask)

static void threadTask(void *data, int threadIndex, int threadCount, int taskIndex, int, int, int,
                       int, int, int, int) {
  auto *p = static_cast<ThreadParams *>(data);
  p->threadIndex[taskIndex] = threadIndex;
  p->threadCount[taskIndex] = threadCount;
  std::this_thread::sleep_for(std::chrono::microseconds(200));  // give other threads a chance
}
XPURT_CPU_KERNEL(thread_ids, threadTask)

struct InnerData {
  int32_t *row;
};

static void innerTask(void *data, int, int, int taskIndex, int, int, int, int, int, int, int) {
  static_cast<InnerData *>(data)->row[taskIndex] += 1;
}

// Each outer task launches `inner` tasks of its own, with their data from ISPCAlloc.
static void outerTask(void *data, int, int, int taskIndex, int, int, int, int, int, int, int) {
  auto *p = static_cast<NestedParams *>(data);
  void *handle = nullptr;
  auto *inner = static_cast<InnerData *>(ISPCAlloc(&handle, sizeof(InnerData), 64));
  inner->row = p->counts + taskIndex * p->inner;
  ISPCLaunch(&handle, reinterpret_cast<void *>(innerTask), inner, p->inner, 1, 1);
  ISPCSync(handle);
}
XPURT_CPU_KERNEL(nested, outerTask)

static void recordStartTask(void *data, int, int, int, int, int, int, int, int, int, int) {
  *static_cast<StartParams *>(data)->startNs =
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count();
}
XPURT_CPU_KERNEL(record_start, recordStartTask)

static void emptyTask(void *, int, int, int, int, int, int, int, int, int, int) {}
XPURT_CPU_KERNEL(empty, emptyTask)
