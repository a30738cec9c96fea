/*
 * xpurt — heterogeneous task runtime. The C API: the stable ABI.
 *
 * Every function returns an XpurtResult and writes its products through out-pointers. On an
 * error the call changes nothing, the handles passed in stay usable, the message is available
 * from xpurtLastErrorMessage() on the calling thread, and the error function set with
 * xpurtSetErrorFunc() (if any) is called. The library never exits or aborts on a user error.
 *
 * Handles are reference counted: every handle a function hands out holds one reference, which
 * xpurtRelease() gives back. Objects that need each other keep each other alive internally, so
 * a handle may be released while work that uses it is still queued. Every function may be
 * called from several threads at once.
 */
#ifndef XPURT_XPURT_H
#define XPURT_XPURT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(XPURT_BUILDING_LIBRARY)
#define XPURT_API __attribute__((visibility("default")))
#else
#define XPURT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define XPURT_VERSION_MAJOR 0
#define XPURT_VERSION_MINOR 2
#define XPURT_VERSION_PATCH 0
/* A version as one number that orders as versions do. */
#define XPURT_MAKE_VERSION(major, minor, patch) \
  ((uint32_t)(major) << 22 | (uint32_t)(minor) << 12 | (uint32_t)(patch))
#define XPURT_VERSION \
  XPURT_MAKE_VERSION(XPURT_VERSION_MAJOR, XPURT_VERSION_MINOR, XPURT_VERSION_PATCH)

/* Structs passed in (XpurtDeviceOptions, XpurtModuleOptions, XpurtQueueOptions) begin with
 * structSize, set to sizeof the struct of the header the caller was built with: a library
 * newer than that header reads only those bytes and gives the fields the caller's struct lacks
 * their defaults (zero), so a program built against an older header runs unchanged. Structs
 * passed out (XpurtDeviceInfo) begin with structSize too, set by the caller the same way: the
 * library writes only that many bytes. */

/* Pass as a size to mean "from the offset to the end of the view". */
#define XPURT_WHOLE_SIZE SIZE_MAX

typedef enum XpurtResult {
  XPURT_SUCCESS = 0,
  XPURT_ERROR_INVALID_ARGUMENT = 1, /* a value is out of its domain (NULL out-pointer, size 0…) */
  XPURT_ERROR_INVALID_HANDLE = 2,   /* NULL, released, or a handle of another kind */
  XPURT_ERROR_OUT_OF_RANGE = 3,     /* an offset or size past the end of a memory view */
  XPURT_ERROR_NOT_FOUND = 4,        /* no such device, module file or kernel */
  XPURT_ERROR_INVALID_MODULE = 5,   /* the module exists but cannot be loaded */
  XPURT_ERROR_UNSUPPORTED = 6,      /* valid, but not supported by this device or build */
  XPURT_ERROR_INVALID_CONFIG = 7,   /* an XPURT_* environment variable has a bad value */
  XPURT_ERROR_OUT_OF_MEMORY = 8,
  XPURT_ERROR_EXECUTION_FAILED = 9, /* queued work failed (e.g. a host callback reported failure) */
  XPURT_ERROR_UNKNOWN = 10,
  XPURT_ERROR_DEVICE_LOST = 11 /* the device stopped working: its queued work failed */
} XpurtResult;

typedef enum XpurtDeviceType {
  XPURT_DEVICE_TYPE_CPU = 0,
  XPURT_DEVICE_TYPE_GPU = 1,
  XPURT_DEVICE_TYPE_AUTO = 2 /* the first GPU, else the CPU; XPURT_DEVICE overrides */
} XpurtDeviceType;

typedef enum XpurtAllocationType {
  XPURT_ALLOC_TYPE_DEVICE = 0, /* a host copy plus device storage, moved by explicit copies */
  XPURT_ALLOC_TYPE_SHARED = 1, /* one allocation valid on host and device (USM shared) */
  XPURT_ALLOC_TYPE_HOST = 2,   /* host memory the device reads and writes directly */
  /* memory of no one device, with a copy on every device that uses it, kept up to date by the
   * runtime (xpurtNewCoherentMemoryView) */
  XPURT_ALLOC_TYPE_COHERENT = 3
} XpurtAllocationType;

typedef struct XpurtObject_ *XpurtHandle; /* any handle, for xpurtRetain/xpurtRelease */
typedef struct XpurtDevice_ *XpurtDevice;
typedef struct XpurtContext_ *XpurtContext;
typedef struct XpurtMemoryView_ *XpurtMemoryView;
typedef struct XpurtTaskQueue_ *XpurtTaskQueue;
typedef struct XpurtModule_ *XpurtModule;
typedef struct XpurtKernel_ *XpurtKernel;
typedef struct XpurtFuture_ *XpurtFuture;
typedef struct XpurtGraph_ *XpurtGraph;
typedef struct XpurtGraphExec_ *XpurtGraphExec;
/* A node of a graph: its number, from 0 in the order nodes were added. */
typedef uint32_t XpurtGraphNode;

/* ---- errors and reference counting ------------------------------------------------------ */

typedef void (*XpurtErrorFunc)(XpurtResult result, const char *message, void *userData);

XPURT_API const char *xpurtResultString(XpurtResult result);
/* The version of the library loaded (XPURT_MAKE_VERSION), which may be newer than the header
 * the program was built with (XPURT_VERSION). */
XPURT_API uint32_t xpurtGetVersion(void);
/* The message of the last failed call on this thread ("" if none). Valid until the next call. */
XPURT_API const char *xpurtLastErrorMessage(void);
/* Called on every failed call, on the calling thread. NULL removes it. */
XPURT_API void xpurtSetErrorFunc(XpurtErrorFunc func, void *userData);

