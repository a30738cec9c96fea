// The C API of xpurt_mpi (include/xpurt/xpurt_mpi.h): handles over the shared objects, checks
// of what callers pass, and errors as codes with a message.
#include "context.hpp"
#include "distributed_graph.hpp"
#include "error.hpp"

#include <xpurt/xpurt_mpi.h>

#include <cstring>
#include <new>

struct XpurtMpiContext_ {
  std::shared_ptr<xpurt::mpi::Context> context;
};
struct XpurtMpiBuffer_ {
  std::shared_ptr<xpurt::mpi::Buffer> buffer;
};
struct XpurtMpiGraph_ {
  std::shared_ptr<xpurt::mpi::Graph> graph;
};

namespace {

using xpurt::mpi::Error;

thread_local std::string lastError;

template <class F>
XpurtResult guarded(F &&body) {
  try {
    body();
    return XPURT_SUCCESS;
  } catch (const Error &e) {
    lastError = e.what();
    return e.code();
  } catch (const std::bad_alloc &) {
    lastError = "out of memory";
    return XPURT_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception &e) {
    lastError = e.what();
    return XPURT_ERROR_UNKNOWN;
  }
}

template <class T>
void require(const T *p, const char *call, const char *what) {
  if (!p)
    throw Error(what[0] == '*' ? XPURT_ERROR_INVALID_ARGUMENT : XPURT_ERROR_INVALID_HANDLE,
                std::string(call) + ": " + (what[0] == '*' ? what + 1 : what) + " is NULL");
}

void requireRank(int rank, int ranks, bool allowSpecial, const char *call) {
  if (rank >= 0 && rank < ranks) return;
  if (allowSpecial && rank < 0 && rank >= -2) return;
  throw Error(XPURT_ERROR_INVALID_ARGUMENT,
              std::string(call) + ": rank " + std::to_string(rank) + " is not a rank of the " +
                  std::to_string(ranks) + " of the context" +
                  (allowSpecial ? " (nor XPURT_MPI_SPLIT or XPURT_MPI_OWNER)" : ""));
}

void requireSameContext(const xpurt::mpi::Graph &graph, const xpurt::mpi::Buffer &buffer,
                        const char *call) {
  if (graph.context() != buffer.context())
    throw Error(XPURT_ERROR_INVALID_ARGUMENT, std::string(call) + ": buffer #" +
                                                  std::to_string(buffer.id()) +
                                                  " belongs to another MPI context than the graph");
}

void requireItems(const xpurt::mpi::Buffer &buffer, size_t first, size_t count, const char *call) {
  if (count == 0 || first > buffer.items() || count > buffer.items() - first)
    throw Error(XPURT_ERROR_OUT_OF_RANGE, std::string(call) + ": items [" + std::to_string(first) +
                                              ", " + std::to_string(first) + " + " +
                                              std::to_string(count) + ") are not within the " +
                                              std::to_string(buffer.items()) +
                                              " items of buffer #" + std::to_string(buffer.id()) +
                                              " (and count must not be 0)");
}

}  // namespace

