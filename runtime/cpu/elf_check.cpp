#include "elf_check.hpp"

#include "core/error.hpp"
#include "elf_dynamic_check.hpp"

#include <elf.h>

#include <vector>

namespace xpurt::cpu {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
#else
#error "add this machine's ELF e_machine"
#endif

}  // namespace

void refuseSharedObject(const std::string &name, const std::string &what) {
  core::fail(XPURT_ERROR_INVALID_MODULE,
             "module '{}' is not a loadable shared library: {}; rebuild it, or check that the "
             "file was copied whole",
             name, what);
}

void checkSharedObject(const ReadAt &read, uint64_t fileSize, const std::string &name) {
  Elf64_Ehdr h{};
  if (fileSize < sizeof h || !read(0, &h, sizeof h))
    refuseSharedObject(name, "shorter than an ELF header");
  if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_ident[EI_DATA] != ELFDATA2LSB ||
      h.e_ident[EI_VERSION] != EV_CURRENT)
    refuseSharedObject(name, "not a 64-bit little-endian ELF file");
  if (h.e_type != ET_DYN)
    refuseSharedObject(name, "not a shared object (ELF type " + std::to_string(h.e_type) + ")");
  if (h.e_machine != kMachine)
    refuseSharedObject(
        name, "built for another machine (ELF machine " + std::to_string(h.e_machine) + ")");
  if (h.e_phentsize != sizeof(Elf64_Phdr) || h.e_phnum == 0 || h.e_phnum == PN_XNUM ||
      !inside(h.e_phoff, uint64_t{h.e_phnum} * sizeof(Elf64_Phdr), fileSize))
    refuseSharedObject(name, "its program headers lie outside the file");
  std::vector<Elf64_Phdr> ph(h.e_phnum);
  if (!read(h.e_phoff, ph.data(), ph.size() * sizeof(Elf64_Phdr)))
    refuseSharedObject(name, "its program headers cannot be read");
  const Elf64_Phdr *dynamic = nullptr;
  bool loads = false;
  uint64_t loadEnd = 0;
  for (const Elf64_Phdr &p : ph) {
    if (p.p_type == PT_NULL) continue;
    if (!inside(p.p_offset, p.p_filesz, fileSize))
      refuseSharedObject(
          name, "a segment (type " + std::to_string(p.p_type) + ") lies past the end of the file");
    if (p.p_type == PT_LOAD) {
      if (p.p_filesz > p.p_memsz || (p.p_align > 1 && (p.p_align & (p.p_align - 1))) ||
          (p.p_align > 1 && (p.p_vaddr - p.p_offset) % p.p_align != 0) ||
          !inside(p.p_vaddr, p.p_memsz, UINT64_MAX))
        refuseSharedObject(name, "a loadable segment is malformed");
      // The loader maps them in order, each after the last: no overlap, no going back.
      if (loads && p.p_vaddr < loadEnd)
        refuseSharedObject(name, "its loadable segments overlap or are unordered");
      loadEnd = p.p_vaddr + p.p_memsz;
      loads = true;
    }
    if (p.p_type == PT_DYNAMIC) dynamic = &p;
  }
  if (!loads) refuseSharedObject(name, "it has no loadable segment");
  if (!dynamic) refuseSharedObject(name, "it has no dynamic section");
  std::vector<Elf64_Dyn> table(dynamic->p_filesz / sizeof(Elf64_Dyn));
  if (!read(dynamic->p_offset, table.data(), table.size() * sizeof(Elf64_Dyn)))
    refuseSharedObject(name, "its dynamic section cannot be read");
  bool ended = false;
  for (const Elf64_Dyn &d : table) ended = ended || d.d_tag == DT_NULL;
  if (!ended) refuseSharedObject(name, "its dynamic section has no end");
  checkDynamicTable(read, ph, *dynamic, table, name);
}

}  // namespace xpurt::cpu
