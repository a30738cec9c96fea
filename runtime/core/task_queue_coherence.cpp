// TaskQueue's commands on COHERENT memory views (coherent_memory.hpp): every command runs on
// this device's copy of the view, after the bytes it reads that the copy lacks have been copied
// in, and after other queues' work on the same bytes of that copy.
#include "coherent_memory.hpp"
#include "error.hpp"
#include "task_queue.hpp"

#include <algorithm>

namespace xpurt::core {

namespace {

// The views' coherence state, each locked once, in one global order (by address) so that two
// commands on the same views cannot deadlock.
class CoherentLocks {
 public:
  explicit CoherentLocks(std::span<const CoherentAccess> accesses) {
    for (const CoherentAccess &a : accesses) memories_.push_back(a.view->coherent());
    std::sort(memories_.begin(), memories_.end());
    memories_.erase(std::unique(memories_.begin(), memories_.end()), memories_.end());
    for (CoherentMemory *m : memories_) locks_.emplace_back(m->mutex());
  }
  const std::vector<CoherentMemory *> &memories() const { return memories_; }

 private:
  std::vector<CoherentMemory *> memories_;
  std::vector<std::unique_lock<std::mutex>> locks_;
};

// A range to copy into a place from another place that has it up to date.
struct Transfer {
  CoherentMemory *memory;
  size_t from;
  size_t to;
  size_t begin;
  size_t end;
};

// Where the bytes [begin, end) missing at place `to` come from: first the devices this one
// copies with directly, then the host memory, then any other device.
void planTransfers(CoherentMemory &m, Device *toDevice, size_t to, size_t begin, size_t end,
                   std::vector<Transfer> &out) {
  std::vector<size_t> order;
  for (size_t p = 1; p < m.placeCount(); ++p)
    if (p != to && toDevice && &m.deviceAt(p).backend() == &toDevice->backend() &&
        toDevice->copiesPeerWith(m.deviceAt(p)))
      order.push_back(p);
  if (to != CoherentMemory::kHost) order.push_back(CoherentMemory::kHost);
  for (size_t p = 1; p < m.placeCount(); ++p)
    if (p != to && std::find(order.begin(), order.end(), p) == order.end()) order.push_back(p);
  RangeSet left;
  left.add(begin, end);
  for (size_t from : order) {
    for (auto [b, e] : std::vector(left.ranges()))
      for (auto [cb, ce] : m.upToDate(from).within(b, e)) {
        out.push_back({&m, from, to, cb, ce});
        left.remove(cb, ce);
      }
    if (left.ranges().empty()) return;
  }
  // Every byte is up to date somewhere (a write leaves it so where it ran): this is a bug.
  fail(XPURT_ERROR_UNKNOWN, "coherent memory view: bytes [{}, {}) are up to date nowhere",
       left.ranges().front().first, left.ranges().front().second);
}

}  // namespace

MemoryView &TaskQueue::copyOn(MemoryView &view) {
  CoherentMemory *m = view.coherent();
  if (!m) return view;
  std::lock_guard lock(m->mutex());
  return m->copyFor(*device_);
}

Ref<Event> TaskQueue::marker(std::vector<Ref<Event>> waits) {
  std::erase_if(waits, [](const Ref<Event> &e) { return e->isDone(); });
  Command cmd = builder_.barrier();
  cmd.waits = std::move(waits);
  Ordering ordering = cmd.waits.empty() ? Ordering::Fence : Ordering::Wait;
  return submitWithEvent(std::move(cmd), ordering);
}

Ref<Event> TaskQueue::submitCoherent(std::span<const CoherentAccess> accesses,
                                     const std::function<Ref<Event>()> &submitMain) {
  refuseCoherentCapture();
  CoherentLocks locks(accesses);
  // What to copy in: the bytes read that this device's copy lacks, each range once.
  std::vector<Transfer> transfers;
  for (CoherentMemory *m : locks.memories()) {
    size_t here = m->placeOf(*device_);
    RangeSet read;
    for (const CoherentAccess &a : accesses)
      if (a.view->coherent() == m && a.access != XPURT_ACCESS_WRITE)
        read.add(a.offset, a.offset + a.size);
    for (auto [b, e] : read.ranges())
      for (auto [mb, me] : m->upToDate(here).missing(b, e))
        planTransfers(*m, device_.get(), here, mb, me, transfers);
  }
  // Other queues' work the copies and the command must follow, waited for by the queue at
  // once: in order, everything after would wait anyway; out of order, later commands wait too,
  // which costs concurrency only while work of another queue on these bytes is pending.
  std::vector<Ref<Event>> waits;
  for (const Transfer &t : transfers) {
    t.memory->conflicts(t.from, t.begin, t.end, false, this, waits);
    t.memory->conflicts(t.to, t.begin, t.end, true, this, waits);
  }
  for (const CoherentAccess &a : accesses) {
    CoherentMemory &m = *a.view->coherent();
    m.conflicts(m.placeOf(*device_), a.offset, a.offset + a.size, a.access != XPURT_ACCESS_READ,
                this, waits);
  }
  if (!waits.empty()) waitFor(waits);
  for (const Transfer &t : transfers) {
    MemoryView &here = t.memory->copyFor(*device_);
    size_t size = t.end - t.begin;
    Ref<Event> copied =
        t.from == CoherentMemory::kHost
            ? submitCommand(builder_.copyToDevice(here, t.begin, size))
            : copyView(here, t.memory->copyFor(t.memory->deviceAt(t.from)), t.begin, t.begin, size);
    t.memory->noteUse(t.from, t.begin, t.end, false, copied, this);
    t.memory->noteUse(t.to, t.begin, t.end, true, copied, this);
    t.memory->noteCopied(t.to, t.begin, t.end);
  }
  Ref<Event> done = submitMain();
  for (const CoherentAccess &a : accesses) {
    CoherentMemory &m = *a.view->coherent();
    size_t here = m.placeOf(*device_);
    bool writes = a.access != XPURT_ACCESS_READ;
    m.noteUse(here, a.offset, a.offset + a.size, writes, done, this);
    if (writes) m.noteWritten(here, a.offset, a.offset + a.size);
  }
  return done;
}

Ref<Event> TaskQueue::coherentCopyToDevice(MemoryView &view, size_t offset, size_t size) {
  refuseCoherentCapture();
  size = view.checkedRange(offset, size, "copyToDevice");
  CoherentMemory &m = *view.coherent();
  MemoryView &copy = copyOn(view);
  // The host memory holds what the application wrote: those bytes are up to date there alone,
  // and this device's copy gets them.
  std::lock_guard lock(m.mutex());
  size_t here = m.placeOf(*device_);
  std::vector<Ref<Event>> waits;
  m.conflicts(CoherentMemory::kHost, offset, offset + size, false, this, waits);
  if (here != CoherentMemory::kHost) m.conflicts(here, offset, offset + size, true, this, waits);
  m.noteWritten(CoherentMemory::kHost, offset, offset + size);
  if (here == CoherentMemory::kHost) return marker(std::move(waits));
  if (!waits.empty()) waitFor(waits);
  Ref<Event> copied = submitCommand(builder_.copyToDevice(copy, offset, size));
  m.noteUse(CoherentMemory::kHost, offset, offset + size, false, copied, this);
  m.noteUse(here, offset, offset + size, true, copied, this);
  m.noteCopied(here, offset, offset + size);
  return copied;
}

Ref<Event> TaskQueue::coherentCopyToHost(MemoryView &view, size_t offset, size_t size) {
  refuseCoherentCapture();
  size = view.checkedRange(offset, size, "copyToHost");
  constexpr size_t kHost = CoherentMemory::kHost;
  if (device_->deviceMemoryIsHostMemory()) {
    // This device's copy is the host memory: the copy is a read here.
    CoherentAccess read{&view, offset, size, XPURT_ACCESS_READ};
    return submitCoherent({&read, 1}, [&] { return marker({}); });
  }
  CoherentMemory &m = *view.coherent();
  MemoryView &copy = copyOn(view);
  std::lock_guard lock(m.mutex());
  size_t here = m.placeOf(*device_);
  // What the host memory lacks, from this device where it has the bytes, else from where
  // they are.
  std::vector<Transfer> transfers;
  for (auto [b, e] : m.upToDate(kHost).missing(offset, offset + size)) {
    for (auto [hb, he] : m.upToDate(here).within(b, e))
      transfers.push_back({&m, here, kHost, hb, he});
    for (auto [rb, re] : m.upToDate(here).missing(b, e))
      planTransfers(m, nullptr, kHost, rb, re, transfers);
  }
  std::vector<Ref<Event>> waits;
  m.conflicts(kHost, offset, offset + size, false, this, waits);
  for (const Transfer &t : transfers) {
    m.conflicts(t.from, t.begin, t.end, false, this, waits);
    m.conflicts(kHost, t.begin, t.end, true, this, waits);
  }
  if (transfers.empty()) return marker(std::move(waits));
  if (!waits.empty()) waitFor(waits);
  std::vector<Ref<Event>> copies;
  for (const Transfer &t : transfers) {
    size_t bytes = t.end - t.begin;
    Ref<Event> copied;
    if (t.from == here) {
      copied = submitCommand(builder_.copyToHost(copy, t.begin, bytes));
    } else {
      // Another device's copy: that device copies it out, as a step of this queue.
      Device &other = m.deviceAt(t.from);
      Command cmd = CommandBuilder(Ref<Device>(&other), XPURT_ENGINE_ANY)
                        .copyToHost(m.copyFor(other), t.begin, bytes);
      Command whole = cmd;
      std::vector<CopyStep> steps;
      steps.push_back({&helperFor(other), std::move(cmd)});
      copied = submitSteps(std::move(steps), whole);
    }
    m.noteUse(t.from, t.begin, t.end, false, copied, this);
    m.noteUse(kHost, t.begin, t.end, true, copied, this);
    m.noteCopied(kHost, t.begin, t.end);
    copies.push_back(std::move(copied));
  }
  // In order, the last copy completes after the others.
  if (copies.size() == 1 || !options_.outOfOrder) return copies.back();
  return marker(std::move(copies));
}

Command TaskQueue::buildChunk(Kernel &kernel, std::span<const ArgInput> args, uint32_t workDim,
                              const size_t *globalOffset, const size_t *globalSize,
                              const size_t *localSize) {
  failIfCapturing("a launch split over devices");
  std::vector<ArgInput> local(args.begin(), args.end());
  for (ArgInput &a : local)
    if (a.kind == XPURT_KERNEL_ARG_MEMORY_VIEW && a.view) a.view = &copyOn(*a.view);
  return builder_.launchKernel(kernel, local, workDim, globalOffset, globalSize, localSize);
}

Ref<Event> TaskQueue::submitChunk(Command &&cmd, std::span<const CoherentAccess> uses) {
  return submitCoherent(uses, [&] { return submitCommand(std::move(cmd)); });
}

void TaskQueue::refuseCoherentCapture() const {
  // Enqueue checks capturing() first (captureCoherent): this is a capture begun meanwhile.
  if (capturing_.load(std::memory_order_acquire))
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "the queue began capturing (on another thread) while a command on a COHERENT view was "
         "enqueued; nothing was enqueued: enqueue it again");
}

}  // namespace xpurt::core
