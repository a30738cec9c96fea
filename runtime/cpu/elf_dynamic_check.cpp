// What the dynamic linker reads through a shared object's dynamic table, checked before it
// does: every table lies in the file-backed part of a loaded segment and has the size and
// entry size it claims, strings end inside the string table, hash chains stay inside the
// symbol table, version records chain inside their segment, and every relocation writes into
// a writable segment with a type this machine's loader handles. A damaged entry would
// otherwise make the loader read or write at a wild address, assert, or exit the process.
#include "elf_dynamic_check.hpp"

#include "core/error.hpp"

#include <elf.h>

#include <map>
#include <optional>
#include <set>

namespace xpurt::cpu {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kRelocNone = R_X86_64_NONE, kRelocRelative = R_X86_64_RELATIVE,
                   kRelocIRelative = R_X86_64_IRELATIVE;
const std::set<uint32_t> kRelocTypes = {
    R_X86_64_NONE,     R_X86_64_64,       R_X86_64_GLOB_DAT, R_X86_64_JUMP_SLOT, R_X86_64_RELATIVE,
    R_X86_64_DTPMOD64, R_X86_64_DTPOFF64, R_X86_64_TPOFF64,  R_X86_64_IRELATIVE, R_X86_64_TLSDESC};
#elif defined(__aarch64__)
constexpr uint32_t kRelocNone = R_AARCH64_NONE, kRelocRelative = R_AARCH64_RELATIVE,
                   kRelocIRelative = R_AARCH64_IRELATIVE;
const std::set<uint32_t> kRelocTypes = {
    R_AARCH64_NONE,     R_AARCH64_ABS64,      R_AARCH64_GLOB_DAT,   R_AARCH64_JUMP_SLOT,
    R_AARCH64_RELATIVE, R_AARCH64_TLS_DTPMOD, R_AARCH64_TLS_DTPREL, R_AARCH64_TLS_TPREL,
    R_AARCH64_TLSDESC,  R_AARCH64_IRELATIVE};
#else
#error "add this machine's relocation types"
#endif

// The GNU tags a linker writes into a shared library.
const std::set<int64_t> kGnuTags = {DT_GNU_HASH, DT_VERSYM,    DT_RELACOUNT, DT_FLAGS_1,
                                    DT_VERDEF,   DT_VERDEFNUM, DT_VERNEED,   DT_VERNEEDNUM};

class DynamicCheck {
 public:
  DynamicCheck(const ReadAt &read, const std::vector<Elf64_Phdr> &ph, const std::string &name)
      : read_(read), ph_(ph), name_(name) {}

  [[noreturn]] void bad(const std::string &what) const { refuseSharedObject(name_, what); }

  // The file offset of [address, address + size) if a loaded segment's file bytes hold it.
  std::optional<uint64_t> fileOffset(uint64_t address, uint64_t size) const {
    for (const Elf64_Phdr &p : ph_)
      if (p.p_type == PT_LOAD && address >= p.p_vaddr &&
          inside(address - p.p_vaddr, size, p.p_filesz))
        return p.p_offset + (address - p.p_vaddr);
    return std::nullopt;
  }

  // [address, address + size) lies in the memory of a loaded segment with these flags.
  bool inSegment(uint64_t address, uint64_t size, uint32_t flag) const {
    for (const Elf64_Phdr &p : ph_)
      if (p.p_type == PT_LOAD && (p.p_flags & flag) && address >= p.p_vaddr &&
          inside(address - p.p_vaddr, size, p.p_memsz))
        return true;
    return false;
  }

  template <class T>
  T readAt(uint64_t address, const char *what) const {
    T value{};
    std::optional<uint64_t> at = fileOffset(address, sizeof value);
    if (!at || !read_(*at, &value, sizeof value))
      bad(std::string(what) + " lies outside its segments");
    return value;
  }

  // A table at `address` of `size` bytes in whole entries of `entry` bytes.
  void table(uint64_t address, uint64_t size, uint64_t entry, const char *what) const {
    if (size % entry != 0) bad(std::string(what) + " is not a whole number of entries");
    if (!fileOffset(address, size)) bad(std::string(what) + " lies outside its segments");
  }

  // A NUL-terminated string at `offset` of the string table.
  void string(uint64_t offset, const char *what) const {
    if (offset >= strsz_) bad(std::string(what) + " points past its string table");
    std::optional<uint64_t> at = fileOffset(strtab_ + offset, strsz_ - offset);
    std::string bytes(strsz_ - offset, '\0');
    if (!at || !read_(*at, bytes.data(), bytes.size()) || bytes.find('\0') == std::string::npos)
      bad(std::string(what) + " does not end inside its string table");
  }

