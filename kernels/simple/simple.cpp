// The kernel of ISPC's "simple" example as a native CPU module: squares values below 3 and
// takes the square root of the others. Each task takes an equal slice of the array.
#include <xpurt/cpu_kernel.h>

#include <cmath>

#include "simple_params.h"

static void simpleTask(void *data, int, int, int taskIndex, int taskCount, int, int, int, int, int,
                       int) {
  auto *p = static_cast<SimpleParams *>(data);
  long begin = static_cast<long>(p->count) * taskIndex / taskCount;
  long end = static_cast<long>(p->count) * (taskIndex + 1) / taskCount;
  for (long i = begin; i < end; ++i) {
    float v = p->vin[i];
    p->vout[i] = v < 3.0f ? v * v : std::sqrt(v);
  }
}

XPURT_CPU_KERNEL(simple_ispc, simpleTask)
