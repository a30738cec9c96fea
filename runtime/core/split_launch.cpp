#include "split_launch.hpp"

#include "error.hpp"

#include <algorithm>
#include <atomic>

namespace xpurt::core {

namespace {

// The driver of a split launch's event: looking at it or waiting for it looks at or waits for
// each chunk, so that queues that hold their commands submit them.
class JoinedDriver : public EventDriver {
 public:
  explicit JoinedDriver(std::vector<Ref<Event>> parts) : parts_(std::move(parts)) {}
  void poll() override {
    for (const Ref<Event> &e : parts_) e->ready();
  }
  void helpUntil(const std::function<bool()> &done) override {
    for (const Ref<Event> &e : parts_) {
      if (done()) return;
      e->wait();
    }
  }

 private:
  std::vector<Ref<Event>> parts_;
};

const char *mapperName(uint32_t mapper) {
  switch (mapper) {
    case XPURT_RANGE_MAPPER_ALL:
      return "ALL";
    case XPURT_RANGE_MAPPER_ONE_TO_ONE:
      return "ONE_TO_ONE";
    case XPURT_RANGE_MAPPER_NEIGHBORHOOD:
      return "NEIGHBORHOOD";
  }
  return "?";
}

// The bytes [begin, end) of an argument's view that the launch may touch.
struct ArgRange {
  size_t begin;
  size_t end;
};

ArgRange checkedArg(const SplitArgInput &in, size_t index, size_t first, size_t count) {
  const TaskQueue::ArgInput &a = in.arg;
  if (!a.view)
    fail(XPURT_ERROR_INVALID_HANDLE, "split launch argument {}: the memory view is NULL", index);
  if (!a.view->isCoherent())
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "split launch argument {}: a view of one device ({}); each chunk runs on another "
         "device, so every view of a split launch is COHERENT (xpurtNewCoherentMemoryView)",
         index, a.view->device().label());
  size_t size =
      a.view->checkedRange(a.offset, a.size ? a.size : XPURT_WHOLE_SIZE, "split launch argument");
  ArgRange r{a.offset, a.offset + size};
  switch (in.mapper) {
    case XPURT_RANGE_MAPPER_ALL:
      return r;
    case XPURT_RANGE_MAPPER_ONE_TO_ONE:
    case XPURT_RANGE_MAPPER_NEIGHBORHOOD:
      break;
    default:
      fail(XPURT_ERROR_INVALID_ARGUMENT,
           "split launch argument {}: range mapper {} is not one of XPURT_RANGE_MAPPER_ALL, "
           "_ONE_TO_ONE or _NEIGHBORHOOD",
           index, in.mapper);
  }
  if (in.pitch == 0)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "split launch argument {}: range mapper {} needs the bytes per item of the split "
         "dimension (pitch), which is 0",
         index, mapperName(in.mapper));
  // Items [first, first + count) of pitch bytes each, from the argument's offset.
  if (first + count > size / in.pitch)
    fail(XPURT_ERROR_OUT_OF_RANGE,
         "split launch argument {}: items up to {} of {} bytes each need {} bytes from offset "
         "{}, but the argument has {}; give a smaller pitch or range, or a larger view",
         index, first + count, in.pitch, (first + count) * in.pitch, a.offset, size);
  return r;
}

// The part of the argument that items [lo, hi) of the split dimension touch.
ArgRange chunkPart(const SplitArgInput &in, ArgRange whole, size_t lo, size_t hi) {
  if (in.mapper == XPURT_RANGE_MAPPER_ALL) return whole;
  size_t halo = in.mapper == XPURT_RANGE_MAPPER_NEIGHBORHOOD ? in.halo : 0;
  size_t from = lo > halo ? lo - halo : 0;
  size_t to = hi + std::min(halo, SIZE_MAX / 2);
  size_t begin = whole.begin + from * in.pitch;
  size_t end = to > (whole.end - whole.begin) / in.pitch ? whole.end : whole.begin + to * in.pitch;
  return {begin, end};
}

}  // namespace

