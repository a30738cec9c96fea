#include "backend.hpp"

#include "completion_poller.hpp"
#include "error.hpp"
#include "host_executor.hpp"
#include "log.hpp"

#include <algorithm>

namespace xpurt::core {

// Defined next to the backends (runtime/api/backend_list.cpp), so core names none of them.
std::span<const BackendFactory> backendFactories();

std::span<Backend *const> backends() {
  // Created once and never destroyed: devices refer to their backend, and an application may
  // release its last device from a static destructor.
  static const std::vector<Backend *> *list = [] {
    auto *all = new std::vector<Backend *>;
    for (BackendFactory make : backendFactories()) {
      try {
        if (auto backend = make()) all->push_back(backend.release());
      } catch (const std::exception &e) {
        log().warn("a backend could not start and is left out: {}", e.what());
      }
    }
    std::stable_partition(all->begin(), all->end(),
                          [](Backend *b) { return b->deviceType() == XPURT_DEVICE_TYPE_GPU; });
    return all;
  }();
  return *list;
}

Ref<Device> Backend::device(uint32_t index, const DeviceOptions &options) {
  std::lock_guard lock(devicesMutex_);
  for (Device *d : devices_)
    // A device in its last release is not handed out again: a new one replaces it.
    if (d->index_ == index && d->options_ == options && d->tryRetain())
      return Ref<Device>::adopt(d);
  Ref<Device> created = createDevice(index, options);
  created->index_ = index;
  created->options_ = options;
  created->registered_ = true;
  devices_.push_back(created.get());
  return created;
}

void Backend::forget(const Device *device) {
  std::lock_guard lock(devicesMutex_);
  std::erase(devices_, device);
}

Device::Device(Backend &backend) : Object(kKind), backend_(backend) {}

Device::~Device() {
  if (registered_) backend_.forget(this);
}

void *Device::nativeHandle(XpurtNativeObject what) const {
  (void)what;
  fail(XPURT_ERROR_UNSUPPORTED,
       "{} is not a driver's device and has no native handles; only Level Zero and CUDA "
       "devices have them",
       label());
}

CompletionPoller &Device::completionPoller() {
  std::call_once(pollerOnce_, [this] { poller_ = std::make_unique<CompletionPoller>(); });
  return *poller_;
}

HostExecutor &Device::hostExecutor() {
  std::call_once(executorOnce_, [this] { executor_ = std::make_unique<HostExecutor>(); });
  return *executor_;
}

std::string Device::label() const {
  return fmt::format("{}:{} ({}{})", backend_.name(), index_, info().name,
                     options_.separateMemory ? ", separate memory" : "");
}

}  // namespace xpurt::core
