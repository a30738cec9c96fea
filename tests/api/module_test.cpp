// Loading modules by name, path and memory, and what happens when that fails.
#include "c_api_fixture.hpp"

#include <elf.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace xpurt::test {
namespace {

namespace fs = std::filesystem;

class ModuleTest : public CApiTest {
 protected:
  fs::path kernelsLibrary() {
    return fs::read_symlink("/proc/self/exe").parent_path() / "libxpurt_test_kernels.so";
  }
  fs::path writeFile(const std::string &name, const std::string &bytes) {
    fs::path p = fs::temp_directory_path() / ("xpurt_test_" + std::to_string(getpid()) + name);
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  XpurtModule loaded = nullptr;
  void TearDown() override {
    if (loaded) xpurtRelease(loaded);
    CApiTest::TearDown();
  }
};

TEST_F(ModuleTest, LoadsByPathAndFromMemory) {
  std::string path = kernelsLibrary().string();
  EXPECT_XPURT(XPURT_SUCCESS, xpurtLoadModuleFromFile(device, path.c_str(), nullptr, &loaded));
  xpurtRelease(loaded);
  loaded = nullptr;

  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_XPURT(XPURT_SUCCESS,
               xpurtLoadModuleFromMemory(device, bytes.data(), bytes.size(), nullptr, &loaded));
  XpurtKernel k = nullptr;
  EXPECT_XPURT(XPURT_SUCCESS, xpurtNewKernel(loaded, "write_index", &k));
  // The kernel from memory runs like any other.
  std::swap(k, kernel);
  expectUsable();
  std::swap(k, kernel);
  xpurtRelease(k);
}

TEST_F(ModuleTest, ModulePathIsSearchedByName) {
  fs::path dir = fs::temp_directory_path() / ("xpurt_modpath_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(kernelsLibrary(), dir / "librenamed_kernels.so",
                fs::copy_options::overwrite_existing);
  {
    XpurtModule m = nullptr;
    EXPECT_XPURT(XPURT_ERROR_NOT_FOUND, xpurtLoadModule(device, "renamed_kernels", nullptr, &m));
    ScopedEnv env("XPURT_MODULE_PATH", dir.c_str());
    EXPECT_XPURT(XPURT_SUCCESS, xpurtLoadModule(device, "renamed_kernels", nullptr, &loaded));
  }
  fs::remove_all(dir);
}

TEST_F(ModuleTest, AMissingModuleSaysWhereItLooked) {
  EXPECT_XPURT(XPURT_ERROR_NOT_FOUND, xpurtLoadModule(device, "no_such_module", nullptr, &loaded));
  EXPECT_TRUE(contains(lastMessage(), "libno_such_module.so")) << lastMessage();
  EXPECT_TRUE(contains(lastMessage(), "XPURT_MODULE_PATH")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_NOT_FOUND,
               xpurtLoadModuleFromFile(device, "/nonexistent/libx.so", nullptr, &loaded));
  EXPECT_TRUE(contains(lastMessage(), "does not exist")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtLoadModule(device, "", nullptr, &loaded));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtLoadModule(device, nullptr, nullptr, &loaded));
  EXPECT_EQ(loaded, nullptr);
  expectUsable();
}

TEST_F(ModuleTest, FilesThatAreNotModulesAreRejected) {
  fs::path text = writeFile("notes.txt", "this is not a shared library\n");
  EXPECT_XPURT(XPURT_ERROR_INVALID_MODULE,
               xpurtLoadModuleFromFile(device, text.c_str(), nullptr, &loaded));
  EXPECT_TRUE(contains(lastMessage(), "neither a shared library")) << lastMessage();
  fs::path fakeElf = writeFile("fake.so", std::string("\x7f"
                                                      "ELF",
                                                      4) +
                                              std::string(200, '\0'));
  EXPECT_XPURT(XPURT_ERROR_INVALID_MODULE,
               xpurtLoadModuleFromFile(device, fakeElf.c_str(), nullptr, &loaded));
  EXPECT_TRUE(contains(lastMessage(), "not a loadable shared library")) << lastMessage();
  EXPECT_XPURT(
      XPURT_ERROR_INVALID_MODULE,
      xpurtLoadModuleFromFile(device, fs::temp_directory_path().c_str(), nullptr, &loaded));
  const char garbage[] = "garbage bytes";
  EXPECT_XPURT(XPURT_ERROR_INVALID_MODULE,
               xpurtLoadModuleFromMemory(device, garbage, sizeof garbage, nullptr, &loaded));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT,
               xpurtLoadModuleFromMemory(device, nullptr, 10, nullptr, &loaded));
  fs::remove(text);
  fs::remove(fakeElf);
  EXPECT_EQ(loaded, nullptr);
  expectUsable();
}