  // The segments the loader finds by address rather than by file offset.
  void segments(const Elf64_Phdr &dynamic) const {
    // The loader reads the dynamic table at its address, this check at its file offset: the
    // two must be the same bytes.
    if (fileOffset(dynamic.p_vaddr, dynamic.p_filesz) != dynamic.p_offset)
      bad("its dynamic section's address and file offset disagree");
    // After relocation the loader makes this range read-only: it must be the start of a
    // writable segment, or the loader would protect other memory, or data written later.
    for (const Elf64_Phdr &relro : ph_) {
      if (relro.p_type != PT_GNU_RELRO) continue;
      bool atStart = false;
      for (const Elf64_Phdr &p : ph_)
        atStart = atStart || (p.p_type == PT_LOAD && p.p_vaddr == relro.p_vaddr);
      if (!atStart || !inSegment(relro.p_vaddr, relro.p_memsz, PF_W))
        bad("its read-only-after-relocation range is not the start of a writable segment");
    }
  }

  void run(const std::vector<Elf64_Dyn> &dynamic) {
    std::multimap<int64_t, uint64_t> tags;
    for (const Elf64_Dyn &d : dynamic) {
      if (d.d_tag == DT_NULL) break;
      // The loader files tags by arithmetic on them: a damaged tag can land anywhere.
      bool standard = d.d_tag > DT_NULL && d.d_tag <= 37 /*DT_RELRENT*/;
      if (!standard && !kGnuTags.count(d.d_tag))
        bad("its dynamic section has an entry of unknown tag " + std::to_string(d.d_tag));
      tags.emplace(d.d_tag, d.d_un.d_val);
    }
    auto one = [&](int64_t tag) -> std::optional<uint64_t> {
      auto range = tags.equal_range(tag);
      if (range.first == range.second) return std::nullopt;
      if (std::next(range.first) != range.second)
        bad("its dynamic section has tag " + std::to_string(tag) + " more than once");
      return range.first->second;
    };
    if (one(DT_REL) || one(DT_RELSZ) || one(DT_PREINIT_ARRAY) || one(DT_TEXTREL) || one(36) ||
        one(35) /*DT_RELR, DT_RELRSZ*/)
      bad("its dynamic section has REL or RELR relocations, a preinit array or text "
          "relocations, which xpurt's native modules never have");
    if (auto e = one(DT_SYMENT); e && *e != sizeof(Elf64_Sym)) bad("its symbol size is wrong");
    if (auto e = one(DT_RELAENT); e && *e != sizeof(Elf64_Rela))
      bad("its relocation size is wrong");
    if (auto e = one(DT_PLTREL); e && *e != DT_RELA) bad("its PLT relocation kind is wrong");
    // Strings.
    std::optional<uint64_t> strtab = one(DT_STRTAB), strsz = one(DT_STRSZ);
    if (!strtab || !strsz || !fileOffset(*strtab, *strsz))
      bad("its string table lies outside its segments");
    strtab_ = *strtab;
    strsz_ = *strsz;
    for (int64_t tag : {DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH}) {
      auto range = tags.equal_range(tag);
      for (auto it = range.first; it != range.second; ++it) string(it->second, "a library name");
    }
    uint64_t symbols = symbolCount(one(DT_GNU_HASH), one(DT_HASH));
    std::optional<uint64_t> symtab = one(DT_SYMTAB);
    if (!symtab) bad("it has no symbol table");
    table(*symtab, symbols * sizeof(Elf64_Sym), sizeof(Elf64_Sym), "its symbol table");
    // Entry 0 is all zeros and string 0 is empty (the ELF standard): a table moved off its
    // start would give relocations other symbols than the ones they name.
    auto null = readAt<Elf64_Sym>(*symtab, "its symbol table");
    if (symbols == 0 || null.st_name || null.st_info || null.st_other || null.st_shndx ||
        null.st_value || null.st_size)
      bad("its symbol table does not start with the null symbol");
    if (readAt<char>(strtab_, "its string table") != '\0')
      bad("its string table does not start with the empty string");
    for (uint64_t i = 0; i < symbols; ++i) {
      auto sym = readAt<Elf64_Sym>(*symtab + i * sizeof(Elf64_Sym), "a symbol");
      string(sym.st_name, "a symbol's name");
      if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < SHN_LORESERVE &&
          ELF64_ST_TYPE(sym.st_info) == STT_FUNC && !inSegment(sym.st_value, 1, PF_X))
        bad("a function symbol lies outside its code");
    }
    versions(one(DT_VERSYM), one(DT_VERNEED), one(DT_VERNEEDNUM), one(DT_VERDEF), one(DT_VERDEFNUM),
             symbols);
    // Initialisers run as soon as it is loaded: they must be code.
    for (int64_t tag : {DT_INIT, DT_FINI})
      if (auto f = one(tag); f && !inSegment(*f, 1, PF_X))
        bad("its initialiser or finaliser lies outside its code");
    // A table given by an address tag and a size tag: both or neither.
    auto sized = [&](int64_t ptrTag, int64_t sizeTag, uint64_t entry,
                     const char *what) -> std::optional<std::pair<uint64_t, uint64_t>> {
      std::optional<uint64_t> at = one(ptrTag), size = one(sizeTag);
      if (!at && !size) return std::nullopt;
      if (!at || !size) bad(std::string(what) + " has no address or no size");
      table(*at, *size, entry, what);
      return std::pair{*at, *size};
    };
    std::vector<std::pair<uint64_t, uint64_t>> arrays;  // init and fini arrays: [begin, end)
    for (auto [ptrTag, sizeTag] :
         {std::pair{DT_INIT_ARRAY, DT_INIT_ARRAYSZ}, std::pair{DT_FINI_ARRAY, DT_FINI_ARRAYSZ}})
      if (auto array = sized(ptrTag, sizeTag, sizeof(uint64_t), "an initialiser array"))
        arrays.emplace_back(array->first, array->first + array->second);
    for (auto [ptrTag, sizeTag] :
         {std::pair{DT_RELA, DT_RELASZ}, std::pair{DT_JMPREL, DT_PLTRELSZ}})
      if (auto relas = sized(ptrTag, sizeTag, sizeof(Elf64_Rela), "a relocation table"))
        relocations(relas->first, relas->second / sizeof(Elf64_Rela), symbols, arrays);
    // The loader takes the first RELACOUNT relocations as relative ones without looking.
    if (std::optional<uint64_t> relative = one(DT_RELACOUNT)) {
      std::optional<uint64_t> rela = one(DT_RELA), size = one(DT_RELASZ);
      if (!rela || *relative > *size / sizeof(Elf64_Rela))
        bad("its count of relative relocations exceeds its relocations");
      for (uint64_t i = 0; i < *relative; ++i)
        if (ELF64_R_TYPE(
                readAt<Elf64_Rela>(*rela + i * sizeof(Elf64_Rela), "a relocation").r_info) !=
            kRelocRelative)
          bad("its count of relative relocations is wrong");
    }
    // An initialiser no relocation sets would be called at its unrelocated address.
    for (auto [begin, end] : arrays)
      for (uint64_t slot = begin; slot < end; slot += sizeof(uint64_t))
        if (!relocated_.count(slot)) bad("an initialiser is not relocated");
  }

