/* Inspection and fault injection for xpurt's Level Zero CPU driver (libze_xpurt_cpu.so).
 *
 * Tests load the driver through the Level Zero loader (ZE_ENABLE_ALT_DRIVERS=<path>) and then
 * dlopen the same path, which returns the loader's handle, to look these functions up with
 * dlsym. Nothing here is part of Level Zero; an application never needs it. */
#ifndef XPURT_ZE_CPU_INSPECT_H
#define XPURT_ZE_CPU_INSPECT_H

#include <level_zero/ze_api.h>

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XPURT_ZE_CPU_API __attribute__((visibility("default")))

/* Waited events kept in a record; XpurtZeCpuRecord.numWaitEvents counts them all. */
#define XPURT_ZE_CPU_RECORD_INLINE_WAITS 4

typedef enum XpurtZeCpuCommandKind {
  XPURT_ZE_CPU_COMMAND_COPY = 1,
  XPURT_ZE_CPU_COMMAND_COPY_REGION = 2,
  XPURT_ZE_CPU_COMMAND_FILL = 3,
  XPURT_ZE_CPU_COMMAND_LAUNCH = 4, /* direct and indirect launches */
  XPURT_ZE_CPU_COMMAND_BARRIER = 5,
  XPURT_ZE_CPU_COMMAND_MEMORY_RANGES_BARRIER = 6,
  XPURT_ZE_CPU_COMMAND_SIGNAL_EVENT = 7,
  XPURT_ZE_CPU_COMMAND_WAIT_EVENTS = 8,
  XPURT_ZE_CPU_COMMAND_RESET_EVENT = 9,
  XPURT_ZE_CPU_COMMAND_QUERY_KERNEL_TIMESTAMPS = 10,
  XPURT_ZE_CPU_COMMAND_WRITE_GLOBAL_TIMESTAMP = 11,
  XPURT_ZE_CPU_COMMAND_PREFETCH = 12,
  XPURT_ZE_CPU_COMMAND_MEM_ADVISE = 13
} XpurtZeCpuCommandKind;

/* One executed command. For AppendWaitOnEvents the waited events are the ones it names; for
 * AppendSignalEvent and AppendEventReset, signalEvent is the event it signals or resets. */
typedef struct XpurtZeCpuRecord {
  uint64_t sequence;   /* order of execution, from 0 at the last xpurtZeCpuRecordClear */
  uint32_t kind;       /* an XpurtZeCpuCommandKind */
  uint32_t ordinal;    /* the command queue group ordinal it ran on */
  uint32_t queueIndex; /* the queue index within that group */
  ze_result_t result;  /* ZE_RESULT_SUCCESS, or ZE_RESULT_ERROR_DEVICE_LOST for a failed launch */
  ze_command_list_handle_t commandList; /* the list it was appended to */
  ze_event_handle_t signalEvent;        /* or NULL */
  uint32_t numWaitEvents;               /* all of them; the first ones are in waitEvents */
  ze_event_handle_t waitEvents[XPURT_ZE_CPU_RECORD_INLINE_WAITS];
} XpurtZeCpuRecord;

/* Recording: off until started; records accumulate until cleared. */
XPURT_ZE_CPU_API void xpurtZeCpuRecordStart(void);
XPURT_ZE_CPU_API void xpurtZeCpuRecordStop(void);
XPURT_ZE_CPU_API void xpurtZeCpuRecordClear(void);
XPURT_ZE_CPU_API uint64_t xpurtZeCpuRecordCount(void);
/* Copies record `index` (0 = the oldest) into *record; nonzero if there is no such record. */
XPURT_ZE_CPU_API int xpurtZeCpuRecordGet(uint64_t index, XpurtZeCpuRecord *record);

/* Level Zero calls (every ze* entry point of the driver) made since the driver was loaded. */
XPURT_ZE_CPU_API uint64_t xpurtZeCpuCallCount(void);
/* The same, made by the calling thread only: what an application's thread pays for, apart
 * from the calls of the runtime's own threads (a queue's completion thread). */
XPURT_ZE_CPU_API uint64_t xpurtZeCpuThreadCallCount(void);

/* Replaces the injected faults. `spec` is a comma-separated list of
 *   zeFunctionName=ZE_RESULT_ERROR_NAME     every call of that function fails with that code
 *   zeFunctionName=ZE_RESULT_ERROR_NAME@N   only its N-th call from now (N >= 1) fails
 * An empty string (or NULL) clears them. A failing call does nothing but return the code.
 * Returns 0, or nonzero for a function the driver does not implement, an unknown result name
 * or a malformed entry (then printed on stderr, and the faults are left as they were). The
 * same list is read from XPURT_ZE_CPU_FAULTS when zeInit is first called. */
XPURT_ZE_CPU_API int xpurtZeCpuSetFaults(const char *spec);

#ifdef __cplusplus
}
#endif

#endif /* XPURT_ZE_CPU_INSPECT_H */