/* Any handle, as ISPCRT's ispcrtRetain/ispcrtRelease: the kind is checked at run time. */
XPURT_API XpurtResult xpurtRetain(void *handle);
XPURT_API XpurtResult xpurtRelease(void *handle);
/* One handle kind each: a handle of another kind does not compile (or, cast, fails with
 * XPURT_ERROR_INVALID_HANDLE). */
XPURT_API XpurtResult xpurtRetainDevice(XpurtDevice device);
XPURT_API XpurtResult xpurtReleaseDevice(XpurtDevice device);
XPURT_API XpurtResult xpurtRetainContext(XpurtContext context);
XPURT_API XpurtResult xpurtReleaseContext(XpurtContext context);
XPURT_API XpurtResult xpurtRetainMemoryView(XpurtMemoryView view);
XPURT_API XpurtResult xpurtReleaseMemoryView(XpurtMemoryView view);
XPURT_API XpurtResult xpurtRetainTaskQueue(XpurtTaskQueue queue);
XPURT_API XpurtResult xpurtReleaseTaskQueue(XpurtTaskQueue queue);
XPURT_API XpurtResult xpurtRetainModule(XpurtModule module);
XPURT_API XpurtResult xpurtReleaseModule(XpurtModule module);
XPURT_API XpurtResult xpurtRetainKernel(XpurtKernel kernel);
XPURT_API XpurtResult xpurtReleaseKernel(XpurtKernel kernel);
XPURT_API XpurtResult xpurtRetainFuture(XpurtFuture future);
XPURT_API XpurtResult xpurtReleaseFuture(XpurtFuture future);
XPURT_API XpurtResult xpurtRetainGraph(XpurtGraph graph);
XPURT_API XpurtResult xpurtReleaseGraph(XpurtGraph graph);
XPURT_API XpurtResult xpurtRetainGraphExec(XpurtGraphExec exec);
XPURT_API XpurtResult xpurtReleaseGraphExec(XpurtGraphExec exec);

/* ---- devices ---------------------------------------------------------------------------- */

typedef struct XpurtDeviceInfo {
  uint32_t structSize;  /* set by the caller: sizeof(XpurtDeviceInfo) */
  XpurtDeviceType type; /* CPU or GPU */
  uint32_t index;       /* index among the devices of that type */
  char backend[16];     /* "cpu", "level_zero", "cuda" */
  char name[256];
  char vendor[64];
  uint32_t vendorId; /* PCI vendor id where there is one, else 0 */
  uint32_t deviceId;
  uint32_t computeUnits;         /* worker threads on the CPU, EUs/SMs on a GPU */
  uint64_t globalMemorySize;     /* bytes */
  uint64_t maxTaskCount;         /* d0 * d1 * d2 of one launch */
  uint64_t maxWorkGroupSize;     /* work-items of one group (xpurtLaunchKernel) */
  bool deviceMemoryIsHostMemory; /* device views alias their host copy: copies cost nothing */
} XpurtDeviceInfo;

/* Device creation flags. */
#define XPURT_DEVICE_FLAG_SEPARATE_MEMORY 0x1u /* CPU: device views get storage of their own */

typedef struct XpurtDeviceOptions {
  uint32_t structSize; /* sizeof(XpurtDeviceOptions): lets the struct grow (see above) */
  uint32_t flags;      /* XPURT_DEVICE_FLAG_* */
} XpurtDeviceOptions;

XPURT_API XpurtResult xpurtGetDeviceCount(XpurtDeviceType type, uint32_t *count);
XPURT_API XpurtResult xpurtGetDeviceInfo(XpurtDeviceType type, uint32_t index,
                                         XpurtDeviceInfo *info);
XPURT_API XpurtResult xpurtGetDevice(XpurtDeviceType type, uint32_t index, XpurtDevice *device);
XPURT_API XpurtResult xpurtGetDeviceWithOptions(XpurtDeviceType type, uint32_t index,
                                                const XpurtDeviceOptions *options,
                                                XpurtDevice *device);
XPURT_API XpurtResult xpurtDeviceGetInfo(XpurtDevice device, XpurtDeviceInfo *info);

/* What some devices do and others do not. */
typedef enum XpurtDeviceFeature {
  /* A launch's global size need not be a multiple of its local size (the last work-group of a
   * dimension may be partial, as in OpenCL 2.0: get_local_size is the partial group's size,
   * get_enqueued_local_size the launch's). Every device has it for SPIR-V kernels; CUDA and
   * Level Zero devices run such a launch as up to 8 launches of whole groups, one per
   * combination of full and partial groups in each dimension. */
  XPURT_FEATURE_PARTIAL_WORK_GROUPS = 1,
  /* Launches may start at a global offset (get_global_offset, added to get_global_id). Every
   * device has it for SPIR-V kernels. */
  XPURT_FEATURE_GLOBAL_OFFSETS = 2
} XpurtDeviceFeature;

/* *supported: whether the device has the feature. An unknown feature is INVALID_ARGUMENT. */
XPURT_API XpurtResult xpurtDeviceHasFeature(XpurtDevice device, XpurtDeviceFeature feature,
                                            bool *supported);

/* The driver's objects behind a device, for programs that call the driver themselves. */
typedef enum XpurtNativeObject {
  XPURT_NATIVE_PLATFORM = 0, /* Level Zero: ze_driver_handle_t; CUDA: none (UNSUPPORTED) */
  XPURT_NATIVE_DEVICE = 1,   /* Level Zero: ze_device_handle_t; CUDA: the CUdevice, as an integer
                                (device 0 is NULL) */
  XPURT_NATIVE_CONTEXT = 2   /* Level Zero: ze_context_handle_t; CUDA: the primary CUcontext */
} XpurtNativeObject;