extern "C" {

const char *xpurtMpiLastErrorMessage(void) {
  return lastError.c_str();
}

XpurtResult xpurtMpiNewContext(MPI_Comm comm, XpurtDevice device, const XpurtMpiOptions *options,
                               XpurtMpiContext *context) {
  return guarded([&] {
    require(context, "xpurtMpiNewContext", "*context");
    XpurtMpiOptions o{};
    o.structSize = sizeof o;
    if (options) {
      if (options->structSize < sizeof(uint32_t) || options->structSize > sizeof o)
        throw Error(XPURT_ERROR_INVALID_ARGUMENT, "xpurtMpiNewContext: options->structSize is " +
                                                      std::to_string(options->structSize) +
                                                      ": set it to sizeof(XpurtMpiOptions)");
      std::memcpy(&o, options, options->structSize);
    }
    *context = new XpurtMpiContext_{xpurt::mpi::Context::create(comm, device, o)};
  });
}

XpurtResult xpurtMpiReleaseContext(XpurtMpiContext context) {
  return guarded([&] {
    require(context, "xpurtMpiReleaseContext", "context");
    std::unique_ptr<XpurtMpiContext_> owned(context);
    owned->context->shutdown();
  });
}

XpurtResult xpurtMpiContextGetRank(XpurtMpiContext context, int *rank) {
  return guarded([&] {
    require(context, "xpurtMpiContextGetRank", "context");
    require(rank, "xpurtMpiContextGetRank", "*rank");
    *rank = context->context->rank();
  });
}

XpurtResult xpurtMpiContextGetSize(XpurtMpiContext context, int *size) {
  return guarded([&] {
    require(context, "xpurtMpiContextGetSize", "context");
    require(size, "xpurtMpiContextGetSize", "*size");
    *size = context->context->ranks();
  });
}

XpurtResult xpurtMpiWait(XpurtMpiContext context) {
  return guarded([&] {
    require(context, "xpurtMpiWait", "context");
    context->context->wait();
  });
}

XpurtResult xpurtMpiGetStats(XpurtMpiContext context, XpurtMpiStats *stats) {
  return guarded([&] {
    require(context, "xpurtMpiGetStats", "context");
    require(stats, "xpurtMpiGetStats", "*stats");
    if (stats->structSize < sizeof(uint32_t))
      throw Error(XPURT_ERROR_INVALID_ARGUMENT, "xpurtMpiGetStats: stats->structSize is " +
                                                    std::to_string(stats->structSize) +
                                                    ": set it to sizeof(XpurtMpiStats)");
    XpurtMpiStats s = context->context->stats();
    s.structSize = stats->structSize;
    std::memcpy(stats, &s, std::min<size_t>(stats->structSize, sizeof s));
  });
}

XpurtResult xpurtMpiNewBuffer(XpurtMpiContext context, size_t items, size_t itemSize,
                              const void *initial, XpurtMpiBuffer *buffer) {
  return guarded([&] {
    require(context, "xpurtMpiNewBuffer", "context");
    require(buffer, "xpurtMpiNewBuffer", "*buffer");
    if (items == 0 || itemSize == 0 || items > SIZE_MAX / itemSize)
      throw Error(XPURT_ERROR_INVALID_ARGUMENT,
                  "xpurtMpiNewBuffer: " + std::to_string(items) + " items of " +
                      std::to_string(itemSize) +
                      " bytes: both must be at least 1 and their product must fit in size_t");
    *buffer = new XpurtMpiBuffer_{context->context->newBuffer(items, itemSize, initial)};
  });
}

XpurtResult xpurtMpiReleaseBuffer(XpurtMpiBuffer buffer) {
  return guarded([&] {
    require(buffer, "xpurtMpiReleaseBuffer", "buffer");
    delete buffer;
  });
}

XpurtResult xpurtMpiBufferGetOwnedItems(XpurtMpiBuffer buffer, int rank, size_t *first,
                                        size_t *count) {
  return guarded([&] {
    require(buffer, "xpurtMpiBufferGetOwnedItems", "buffer");
    require(first, "xpurtMpiBufferGetOwnedItems", "*first");
    require(count, "xpurtMpiBufferGetOwnedItems", "*count");
    requireRank(rank, buffer->buffer->context()->ranks(), false, "xpurtMpiBufferGetOwnedItems");
    xpurt::mpi::ItemRange own = buffer->buffer->owned(rank);
    *first = own.lo;
    *count = own.size();
  });
}

XpurtResult xpurtMpiNewGraph(XpurtMpiContext context, XpurtMpiGraph *graph) {
  return guarded([&] {
    require(context, "xpurtMpiNewGraph", "context");
    require(graph, "xpurtMpiNewGraph", "*graph");
    *graph = new XpurtMpiGraph_{std::make_shared<xpurt::mpi::Graph>(context->context)};
  });
}

XpurtResult xpurtMpiReleaseGraph(XpurtMpiGraph graph) {
  return guarded([&] {
    require(graph, "xpurtMpiReleaseGraph", "graph");
    delete graph;
  });
}

XpurtResult xpurtMpiGraphAddLaunch(XpurtMpiGraph graph, XpurtKernel kernel, uint32_t numArgs,
                                   const XpurtMpiArg *args, uint32_t workDim,
                                   const size_t *globalSize, const size_t *localSize, int rank) {
  const char *call = "xpurtMpiGraphAddLaunch";
  return guarded([&] {
    require(graph, call, "graph");
    require(kernel, call, "kernel");
    if (numArgs) require(args, call, "*args");
    require(globalSize, call, "*globalSize");
    const xpurt::mpi::Graph &g = *graph->graph;
    requireRank(rank, g.context()->ranks(), true, call);
    if (workDim < 1 || workDim > 3)
      throw Error(XPURT_ERROR_INVALID_ARGUMENT,
                  std::string(call) + ": workDim is " + std::to_string(workDim) + ": use 1 to 3");
    xpurt::mpi::Node node;
    node.kind = xpurt::mpi::Node::Kind::Launch;
    node.rank = rank;
    node.workDim = workDim;
    node.hasLocal = localSize != nullptr;
    for (uint32_t d = 0; d < workDim; ++d) {
      node.global[d] = globalSize[d];
      if (localSize) node.local[d] = localSize[d];
      if (globalSize[d] == 0 || (localSize && localSize[d] == 0))
        throw Error(XPURT_ERROR_INVALID_ARGUMENT, std::string(call) + ": dimension " +
                                                      std::to_string(d) +
                                                      " has a global or local size of 0");
    }
    node.kernel = std::make_shared<xpurt::mpi::KernelRef>(kernel);
    for (uint32_t i = 0; i < numArgs; ++i) {
      const XpurtMpiArg &a = args[i];
      std::string which = std::string(call) + ": args[" + std::to_string(i) + "]";
      xpurt::mpi::LaunchArg arg;
      arg.kind = a.kind;
      switch (a.kind) {
        case XPURT_KERNEL_ARG_VALUE:
          if (!a.value || a.size == 0)
            throw Error(XPURT_ERROR_INVALID_ARGUMENT,
                        which + " is a VALUE without bytes: give value and size");
          arg.value.assign(static_cast<const unsigned char *>(a.value),
                           static_cast<const unsigned char *>(a.value) + a.size);
          break;
        case XPURT_KERNEL_ARG_LOCAL:
          arg.localBytes = a.size;
          break;
        case XPURT_KERNEL_ARG_MEMORY_VIEW: {
          if (!a.buffer)
            throw Error(XPURT_ERROR_INVALID_HANDLE,
                        which + " is a buffer argument whose buffer is NULL");
          requireSameContext(g, *a.buffer->buffer, call);
          unsigned access;
          std::memcpy(&access, &a.access, sizeof access);
          unsigned mapper;
          std::memcpy(&mapper, &a.mapper, sizeof mapper);
          if (access > XPURT_ACCESS_WRITE || mapper > XPURT_RANGE_MAPPER_NEIGHBORHOOD)
            throw Error(XPURT_ERROR_INVALID_ARGUMENT,
                        which + " has access " + std::to_string(access) + " and mapper " +
                            std::to_string(mapper) +
                            ": use XPURT_ACCESS_* and XPURT_RANGE_MAPPER_*");
          if (a.halo > a.buffer->buffer->items())
            throw Error(XPURT_ERROR_INVALID_ARGUMENT,
                        which + " has a halo of " + std::to_string(a.halo) +
                            " items, more than the buffer's " +
                            std::to_string(a.buffer->buffer->items()));
          arg.buffer = a.buffer->buffer;
          arg.access = a.access;
          arg.mapper = a.mapper;
          arg.halo = a.halo;
          break;
        }
        default:
          throw Error(
              XPURT_ERROR_INVALID_ARGUMENT,
              which + " has an unknown kind: use XPURT_KERNEL_ARG_VALUE, _LOCAL or _MEMORY_VIEW");
      }
      node.args.push_back(std::move(arg));
    }
    if (rank == XPURT_MPI_OWNER) {
      // The owner of the first item the first written buffer argument touches.
      node.rank = -1;
      size_t n = node.global[workDim - 1];
      for (const xpurt::mpi::LaunchArg &arg : node.args)
        if (arg.buffer && arg.access != XPURT_ACCESS_READ) {
          xpurt::mpi::ItemRange t = arg.touched({0, n});
          node.rank = arg.buffer->ownerOf(t.empty() ? 0 : t.lo);
          break;
        }
      if (node.rank < 0)
        throw Error(XPURT_ERROR_INVALID_ARGUMENT,
                    std::string(call) +
                        ": XPURT_MPI_OWNER places a launch by the buffer it "
                        "writes, and this one writes none: give a rank");
    }
    graph->graph->add(std::move(node));
  });
}

static XpurtResult addHost(XpurtMpiGraph graph, XpurtMpiBuffer buffer, size_t first, size_t count,
                           void *dst, const void *src, int rank, bool read) {
  const char *call = read ? "xpurtMpiGraphAddRead" : "xpurtMpiGraphAddWrite";
  return guarded([&] {
    require(graph, call, "graph");
    require(buffer, call, "buffer");
    const xpurt::mpi::Graph &g = *graph->graph;
    requireSameContext(g, *buffer->buffer, call);
    int ranks = g.context()->ranks();
    if (rank != XPURT_MPI_ALL_RANKS) requireRank(rank, ranks, false, call);
    requireItems(*buffer->buffer, first, count, call);
    int me = g.context()->rank();
    if ((rank == me || rank == XPURT_MPI_ALL_RANKS) && !(read ? dst : src))
      throw Error(XPURT_ERROR_INVALID_ARGUMENT, std::string(call) + ": " + (read ? "dst" : "src") +
                                                    " is NULL on rank " + std::to_string(me) +
                                                    ", which the node is for");
    xpurt::mpi::Node node;
    node.kind = read ? xpurt::mpi::Node::Kind::Read : xpurt::mpi::Node::Kind::Write;
    node.rank = rank;
    node.buffer = buffer->buffer;
    node.items = {first, first + count};
    node.dst = dst;
    node.src = src;
    graph->graph->add(std::move(node));
  });
}

XpurtResult xpurtMpiGraphAddRead(XpurtMpiGraph graph, XpurtMpiBuffer buffer, size_t first,
                                 size_t count, void *dst, int rank) {
  return addHost(graph, buffer, first, count, dst, nullptr, rank, true);
}

XpurtResult xpurtMpiGraphAddWrite(XpurtMpiGraph graph, XpurtMpiBuffer buffer, size_t first,
                                  size_t count, const void *src, int rank) {
  return addHost(graph, buffer, first, count, nullptr, src, rank, false);
}

XpurtResult xpurtMpiGraphLaunch(XpurtMpiGraph graph) {
  return guarded([&] {
    require(graph, "xpurtMpiGraphLaunch", "graph");
    graph->graph->context()->launch(*graph->graph);
  });
}

}  // extern "C"
