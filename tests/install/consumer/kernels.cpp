#include <xpurt/cpu_kernel.h>

static void doubleTask(void *data, int, int, int taskIndex, int, int, int, int, int, int, int) {
  static_cast<int *>(data)[taskIndex] *= 2;
}
XPURT_CPU_KERNEL(double_values, doubleTask)