/* The CPU device has none: XPURT_ERROR_UNSUPPORTED. The handles stay the device's: do not
 * destroy them. */
XPURT_API XpurtResult xpurtDeviceGetNativeHandle(XpurtDevice device, XpurtNativeObject what,
                                                 void **handle);

/* ---- contexts: memory shared by the devices of one backend ------------------------------ */

XPURT_API XpurtResult xpurtNewContext(XpurtDeviceType type, XpurtContext *context);
/* The context of every device of the device's backend (AUTO's choice aside). */
XPURT_API XpurtResult xpurtDeviceGetContext(XpurtDevice device, XpurtContext *context);
XPURT_API XpurtResult xpurtContextGetDeviceCount(XpurtContext context, uint32_t *count);
XPURT_API XpurtResult xpurtContextGetDevice(XpurtContext context, uint32_t index,
                                            XpurtDevice *device);

/* ---- memory views ----------------------------------------------------------------------- */

/* appMemory: for DEVICE views, the host copy (NULL: the runtime allocates one). SHARED and
 * HOST views allocate their own memory and take NULL. */
XPURT_API XpurtResult xpurtNewMemoryView(XpurtDevice device, void *appMemory, size_t size,
                                         XpurtAllocationType type, XpurtMemoryView *view);
/* A SHARED or HOST view usable by every device of the context. */
XPURT_API XpurtResult xpurtNewMemoryViewForContext(XpurtContext context, size_t size,
                                                   XpurtAllocationType type, XpurtMemoryView *view);
/* A COHERENT view: memory of no one device, which commands of every device and backend use
 * as their own. appMemory: its host memory, up to date at first (NULL: the runtime allocates it,
 * zeroed); xpurtHostPtr gives it. Each device keeps a copy, made when a command of one of its
 * queues first uses the view, and the runtime tracks which bytes are up to date where (in the
 * host memory and in each copy), from what commands declare (StarPU's data handles):
 * - a command reads, on its device's copy, the bytes it declares as READ or READ_WRITE; those
 *   the copy lacks are copied in first, from a device that has them (a peer first) or the host
 *   memory; bytes up to date there are not copied again;
 * - the bytes a command declares as WRITE or READ_WRITE are afterwards up to date on its
 *   device's copy alone. WRITE declares that the command overwrites every byte of the range:
 *   nothing is copied in, and bytes it leaves unwritten are undefined;
 * - xpurtCopyToHost makes the host memory up to date for the range (copying from wherever the
 *   bytes are), xpurtCopyToDevice says the application changed those bytes of the host memory
 *   (they are up to date there alone) and copies them to the queue's device;
 * - commands of different queues, of any devices, that use the same bytes of one copy (or of
 *   the host memory) run in the order they were enqueued when one of them writes, as commands
 *   of an out-of-order queue do: a command needs no future to see what another device wrote.
 * A launch declares its view arguments (xpurtLaunchKernel) or accesses (xpurtLaunchWithAccess;
 * a params view is read whole). Graph nodes may use COHERENT views as queues do (their
 * copies are the runtime's when a launch runs each node; a host callback cannot declare
 * one). A COHERENT view has no device pointer (xpurtDevicePtr: UNSUPPORTED). The host memory is the
 * view's while it lives (a device whose memory is host memory, the CPU, uses it as its copy and
 * writes it): the application reads it after an xpurtCopyToHost has completed and writes it before
 * an xpurtCopyToDevice of those bytes. */
XPURT_API XpurtResult xpurtNewCoherentMemoryView(void *appMemory, size_t size,
                                                 XpurtMemoryView *view);
XPURT_API XpurtResult xpurtHostPtr(XpurtMemoryView view, void **ptr);
XPURT_API XpurtResult xpurtDevicePtr(XpurtMemoryView view, void **ptr);
XPURT_API XpurtResult xpurtSize(XpurtMemoryView view, size_t *size);
XPURT_API XpurtResult xpurtGetAllocationType(XpurtMemoryView view, XpurtAllocationType *type);

/* ---- modules and kernels ---------------------------------------------------------------- */

typedef struct XpurtModuleOptions {
  uint32_t structSize;                /* sizeof(XpurtModuleOptions) (see above) */
  const char *buildFlags;             /* passed to the device compiler; NULL for none */
  uint32_t numSpecConstants;          /* specialization constants (SPIR-V modules) */
  const uint32_t *specConstantIds;    /* numSpecConstants ids */
  const uint64_t *specConstantValues; /* numSpecConstants values, zero-extended */
} XpurtModuleOptions;

/* By name: "simple" finds libsimple.so (a native CPU module) or simple.spv in XPURT_MODULE_PATH,
 * the program's folder, the working folder, then the system library path. options may be NULL. */
XPURT_API XpurtResult xpurtLoadModule(XpurtDevice device, const char *name,
                                      const XpurtModuleOptions *options, XpurtModule *module);
XPURT_API XpurtResult xpurtLoadModuleFromFile(XpurtDevice device, const char *path,
                                              const XpurtModuleOptions *options,
                                              XpurtModule *module);
XPURT_API XpurtResult xpurtLoadModuleFromMemory(XpurtDevice device, const void *data, size_t size,
                                                const XpurtModuleOptions *options,
                                                XpurtModule *module);
