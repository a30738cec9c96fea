// Command queues: created on a queue group ordinal and index, each running its submissions
// in order on a thread of its own.
#include "api.hpp"
#include "command_list.hpp"
#include "context.hpp"
#include "driver.hpp"
#include "entry.hpp"
#include "events.hpp"

#include <array>

namespace xpurt::ze_cpu {

namespace {

CommandQueue &queueOf(ze_command_queue_handle_t handle) {
  requireHandle(handle);
  return *fromHandle<CommandQueue>(handle);
}

}  // namespace

namespace api {

ze_result_t zeCommandQueueCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                 const ze_command_queue_desc_t *desc,
                                 ze_command_queue_handle_t *phCommandQueue) {
  return entry(ApiId::zeCommandQueueCreate, [&] {
    contextOf(hContext);
    DeviceObject &device = deviceOf(hDevice);
    bool synchronous = checkQueueDesc(desc);
    requirePointer(phCommandQueue);
    auto *queue = new CommandQueue(device, desc->ordinal, desc->index, synchronous);
    *phCommandQueue = toHandle<ze_command_queue_handle_t>(queue);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeCommandQueueDestroy(ze_command_queue_handle_t hCommandQueue) {
  return entry(ApiId::zeCommandQueueDestroy, [&] {
    delete &queueOf(hCommandQueue);  // runs what was submitted first
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeCommandQueueExecuteCommandLists(ze_command_queue_handle_t hCommandQueue,
                                              uint32_t numCommandLists,
                                              ze_command_list_handle_t *phCommandLists,
                                              ze_fence_handle_t hFence) {
  return entry(ApiId::zeCommandQueueExecuteCommandLists, [&] {
    CommandQueue &queue = queueOf(hCommandQueue);
    requirePointer(phCommandLists);
    if (numCommandLists == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    Fence *fence = fromHandle<Fence>(hFence);
    if (fence && &fence->queue() != &queue) return ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT;
    std::array<CommandList *, 16> few;
    std::vector<CommandList *> many;
    if (numCommandLists > few.size()) many.resize(numCommandLists);
    CommandList **lists = many.empty() ? few.data() : many.data();
    for (uint32_t i = 0; i < numCommandLists; ++i) {
      requireHandle(phCommandLists[i]);
      CommandList &list = *fromHandle<CommandList>(phCommandLists[i]);
      // Only closed regular lists of the queue's group ordinal run on it.
      if (list.immediate() || list.ordinal() != queue.ordinal())
        return ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE;
      if (!list.closed()) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
      lists[i] = &list;
    }
    return queue.execute(std::span<CommandList *const>(lists, numCommandLists), fence);
  });
}

ze_result_t zeCommandQueueSynchronize(ze_command_queue_handle_t hCommandQueue, uint64_t timeout) {
  return entry(ApiId::zeCommandQueueSynchronize,
               [&] { return queueOf(hCommandQueue).synchronize(Deadline(timeout)); });
}

}  // namespace api
}  // namespace xpurt::ze_cpu