TEST_F(ModuleTest, TruncatedAndDamagedLibrariesAreRefusedBeforeTheDynamicLinker) {
  std::ifstream in(kernelsLibrary(), std::ios::binary);
  std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(good.size(), 4096u);
  std::vector<std::string> damaged;
  // Truncated inside its segments: past the end of a mapped segment the loader takes SIGBUS.
  // (Past them only section headers and debug information go, which loading does not need.)
  Elf64_Ehdr h;
  std::memcpy(&h, good.data(), sizeof h);
  std::vector<Elf64_Phdr> phs(h.e_phnum);
  std::memcpy(phs.data(), good.data() + h.e_phoff, phs.size() * sizeof(Elf64_Phdr));
  size_t segmentsEnd = 0;
  Elf64_Phdr dynamic{};
  for (const Elf64_Phdr &ph : phs) {
    segmentsEnd = std::max<size_t>(segmentsEnd, ph.p_offset + ph.p_filesz);
    if (ph.p_type == PT_DYNAMIC) dynamic = ph;
  }
  for (size_t size : {size_t{63}, size_t{200}, segmentsEnd / 2, segmentsEnd - 1})
    damaged.push_back(good.substr(0, size));
  auto patched = [&](size_t offset, const void *bytes, size_t n) {
    std::string s = good;
    std::memcpy(s.data() + offset, bytes, n);
    return s;
  };
  const uint8_t class32 = ELFCLASS32;
  const uint16_t otherMachine = EM_AARCH64 == EM_X86_64 ? EM_RISCV : EM_AARCH64;
  const uint64_t farAway = uint64_t{1} << 40;
  const uint16_t hugeCount = 0xfff0;
  damaged.push_back(patched(EI_CLASS, &class32, 1));
  damaged.push_back(patched(offsetof(Elf64_Ehdr, e_machine), &otherMachine, 2));
  damaged.push_back(patched(offsetof(Elf64_Ehdr, e_phoff), &farAway, 8));
  damaged.push_back(patched(offsetof(Elf64_Ehdr, e_phnum), &hugeCount, 2));
  // The first program header's file offset moved far past the end.
  damaged.push_back(patched(h.e_phoff + offsetof(Elf64_Phdr, p_offset), &farAway, 8));
  // The dynamic table's entries, each damaged the way the mutation test found crashes in
  // the dynamic linker: an unknown tag, a wrong entry size, tables moved out of place.
  ASSERT_NE(dynamic.p_filesz, 0u);
  size_t dynamicDamages = 0;
  for (size_t at = dynamic.p_offset; at + sizeof(Elf64_Dyn) <= dynamic.p_offset + dynamic.p_filesz;
       at += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d;
    std::memcpy(&d, good.data() + at, sizeof d);
    if (d.d_tag == DT_NULL) break;
    const int64_t unknownTag = d.d_tag + 0x100;
    damaged.push_back(patched(at, &unknownTag, 8));
    switch (d.d_tag) {
      case DT_RELACOUNT:  // more relative relocations than there are
      case DT_RELAENT:
      case DT_SYMENT:
      case DT_STRSZ:
      case DT_RELASZ: {
        const uint64_t wrong = d.d_un.d_val + 0x1000001;
        damaged.push_back(patched(at + 8, &wrong, 8));
        ++dynamicDamages;
        break;
      }
      case DT_STRTAB:
      case DT_SYMTAB:
      case DT_GNU_HASH:
      case DT_RELA:
      case DT_JMPREL:
      case DT_VERSYM:
      case DT_VERNEED:
      case DT_INIT_ARRAY: {
        const uint64_t moved = d.d_un.d_ptr + 0x1000000;
        damaged.push_back(patched(at + 8, &moved, 8));
        ++dynamicDamages;
        if (d.d_tag == DT_SYMTAB || d.d_tag == DT_STRTAB) {
          // Moved by less than an entry, so it stays inside its segment.
          const uint64_t shifted = d.d_un.d_ptr + 16;
          damaged.push_back(patched(at + 8, &shifted, 8));
        }
        break;
      }
      default:
        break;
    }
  }
  EXPECT_GE(dynamicDamages, 7u);
  // The dynamic segment's address apart from its file offset, and the read-only-after-
  // relocation range moved off the start of its segment.
  for (size_t i = 0; i < phs.size(); ++i) {
    if (phs[i].p_type != PT_DYNAMIC && phs[i].p_type != PT_GNU_RELRO) continue;
    const uint64_t moved = phs[i].p_vaddr + 0x1000;
    damaged.push_back(
        patched(h.e_phoff + i * sizeof(Elf64_Phdr) + offsetof(Elf64_Phdr, p_vaddr), &moved, 8));
  }
  for (size_t i = 0; i < damaged.size(); ++i) {
    SCOPED_TRACE(testing::Message() << "damaged library " << i);
    fs::path file = writeFile("damaged" + std::to_string(i) + ".so", damaged[i]);
    EXPECT_XPURT(XPURT_ERROR_INVALID_MODULE,
                 xpurtLoadModuleFromFile(device, file.c_str(), nullptr, &loaded));
    EXPECT_TRUE(contains(lastMessage(), "not a loadable shared library")) << lastMessage();
    EXPECT_XPURT(
        XPURT_ERROR_INVALID_MODULE,
        xpurtLoadModuleFromMemory(device, damaged[i].data(), damaged[i].size(), nullptr, &loaded));
    fs::remove(file);
  }
  EXPECT_EQ(loaded, nullptr);
  expectUsable();
}

