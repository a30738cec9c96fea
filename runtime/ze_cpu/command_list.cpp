#include "command_list.hpp"

#include "driver.hpp"
#include "entry.hpp"

namespace xpurt::ze_cpu {

bool checkQueueDesc(const ze_command_queue_desc_t *desc) {
  requirePointer(desc);
  if (desc->flags > 0x1 || desc->mode > ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS ||
      desc->priority > ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH)
    fail(ZE_RESULT_ERROR_INVALID_ENUMERATION);
  if (desc->ordinal >= kQueueGroupCount || desc->index >= kQueuesInGroup[desc->ordinal])
    fail(ZE_RESULT_ERROR_INVALID_ARGUMENT);
  return desc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
}

CommandList::CommandList(DeviceObject &device, uint32_t ordinal)
    : device_(device), ordinal_(ordinal), immediate_(false) {}

CommandList::CommandList(DeviceObject &device, uint32_t ordinal, uint32_t index, bool synchronous)
    : device_(device), ordinal_(ordinal), immediate_(true) {
  if (synchronous)
    inlineRunner_ = std::make_unique<CommandInterpreter>(device, ordinal, index);
  else
    executor_ = std::make_unique<Executor>(device, ordinal, index, this);
}

CommandList::~CommandList() = default;

bool CommandList::runsLaunches() const {
  return ordinal_ == kComputeOrdinal;
}

ze_result_t CommandList::append(RecordedCommand &&command) {
  if (executor_) {
    executor_->submit(std::move(command));
  } else if (inlineRunner_) {
    inlineRunner_->run(std::span<RecordedCommand>(&command, 1), this);
    return reportFailure(*inlineRunner_);
  } else {
    commands_.push_back(std::move(command));
  }
  return ZE_RESULT_SUCCESS;
}

void CommandList::reset() {
  if (executor_) executor_->synchronize(Deadline::never());
  commands_.clear();
  closed_ = false;
}

ze_result_t CommandQueue::execute(std::span<CommandList *const> lists, Fence *fence) {
  std::vector<RecordedCommand> submission(lists.size() + 1);
  for (size_t i = 0; i < lists.size(); ++i) {
    submission[i].kind = CommandKind::ExecuteList;
    submission[i].payload = lists[i];
  }
  submission.back().kind = CommandKind::EndOfSubmission;
  submission.back().payload = fence;
  executor_.submit(submission);
  return synchronous_ ? executor_.synchronize(Deadline::never()) : ZE_RESULT_SUCCESS;
}

}  // namespace xpurt::ze_cpu
