// ISPCRT's packaging check: a device made and released.
#include "ispcrt.h"

int main() {
  ISPCRTDevice device = ispcrtGetDevice(ISPCRT_DEVICE_TYPE_AUTO, 0);
  if (!device) return 1;
  ispcrtRelease(device);
  return 0;
}