/* Links SPIR-V modules loaded on `device` into a new module, as a program's object files are
 * linked: each function or variable that one module declares without defining (`extern` in
 * OpenCL C: SPIR-V's LinkageAttributes Import) is bound to the one module that defines it
 * (Export), by name. A module that imports something, or a library without kernels, loads but
 * gives no kernels until it is linked; the linked module gives every kernel of its parts.
 * `options` apply to the linked module (NULL for none); the modules stay usable and are not
 * changed; modules of different SPIR-V versions link as modules of the highest. A symbol
 * defined nowhere or twice, a symbol whose types differ, a native module or a module of
 * another device is an error. ISPCRT's ispcrtStaticLinkModules. */
XPURT_API XpurtResult xpurtLinkModules(XpurtDevice device, const XpurtModule *modules,
                                       uint32_t count, const XpurtModuleOptions *options,
                                       XpurtModule *linked);
XPURT_API XpurtResult xpurtNewKernel(XpurtModule module, const char *name, XpurtKernel *kernel);
/* Whether the module is a native library (a CPU shared library, a Level Zero device binary)
 * rather than SPIR-V: native modules do not link (xpurtLinkModules). */
XPURT_API XpurtResult xpurtModuleIsNative(XpurtModule module, bool *native);
/* The address of a function that a native CPU module exports (dlsym); NOT_FOUND if it exports
 * none of that name, UNSUPPORTED for other modules, whose functions have no host address. */
XPURT_API XpurtResult xpurtModuleGetFunctionPointer(XpurtModule module, const char *name,
                                                    void **function);

/* ISPC's task system, which native CPU modules call (ISPCLaunch, ISPCAlloc, ISPCSync): the
 * application's own in place of xpurt's, as ISPC's tasking callbacks. All three or none (three
 * NULLs restore xpurt's); launches that run when the callbacks change use either. */
typedef void (*XpurtIspcLaunchFunc)(void **handle, void *function, void *data, int count0,
                                    int count1, int count2);
typedef void *(*XpurtIspcAllocFunc)(void **handle, int64_t size, int32_t alignment);
typedef void (*XpurtIspcSyncFunc)(void *handle);
XPURT_API XpurtResult xpurtSetIspcTaskingCallbacks(XpurtIspcLaunchFunc launch,
                                                   XpurtIspcAllocFunc alloc,
                                                   XpurtIspcSyncFunc sync);

/* ---- task queues ------------------------------------------------------------------------ */
/* Work starts when it is enqueued. An in-order queue (the default) runs each command after
 * every command enqueued before it. An out-of-order queue runs a command as soon as what it
 * depends on has completed: the earlier commands whose declared memory accesses conflict with
 * its own (read after write, write after read, write after write on overlapping bytes), the
 * last barrier, the futures the queue was told to wait for, and every earlier command if it
 * declares nothing (host callbacks, launches without declared accesses). Every command can
 * hand back a future (pass NULL to not take one); futures of any queue work in every wait. */

typedef XpurtResult (*XpurtHostFunc)(void *userData);

/* What a command does with a range of memory. READ_WRITE is the default (zero). */
typedef enum XpurtAccess {
  XPURT_ACCESS_READ_WRITE = 0,
  XPURT_ACCESS_READ = 1,
  XPURT_ACCESS_WRITE = 2
} XpurtAccess;

/* The engine a queue's commands run on. */
typedef enum XpurtEngine {
  XPURT_ENGINE_ANY = 0,     /* copies and launches */
  XPURT_ENGINE_COMPUTE = 1, /* copies and launches, on the compute engine */
  XPURT_ENGINE_COPY = 2     /* copies, fills, host callbacks, barriers and waits; no launches */
} XpurtEngine;

/* Queue creation flags. */
#define XPURT_QUEUE_FLAG_OUT_OF_ORDER 0x1u /* run commands as their dependencies allow */
#define XPURT_QUEUE_FLAG_PROFILING 0x2u    /* futures carry device times (xpurtFutureTimeNs) */
/* Submit commands to the device in batches rather than one by one: on Level Zero, recorded in
 * regular command lists that are executed when the queue is synced, when one of its futures is
 * waited on, polled or waited for by another queue, before a host callback, and every 256
 * commands (there is no cap on commands between syncs). Fewer, larger submissions; a command
 * may start later. Devices that submit every command at once cheaply (the CPU) ignore it. */
#define XPURT_QUEUE_FLAG_BATCHED 0x4u

typedef struct XpurtQueueOptions {
  uint32_t structSize; /* sizeof(XpurtQueueOptions): lets the struct grow (see above) */
  XpurtEngine engine;
  uint32_t flags; /* XPURT_QUEUE_FLAG_* */
} XpurtQueueOptions;

/* An in-order queue on any engine, without profiling: its futures carry no device time (ask
 * for XPURT_QUEUE_FLAG_PROFILING, which costs every command timed device events). */
XPURT_API XpurtResult xpurtNewTaskQueue(XpurtDevice device, XpurtTaskQueue *queue);
/* options may be NULL: the same as all fields zero (in order, any engine, profiling off). */
XPURT_API XpurtResult xpurtNewTaskQueueWithOptions(XpurtDevice device,
                                                   const XpurtQueueOptions *options,
                                                   XpurtTaskQueue *queue);
/* Every command enqueued on queue after this call runs after the futures complete (they may
 * come from any queue of the same backend, and may already be complete). Commands enqueued
 * before it are not held back. A failed future does not fail the queue's later work. */
XPURT_API XpurtResult xpurtQueueWaitFutures(XpurtTaskQueue queue, uint32_t numFutures,
                                            const XpurtFuture *futures);
