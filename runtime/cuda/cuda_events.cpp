#include "cuda_events.hpp"

#include "core/log.hpp"

namespace xpurt::cuda {

// The pool's events outlive the queue that made them while a waiter holds one. The last slot
// may go on the device's completion poller: cuEventDestroy there could wait for a driver lock
// that a thread recording into a full stream holds until the device moves on, which may take a
// host callback the poller has yet to start. The events are destroyed later (releaseLater).
struct CudaEventPool::State {
  std::shared_ptr<PrimaryContext> context;
  unsigned flags;
  std::mutex mutex;
  std::vector<CUevent> free;
  ~State() {
    releaseLater([context = context, events = std::move(free)] {
      try {
        ContextScope scope(context->handle());
        for (CUevent e : events) cu().EventDestroy(e);
      } catch (const core::Error &e) {
        warnReleaseFailure(fmt::format("CUDA: events not destroyed: {}", e.what()));
      }
    });
  }
};

CudaEventPool::CudaEventPool(std::shared_ptr<PrimaryContext> context, bool timing)
    : state_(std::make_shared<State>()) {
  state_->context = std::move(context);
  state_->flags = timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING;
}

CudaEventPool::~CudaEventPool() = default;

SlotRef CudaEventPool::acquire() {
  CUevent event = nullptr;
  {
    std::lock_guard lock(state_->mutex);
    if (!state_->free.empty()) {
      event = state_->free.back();
      state_->free.pop_back();
    }
  }
  if (!event) check(cu().EventCreate(&event, state_->flags), "cuEventCreate");
  std::shared_ptr<State> state = state_;
  return SlotRef(new EventSlot{event}, [state](EventSlot *slot) {
    std::lock_guard lock(state->mutex);
    state->free.push_back(slot->handle);
    delete slot;
  });
}

// Flags live in pages of page-locked, device-mapped host memory, handed out one word at a time.
struct HostFlagPool::State {
  static constexpr size_t kWordsPerPage = 1024;
  std::shared_ptr<PrimaryContext> context;
  std::mutex mutex;
  std::vector<void *> pages;
  std::vector<std::pair<volatile uint32_t *, CUdeviceptr>> free;  // host and device address
  ~State() {
    releaseLater([context = context, pages = pages] {
      try {
        ContextScope scope(context->handle());
        for (void *p : pages) cu().MemFreeHost(p);
      } catch (const core::Error &e) {
        warnReleaseFailure(fmt::format("CUDA: host flags not freed: {}", e.what()));
      }
    });
  }
};

HostFlagPool::HostFlagPool(std::shared_ptr<PrimaryContext> context)
    : state_(std::make_shared<State>()) {
  state_->context = std::move(context);
}

HostFlagPool::~HostFlagPool() = default;

FlagRef HostFlagPool::acquire() {
  std::pair<volatile uint32_t *, CUdeviceptr> word;
  {
    std::lock_guard lock(state_->mutex);
    if (state_->free.empty()) {
      ContextScope scope(state_->context->handle());
      void *page = nullptr;
      check(cu().MemHostAlloc(&page, State::kWordsPerPage * sizeof(uint32_t),
                              CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
            "cuMemHostAlloc", "host flags for waits on other work");
      CUdeviceptr device = 0;
      if (CUresult r = cu().MemHostGetDevicePointer(&device, page, 0); r != CUDA_SUCCESS) {
        cu().MemFreeHost(page);
        failCall("cuMemHostGetDevicePointer", r, "host flags for waits on other work");
      }
      state_->pages.push_back(page);
      auto *words = static_cast<volatile uint32_t *>(page);
      for (size_t i = 0; i < State::kWordsPerPage; ++i)
        state_->free.emplace_back(words + i, device + i * sizeof(uint32_t));
    }
    word = state_->free.back();
    state_->free.pop_back();
  }
  __atomic_store_n(word.first, 0u, __ATOMIC_RELAXED);
  std::shared_ptr<State> state = state_;
  return FlagRef(new HostFlag(word.first, word.second), [state](HostFlag *f) {
    if (f->armed.exchange(false)) disarmHostFlag();  // never set: its enqueue failed
    std::lock_guard lock(state->mutex);
    state->free.emplace_back(f->host, f->device);
    delete f;
  });
}

}  // namespace xpurt::cuda
