#include "command_execution.hpp"

#include "core/clock.hpp"
#include "core/host_callback.hpp"
#include "core/log.hpp"
#include "core_share.hpp"
#include "cpu_device.hpp"
#include "cpu_graph.hpp"
#include "cpu_kernel.hpp"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

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

// Copies at least this large write around the caches: their destination cannot stay in a
// core's caches anyway, and non-temporal stores skip reading each destination line first
// (the pipeline sample's 16 MiB copies: about 1.3x as fast, docs/PERFORMANCE.md).
constexpr size_t kStreamingCopyBytes = size_t{4} << 20;

static void copyMemory(std::byte *dst, const std::byte *src, size_t size) {
#if defined(__x86_64__)
  if (size >= kStreamingCopyBytes) {
    size_t head = (16 - reinterpret_cast<uintptr_t>(dst) % 16) % 16;
    std::memcpy(dst, src, head);
    dst += head, src += head, size -= head;
    size_t body = size / 64 * 64;
    for (size_t i = 0; i < body; i += 64) {
      __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
      __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 16));
      __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 32));
      __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 48));
      _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i), a);
      _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i + 48), d);
    }
    _mm_sfence();  // the stores are weakly ordered: visible before the copy says it is done
    std::memcpy(dst + body, src + body, size - body);
    return;
  }
#endif
  std::memcpy(dst, src, size);
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
