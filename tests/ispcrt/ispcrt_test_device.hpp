// The device an ISPCRT test program runs on, as an ISPCRT program would pick it: ISPCRT's CPU
// or GPU type, from ISPCRT_TEST_DEVICE (cpu, gpu; unset: auto). CTest runs each program once
// per device: cpu, cpu with separate device memory (XPURT_CPU_DEVICE_MEMORY), and gpu where the
// GPU is xpurt's Level Zero driver for the CPU (tests/CMakeLists.txt); gpu is CUDA on an NVIDIA
// machine.
#pragma once

#include <ispcrt.h>

#include <cstdlib>
#include <cstring>

inline ISPCRTDeviceType ispcrtTestDeviceType() {
  const char *v = std::getenv("ISPCRT_TEST_DEVICE");
  if (!v || !*v || std::strcmp(v, "auto") == 0) return ISPCRT_DEVICE_TYPE_AUTO;
  if (std::strcmp(v, "cpu") == 0) return ISPCRT_DEVICE_TYPE_CPU;
  if (std::strcmp(v, "gpu") == 0) return ISPCRT_DEVICE_TYPE_GPU;
  std::abort();  // a test setup error: cpu, gpu or auto
}
