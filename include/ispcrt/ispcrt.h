/*
 * ISPCRT's C API over xpurt: programs written for ISPC's runtime (ISPCRT, ISPC 1.2x) build
 * unchanged against this header and run on every xpurt device: CPUs (native ISPC modules and
 * SPIR-V), Level Zero devices and NVIDIA GPUs. Every type, enum value and function of ISPCRT's
 * ispcrt.h is here with its name, values and signature.
 *
 * Unlike ISPCRT's header, this one is valid C (C99 and later) as well as C++: C has no default
 * arguments, so C callers of ispcrtNewModuleOptions pass every argument.
 *
 * Errors: a call that fails calls the error function (ispcrtSetErrorFunc) with the error and a
 * message that says what was wrong, then returns NULL, 0 or false. The default error function
 * prints the message to stderr; unlike ISPCRT's, it does not exit the program. The runtime
 * stays usable after every error, and handles passed to a failed call are unchanged.
 *
 * Handles are reference counted (ispcrtRetain, ispcrtRelease). Functions named New, Get, Load
 * or StaticLink hand out a new reference. Others lend theirs, and a program that keeps a lent
 * handle longer retains it: a task queue keeps the futures of its launches until ispcrtSync;
 * a command list keeps the futures of its commands and the fences of its submissions until
 * ispcrtCommandListReset; a command queue keeps its command lists until it is released. A
 * released handle passed to a function is an error, never a crash. Every function may be
 * called from several threads at once. docs/ISPCRT_COMPATIBILITY.md says where xpurt differs
 * from ISPCRT, function by function.
 */
#ifndef ISPCRT_ISPCRT_H
#define ISPCRT_ISPCRT_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#if defined(ISPCRT_BUILDING_LIBRARY)
#define ISPCRT_API __attribute__((visibility("default")))
#else
#define ISPCRT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- opaque handles ----------------------------------------------------------------------- */

#ifdef __cplusplus
struct _ISPCRTContext;
struct _ISPCRTDevice;
struct _ISPCRTMemoryView;
struct _ISPCRTTaskQueue;
struct _ISPCRTModule;
struct _ISPCRTModuleOptions;
struct _ISPCRTKernel;
struct _ISPCRTFuture;
struct _ISPCRTFence;
struct _ISPCRTCommandQueue;
struct _ISPCRTCommandList;
typedef _ISPCRTContext *ISPCRTContext;
typedef _ISPCRTDevice *ISPCRTDevice;
typedef _ISPCRTMemoryView *ISPCRTMemoryView;
typedef _ISPCRTTaskQueue *ISPCRTTaskQueue;
typedef _ISPCRTModule *ISPCRTModule;
typedef _ISPCRTModuleOptions *ISPCRTModuleOptions;
typedef _ISPCRTKernel *ISPCRTKernel;
typedef _ISPCRTFuture *ISPCRTFuture;
typedef _ISPCRTFence *ISPCRTFence;
typedef _ISPCRTCommandQueue *ISPCRTCommandQueue;
typedef _ISPCRTCommandList *ISPCRTCommandList;
#else
typedef void *ISPCRTContext;
typedef void *ISPCRTDevice;
typedef void *ISPCRTMemoryView;
typedef void *ISPCRTTaskQueue;
typedef void *ISPCRTModule;
typedef void *ISPCRTModuleOptions;
typedef void *ISPCRTKernel;
typedef void *ISPCRTFuture;
typedef void *ISPCRTFence;
typedef void *ISPCRTCommandQueue;
typedef void *ISPCRTCommandList;
#endif

/* Any of the handles above. */
typedef void *ISPCRTGenericHandle;

/* ---- errors ------------------------------------------------------------------------------- */

typedef enum {
  ISPCRT_NO_ERROR = 0,
  ISPCRT_UNKNOWN_ERROR = 1,     /* queued work failed, or an error of no other kind */
  ISPCRT_INVALID_ARGUMENT = 2,  /* a bad handle, index, size, name or file */
  ISPCRT_INVALID_OPERATION = 3, /* valid arguments at the wrong time (a closed command list) */
  ISPCRT_OUT_OF_MEMORY = 5,
  ISPCRT_UNINITIALIZED = 6,      /* not raised by xpurt */
  ISPCRT_UNSUPPORTED = 7,        /* valid, but not available on this device */
  ISPCRT_DEVICE_LOWER_POWER = 8, /* not raised by xpurt */
  ISPCRT_DEVICE_RESET = 9,       /* not raised by xpurt */
  ISPCRT_DEVICE_LOST = 10
} ISPCRTError;

