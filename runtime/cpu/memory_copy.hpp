// Copying memory on the CPU device: large copies write around the caches. A header so the
// unit tests can run every variant, whatever the CPU would pick.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace xpurt::cpu {

// Copies at least this large write around the caches: their destination cannot stay in a
// core's caches anyway, and non-temporal stores skip reading each destination line first
// (the pipeline sample's 16 MiB copies: about 1.3x as fast, docs/history/performance-log.md).
constexpr size_t kStreamingCopyBytes = size_t{4} << 20;

#if defined(__x86_64__)
// Copies the first bytes up to the alignment of dst, returns how many.
inline size_t alignDestination(std::byte *dst, const std::byte *src, size_t size, size_t align) {
  size_t head = std::min(size, (align - reinterpret_cast<uintptr_t>(dst) % align) % align);
  std::memcpy(dst, src, head);
  return head;
}

// One stream of 32-byte loads and stores: about 1.1x the 16-byte loop's speed for 16 MiB,
// also with a source 16 bytes off (a std::vector's data), where every other load splits a
// cache line. Two streams at once (each half of the copy) were slower:
// docs/history/performance-log.md.
__attribute__((target("avx2"))) inline void streamCopy32(std::byte *dst, const std::byte *src,
                                                         size_t size) {
  size_t done = alignDestination(dst, src, size, 32);
  size_t body = done + (size - done) / 128 * 128;
  for (size_t i = done; i < body; i += 128) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 32));
    __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 64));
    __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 96));
    _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i), a);
    _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i + 32), b);
    _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i + 64), c);
    _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i + 96), d);
  }
  _mm_sfence();  // the stores are weakly ordered: visible before the copy says it is done
  std::memcpy(dst + body, src + body, size - body);
}

inline void streamCopy16(std::byte *dst, const std::byte *src, size_t size) {
  size_t done = alignDestination(dst, src, size, 16);
  size_t body = done + (size - done) / 64 * 64;
  for (size_t i = done; i < body; i += 64) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 32));
    __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i + 48), d);
  }
  _mm_sfence();
  std::memcpy(dst + body, src + body, size - body);
}
#endif

inline void copyMemory(std::byte *dst, const std::byte *src, size_t size) {
#if defined(__x86_64__)
  if (size >= kStreamingCopyBytes) {
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2)
      streamCopy32(dst, src, size);
    else
      streamCopy16(dst, src, size);
    return;
  }
#endif
  std::memcpy(dst, src, size);
}

}  // namespace xpurt::cpu
