// Running one command on the calling thread: what every CPU queue does once the command's
// turn has come.
#pragma once

#include "core/task_queue.hpp"

namespace xpurt::cpu {

class CoreShare;

// Waits for cmd.waits, runs the command, measures it if its event is timed, and completes or
// fails the event; a failure is also noted in failures (if not null). A launch must be run
// inside the device's arena; its threads share the cores as `cores` says (core_share.hpp).
void executeCommand(core::Command &cmd, core::FailureLog *failures, CoreShare *cores);
// What the command does, without its waits and event: the failure, or an empty string.
std::string runCommandBody(const core::Command &cmd, CoreShare *cores);
// A copy or fill: what a copy engine claims a core for.
bool copiesMemory(const core::Command &cmd);

}  // namespace xpurt::cpu