XPURT_API XpurtResult xpurtCopyToDevice(XpurtTaskQueue queue, XpurtMemoryView view, size_t offset,
                                        size_t size, XpurtFuture *future);
XPURT_API XpurtResult xpurtCopyToHost(XpurtTaskQueue queue, XpurtMemoryView view, size_t offset,
                                      size_t size, XpurtFuture *future);
/* Device storage of src to device storage of dst. The views may be of different devices, of
 * any backends, as long as one of them is memory of the queue's device (or of its context; for
 * the CPU device, any memory the host reaches): the copy runs after what comes before it in the
 * queue and before what comes after, as any copy. Between two devices of one backend it is one
 * peer copy where the driver allows (CUDA: peer access, enabled on the first copy of a pair;
 * Level Zero: devices of one context that reach each other's memory); otherwise the other
 * device's own queue copies to or from the host memory on this side, or each device copies
 * half through page-locked host memory. In graphs, a copy between DEVICE views of two devices is
 * refused (a node runs on one device): use a COHERENT view, which follows the nodes. */
XPURT_API XpurtResult xpurtCopyMemoryView(XpurtTaskQueue queue, XpurtMemoryView dst,
                                          XpurtMemoryView src, size_t dstOffset, size_t srcOffset,
                                          size_t size, XpurtFuture *future);
/* Repeats the pattern over [offset, offset + size) of the device storage; size must be a
 * multiple of patternSize (1 to 128 bytes). */
XPURT_API XpurtResult xpurtFill(XpurtTaskQueue queue, XpurtMemoryView view, size_t offset,
                                size_t size, const void *pattern, size_t patternSize,
                                XpurtFuture *future);
/* Runs d0 * d1 * d2 tasks of the kernel; each gets the device pointer of params (may be NULL). */
XPURT_API XpurtResult xpurtLaunch1D(XpurtTaskQueue queue, XpurtKernel kernel,
                                    XpurtMemoryView params, size_t d0, XpurtFuture *future);
XPURT_API XpurtResult xpurtLaunch2D(XpurtTaskQueue queue, XpurtKernel kernel,
                                    XpurtMemoryView params, size_t d0, size_t d1,
                                    XpurtFuture *future);
XPURT_API XpurtResult xpurtLaunch3D(XpurtTaskQueue queue, XpurtKernel kernel,
                                    XpurtMemoryView params, size_t d0, size_t d1, size_t d2,
                                    XpurtFuture *future);
/* A range of a memory view that a launch touches, and how. size XPURT_WHOLE_SIZE: to the end. */
typedef struct XpurtViewAccess {
  XpurtMemoryView view;
  size_t offset;
  size_t size;
  XpurtAccess access;
} XpurtViewAccess;

/* xpurtLaunch3D that declares the memory the kernel reads and writes through params (params
 * itself is read). With the declaration, an out-of-order queue orders the launch only against
 * the commands it conflicts with; without it, against everything. */
XPURT_API XpurtResult xpurtLaunchWithAccess(XpurtTaskQueue queue, XpurtKernel kernel,
                                            XpurtMemoryView params, uint32_t numAccesses,
                                            const XpurtViewAccess *accesses, size_t d0, size_t d1,
                                            size_t d2, XpurtFuture *future);
/* A kernel argument of xpurtLaunchKernel. */
typedef enum XpurtKernelArgKind {
  /* size bytes at value: a scalar, vector, struct or raw pointer */
  XPURT_KERNEL_ARG_VALUE = 0,
  /* the device pointer of view, plus offset bytes */
  XPURT_KERNEL_ARG_MEMORY_VIEW = 1,
  /* a __local pointer to size bytes of each work-group's memory */
  XPURT_KERNEL_ARG_LOCAL = 2
} XpurtKernelArgKind;

typedef struct XpurtKernelArg {
  XpurtKernelArgKind kind;
  size_t size;          /* VALUE: bytes at value; LOCAL: bytes per work-group; MEMORY_VIEW:
                           bytes the kernel touches from offset (0: to the end of the view) */
  const void *value;    /* VALUE: copied when the launch is enqueued */
  XpurtMemoryView view; /* MEMORY_VIEW */
  size_t offset;        /* MEMORY_VIEW: added to the view's device pointer */
  XpurtAccess access;   /* MEMORY_VIEW: what the kernel does with those bytes */
} XpurtKernelArg;

/* The general launch, for kernels that take several arguments (OpenCL C, other compilers):
 * workDim (1 to 3) dimensions of globalSize work-items in groups of localSize (NULL: the
 * runtime chooses; the last group of a dimension may be smaller), ids starting at globalOffset
 * (NULL: 0). Arguments are checked against the kernel's signature and copied. */
XPURT_API XpurtResult xpurtLaunchKernel(XpurtTaskQueue queue, XpurtKernel kernel, uint32_t numArgs,
                                        const XpurtKernelArg *args, uint32_t workDim,
                                        const size_t *globalOffset, const size_t *globalSize,
                                        const size_t *localSize, XpurtFuture *future);
/* What each chunk of a split launch (xpurtLaunchKernelSplit) touches of a view argument, as
 * items of the dimension the launch is split along, item i being the pitch bytes from the
 * argument's offset + i * pitch (i counts from 0: a global id of that dimension). */
typedef enum XpurtRangeMapper {
  XPURT_RANGE_MAPPER_ALL = 0,         /* the argument's whole range, for every chunk */
  XPURT_RANGE_MAPPER_ONE_TO_ONE = 1,  /* the chunk's own items */
  XPURT_RANGE_MAPPER_NEIGHBORHOOD = 2 /* its own and halo items on each side (as far as the
                                         argument's range goes) */
} XpurtRangeMapper;