typedef void (*ISPCRTErrorFunc)(ISPCRTError, const char *errorMessage);

/* NULL: errors are not reported (the calls still fail). */
ISPCRT_API void ispcrtSetErrorFunc(ISPCRTErrorFunc);

/* ---- tasking (CPU): ISPC's launch, alloc and sync ------------------------------------------ */

typedef void (*ISPCRTTaskingLaunchFType)(void **, void *, void *, int, int, int);
typedef void *(*ISPCRTTaskingAllocFType)(void **, int64_t, int32_t);
typedef void (*ISPCRTTaskingSyncFType)(void *);

/* Replaces the task system that native ISPC modules on the CPU call (ISPCLaunch, ISPCAlloc,
 * ISPCSync) with the application's: all three or none (three NULLs restore xpurt's). */
ISPCRT_API void ispcrtSetTaskingCallbacks(ISPCRTTaskingLaunchFType, ISPCRTTaskingAllocFType,
                                          ISPCRTTaskingSyncFType);

/* ---- object lifetime ---------------------------------------------------------------------- */

/* The handle's references: the program's and those the runtime holds. */
ISPCRT_API long long ispcrtUseCount(ISPCRTGenericHandle);
ISPCRT_API void ispcrtRelease(ISPCRTGenericHandle);
ISPCRT_API void ispcrtRetain(ISPCRTGenericHandle);

/* ---- devices ------------------------------------------------------------------------------ */

/* CPU: xpurt's CPU device. GPU: the devices that ISPCRT offloads to: every Level Zero device
 * (on a machine whose only Level Zero driver runs on the CPU, as xpurt's ze_cpu, its device
 * too), then every CUDA device. AUTO: GPU where there is one, else CPU. */
typedef enum {
  ISPCRT_DEVICE_TYPE_CPU,
  ISPCRT_DEVICE_TYPE_GPU,
  ISPCRT_DEVICE_TYPE_AUTO
} ISPCRTDeviceType;

typedef struct {
  uint32_t vendorId; /* PCI ids; the CPU: Intel's or AMD's vendor id, device id 0 */
  uint32_t deviceId;
} ISPCRTDeviceInfo;

/* deviceIdx: among the devices of the type (ispcrtGetDeviceCount). For GPU devices, as with
 * ISPCRT: ISPCRT_GPU_DRIVER (an index) keeps only the devices of that driver (Level Zero's
 * drivers, then CUDA), and ISPCRT_GPU_DEVICE (an index) is used in place of deviceIdx. */
ISPCRT_API ISPCRTDevice ispcrtGetDevice(ISPCRTDeviceType, uint32_t deviceIdx);
ISPCRT_API ISPCRTDevice ispcrtGetDeviceFromContext(ISPCRTContext, uint32_t deviceIdx);
/* The device of the context whose native handle (ispcrtDeviceNativeHandle) is d. */
ISPCRT_API ISPCRTDevice ispcrtGetDeviceFromNativeHandle(ISPCRTContext context,
                                                        ISPCRTGenericHandle d);
ISPCRT_API ISPCRTDeviceType ispcrtGetDeviceType(ISPCRTDevice d);
ISPCRT_API uint32_t ispcrtGetDeviceCount(ISPCRTDeviceType);
ISPCRT_API void ispcrtGetDeviceInfo(ISPCRTDeviceType, uint32_t deviceIdx, ISPCRTDeviceInfo *);

/* ---- contexts: the devices of one type, and memory they share ------------------------------ */

ISPCRT_API ISPCRTContext ispcrtNewContext(ISPCRTDeviceType);
/* The context whose native handle (ispcrtContextNativeHandle) is c. */
ISPCRT_API ISPCRTContext ispcrtGetContextFromNativeHandle(ISPCRTDeviceType, ISPCRTGenericHandle c);

/* ---- memory views ------------------------------------------------------------------------- */

typedef enum {
  /* Device storage with a host copy (appMemory, or one the runtime allocates when NULL),
   * moved by ispcrtCopyToDevice and ispcrtCopyToHost. */
  ISPCRT_ALLOC_TYPE_DEVICE = 0,
  /* One allocation that host and device both use (appMemory ignored). */
  ISPCRT_ALLOC_TYPE_SHARED,
  /* Host memory the device uses directly: what ispcrtGetMemoryAllocType reports. */
  ISPCRT_ALLOC_TYPE_HOST,
  ISPCRT_ALLOC_TYPE_UNKNOWN,
} ISPCRTAllocationType;

