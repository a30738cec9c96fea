// The kernel of ISPC's "simple" example in OpenCL C, launched ISPCRT-style: squares values
// below 3 and takes the square root of the others. Each task takes an equal share of the
// array; its program instances take the elements of that share in turn.
#include <xpurt/task_model.h>

#include "simple_params.h"

XPURT_TASK_KERNEL(8) void simple_ispc(global struct SimpleParams *p) {
  int begin = (int)((long)p->count * taskIndex / taskCount);
  int end = (int)((long)p->count * (taskIndex + 1) / taskCount);
  xpurt_foreach(i, begin, end) {
    float v = p->vin[i];
    p->vout[i] = v < 3.0f ? v * v : sqrt(v);
  }
}