/* An argument of a split launch: arg as for xpurtLaunchKernel; for a MEMORY_VIEW argument, whose
 * view must be COHERENT, what each chunk touches of it (mapper, pitch, halo). */
typedef struct XpurtSplitArg {
  XpurtKernelArg arg;
  XpurtRangeMapper mapper;
  size_t pitch; /* bytes per item (ONE_TO_ONE, NEIGHBORHOOD) */
  size_t halo;  /* items before and after the chunk's own (NEIGHBORHOOD) */
} XpurtSplitArg;

/* xpurtLaunchKernel as one launch over several devices (Celerity's split by range mappers): the
 * ND-range is cut along its last dimension (rows of a 2-D range) into one chunk per queue, of
 * whole work-groups and as equal as they come (a queue past the last work-group gets none);
 * chunk i runs kernels[i] (loaded for queues[i]'s device) on queues[i], after what comes before
 * it there, with the global ids it would have had in one launch. Each chunk declares, of every
 * view argument, the part its range mapper names, and the views' copies make the rest happen:
 * what a chunk reads is copied to its device first, from wherever it is up to date; what it
 * writes is up to date there afterwards (xpurtNewCoherentMemoryView). The result is that of the
 * same launch on one device. Every chunk is checked before any is submitted (a kernel of
 * another device, a view that is not COHERENT, a mapper's items past the argument's bytes are
 * errors that submit nothing). The future completes once every chunk has, failed with the
 * first chunk that failed. Not while any of the queues captures a graph. */
XPURT_API XpurtResult xpurtLaunchKernelSplit(uint32_t numQueues, const XpurtTaskQueue *queues,
                                             const XpurtKernel *kernels, uint32_t numArgs,
                                             const XpurtSplitArg *args, uint32_t workDim,
                                             const size_t *globalOffset, const size_t *globalSize,
                                             const size_t *localSize, XpurtFuture *future);
/* Runs func(userData) on a runtime thread when the commands before it have completed. A result
 * other than XPURT_SUCCESS fails its future and is reported by the next xpurtSync. */
XPURT_API XpurtResult xpurtHostCallback(XpurtTaskQueue queue, XpurtHostFunc func, void *userData,
                                        XpurtFuture *future);
/* Frees state the runtime owns on the application's behalf. */
typedef void (*XpurtDestroyFunc)(void *userData);
/* xpurtHostCallback where the runtime owns userData: destroy(userData) (if not NULL) is called
 * once nothing can call func any more: after the callback has run, or, when it was captured
 * into a graph, once the graph and every executable graph made from it are released. Called
 * also when the call fails. */
XPURT_API XpurtResult xpurtHostCallbackWithDestructor(XpurtTaskQueue queue, XpurtHostFunc func,
                                                      void *userData, XpurtDestroyFunc destroy,
                                                      XpurtFuture *future);
/* Called from inside a host callback: the message its failure is reported with. */
XPURT_API void xpurtHostCallbackSetError(const char *message);
/* Everything enqueued after the barrier runs after everything enqueued before it. */
XPURT_API XpurtResult xpurtBarrier(XpurtTaskQueue queue);
/* Waits for everything enqueued so far. Returns the first failure of queued work since the last
 * sync (XPURT_ERROR_EXECUTION_FAILED, with its message), else XPURT_SUCCESS. */
XPURT_API XpurtResult xpurtSync(XpurtTaskQueue queue);
/* The queue's handle in its driver: Level Zero, its immediate command list (a batched queue:
 * its command queue); CUDA, its stream (an out-of-order queue: the first of its streams). The
 * CPU device: XPURT_ERROR_UNSUPPORTED. Work the program submits there is ordered with the
 * queue's own only as the driver orders it. */
XPURT_API XpurtResult xpurtQueueGetNativeHandle(XpurtTaskQueue queue, void **handle);

/* ---- graphs ----------------------------------------------------------------------------- */
/* A graph records copies, fills, launches, host callbacks, waits and other graphs once, with
 * the dependencies between them; xpurtGraphInstantiate makes an executable graph for a device,
 * which a queue launches any number of times. A node runs after the nodes named in its deps
 * (earlier nodes) and after the earlier nodes whose declared memory conflicts with its own
 * (read after write, write after read, write after write on overlapping bytes of the same
 * memory). Copies and fills declare what they touch, a general launch its view arguments,
 * a task launch and a host callback the accesses given; a node that declares nothing runs
 * after its deps alone. Nodes are checked as they are added, as a queue checks a command; a
 * graph is not tied to a device until it is instantiated. A failed node (a host callback that
 * reports failure, a wait on a future that failed) fails the launch's future with its
 * message, on every device alike: the host callbacks after it (through deps or declared
 * memory, however far) do not run; the kernels, copies and fills after it still run, on what
 * the failed node left in memory (a GPU runs them without the host in between); every node
 * not after it runs.
 * Every xpurtGraphAdd* function takes numDeps nodes at deps (may be NULL when 0) and writes
 * the new node's number to *node (may be NULL). */

XPURT_API XpurtResult xpurtNewGraph(XpurtGraph *graph);
XPURT_API XpurtResult xpurtGraphAddCopyToDevice(XpurtGraph graph, XpurtMemoryView view,
                                                size_t offset, size_t size, uint32_t numDeps,
                                                const XpurtGraphNode *deps, XpurtGraphNode *node);
XPURT_API XpurtResult xpurtGraphAddCopyToHost(XpurtGraph graph, XpurtMemoryView view, size_t offset,
                                              size_t size, uint32_t numDeps,
                                              const XpurtGraphNode *deps, XpurtGraphNode *node);