/* Hints for shared memory: xpurt accepts all and places every kind alike. */
typedef enum {
  ISPCRT_SM_HOST_DEVICE_READ_WRITE = 0,
  ISPCRT_SM_HOST_WRITE_DEVICE_READ,
  ISPCRT_SM_HOST_READ_DEVICE_WRITE,
  ISPCRT_SM_APPLICATION_MANAGED_DEVICE,
  ISPCRT_SM_UNKNOWN,
} ISPCRTSharedMemoryAllocationHint;

typedef struct {
  ISPCRTAllocationType allocType;
  ISPCRTSharedMemoryAllocationHint smHint;
} ISPCRTNewMemoryViewFlags;

/* flags NULL: a DEVICE view. ISPCRT_ALLOC_TYPE_HOST makes host memory the device uses
 * directly. The memory is allocated when the view is made. */
ISPCRT_API ISPCRTMemoryView ispcrtNewMemoryView(ISPCRTDevice, void *appMemory, size_t numBytes,
                                                ISPCRTNewMemoryViewFlags *flags);
/* A SHARED view usable by every device of the context. */
ISPCRT_API ISPCRTMemoryView ispcrtNewMemoryViewForContext(ISPCRTContext c, void *appMemory,
                                                          size_t numBytes,
                                                          ISPCRTNewMemoryViewFlags *flags);
ISPCRT_API void *ispcrtHostPtr(ISPCRTMemoryView);
ISPCRT_API void *ispcrtDevicePtr(ISPCRTMemoryView);
ISPCRT_API void *ispcrtSharedPtr(ISPCRTMemoryView); /* SHARED views; NULL for the others */
ISPCRT_API size_t ispcrtSize(ISPCRTMemoryView);
ISPCRT_API ISPCRTAllocationType ispcrtGetMemoryViewAllocType(ISPCRTMemoryView);
/* What memBuffer is to the device: memory of a view of its (DEVICE: its device storage,
 * SHARED, HOST), else UNKNOWN. */
ISPCRT_API ISPCRTAllocationType ispcrtGetMemoryAllocType(ISPCRTDevice d, void *memBuffer);

/* ---- modules ------------------------------------------------------------------------------ */

/* Intel GPU compiler back ends; xpurt compiles both kinds the same way. */
typedef enum { ISPCRT_VECTOR_MODULE = 0, ISPCRT_SCALAR_MODULE } ISPCRTModuleType;

ISPCRT_API ISPCRTModuleOptions ispcrtNewModuleOptionsEmpty(ISPCRTDevice);
#ifdef __cplusplus
ISPCRT_API ISPCRTModuleOptions ispcrtNewModuleOptions(ISPCRTDevice, ISPCRTModuleType moduleType,
                                                      bool libraryCompilation = false,
                                                      uint32_t stackSize = 0);
#else
ISPCRT_API ISPCRTModuleOptions ispcrtNewModuleOptions(ISPCRTDevice, ISPCRTModuleType moduleType,
                                                      bool libraryCompilation, uint32_t stackSize);
#endif
ISPCRT_API uint32_t ispcrtModuleOptionsGetStackSize(ISPCRTModuleOptions);
ISPCRT_API bool ispcrtModuleOptionsGetLibraryCompilation(ISPCRTModuleOptions);
ISPCRT_API ISPCRTModuleType ispcrtModuleOptionsGetModuleType(ISPCRTModuleOptions);
ISPCRT_API void ispcrtModuleOptionsSetStackSize(ISPCRTModuleOptions, uint32_t);
ISPCRT_API void ispcrtModuleOptionsSetLibraryCompilation(ISPCRTModuleOptions, bool);
ISPCRT_API void ispcrtModuleOptionsSetModuleType(ISPCRTModuleOptions, ISPCRTModuleType);

/* By name, as ISPCRT finds modules: on the CPU lib<name>.so (a native ISPC module), else
 * <name>.spv; on other devices <name>.spv (Level Zero: also <name>.bin, a native binary).
 * Searched in XPURT_MODULE_PATH, the program's folder, the working folder, the library path. */
ISPCRT_API ISPCRTModule ispcrtLoadModule(ISPCRTDevice, const char *moduleFile);
/* A module loaded with library compilation gives no kernels until it is linked. */
ISPCRT_API ISPCRTModule ispcrtLoadModuleWithOptions(ISPCRTDevice, const char *moduleFile,
                                                    ISPCRTModuleOptions);
