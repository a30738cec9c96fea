/* xpurt-info: every device xpurt can use, with its properties (in the manner of clinfo). */
#include <xpurt/xpurt.h>

#include <stdio.h>

static void printDevice(const XpurtDeviceInfo *info) {
  printf("  %s:%u  %s\n", info->backend, info->index, info->name);
  printf("    type                    %s\n", info->type == XPURT_DEVICE_TYPE_GPU ? "GPU" : "CPU");
  printf("    vendor                  %s (id 0x%04x)\n", info->vendor, info->vendorId);
  printf("    device id               0x%04x\n", info->deviceId);
  printf("    compute units           %u\n", info->computeUnits);
  printf("    global memory           %.1f GiB\n",
         (double)info->globalMemorySize / (1024.0 * 1024.0 * 1024.0));
  printf("    max tasks per launch    %llu\n", (unsigned long long)info->maxTaskCount);
  printf("    device memory is host   %s\n", info->deviceMemoryIsHostMemory ? "yes" : "no");
}

int main(void) {
  static const struct {
    XpurtDeviceType type;
    const char *name;
  } types[] = {{XPURT_DEVICE_TYPE_GPU, "GPU"}, {XPURT_DEVICE_TYPE_CPU, "CPU"}};
  XpurtDeviceInfo info;
  XpurtDevice device = NULL;
  int failed = 0;
  uint32_t version = xpurtGetVersion();

  info.structSize = sizeof info;
  printf("xpurt %u.%u.%u\n", version >> 22, (version >> 12) & 0x3ffu, version & 0xfffu);
  for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
    uint32_t count = 0;
    if (xpurtGetDeviceCount(types[t].type, &count) != XPURT_SUCCESS) {
      fprintf(stderr, "xpurt-info: %s\n", xpurtLastErrorMessage());
      return 1;
    }
    printf("%s devices: %u\n", types[t].name, count);
    for (uint32_t i = 0; i < count; ++i) {
      if (xpurtGetDeviceInfo(types[t].type, i, &info) != XPURT_SUCCESS) {
        fprintf(stderr, "xpurt-info: %s\n", xpurtLastErrorMessage());
        failed = 1;
        continue;
      }
      printDevice(&info);
    }
  }
  /* What the default device is here, after XPURT_DEVICE. */
  if (xpurtGetDevice(XPURT_DEVICE_TYPE_AUTO, 0, &device) == XPURT_SUCCESS &&
      xpurtDeviceGetInfo(device, &info) == XPURT_SUCCESS) {
    printf("default device: %s:%u (%s)\n", info.backend, info.index, info.name);
    xpurtRelease(device);
  } else {
    fprintf(stderr, "xpurt-info: no default device: %s\n", xpurtLastErrorMessage());
    failed = 1;
  }
  return failed;
}