XPURT_API XpurtResult xpurtGraphAddCopyMemoryView(XpurtGraph graph, XpurtMemoryView dst,
                                                  XpurtMemoryView src, size_t dstOffset,
                                                  size_t srcOffset, size_t size, uint32_t numDeps,
                                                  const XpurtGraphNode *deps, XpurtGraphNode *node);
XPURT_API XpurtResult xpurtGraphAddFill(XpurtGraph graph, XpurtMemoryView view, size_t offset,
                                        size_t size, const void *pattern, size_t patternSize,
                                        uint32_t numDeps, const XpurtGraphNode *deps,
                                        XpurtGraphNode *node);
/* A task launch (xpurtLaunchWithAccess); numAccesses 0 declares nothing. */
XPURT_API XpurtResult xpurtGraphAddLaunch(XpurtGraph graph, XpurtKernel kernel,
                                          XpurtMemoryView params, uint32_t numAccesses,
                                          const XpurtViewAccess *accesses, size_t d0, size_t d1,
                                          size_t d2, uint32_t numDeps, const XpurtGraphNode *deps,
                                          XpurtGraphNode *node);
/* A general launch (xpurtLaunchKernel). */
XPURT_API XpurtResult xpurtGraphAddLaunchKernel(XpurtGraph graph, XpurtKernel kernel,
                                                uint32_t numArgs, const XpurtKernelArg *args,
                                                uint32_t workDim, const size_t *globalOffset,
                                                const size_t *globalSize, const size_t *localSize,
                                                uint32_t numDeps, const XpurtGraphNode *deps,
                                                XpurtGraphNode *node);
/* func(userData) on a host thread at each launch. The accesses (host copies of DEVICE views)
 * order it like any node. destroy(userData), if not NULL, is called once the graph and every
 * executable graph made from it are released (or at once if the call fails). */
XPURT_API XpurtResult xpurtGraphAddHostCallback(XpurtGraph graph, XpurtHostFunc func,
                                                void *userData, XpurtDestroyFunc destroy,
                                                uint32_t numAccesses,
                                                const XpurtViewAccess *accesses, uint32_t numDeps,
                                                const XpurtGraphNode *deps, XpurtGraphNode *node);
/* Waits for futures of any queue of the instantiating device's backend. */
XPURT_API XpurtResult xpurtGraphAddWait(XpurtGraph graph, uint32_t numFutures,
                                        const XpurtFuture *futures, uint32_t numDeps,
                                        const XpurtGraphNode *deps, XpurtGraphNode *node);
/* Does nothing: a join point. */
XPURT_API XpurtResult xpurtGraphAddEmpty(XpurtGraph graph, uint32_t numDeps,
                                         const XpurtGraphNode *deps, XpurtGraphNode *node);
/* Every node of child as it is now (later changes to child do not show), as one node: it
 * starts after deps, and what depends on it runs after all of it. */
XPURT_API XpurtResult xpurtGraphAddChildGraph(XpurtGraph graph, XpurtGraph child, uint32_t numDeps,
                                              const XpurtGraphNode *deps, XpurtGraphNode *node);
/* Edges from[i] -> to[i] between existing nodes. An edge that would close a cycle is
 * INVALID_ARGUMENT, and then no edge is added. */
XPURT_API XpurtResult xpurtGraphAddDependencies(XpurtGraph graph, uint32_t count,
                                                const XpurtGraphNode *from,
                                                const XpurtGraphNode *to);

/* Many nodes in one call (xpurtGraphAddNodes): empty nodes, task launches and general
 * launches, each as its xpurtGraphAdd* function adds it, for one lookup of the graph, one lock
 * and one growth of its node list in all. A dependency is an earlier node of the graph, or
 * XPURT_GRAPH_BATCH_NODE(i): node i of the same call, which must come before the node naming
 * it. Copies, fills, host callbacks, waits and child graphs have their own functions only. */
typedef enum XpurtGraphNodeType {
  XPURT_GRAPH_NODE_EMPTY = 0,        /* xpurtGraphAddEmpty */
  XPURT_GRAPH_NODE_LAUNCH = 1,       /* xpurtGraphAddLaunch */
  XPURT_GRAPH_NODE_LAUNCH_KERNEL = 2 /* xpurtGraphAddLaunchKernel */
} XpurtGraphNodeType;

#define XPURT_GRAPH_BATCH_NODE(i) ((XpurtGraphNode)(0x80000000u | (uint32_t)(i)))

typedef struct XpurtGraphNodeDesc {
  uint32_t structSize; /* sizeof(XpurtGraphNodeDesc) (see above), the same in every element */
  XpurtGraphNodeType type;
  uint32_t numDeps;
  const XpurtGraphNode *deps;
  XpurtKernel kernel; /* LAUNCH and LAUNCH_KERNEL */
  /* LAUNCH: the arguments of xpurtGraphAddLaunch (params may be NULL; d: d0, d1, d2) */
  XpurtMemoryView params;
  uint32_t numAccesses;
  const XpurtViewAccess *accesses;
  size_t d[3];
  /* LAUNCH_KERNEL: the arguments of xpurtGraphAddLaunchKernel */
  uint32_t numArgs;
  const XpurtKernelArg *args;
  uint32_t workDim;
  const size_t *globalOffset;
  const size_t *globalSize;
  const size_t *localSize;
} XpurtGraphNodeDesc;

/* Adds count nodes, described at nodes (an array of XpurtGraphNodeDesc of the caller's
 * structSize), numbered *first, *first + 1, ... in order (first may be NULL). All or none: a
 * node that its own function would refuse, or a dependency on a node of the call at or after
 * it, fails the call with a message naming nodes[i], and no node is added. */