 private:
  // The number of symbols, which only the hash tables tell; their chains are checked too.
  uint64_t symbolCount(std::optional<uint64_t> gnuHash, std::optional<uint64_t> sysvHash) {
    if (sysvHash) {
      auto nbucket = readAt<uint32_t>(*sysvHash, "its hash table");
      auto nchain = readAt<uint32_t>(*sysvHash + 4, "its hash table");
      table(*sysvHash, 8 + 4 * (uint64_t{nbucket} + nchain), 4, "its hash table");
      for (uint64_t i = 0; i < uint64_t{nbucket} + nchain; ++i)
        if (readAt<uint32_t>(*sysvHash + 8 + 4 * i, "its hash table") >= nchain)
          bad("its hash table names a symbol past its symbol table");
      if (!gnuHash) return nchain;
    }
    if (!gnuHash) bad("it has no symbol hash table");
    auto nbuckets = readAt<uint32_t>(*gnuHash, "its GNU hash table");
    auto symoffset = readAt<uint32_t>(*gnuHash + 4, "its GNU hash table");
    auto bloomSize = readAt<uint32_t>(*gnuHash + 8, "its GNU hash table");
    if (nbuckets == 0 || bloomSize == 0 || (bloomSize & (bloomSize - 1)) != 0)
      bad("its GNU hash table is malformed");
    uint64_t buckets = *gnuHash + 16 + 8 * uint64_t{bloomSize};
    table(buckets, 4 * uint64_t{nbuckets}, 4, "its GNU hash table");
    uint64_t chains = buckets + 4 * uint64_t{nbuckets};
    uint64_t count = symoffset;
    for (uint32_t b = 0; b < nbuckets; ++b) {
      uint32_t first = readAt<uint32_t>(buckets + 4 * uint64_t{b}, "its GNU hash table");
      if (first == 0) continue;
      if (first < symoffset) bad("its GNU hash table is malformed");
      // Each chain ends at an entry with its lowest bit set; the last one ends the table.
      uint64_t i = first;
      while (!(readAt<uint32_t>(chains + 4 * (i - symoffset), "its GNU hash chains") & 1)) {
        if (++i - symoffset > (uint64_t{1} << 24)) bad("its GNU hash chains do not end");
      }
      count = std::max(count, i + 1);
    }
    return count;
  }

