// A second native module, linked with ispcrt_native_kernels.cpp's (ispcrtStaticLinkModules).
#include <xpurt/cpu_kernel.h>

#include "ispcrt_test_params.h"

static void simpleTask(void *data, int, int, int taskIndex, int taskCount, int, int, int, int, int,
                       int) {
  auto *p = static_cast<SimpleParams *>(data);
  long begin = static_cast<long>(p->count) * taskIndex / taskCount;
  long end = static_cast<long>(p->count) * (taskIndex + 1) / taskCount;
  for (long i = begin; i < end; ++i) {
    float v = p->vin[i];
    p->vout[i] = v < 3.0f ? v * v : __builtin_sqrtf(v);
  }
}
XPURT_CPU_KERNEL(simple_ispc, simpleTask)
