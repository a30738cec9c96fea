#include <xpurt/task_model.h>

// Triples the values of one task's share of the array, ISPCRT-style.
XPURT_TASK_KERNEL(8) void triple(global int *values) {
  xpurt_foreach(i, taskIndex * 8, taskIndex * 8 + 8) values[i] *= 3;
}