  void versions(std::optional<uint64_t> versym, std::optional<uint64_t> verneed,
                std::optional<uint64_t> verneedNum, std::optional<uint64_t> verdef,
                std::optional<uint64_t> verdefNum, uint64_t symbols) {
    std::set<uint32_t> known = {0, 1};  // local, global
    if (verneed.has_value() != verneedNum.has_value() ||
        verdef.has_value() != verdefNum.has_value())
      bad("a version table has no address or no count");
    if (verneed) {
      uint64_t at = *verneed;
      for (uint64_t n = 0; n < *verneedNum; ++n) {
        auto need = readAt<Elf64_Verneed>(at, "a version requirement");
        if (need.vn_version != 1) bad("a version requirement is malformed");
        string(need.vn_file, "a version requirement's library");
        uint64_t aux = at + need.vn_aux;
        for (uint32_t a = 0; a < need.vn_cnt; ++a) {
          auto v = readAt<Elf64_Vernaux>(aux, "a version requirement");
          string(v.vna_name, "a version's name");
          known.insert(v.vna_other & 0x7fff);
          if (a + 1 < need.vn_cnt && v.vna_next == 0) bad("a version requirement is malformed");
          aux += v.vna_next;
        }
        if (n + 1 < *verneedNum && need.vn_next == 0) bad("a version requirement is malformed");
        at += need.vn_next;
      }
    }
    if (verdef) {
      uint64_t at = *verdef;
      for (uint64_t n = 0; n < *verdefNum; ++n) {
        auto def = readAt<Elf64_Verdef>(at, "a version definition");
        if (def.vd_version != 1 || def.vd_cnt == 0) bad("a version definition is malformed");
        auto aux = readAt<Elf64_Verdaux>(at + def.vd_aux, "a version definition");
        string(aux.vda_name, "a version's name");
        known.insert(def.vd_ndx & 0x7fff);
        if (n + 1 < *verdefNum && def.vd_next == 0) bad("a version definition is malformed");
        at += def.vd_next;
      }
    }
    if (!versym) return;
    table(*versym, symbols * 2, 2, "its symbol versions");
    for (uint64_t i = 0; i < symbols; ++i)
      if (!known.count(readAt<uint16_t>(*versym + 2 * i, "its symbol versions") & 0x7fff))
        bad("a symbol has a version the library neither defines nor requires");
  }

  void relocations(uint64_t at, uint64_t count, uint64_t symbols,
                   const std::vector<std::pair<uint64_t, uint64_t>> &arrays) {
    for (uint64_t i = 0; i < count; ++i) {
      auto r = readAt<Elf64_Rela>(at + i * sizeof(Elf64_Rela), "a relocation");
      uint32_t type = ELF64_R_TYPE(r.r_info);
      if (!kRelocTypes.count(type)) bad("a relocation has a type this machine's loader rejects");
      if (type == kRelocNone) continue;
      if (ELF64_R_SYM(r.r_info) >= symbols) bad("a relocation names a symbol past its table");
      if (!inSegment(r.r_offset, 8, PF_W)) bad("a relocation writes outside its data");
      if (type == kRelocIRelative && !inSegment(r.r_addend, 1, PF_X))
        bad("a relocation's resolver lies outside its code");
      for (auto [begin, end] : arrays) {
        if (r.r_offset < begin || r.r_offset >= end) continue;
        if (type == kRelocRelative && !inSegment(r.r_addend, 1, PF_X))
          bad("an initialiser lies outside its code");
        relocated_.insert(r.r_offset);
      }
    }
  }

  const ReadAt &read_;
  const std::vector<Elf64_Phdr> &ph_;
  const std::string &name_;
  uint64_t strtab_ = 0, strsz_ = 0;
  std::set<uint64_t> relocated_;  // initialiser slots a relocation sets
};

}  // namespace

void checkDynamicTable(const ReadAt &read, const std::vector<Elf64_Phdr> &ph,
                       const Elf64_Phdr &dynamic, const std::vector<Elf64_Dyn> &table,
                       const std::string &name) {
  DynamicCheck check(read, ph, name);
  check.segments(dynamic);
  check.run(table);
}

}  // namespace xpurt::cpu
