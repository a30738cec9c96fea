/* The C API from C11: one launch end to end, and one error, from a C program. */
#include <xpurt/xpurt.h>

#include <stdio.h>

#include "c_check.h"
#include "test_params.h"

int main(void) {
  enum { kTasks = 16 };
  XpurtDevice device = NULL;
  XpurtTaskQueue queue = NULL;
  XpurtModule module = NULL;
  XpurtKernel kernel = NULL;
  XpurtMemoryView out = NULL, params = NULL;
  XpurtFuture future = NULL;
  int32_t results[kTasks] = {0};
  struct IndexParams *p = NULL;
  void *devOut = NULL;
  bool valid = false;
  uint64_t ns = 0;

  CHECK(xpurtGetDevice(XPURT_DEVICE_TYPE_AUTO, 0, &device));
  XpurtQueueOptions options = {sizeof options, XPURT_ENGINE_ANY, XPURT_QUEUE_FLAG_PROFILING};
  CHECK(xpurtNewTaskQueueWithOptions(device, &options, &queue));
  CHECK(xpurtLoadModule(device, "xpurt_test_kernels", NULL, &module));
  CHECK(xpurtNewKernel(module, "write_index", &kernel));
  CHECK(xpurtNewMemoryView(device, results, sizeof results, XPURT_ALLOC_TYPE_DEVICE, &out));
  CHECK(xpurtNewMemoryView(device, NULL, sizeof *p, XPURT_ALLOC_TYPE_DEVICE, &params));
  CHECK(xpurtHostPtr(params, (void **)&p));
  CHECK(xpurtDevicePtr(out, &devOut));
  p->out = (int32_t *)devOut;
  CHECK(xpurtCopyToDevice(queue, params, 0, XPURT_WHOLE_SIZE, NULL));
  CHECK(xpurtLaunch1D(queue, kernel, params, kTasks, &future));
  CHECK(xpurtCopyToHost(queue, out, 0, XPURT_WHOLE_SIZE, NULL));
  CHECK(xpurtSync(queue));
  CHECK(xpurtFutureIsValid(future, &valid));
  CHECK(xpurtFutureTimeNs(future, &ns));
  for (int i = 0; i < kTasks; ++i)
    if (results[i] != i + 1) {
      fprintf(stderr, "results[%d] = %d, expected %d\n", i, results[i], i + 1);
      return 1;
    }
  if (!valid || xpurtSync(NULL) != XPURT_ERROR_INVALID_HANDLE) {
    fprintf(stderr, "future not valid after sync, or a NULL queue was accepted\n");
    return 1;
  }
  CHECK(xpurtRelease(future));
  CHECK(xpurtRelease(params));
  CHECK(xpurtRelease(out));
  CHECK(xpurtRelease(kernel));
  CHECK(xpurtRelease(module));
  CHECK(xpurtRelease(queue));
  CHECK(xpurtRelease(device));
  printf("C API from C11: %d tasks ran, kernel time %llu ns\n", kTasks, (unsigned long long)ns);
  return 0;
}
