// Native CPU kernels for the ISPCRT tests, as ISPC's CPU output is: <kernel>_cpu_entry_point
// launching tasks through ISPCLaunch and ISPCSync.
#include <xpurt/cpu_kernel.h>

#include <cmath>

#include "ispcrt_test_params.h"

static void scaleAddTask(void *data, int, int, int taskIndex, int taskCount, int, int, int, int,
                         int, int) {
  auto *p = static_cast<ScaleAddParams *>(data);
  long begin = static_cast<long>(p->count) * taskIndex / taskCount;
  long end = static_cast<long>(p->count) * (taskIndex + 1) / taskCount;
  for (long i = begin; i < end; ++i) p->data[i] = p->data[i] * p->mul + p->add;
}
XPURT_CPU_KERNEL(scale_add, scaleAddTask)

// An exported function that is not a kernel (ispcrtFunctionPtr).
extern "C" __attribute__((visibility("default"))) int ispcrt_test_answer(void) {
  return 42;
}