/* Resolves each module's imports against the others' exports; afterwards each of them gives
 * its kernels (ispcrtNewKernel) with those imports bound. Native CPU modules resolved theirs
 * when loaded: for them it does nothing. */
ISPCRT_API void ispcrtDynamicLinkModules(ISPCRTDevice, ISPCRTModule *modules, uint32_t numModules);
/* A new module of the modules linked together: SPIR-V modules by xpurt's linker; native CPU
 * modules as one module that looks symbols up in each library in turn. */
ISPCRT_API ISPCRTModule ispcrtStaticLinkModules(ISPCRTDevice, ISPCRTModule *modules,
                                                uint32_t numModules);
/* The address of an exported function of a native CPU module (dlsym). SPIR-V modules:
 * ISPCRT_UNSUPPORTED (their functions have no host address). */
ISPCRT_API void *ispcrtFunctionPtr(ISPCRTModule, const char *name);
ISPCRT_API ISPCRTKernel ispcrtNewKernel(ISPCRTDevice, ISPCRTModule, const char *name);

/* ---- command lists: commands recorded, then submitted as a whole ---------------------------- */

/* Everything recorded after the barrier runs after everything recorded before it. */
ISPCRT_API void ispcrtCommandListBarrier(ISPCRTCommandList);
ISPCRT_API ISPCRTFuture ispcrtCommandListCopyToDevice(ISPCRTCommandList, ISPCRTMemoryView);
ISPCRT_API ISPCRTFuture ispcrtCommandListCopyToHost(ISPCRTCommandList, ISPCRTMemoryView);
/* size bytes from the device storage of the second view to that of the first. */
ISPCRT_API ISPCRTFuture ispcrtCommandListCopyMemoryView(ISPCRTCommandList, ISPCRTMemoryView,
                                                        ISPCRTMemoryView, const size_t size);
/* params may be NULL: the kernel's tasks then get a NULL parameter pointer. */
ISPCRT_API ISPCRTFuture ispcrtCommandListLaunch1D(ISPCRTCommandList, ISPCRTKernel,
                                                  ISPCRTMemoryView params, size_t dim0);
ISPCRT_API ISPCRTFuture ispcrtCommandListLaunch2D(ISPCRTCommandList, ISPCRTKernel,
                                                  ISPCRTMemoryView params, size_t dim0,
                                                  size_t dim1);
ISPCRT_API ISPCRTFuture ispcrtCommandListLaunch3D(ISPCRTCommandList, ISPCRTKernel,
                                                  ISPCRTMemoryView params, size_t dim0, size_t dim1,
                                                  size_t dim2);
/* Ends recording; submitting closes an open list. */
ISPCRT_API void ispcrtCommandListClose(ISPCRTCommandList);
/* Runs the list's commands, after what its queue ran before; the fence signals when they are
 * done. A list may be submitted again once its fence has signalled. */
ISPCRT_API ISPCRTFence ispcrtCommandListSubmit(ISPCRTCommandList);
/* Empties the list for recording again, and gives up its futures and fences; refused
 * (INVALID_OPERATION) while a submission of it runs. */
ISPCRT_API void ispcrtCommandListReset(ISPCRTCommandList);
/* The futures of commands recorded after this carry their times (else 0). */
ISPCRT_API void ispcrtCommandListEnableTimestamps(ISPCRTCommandList);

/* ---- command queues ----------------------------------------------------------------------- */

/* ordinal: 0 for a queue of any engine, 1 for a compute queue, 2 for a copy queue (which takes
 * copies and barriers, not launches); other values are ISPCRT_INVALID_ARGUMENT. Its lists run
 * in the order they are submitted, their commands in the order they were recorded. */
ISPCRT_API ISPCRTCommandQueue ispcrtNewCommandQueue(ISPCRTDevice, uint32_t ordinal);
ISPCRT_API ISPCRTCommandList ispcrtCommandQueueCreateCommandList(ISPCRTCommandQueue);
/* Waits for every list submitted to the queue. */
ISPCRT_API void ispcrtCommandQueueSync(ISPCRTCommandQueue);

/* ---- task queues -------------------------------------------------------------------------- */
/* Work starts when it is enqueued (ISPCRT's GPU device starts it at ispcrtSync) and runs in
 * the order it was enqueued. */

