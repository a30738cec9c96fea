/* xpurt_mpi — one task graph over many processes (MPI ranks), each on a device of its own.
 *
 * A separate library (libxpurt_mpi) over MPI, so that libxpurt itself has no MPI dependency.
 * The model is StarPU-MPI's and Celerity's (SPMD): every rank of a communicator creates the
 * same buffers and records the same graphs, in the same order, and launches them in the same
 * order. A buffer is an array of items distributed over the ranks by blocks; a launch either
 * runs on one rank or is split over every rank by the last dimension of its ND-range (rank r
 * gets the r-th block of work-groups); each buffer argument declares, through a range mapper,
 * which items each rank's part reads and writes. From those declarations the library infers
 * which items must move between ranks before each part runs, sends them (non-blocking MPI,
 * progressed by a communication thread of the context) and receives them straight into the
 * rank's copy of the buffer. Every rank knows, from the same declarations, which rank holds an
 * up-to-date copy of every item: nothing is sent twice, and items no one changed are not sent
 * again when a graph is launched again.
 *
 *   MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
 *   xpurtMpiNewContext(MPI_COMM_WORLD, device, NULL, &ctx);    // every rank, its own device
 *   xpurtMpiNewBuffer(ctx, rows, rowBytes, initial, &in);       // each rank owns a block of rows
 *   xpurtMpiNewGraph(ctx, &step);
 *   XpurtMpiArg args[] = {XPURT_MPI_ARG_BUFFER(in, XPURT_ACCESS_READ,
 * XPURT_RANGE_MAPPER_NEIGHBORHOOD, 1), ...}; xpurtMpiGraphAddLaunch(step, kernel, 4, args, 2,
 * global, NULL, XPURT_MPI_SPLIT); xpurtMpiGraphLaunch(step); ... xpurtMpiWait(ctx);
 *
 * Failures: an error on one rank (a kernel that fails, an MPI error) is sent to every other
 * rank, whose xpurtMpiWait then fails with a message naming the rank; a rank that falls silent
 * (its process died or hangs) for longer than the context's timeout fails the others the same
 * way. Graphs launched in different orders, or different graphs launched together, are
 * detected at launch and fail every rank with a message naming the ranks that differ, instead
 * of exchanging the wrong data or deadlocking. A failed context refuses further work (it is
 * still released as usual); libxpurt's own objects stay usable.
 *
 * Errors are returned as XpurtResult codes; xpurtMpiLastErrorMessage() says what was wrong and
 * what to do, for the calling thread's last failed call. */
#ifndef XPURT_XPURT_MPI_H
#define XPURT_XPURT_MPI_H

#include <mpi.h>
#include <xpurt/xpurt.h>

#if defined(XPURT_MPI_BUILDING_LIBRARY)
#define XPURT_MPI_API __attribute__((visibility("default")))
#else
#define XPURT_MPI_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct XpurtMpiContext_ *XpurtMpiContext;
typedef struct XpurtMpiBuffer_ *XpurtMpiBuffer;
typedef struct XpurtMpiGraph_ *XpurtMpiGraph;

/* Where a launch runs (xpurtMpiGraphAddLaunch): a rank number, or */
#define XPURT_MPI_SPLIT (-1) /* split over every rank by blocks of work-groups */
#define XPURT_MPI_OWNER (-2) /* on the rank that owns the first item it writes */
/* Which ranks a host read or write is for (xpurtMpiGraphAddRead/Write): a rank number, or */
#define XPURT_MPI_ALL_RANKS (-1)

typedef struct XpurtMpiOptions {
  uint32_t structSize; /* sizeof(XpurtMpiOptions), as for xpurt.h's option structs */
  /* How long a rank that other ranks wait for may stay silent before they fail naming it, in
   * milliseconds (0: 10000). Ranks send each other a small message every timeoutMs / 4 while
   * a context lives, so a long kernel on one rank is not taken for a failure. */
  uint32_t timeoutMs;
} XpurtMpiOptions;

/* A collective call over comm: every rank passes its own device (e.g. the GPU of its local
 * rank); if any rank's device is NULL or cannot make a queue, every rank fails, naming it. MPI must
 * be initialised with MPI_THREAD_MULTIPLE: the context's communication thread calls MPI beside the
 * application's threads. The context works on a duplicate of comm, so its messages never match the
 * application's. options may be NULL. */
XPURT_MPI_API XpurtResult xpurtMpiNewContext(MPI_Comm comm, XpurtDevice device,
                                             const XpurtMpiOptions *options,
                                             XpurtMpiContext *context);
/* Collective: waits for the work launched on the context (returning its error, if it failed),
 * then frees it. Buffers and graphs keep what they need of it alive until they are released
 * (which may come after MPI_Finalize); the context itself must be released before it. */
XPURT_MPI_API XpurtResult xpurtMpiReleaseContext(XpurtMpiContext context);
XPURT_MPI_API XpurtResult xpurtMpiContextGetRank(XpurtMpiContext context, int *rank);
XPURT_MPI_API XpurtResult xpurtMpiContextGetSize(XpurtMpiContext context, int *size);
/* Waits until every graph this rank launched on the context has completed here. Returns the
 * first failure on any rank, with a message naming the rank: on the rank where it happened,
 * that failure's own code (XPURT_ERROR_EXECUTION_FAILED for a kernel or copy, DEVICE_LOST for
 * MPI); on the others XPURT_ERROR_EXECUTION_FAILED; XPURT_ERROR_DEVICE_LOST everywhere for a
 * rank that fell silent; XPURT_ERROR_INVALID_ARGUMENT everywhere for ranks that did not do the
 * same (see above). */
