// The inspection and fault injection functions of ze_cpu_inspect.h, exported by name beside
// the loader's table getters.
#include "ze_cpu_inspect.h"

#include "entry.hpp"
#include "events.hpp"
#include "recorder.hpp"

#include <algorithm>
#include <mutex>
#include <new>
#include <vector>

namespace xpurt::ze_cpu {
namespace detail {

std::atomic<bool> recording{false};

}  // namespace detail

namespace {

struct Records {
  std::mutex mutex;
  std::vector<XpurtZeCpuRecord> list;  // list[i].sequence == i
};

Records &records() {
  static auto *r = new Records;  // never destroyed: executor threads may still record
  return *r;
}

}  // namespace

void record(const RecordedCommand &command, uint32_t ordinal, uint32_t index, CommandList *source,
            ze_result_t result) {
  XpurtZeCpuRecord r{};
  r.kind = static_cast<uint32_t>(command.kind);
  r.ordinal = ordinal;
  r.queueIndex = index;
  r.result = result;
  r.commandList = toHandle<ze_command_list_handle_t>(source);
  const EventObject *signalled = command.kind == CommandKind::ResetEvent
                                     ? std::get<EventObject *>(command.payload)
                                     : command.signal;
  r.signalEvent = toHandle<ze_event_handle_t>(const_cast<EventObject *>(signalled));
  auto waits = command.waits.view();
  r.numWaitEvents = static_cast<uint32_t>(waits.size());
  for (size_t i = 0; i < std::min<size_t>(waits.size(), XPURT_ZE_CPU_RECORD_INLINE_WAITS); ++i)
    r.waitEvents[i] = toHandle<ze_event_handle_t>(waits[i]);
  Records &all = records();
  std::lock_guard lock(all.mutex);
  r.sequence = all.list.size();
  try {
    all.list.push_back(r);
  } catch (const std::bad_alloc &) {
    // Out of memory for records: the command still runs; the record is lost.
  }
}

}  // namespace xpurt::ze_cpu

using namespace xpurt::ze_cpu;

extern "C" {

void xpurtZeCpuRecordStart(void) {
  detail::recording.store(true, std::memory_order_relaxed);
}

void xpurtZeCpuRecordStop(void) {
  detail::recording.store(false, std::memory_order_relaxed);
}

void xpurtZeCpuRecordClear(void) {
  Records &all = records();
  std::lock_guard lock(all.mutex);
  all.list.clear();
}

uint64_t xpurtZeCpuRecordCount(void) {
  Records &all = records();
  std::lock_guard lock(all.mutex);
  return all.list.size();
}

int xpurtZeCpuRecordGet(uint64_t index, XpurtZeCpuRecord *record) {
  Records &all = records();
  std::lock_guard lock(all.mutex);
  if (!record || index >= all.list.size()) return 1;
  *record = all.list[index];
  return 0;
}

uint64_t xpurtZeCpuCallCount(void) {
  return detail::apiCalls.load(std::memory_order_relaxed);
}

uint64_t xpurtZeCpuThreadCallCount(void) {
  return detail::threadApiCalls;
}

int xpurtZeCpuSetFaults(const char *spec) {
  return setFaults(spec) ? 0 : 1;
}

}  // extern "C"
