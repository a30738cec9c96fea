/* ispcrt.h from C (strict C11), as ISPC's aobench example uses it: an error function, device
 * views, a module, a kernel, a task queue, a retained future. Exits non-zero on a failure. */
#include <ispcrt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ispcrt_test_params.h"

static int errors = 0;

static void onError(ISPCRTError e, const char *message) {
  ++errors;
  fprintf(stderr, "ISPCRT error %d: %s\n", (int)e, message);
}

#define CHECK(cond)                                                      \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      return 1;                                                          \
    }                                                                    \
  } while (0)

static ISPCRTDeviceType deviceType(void) {
  const char *v = getenv("ISPCRT_TEST_DEVICE");
  if (v && strcmp(v, "cpu") == 0) return ISPCRT_DEVICE_TYPE_CPU;
  if (v && strcmp(v, "gpu") == 0) return ISPCRT_DEVICE_TYPE_GPU;
  return ISPCRT_DEVICE_TYPE_AUTO;
}

int main(void) {
  enum { N = 1024 };
  static float data[N];
  ISPCRTNewMemoryViewFlags flags;
  struct ScaleAddParams p;
  ISPCRTDevice device;
  ISPCRTMemoryView dataView, paramsView;
  ISPCRTModule module;
  ISPCRTKernel kernel;
  ISPCRTTaskQueue queue;
  ISPCRTFuture future;
  ISPCRTModuleOptions options;
  int i, iteration;

  ispcrtSetErrorFunc(onError);
  device = ispcrtGetDevice(deviceType(), 0);
  CHECK(device != NULL);
  flags.allocType = ISPCRT_ALLOC_TYPE_DEVICE;
  flags.smHint = ISPCRT_SM_HOST_WRITE_DEVICE_READ;
  for (i = 0; i < N; ++i) data[i] = (float)i;
  dataView = ispcrtNewMemoryView(device, data, sizeof data, &flags);
  p.data = (float *)ispcrtDevicePtr(dataView);
  p.count = N;
  p.mul = 2.0f;
  p.add = 1.0f;
  paramsView = ispcrtNewMemoryView(device, &p, sizeof p, &flags);
  CHECK(ispcrtSize(paramsView) == sizeof p);
  CHECK(ispcrtGetMemoryViewAllocType(dataView) == ISPCRT_ALLOC_TYPE_DEVICE);
  /* No default arguments in C. */
  options = ispcrtNewModuleOptions(device, ISPCRT_VECTOR_MODULE, false, 0);
  module = ispcrtLoadModuleWithOptions(device, "ispcrt_test_kernels", options);
  kernel = ispcrtNewKernel(device, module, "scale_add");
  queue = ispcrtNewTaskQueue(device);
  CHECK(module && kernel && queue);
  for (iteration = 0; iteration < 3; ++iteration) {
    ispcrtCopyToDevice(queue, paramsView);
    ispcrtCopyToDevice(queue, dataView);
    future = ispcrtLaunch2D(queue, kernel, paramsView, 4, 2);
    ispcrtRetain(future);
    ispcrtCopyToHost(queue, dataView);
    ispcrtSync(queue);
    CHECK(ispcrtFutureIsValid(future));
    CHECK(ispcrtFutureGetTimeNs(future) != UINT64_MAX);
    ispcrtRelease(future);
  }
  for (i = 0; i < N; ++i) {
    float x = (float)i;
    x = x * 2.0f + 1.0f;
    x = x * 2.0f + 1.0f;
    x = x * 2.0f + 1.0f;
    CHECK(data[i] == x);
  }
  ispcrtRelease(queue);
  ispcrtRelease(kernel);
  ispcrtRelease(module);
  ispcrtRelease(options);
  ispcrtRelease(paramsView);
  ispcrtRelease(dataView);
  ispcrtRelease(device);
  CHECK(errors == 0);
  /* Bad input reports an error and returns NULL; nothing exits. */
  CHECK(ispcrtLoadModule(NULL, "ispcrt_test_kernels") == NULL);
  CHECK(errors == 1);
  puts("ispcrt.h from C: passed");
  return 0;
}