XPURT_MPI_API XpurtResult xpurtMpiWait(XpurtMpiContext context);
/* What the context moved between ranks so far (counted when sent or received). */
typedef struct XpurtMpiStats {
  uint32_t structSize;    /* sizeof(XpurtMpiStats): the library writes only that many bytes */
  uint64_t bytesSent;     /* buffer bytes this rank sent to other ranks */
  uint64_t bytesReceived; /* buffer bytes this rank received */
  uint64_t messagesSent;  /* buffer messages (control messages are not counted) */
  uint64_t messagesReceived;
  uint64_t bytesHeld; /* bytes of this rank's copies of the context's buffers, now */
} XpurtMpiStats;
XPURT_MPI_API XpurtResult xpurtMpiGetStats(XpurtMpiContext context, XpurtMpiStats *stats);
/* The message of the calling thread's last failed xpurt_mpi call. */
XPURT_MPI_API const char *xpurtMpiLastErrorMessage(void);

/* Collective: a buffer of `items` items of itemSize bytes, rank r owning the r-th of
 * size-of-communicator blocks (as equal as they come: xpurtMpiBufferGetOwnedItems). Each rank
 * keeps on its device a copy of the items from the first to the last it owns or its nodes
 * touch (its block at first, grown as graphs that touch more are launched; never shrunk).
 * initial: the whole buffer's contents (each rank copies its own block from it; the same on
 * every rank), or NULL for zeros. */
XPURT_MPI_API XpurtResult xpurtMpiNewBuffer(XpurtMpiContext context, size_t items, size_t itemSize,
                                            const void *initial, XpurtMpiBuffer *buffer);
XPURT_MPI_API XpurtResult xpurtMpiReleaseBuffer(XpurtMpiBuffer buffer);
XPURT_MPI_API XpurtResult xpurtMpiBufferGetOwnedItems(XpurtMpiBuffer buffer, int rank,
                                                      size_t *first, size_t *count);

/* An argument of xpurtMpiGraphAddLaunch: as XpurtKernelArg (VALUE and LOCAL the same), and
 * for kind XPURT_KERNEL_ARG_MEMORY_VIEW, a buffer, whose device pointer (of item 0, on the
 * rank's device) the kernel gets, with what each part of the launch does with its items: item
 * i is the global id i of the launch's last dimension, and the mapper (XpurtRangeMapper of
 * xpurt.h) names the items a part with ids [lo, hi) touches: ALL the whole buffer, ONE_TO_ONE
 * [lo, hi), NEIGHBORHOOD [lo - halo, hi + halo) (within the buffer). */
typedef struct XpurtMpiArg {
  XpurtKernelArgKind kind;
  size_t size;       /* VALUE: bytes at value; LOCAL: bytes per work-group */
  const void *value; /* VALUE: copied when the node is added */
  XpurtMpiBuffer buffer;
  XpurtAccess access;
  XpurtRangeMapper mapper;
  size_t halo;
} XpurtMpiArg;
#define XPURT_MPI_ARG_VALUE(pointer, bytes) \
  { XPURT_KERNEL_ARG_VALUE, (bytes), (pointer), NULL, XPURT_ACCESS_READ, XPURT_RANGE_MAPPER_ALL, 0 }
#define XPURT_MPI_ARG_BUFFER(buf, acc, map, haloItems) \
  { XPURT_KERNEL_ARG_MEMORY_VIEW, 0, NULL, (buf), (acc), (map), (haloItems) }

/* Graphs. Every rank records the same nodes in the same order; a node runs after the nodes
 * before it that touch the same items (one of them writing): the order is the recording order,
 * and the dependencies are those the declarations imply. */
XPURT_MPI_API XpurtResult xpurtMpiNewGraph(XpurtMpiContext context, XpurtMpiGraph *graph);
XPURT_MPI_API XpurtResult xpurtMpiReleaseGraph(XpurtMpiGraph graph);
/* A kernel launch (kernel: loaded on this rank's device) over globalSize[0..workDim) work-items
 * in groups of localSize (NULL: the runtime chooses, whole groups of 1 along the split
 * dimension), on `rank`: a rank number, XPURT_MPI_SPLIT or XPURT_MPI_OWNER. The global ids are
 * those of the whole launch on every rank. */
XPURT_MPI_API XpurtResult xpurtMpiGraphAddLaunch(XpurtMpiGraph graph, XpurtKernel kernel,
                                                 uint32_t numArgs, const XpurtMpiArg *args,
                                                 uint32_t workDim, const size_t *globalSize,
                                                 const size_t *localSize, int rank);
/* Items [first, first + count) of buffer copied to dst (count * itemSize bytes) on `rank` (or
 * XPURT_MPI_ALL_RANKS), at this point of the graph; the bytes are there once xpurtMpiWait has
 * returned. Other ranks ignore dst (it may be NULL there). */
XPURT_MPI_API XpurtResult xpurtMpiGraphAddRead(XpurtMpiGraph graph, XpurtMpiBuffer buffer,
                                               size_t first, size_t count, void *dst, int rank);
/* Items [first, first + count) of buffer become the count * itemSize bytes at src of `rank` (or,
 * with XPURT_MPI_ALL_RANKS, of every rank: the same bytes, so no rank needs them sent), read
 * when the node runs. Other ranks ignore src. */
XPURT_MPI_API XpurtResult xpurtMpiGraphAddWrite(XpurtMpiGraph graph, XpurtMpiBuffer buffer,
                                                size_t first, size_t count, const void *src,
                                                int rank);
/* Collective: runs the graph on every rank, after the graphs launched before it, and returns at
 * once (xpurtMpiWait waits). */
XPURT_MPI_API XpurtResult xpurtMpiGraphLaunch(XpurtMpiGraph graph);

#ifdef __cplusplus
}
#endif

#endif /* XPURT_XPURT_MPI_H */