XPURT_API XpurtResult xpurtGraphAddNodes(XpurtGraph graph, uint32_t count,
                                         const XpurtGraphNodeDesc *nodes, XpurtGraphNode *first);
XPURT_API XpurtResult xpurtGraphGetNodeCount(XpurtGraph graph, uint32_t *count);
/* The graph in Graphviz's DOT language. *size: in, the capacity of buffer (buffer may be NULL
 * with 0); out, the bytes the text needs with its terminating NUL (also when it fails). A
 * buffer too small gets nothing and XPURT_ERROR_OUT_OF_RANGE. */
XPURT_API XpurtResult xpurtGraphExportDot(XpurtGraph graph, char *buffer, size_t *size);

/* Until xpurtQueueEndCapture, commands enqueued on queue become nodes of graph (after its
 * existing nodes) instead of running: each after the one before on an in-order queue; ordered
 * by declared memory, barriers and waits on an out-of-order one. Captured commands hand back
 * no future (*future is set to NULL); xpurtSync and graph launches on a capturing queue fail. */
XPURT_API XpurtResult xpurtQueueBeginCapture(XpurtTaskQueue queue, XpurtGraph graph);
XPURT_API XpurtResult xpurtQueueEndCapture(XpurtTaskQueue queue);

/* Checks every node against device (its views and kernels must be usable there) and lowers
 * the graph for it: a DAG of dependency counters on oneTBB on the CPU, one CUDA graph on a
 * CUDA device, regular command lists recorded once on Level Zero; a graph that uses COHERENT
 * views runs as one instantiated for this device alone by xpurtGraphInstantiateOnDevices. A
 * cycle, or a node pinned to another device, is INVALID_ARGUMENT. Later changes to graph do
 * not change the executable graph. */
XPURT_API XpurtResult xpurtGraphInstantiate(XpurtGraph graph, XpurtDevice device,
                                            XpurtGraphExec *exec);
/* Graphs across devices. xpurtGraphSetNodeDevice pins node to device (NULL: unpins it);
 * xpurtGraphInstantiateOnDevices makes an executable graph whose every node runs on one of
 * numDevices devices (distinct): a pinned node where it is pinned; a node on memory of one
 * device (DEVICE or SHARED views) there; a kernel launch wherever its module's SPIR-V loads
 * (loaded on first use, a native module's kernels on its own device only); every other node
 * where the runtime expects it to finish first, from where the COHERENT data it reads is up to
 * date and what its kernel took on each kind of device in earlier launches of graphs placed
 * this way (learned per kernel and device model, kept in the JIT cache folder as
 * kernel-times.txt; a kernel not yet measured on some device goes there first, to be). Nodes
 * are placed once, at instantiation. A launch runs each node after its predecessors, those on
 * other devices included; COHERENT views are copied between devices as the nodes need them,
 * as for queues. A node that can run on none of the devices, or a pin to a device not among
 * them, is INVALID_ARGUMENT naming the node and why. xpurtGraphExecGetNodeDevice gives the
 * device a node of the graph runs on (a new reference: release it). */
XPURT_API XpurtResult xpurtGraphSetNodeDevice(XpurtGraph graph, XpurtGraphNode node,
                                              XpurtDevice device);
XPURT_API XpurtResult xpurtGraphInstantiateOnDevices(XpurtGraph graph, uint32_t numDevices,
                                                     const XpurtDevice *devices,
                                                     XpurtGraphExec *exec);
XPURT_API XpurtResult xpurtGraphExecGetNodeDevice(XpurtGraphExec exec, XpurtGraphNode node,
                                                  XpurtDevice *device);
/* Runs the executable graph on queue (of its device, or of any of its devices) after what was
 * enqueued before, as a barrier would, and after its own previous launch (launches of one
 * executable graph never overlap); what is enqueued after runs after it. The future's time
 * spans the whole graph. */
XPURT_API XpurtResult xpurtQueueLaunchGraph(XpurtTaskQueue queue, XpurtGraphExec exec,
                                            XpurtFuture *future);
/* For launches made after the call: every use of view `from` by the graph's nodes becomes a
 * use of `to`, which must have the same size and allocation type. Dependencies stay those of
 * the graph as built. */
XPURT_API XpurtResult xpurtGraphExecRebindView(XpurtGraphExec exec, XpurtMemoryView from,
                                               XpurtMemoryView to);
/* For launches made after the call: argument `index` of general launch `node` becomes *arg,
 * checked against the kernel's signature. */
XPURT_API XpurtResult xpurtGraphExecSetKernelArg(XpurtGraphExec exec, XpurtGraphNode node,
                                                 uint32_t index, const XpurtKernelArg *arg);

/* ---- futures ---------------------------------------------------------------------------- */

/* valid: the command has completed (successfully or not). Never blocks. */
XPURT_API XpurtResult xpurtFutureIsValid(XpurtFuture future, bool *valid);
/* Blocks until the command completes; returns XPURT_ERROR_EXECUTION_FAILED if it failed. */
XPURT_API XpurtResult xpurtFutureWait(XpurtFuture future);
/* Device execution time of the command in nanoseconds; waits for it to complete.
 * XPURT_ERROR_UNSUPPORTED if its queue was created without XPURT_QUEUE_FLAG_PROFILING. */
XPURT_API XpurtResult xpurtFutureTimeNs(XpurtFuture future, uint64_t *ns);

#ifdef __cplusplus
}
#endif

#endif /* XPURT_XPURT_H */
