/*
 * Writing native CPU kernels for xpurt in C or C++, in the convention of ISPC's CPU output.
 *
 * A kernel `foo` exports foo_cpu_entry_point(void *params, int d0, int d1, int d2); the CPU
 * device calls it once per launch, and it runs the launch's d0*d1*d2 tasks through ISPC's task
 * system, which xpurt provides on oneTBB:
 *
 *   static void foo_task(void *params, int threadIndex, int threadCount, int taskIndex,
 *                        int taskCount, int taskIndex0, int taskIndex1, int taskIndex2,
 *                        int taskCount0, int taskCount1, int taskCount2) { ... }
 *   XPURT_CPU_KERNEL(foo, foo_task)
 */
#ifndef XPURT_CPU_KERNEL_H
#define XPURT_CPU_KERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*XpurtIspcTaskFunc)(void *data, int threadIndex, int threadCount, int taskIndex,
                                  int taskCount, int taskIndex0, int taskIndex1, int taskIndex2,
                                  int taskCount0, int taskCount1, int taskCount2);

/* ISPC's task-system ABI, resolved against libxpurt when the module is loaded. */
void *ISPCAlloc(void **handle, int64_t size, int32_t alignment);
void ISPCLaunch(void **handle, void *func, void *data, int count0, int count1, int count2);
void ISPCSync(void *handle);

#ifdef __cplusplus
}
#define XPURT_CPU_KERNEL_EXTERN extern "C"
#else
#define XPURT_CPU_KERNEL_EXTERN
#endif

/* Defines <name>_cpu_entry_point as ISPC generates it for `launch[d0, d1, d2] task(params)`. */
#define XPURT_CPU_KERNEL(name, task)                                                          \
  XPURT_CPU_KERNEL_EXTERN __attribute__((visibility("default"))) void name##_cpu_entry_point( \
      void *params, int d0, int d1, int d2) {                                                 \
    void *handle = 0;                                                                         \
    ISPCLaunch(&handle, (void *)(task), params, d0, d1, d2);                                  \
    ISPCSync(handle);                                                                         \
  }

#endif /* XPURT_CPU_KERNEL_H */
