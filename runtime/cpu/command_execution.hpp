// Running one command on the calling thread: what every CPU queue does once the command's
// turn has come.
#pragma once

#include "core/task_queue.hpp"

namespace xpurt::cpu {

// Waits for cmd.waits, runs the command, measures it if its event is timed, and completes or
// fails the event; a failure is also noted in failures (if not null). A launch must be run
// inside the device's arena.
void executeCommand(core::Command &cmd, core::FailureLog *failures);
// What the command does, without its waits and event: the failure, or an empty string.
std::string runCommandBody(const core::Command &cmd);

class CpuDevice;
// executeCommand on a copy engine: copies and fills count as the device's copy engine copying.
void executeOnCopyEngine(CpuDevice &device, core::Command &cmd, core::FailureLog *failures);

}  // namespace xpurt::cpu