Ref<Event> launchSplit(std::span<TaskQueue *const> queues, std::span<Kernel *const> kernels,
                       std::span<const SplitArgInput> args, uint32_t workDim,
                       const size_t *globalOffset, const size_t *globalSize,
                       const size_t *localSize) {
  if (queues.empty())
    fail(XPURT_ERROR_INVALID_ARGUMENT, "a split launch needs at least one queue (numQueues 0)");
  if (workDim < 1 || workDim > 3)
    fail(XPURT_ERROR_INVALID_ARGUMENT, "a split launch of {} dimensions; give 1 to 3", workDim);
  if (!globalSize) fail(XPURT_ERROR_INVALID_ARGUMENT, "a split launch needs a global size");
  size_t dim = workDim - 1;
  size_t count = globalSize[dim];
  size_t first = globalOffset ? globalOffset[dim] : 0;
  size_t group = localSize ? localSize[dim] : 1;
  if (count == 0 || group == 0)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "a split launch of global size {} and local size {} in its last dimension, the one it "
         "is split along; give sizes of at least 1",
         count, group);
  std::vector<ArgRange> whole(args.size());
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].arg.kind == XPURT_KERNEL_ARG_MEMORY_VIEW)
      whole[i] = checkedArg(args[i], i, first, count);

  // Whole work-groups per chunk, as equal as they come; a queue past the last group gets none.
  struct Chunk {
    TaskQueue *queue;
    Command cmd;
    std::vector<CoherentAccess> uses;
  };
  std::vector<Chunk> chunks;
  size_t groups = (count + group - 1) / group;
  std::vector<TaskQueue::ArgInput> inputs;
  for (const SplitArgInput &a : args) inputs.push_back(a.arg);
  for (size_t k = 0; k < queues.size(); ++k) {
    size_t lo = groups * k / queues.size() * group;
    size_t hi = std::min(count, groups * (k + 1) / queues.size() * group);
    if (lo >= hi) continue;
    size_t offset[3] = {0, 0, 0}, size[3] = {1, 1, 1};
    for (uint32_t d = 0; d < workDim; ++d) {
      offset[d] = globalOffset ? globalOffset[d] : 0;
      size[d] = globalSize[d];
    }
    offset[dim] = first + lo;
    size[dim] = hi - lo;
    // Every chunk is built, and so checked, before any is submitted.
    Chunk c{queues[k],
            queues[k]->buildChunk(*kernels[k], inputs, workDim, offset, size, localSize),
            {}};
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].arg.kind != XPURT_KERNEL_ARG_MEMORY_VIEW) continue;
      ArgRange part = chunkPart(args[i], whole[i], first + lo, first + hi);
      c.uses.push_back({args[i].arg.view, part.begin, part.end - part.begin, args[i].arg.access});
    }
    chunks.push_back(std::move(c));
  }
  std::vector<Ref<Event>> parts;
  for (Chunk &c : chunks) parts.push_back(c.queue->submitChunk(std::move(c.cmd), c.uses));
  if (parts.size() == 1) return parts.front();

  Ref<Event> done = makeRef<Event>();
  done->setDriver(std::make_shared<JoinedDriver>(parts));
  auto left = std::make_shared<std::atomic<size_t>>(parts.size());
  for (size_t k = 0; k < parts.size(); ++k)
    parts[k]->then([done, left, parts] {
      if (left->fetch_sub(1, std::memory_order_acq_rel) != 1) return;
      CommandTimes times;
      for (size_t j = 0; j < parts.size(); ++j) {
        CommandTimes t = parts[j]->times();
        if (t.startNs && (!times.startNs || t.startNs < times.startNs)) times.startNs = t.startNs;
        times.endNs = std::max(times.endNs, t.endNs);
      }
      for (size_t j = 0; j < parts.size(); ++j)
        if (parts[j]->failed()) {
          done->fail(fmt::format("chunk {} of a split launch: {}", j, parts[j]->errorMessage()),
                     times);
          return;
        }
      done->complete(times);
    });
  return done;
}

}  // namespace xpurt::core
