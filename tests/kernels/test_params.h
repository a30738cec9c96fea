/* Parameter blocks of the test kernels, shared with the tests. */
#pragma once

#include <stdint.h>

struct IndexParams {
  int32_t *out; /* one slot per task */
};

struct DimsParams {
  int32_t *out; /* 8 ints per task: taskIndex0..2, taskCount0..2, taskIndex, taskCount */
};

struct AddParams {
  float *data;
  int32_t count;
  float value;
};

struct GateParams {
  volatile int32_t *started; /* the kernel sets it to 1 when it begins */
  volatile int32_t *release; /* the kernel returns once it is non-zero (or after 20 s) */
};

struct ThreadParams {
  int32_t *threadIndex; /* per task */
  int32_t *threadCount; /* per task */
};

struct NestedParams {
  int32_t *counts; /* outer tasks * inner tasks slots, each incremented once */
  int32_t inner;
};

struct StartParams {
  volatile int64_t *startNs; /* steady-clock nanoseconds when the task began */
};