ISPCRT_API ISPCRTTaskQueue ispcrtNewTaskQueue(ISPCRTDevice);
ISPCRT_API void ispcrtDeviceBarrier(ISPCRTTaskQueue);
/* The whole view between its host copy and its device storage. */
ISPCRT_API void ispcrtCopyToDevice(ISPCRTTaskQueue, ISPCRTMemoryView);
ISPCRT_API void ispcrtCopyToHost(ISPCRTTaskQueue, ISPCRTMemoryView);
/* size bytes from the device storage of the second view to that of the first. */
ISPCRT_API void ispcrtCopyMemoryView(ISPCRTTaskQueue, ISPCRTMemoryView, ISPCRTMemoryView,
                                     const size_t size);
/* Runs dim0 * dim1 * dim2 tasks of the kernel; each gets the device pointer of params (NULL
 * when params is NULL). The future is the queue's until ispcrtSync. */
ISPCRT_API ISPCRTFuture ispcrtLaunch1D(ISPCRTTaskQueue, ISPCRTKernel, ISPCRTMemoryView params,
                                       size_t dim0);
ISPCRT_API ISPCRTFuture ispcrtLaunch2D(ISPCRTTaskQueue, ISPCRTKernel, ISPCRTMemoryView params,
                                       size_t dim0, size_t dim1);
ISPCRT_API ISPCRTFuture ispcrtLaunch3D(ISPCRTTaskQueue, ISPCRTKernel, ISPCRTMemoryView params,
                                       size_t dim0, size_t dim1, size_t dim2);
/* Waits for everything enqueued; a failure of queued work is reported (error function) here. */
ISPCRT_API void ispcrtSync(ISPCRTTaskQueue);

/* ---- fences ------------------------------------------------------------------------------- */

typedef enum { ISPCRT_FENCE_UNSIGNALED = 0, ISPCRT_FENCE_SIGNALED = 1 } ISPCRTFenceStatus;

/* Waits until the fence signals. */
ISPCRT_API void ispcrtFenceSync(ISPCRTFence);
ISPCRT_API ISPCRTFenceStatus ispcrtFenceStatus(ISPCRTFence);
/* Back to unsignalled; only once its submission has completed (else INVALID_OPERATION). A
 * reset fence is not waited for (INVALID_OPERATION): nothing would signal it. */
ISPCRT_API void ispcrtFenceReset(ISPCRTFence);

/* ---- futures ------------------------------------------------------------------------------ */

/* The command's time on the device in nanoseconds once it is valid; UINT64_MAX before, and
 * for NULL. Never blocks. */
ISPCRT_API uint64_t ispcrtFutureGetTimeNs(ISPCRTFuture);
/* Whether the command has completed successfully, so that its time is known. */
ISPCRT_API bool ispcrtFutureIsValid(ISPCRTFuture);

/* ---- native handles ----------------------------------------------------------------------- */
/* The driver's objects, which stay the runtime's. Level Zero: ze_driver_handle_t,
 * ze_device_handle_t, ze_context_handle_t. CUDA: no platform (ISPCRT_UNSUPPORTED), the CUdevice
 * as an integer (device 0 is NULL), the primary CUcontext, and a queue's CUstream. The CPU
 * device: NULL without an error, as ISPCRT's. ISPCRT_UNSUPPORTED: queues on Level Zero (xpurt
 * runs them on immediate command lists, which have no ze_command_queue_handle_t), command lists
 * (recorded by xpurt, enqueued at each submission) and fences (the future of a submission's
 * last command). */
ISPCRT_API ISPCRTGenericHandle ispcrtPlatformNativeHandle(ISPCRTDevice);
ISPCRT_API ISPCRTGenericHandle ispcrtDeviceNativeHandle(ISPCRTDevice);
ISPCRT_API ISPCRTGenericHandle ispcrtDeviceContextNativeHandle(ISPCRTDevice);
ISPCRT_API ISPCRTGenericHandle ispcrtContextNativeHandle(ISPCRTContext);
ISPCRT_API ISPCRTGenericHandle ispcrtCommandListNativeHandle(ISPCRTCommandList);
ISPCRT_API ISPCRTGenericHandle ispcrtCommandQueueNativeHandle(ISPCRTCommandQueue);
ISPCRT_API ISPCRTGenericHandle ispcrtTaskQueueNativeHandle(ISPCRTTaskQueue);
ISPCRT_API ISPCRTGenericHandle ispcrtFenceNativeHandle(ISPCRTFence);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ISPCRT_ISPCRT_H */
