// A kernel that calls a function the library module defines (ispcrt_link_library.cl): it runs
// once the two are linked (ispcrtStaticLinkModules, ispcrtDynamicLinkModules).
#include <xpurt/task_model.h>

#include "ispcrt_test_params.h"

float ispcrt_link_scale(float x);

XPURT_TASK_KERNEL(1) void scale_linked(global const struct LinkParams *p) {
  int begin = (int)((long)p->count * taskIndex / taskCount);
  int end = (int)((long)p->count * (taskIndex + 1) / taskCount);
  for (int i = begin; i < end; ++i) p->data[i] = ispcrt_link_scale(p->data[i]);
}