TEST_F(ModuleTest, ASpirvHeaderWithoutAnOpenClMemoryModelIsRefused) {
  const uint32_t header[5] = {0x07230203, 0x00010000, 0, 1, 0};
  EXPECT_XPURT(XPURT_ERROR_UNSUPPORTED,
               xpurtLoadModuleFromMemory(device, header, sizeof header, nullptr, &loaded));
  EXPECT_TRUE(contains(lastMessage(), "SPIR-V")) << lastMessage();
  expectUsable();
}

TEST_F(ModuleTest, AMissingKernelNamesTheModule) {
  XpurtKernel k = nullptr;
  EXPECT_XPURT(XPURT_ERROR_NOT_FOUND, xpurtNewKernel(module, "not_a_kernel", &k));
  EXPECT_TRUE(contains(lastMessage(), "not_a_kernel")) << lastMessage();
  EXPECT_TRUE(contains(lastMessage(), "libxpurt_test_kernels.so")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtNewKernel(module, nullptr, &k));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtNewKernel(module, "", &k));
  EXPECT_EQ(k, nullptr);
  expectUsable();
}

TEST_F(ModuleTest, KernelsKeepTheirModuleAlive) {
  XpurtModule m = nullptr;
  XpurtKernel k = nullptr;
  ASSERT_EQ(xpurtLoadModule(device, "xpurt_test_kernels", nullptr, &m), XPURT_SUCCESS);
  ASSERT_EQ(xpurtNewKernel(m, "write_index", &k), XPURT_SUCCESS);
  ASSERT_EQ(xpurtRelease(m), XPURT_SUCCESS);
  std::swap(k, kernel);
  expectUsable();
  std::swap(k, kernel);
  xpurtRelease(k);
}

TEST_F(ModuleTest, AKernelCallingAMissingBuiltinFailsAloneAndNamesIt) {
  // xpurt_test_missing_builtin.spv: `uses_missing` calls an overloaded function no library defines;
  // `fill_ones` in the same module does not.
  std::string path = (kernelsLibrary().parent_path() / "xpurt_test_missing_builtin.spv").string();
  ASSERT_EQ(xpurtLoadModuleFromFile(device, path.c_str(), nullptr, &loaded), XPURT_SUCCESS)
      << lastMessage();
  XpurtKernel bad = nullptr, good = nullptr;
  EXPECT_XPURT(XPURT_ERROR_UNSUPPORTED, xpurtNewKernel(loaded, "uses_missing", &bad));
  EXPECT_TRUE(contains(lastMessage(), "'uses_missing'")) << lastMessage();
  EXPECT_TRUE(contains(lastMessage(), "xpurt_no_such_builtin(int)")) << lastMessage();
  EXPECT_EQ(bad, nullptr);
  ASSERT_EQ(xpurtNewKernel(loaded, "fill_ones", &good), XPURT_SUCCESS) << lastMessage();
  XpurtMemoryView out = nullptr;
  ASSERT_EQ(xpurtNewMemoryView(device, nullptr, 64 * sizeof(int), XPURT_ALLOC_TYPE_SHARED, &out),
            XPURT_SUCCESS);
  XpurtKernelArg arg{};
  arg.kind = XPURT_KERNEL_ARG_MEMORY_VIEW;
  arg.view = out;
  size_t global[1] = {64};
  EXPECT_XPURT(XPURT_SUCCESS,
               xpurtLaunchKernel(queue, good, 1, &arg, 1, nullptr, global, nullptr, nullptr));
  EXPECT_XPURT(XPURT_SUCCESS, xpurtSync(queue));
  void *host = nullptr;
  ASSERT_EQ(xpurtHostPtr(out, &host), XPURT_SUCCESS);
  auto *ints = static_cast<int *>(host);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(ints[i], 1) << i;
  xpurtRelease(out);
  xpurtRelease(good);
  expectUsable();
}

}  // namespace
}  // namespace xpurt::test
