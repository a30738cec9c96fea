// ISPC's simple kernel in OpenCL C with ISPC's task model: squares values below 3 and takes
// the square root of the others.
#include <xpurt/task_model.h>

struct Parameters {
  global float *vin;
  global float *vout;
  int count;
};

XPURT_TASK_KERNEL(8) void simple_ispc(global const struct Parameters *p) {
  xpurt_foreach(i, 0, p->count) {
    float v = p->vin[i];
    p->vout[i] = v < 3.0f ? v * v : sqrt(v);
  }
}
