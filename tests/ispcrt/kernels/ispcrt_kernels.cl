// The ISPCRT tests' kernels in OpenCL C, as ISPC tasks (task_model.h): every device runs them.
#include <xpurt/task_model.h>

#include "ispcrt_test_params.h"

XPURT_TASK_KERNEL(8) void simple_ispc(global const struct SimpleParams *p) {
  int begin = (int)((long)p->count * taskIndex / taskCount);
  int end = (int)((long)p->count * (taskIndex + 1) / taskCount);
  xpurt_foreach(i, begin, end) {
    float v = p->vin[i];
    p->vout[i] = v < 3.0f ? v * v : sqrt(v);
  }
}

XPURT_TASK_KERNEL(8) void scale_add(global const struct ScaleAddParams *p) {
  int begin = (int)((long)p->count * taskIndex / taskCount);
  int end = (int)((long)p->count * (taskIndex + 1) / taskCount);
  xpurt_foreach(i, begin, end) p->data[i] = p->data[i] * p->mul + p->add;
}

XPURT_TASK_KERNEL(1) void record_dims(global const struct DimsParams *p) {
  global int *o = p->out + 8 * taskIndex;
  o[0] = taskIndex0;
  o[1] = taskIndex1;
  o[2] = taskIndex2;
  o[3] = taskCount0;
  o[4] = taskCount1;
  o[5] = taskCount2;
  o[6] = taskIndex;
  o[7] = taskCount;
}
