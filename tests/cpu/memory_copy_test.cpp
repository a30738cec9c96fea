// The CPU device's copy routines (cpu/memory_copy.hpp), each variant whatever the CPU would
// pick: every byte copied, none outside the destination touched, at any alignment.
#include "cpu/memory_copy.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace xpurt::cpu {
namespace {

using CopyFunction = void (*)(std::byte *, const std::byte *, size_t);

// Copies size bytes from src + srcOffset to dst + dstOffset of fresh buffers with guard bytes
// around, and reports the first byte that is wrong.
void checkCopy(CopyFunction copy, size_t size, size_t srcOffset, size_t dstOffset) {
  constexpr size_t kGuard = 64;
  std::vector<std::byte> src(size + srcOffset + kGuard), dst(size + dstOffset + 2 * kGuard);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::byte>(i * 13 + 5);
  for (std::byte &b : dst) b = std::byte{0xEE};
  std::byte *to = dst.data() + kGuard + dstOffset;
  copy(to, src.data() + srcOffset, size);
  for (size_t i = 0; i < dst.size(); ++i) {
    std::byte expected = std::byte{0xEE};
    size_t at = i - kGuard - dstOffset;  // wraps around below the destination
    if (i >= kGuard + dstOffset && at < size) expected = src[srcOffset + at];
    if (dst[i] != expected) {
      ADD_FAILURE() << "size " << size << ", source offset " << srcOffset << ", destination offset "
                    << dstOffset << ": byte " << i << " of the buffer is " << int(dst[i])
                    << ", expected " << int(expected);
      return;
    }
  }
}

void checkEveryShape(CopyFunction copy) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{31}, size_t{64}, size_t{127}, size_t{128},
                      size_t{129}, size_t{4096 + 77}})
    for (size_t srcOffset : {0, 1, 16, 31})
      for (size_t dstOffset : {0, 3, 16, 17, 32, 63}) checkCopy(copy, size, srcOffset, dstOffset);
  // Past the size from which copyMemory streams, with an odd tail.
  checkCopy(copy, kStreamingCopyBytes + 61, 16, 5);
}

#if defined(__x86_64__)
TEST(MemoryCopy, SixteenByteStreamingCopyMovesEveryByteAndNoOthers) {
  checkEveryShape(streamCopy16);
}

TEST(MemoryCopy, ThirtyTwoByteStreamingCopyMovesEveryByteAndNoOthers) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "this CPU has no AVX2";
  checkEveryShape(streamCopy32);
}
#endif

TEST(MemoryCopy, CopyMemoryMovesEveryByteAndNoOthers) {
  checkEveryShape(copyMemory);
}

}  // namespace
}  // namespace xpurt::cpu
