/* A program built against an older header: its option and info structs hold only their first
 * fields, as a header before the later fields had them, and say so in structSize. The library
 * reads (or, for info, writes) those bytes alone and gives the option fields the program does
 * not know their defaults; the version it reports is at least the header's. */
#include <xpurt/xpurt.h>

#include <stdio.h>
#include <string.h>

#include "c_check.h"
#include "test_params.h"

#define EXPECT(condition)                           \
  do {                                              \
    if (!(condition)) {                             \
      fprintf(stderr, "expected %s\n", #condition); \
      return 1;                                     \
    }                                               \
  } while (0)

/* The older layouts: XpurtDeviceOptions without flags, XpurtQueueOptions without flags,
 * XpurtModuleOptions without specialization constants. */
typedef struct OldDeviceOptions {
  uint32_t structSize;
} OldDeviceOptions;
typedef struct OldQueueOptions {
  uint32_t structSize;
  XpurtEngine engine;
} OldQueueOptions;
typedef struct OldModuleOptions {
  uint32_t structSize;
  const char *buildFlags;
} OldModuleOptions;
/* XpurtDeviceInfo up to its backend's name. */
typedef struct OldDeviceInfo {
  uint32_t structSize;
  XpurtDeviceType type;
  uint32_t index;
  char backend[16];
} OldDeviceInfo;

/* Today's structs, filled past an old one's end with what a default would never be: the
 * library must not read those bytes. */
typedef union DeviceOptionsBytes {
  XpurtDeviceOptions today;
  OldDeviceOptions old;
} DeviceOptionsBytes;
typedef union QueueOptionsBytes {
  XpurtQueueOptions today;
  OldQueueOptions old;
} QueueOptionsBytes;
typedef union ModuleOptionsBytes {
  XpurtModuleOptions today;
  OldModuleOptions old;
} ModuleOptionsBytes;
typedef union DeviceInfoBytes {
  XpurtDeviceInfo today;
  OldDeviceInfo old;
} DeviceInfoBytes;

int main(void) {
  enum { kTasks = 8 };
  XpurtDevice device = NULL;
  XpurtDeviceInfo info;
  DeviceInfoBytes oldInfo;
  XpurtTaskQueue queue = NULL;
  XpurtModule module = NULL;
  XpurtKernel kernel = NULL;
  XpurtMemoryView out = NULL, params = NULL;
  int32_t results[kTasks] = {0};
  struct IndexParams *p = NULL;
  void *devOut = NULL;
  DeviceOptionsBytes deviceOptions;
  QueueOptionsBytes queueOptions;
  ModuleOptionsBytes moduleOptions;
  uint32_t version = xpurtGetVersion();

  EXPECT(version >= XPURT_VERSION);
  EXPECT(version >> 22 == XPURT_VERSION_MAJOR);

  deviceOptions.today.flags = XPURT_DEVICE_FLAG_SEPARATE_MEMORY;
  deviceOptions.old.structSize = sizeof(OldDeviceOptions);
  CHECK(xpurtGetDeviceWithOptions(XPURT_DEVICE_TYPE_CPU, 0, &deviceOptions.today, &device));
  info.structSize = sizeof info;
  CHECK(xpurtDeviceGetInfo(device, &info));
  EXPECT(info.deviceMemoryIsHostMemory); /* the flag it did not pass is not read */

  memset(&oldInfo, 0x5a, sizeof oldInfo);
  oldInfo.old.structSize = sizeof(OldDeviceInfo);
  CHECK(xpurtDeviceGetInfo(device, &oldInfo.today));
  EXPECT(oldInfo.old.structSize == sizeof(OldDeviceInfo));
  EXPECT(oldInfo.old.type == XPURT_DEVICE_TYPE_CPU);
  EXPECT(strcmp(oldInfo.old.backend, "cpu") == 0);
  /* past the old struct's end: nothing written */
  EXPECT(oldInfo.today.name[0] == 0x5a && oldInfo.today.computeUnits == 0x5a5a5a5au);

  queueOptions.today.flags = 0xdead0000u; /* unknown flags, were they read */
  queueOptions.old.structSize = sizeof(OldQueueOptions);
  queueOptions.old.engine = XPURT_ENGINE_ANY;
  CHECK(xpurtNewTaskQueueWithOptions(device, &queueOptions.today, &queue));

  moduleOptions.today.numSpecConstants = 3; /* with NULL arrays, were they read */
  moduleOptions.today.specConstantIds = NULL;
  moduleOptions.today.specConstantValues = NULL;
  moduleOptions.old.structSize = sizeof(OldModuleOptions);
  moduleOptions.old.buildFlags = NULL;
  CHECK(xpurtLoadModule(device, "xpurt_test_kernels", &moduleOptions.today, &module));

  CHECK(xpurtNewKernel(module, "write_index", &kernel));
  CHECK(xpurtNewMemoryView(device, results, sizeof results, XPURT_ALLOC_TYPE_DEVICE, &out));
  CHECK(xpurtNewMemoryView(device, NULL, sizeof *p, XPURT_ALLOC_TYPE_DEVICE, &params));
  CHECK(xpurtHostPtr(params, (void **)&p));
  CHECK(xpurtDevicePtr(out, &devOut));
  p->out = (int32_t *)devOut;
  CHECK(xpurtCopyToDevice(queue, params, 0, XPURT_WHOLE_SIZE, NULL));
  CHECK(xpurtLaunch1D(queue, kernel, params, kTasks, NULL));
  CHECK(xpurtCopyToHost(queue, out, 0, XPURT_WHOLE_SIZE, NULL));
  CHECK(xpurtSync(queue));
  for (int i = 0; i < kTasks; ++i) EXPECT(results[i] == i + 1);

  /* Typed releases: a handle of another kind is refused and stays usable. */
  EXPECT(xpurtReleaseKernel((XpurtKernel)params) == XPURT_ERROR_INVALID_HANDLE);
  CHECK(xpurtReleaseMemoryView(params));
  CHECK(xpurtReleaseMemoryView(out));
  CHECK(xpurtReleaseKernel(kernel));
  CHECK(xpurtReleaseModule(module));
  CHECK(xpurtReleaseTaskQueue(queue));
  CHECK(xpurtReleaseDevice(device));
  printf("an older layout's options were taken, version %u.%u.%u\n", version >> 22,
         (version >> 12) & 0x3ffu, version & 0xfffu);
  return 0;
}
