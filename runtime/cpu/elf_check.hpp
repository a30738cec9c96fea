// A shared library is checked before the dynamic linker sees it: a truncated or damaged file
// crashes inside dlopen (SIGBUS past the end of a mapping, or the loader's own assertions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace xpurt::cpu {

// Reads `size` bytes at `offset` into `out`; false if the source is shorter.
using ReadAt = std::function<bool(uint64_t offset, void *out, size_t size)>;

// Throws INVALID_MODULE naming what is wrong unless the file of `fileSize` bytes is a 64-bit
// little-endian shared object for this machine whose program headers, every segment, and the
// dynamic table's addresses lie inside the file and its loaded segments.
void checkSharedObject(const ReadAt &read, uint64_t fileSize, const std::string &name);

}  // namespace xpurt::cpu
