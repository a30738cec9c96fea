// The dynamic table of a shared object, checked before the dynamic linker follows it
// (elf_dynamic_check.cpp says what is checked and why).
#pragma once

#include "elf_check.hpp"

#include <elf.h>

#include <string>
#include <vector>

namespace xpurt::cpu {

// [offset, offset + size) inside [0, limit), without wrapping.
inline bool inside(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

// Throws INVALID_MODULE: module `name` is not a loadable shared library, because `what`.
[[noreturn]] void refuseSharedObject(const std::string &name, const std::string &what);

// Throws INVALID_MODULE naming what is wrong. `ph` are the checked program headers, `dynamic`
// the dynamic segment's header and `table` its entries, read at its file offset.
void checkDynamicTable(const ReadAt &read, const std::vector<Elf64_Phdr> &ph,
                       const Elf64_Phdr &dynamic, const std::vector<Elf64_Dyn> &table,
                       const std::string &name);

}  // namespace xpurt::cpu
