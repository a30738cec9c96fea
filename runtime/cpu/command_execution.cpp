#include "command_execution.hpp"

#include "core/clock.hpp"
#include "core/host_callback.hpp"
#include "core/log.hpp"
#include "core_share.hpp"
#include "cpu_device.hpp"
#include "cpu_graph.hpp"
#include "cpu_kernel.hpp"
#include "memory_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace xpurt::cpu {

static void fillPattern(std::byte *dst, size_t size, const std::byte *pattern, size_t n) {
  if (n == 1) {
    std::memset(dst, static_cast<int>(pattern[0]), size);
    return;
  }
  size_t done = std::min(n, size);
  std::memcpy(dst, pattern, done);
  while (done < size) {  // double the filled prefix each step
    size_t chunk = std::min(done, size - done);
    std::memcpy(dst + done, dst, chunk);
    done += chunk;
  }
}

bool copiesMemory(const core::Command &cmd) {
  return cmd.type == core::Command::Type::Copy || cmd.type == core::Command::Type::Fill;
}

std::string runCommandBody(const core::Command &cmd, CoreShare *cores) {
  using Type = core::Command::Type;
  try {
    switch (cmd.type) {
      case Type::Copy: {
        std::byte *dst = cmd.dst.pointer();
        const std::byte *src = cmd.src.pointer();
        if (dst != src && cmd.dst.size) copyMemory(dst, src, cmd.dst.size);
        break;
      }
      case Type::Fill:
        fillPattern(cmd.dst.pointer(), cmd.dst.size, cmd.patternBytes(), cmd.patternSize);
        break;
      case Type::Launch: {
        CoreShare::Launching launching(cores);
        static_cast<CpuKernel &>(*cmd.kernel).run(cmd.params(), cmd.dims);
        break;
      }
      case Type::LaunchKernel: {
        CoreShare::Launching launching(cores);
        static_cast<CpuKernel &>(*cmd.kernel).run(*cmd.args, cmd.range);
        break;
      }
      case Type::HostCallback:
        return core::runHostCallback(cmd.func, cmd.userData);
      case Type::Graph:
        return static_cast<CpuGraphExec &>(*cmd.graph).run(*cmd.program);
      case Type::Barrier:
        break;
    }
  } catch (const std::exception &e) {
    return e.what();
  }
  return {};
}

void executeCommand(core::Command &cmd, core::FailureLog *failures, CoreShare *cores) {
  bool timed = cmd.done && cmd.done->timed();
  core::CommandTimes times;
  if (timed) times.startNs = core::steadyNowNs();
  std::string failure;
  try {
    // A failed dependency does not fail this command: its failure is reported where it ran. A
    // wait that could never end (refused by the other queue) fails this command instead.
    for (const core::Ref<core::Event> &w : cmd.waits) w->wait();
    failure = runCommandBody(cmd, cores);
  } catch (const std::exception &e) {
    failure = e.what();
  }
  if (!cmd.done) return;
  if (timed) times.endNs = core::steadyNowNs();
  if (failure.empty()) {
    cmd.done->complete(times);
  } else {
    core::log().error("{}", failure);
    if (failures) failures->note(failure);
    cmd.done->fail(failure, times);
  }
}

}  // namespace xpurt::cpu
