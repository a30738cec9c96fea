// The same kernel as ISPC compiles it for the CPU: an entry point launching its task.
#include <xpurt/cpu_kernel.h>

#include <cmath>

struct Parameters {
  float *vin;
  float *vout;
  int count;
};

static void simpleTask(void *data, int, int, int, int, int, int, int, int, int, int) {
  auto *p = static_cast<Parameters *>(data);
  for (int i = 0; i < p->count; ++i)
    p->vout[i] = p->vin[i] < 3.0f ? p->vin[i] * p->vin[i] : std::sqrt(p->vin[i]);
}
XPURT_CPU_KERNEL(simple_ispc, simpleTask)
