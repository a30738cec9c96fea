// The conformance suite's ISPCRT-style task kernels in OpenCL C, built to SPIR-V so that every
// device runs them: one work-group per task (task_model.h), parameter blocks laid out as
// test_params.h declares them for the host.
#include <xpurt/task_model.h>

typedef struct {
  global int *out; /* one slot per task */
} IndexParams;

typedef struct {
  global int *out; /* 8 ints per task */
} DimsParams;

typedef struct {
  global float *data;
  int count;
  float value;
} AddParams;

typedef struct {
  volatile global int *started;
  volatile global int *release;
} GateParams;

XPURT_TASK_KERNEL(1) void write_index(global const IndexParams *p) {
  p->out[taskIndex] = taskIndex + 1;
}

XPURT_TASK_KERNEL(1) void record_dims(global const DimsParams *p) {
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

// The runtime chooses programCount: each task's share of the array, split over its program
// instances as ISPC's foreach does.
kernel void add_value(global const AddParams *p) {
  int begin = (int)((long)p->count * taskIndex / taskCount);
  int end = (int)((long)p->count * (taskIndex + 1) / taskCount);
  xpurt_foreach(i, begin, end) p->data[i] += p->value;
}

// Says it started, then holds its queue until the host releases it (or about 20 s pass).
XPURT_TASK_KERNEL(1) void gate(global const GateParams *p) {
  *p->started = 1;
  for (ulong n = 0; *p->release == 0 && n < (1ul << 34); ++n) {
  }
}

XPURT_TASK_KERNEL(1) void empty(void) {}
