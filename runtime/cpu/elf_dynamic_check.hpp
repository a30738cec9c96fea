// The dynamic table of a shared object, checked before the dynamic linker follows it
// (elf_dynamic_check.cpp says what is checked and why).
#pragma once

#include "elf_check.hpp"

#include <elf.h>

#include <string>
#include <vector>

namespace xpurt::cpu {

// Throws INVALID_MODULE naming what is wrong. `ph` are the checked program headers.
void checkDynamicTable(const ReadAt &read, const std::vector<Elf64_Phdr> &ph,
                       const std::vector<Elf64_Dyn> &dynamic, const std::string &name);

}  // namespace xpurt::cpu
