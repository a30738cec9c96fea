// The CPU JIT's disk cache: entries are reused, and corrupt or foreign ones are rebuilt.
#include "c_api_fixture.hpp"

#include <xpurt/xpurt.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace xpurt::test {
namespace {

namespace fs = std::filesystem;

std::string readAll(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeAll(const fs::path &p, const std::string &bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

class JitCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("xpurt_cache_" + std::to_string(getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    env = std::make_unique<ScopedEnv>("XPURT_CACHE_DIR", dir.c_str());
  }
  void TearDown() override {
    env.reset();
    fs::remove_all(dir);
  }

  // Loads a SPIR-V module, runs a kernel from it and releases everything (so the next load
  // cannot come from the in-memory cache).
  void loadAndRun(const char *module) {
    Device device(DeviceType::CPU);
    Module m(device, module);
    TaskQueue queue(device);
    Array<int32_t, AllocType::Shared> counter(device, 1), slots(device, 8);
    counter.hostPtr()[0] = 0;
    std::fill_n(slots.hostPtr(), 8, 0);
    if (std::string(module) == "xpurt_test_spirv") {
      queue.launch(Kernel(m, "global_atomics"), Range(64), {counter, slots});
      queue.sync();
      EXPECT_EQ(counter.hostPtr()[0], 64);
    } else {
      Kernel(m, "simple_ispc");
    }
  }

  std::vector<fs::path> entries() const {
    std::vector<fs::path> files;
    for (auto &e : fs::directory_iterator(dir)) files.push_back(e.path());
    return files;
  }

  fs::path dir;
  std::unique_ptr<ScopedEnv> env;
};

TEST_F(JitCache, ACompiledModuleIsStoredAndReused) {
  loadAndRun("xpurt_test_spirv");
  ASSERT_EQ(entries().size(), 1u);
  fs::path entry = entries()[0];
  auto written = fs::last_write_time(entry);
  std::string bytes = readAll(entry);
  loadAndRun("xpurt_test_spirv");
  EXPECT_EQ(entries().size(), 1u);
  EXPECT_EQ(fs::last_write_time(entry), written);  // read, not rewritten
  EXPECT_EQ(readAll(entry), bytes);
}

TEST_F(JitCache, CorruptTruncatedAndForeignEntriesAreRebuilt) {
  loadAndRun("simple");
  loadAndRun("xpurt_test_spirv");
  ASSERT_EQ(entries().size(), 2u);
  fs::path mine;
  std::string other;
  for (const fs::path &p : entries()) {
    if (fs::file_size(p) > 10000)
      mine = p;  // the test module's code is the bigger one
    else
      other = readAll(p);
  }
  ASSERT_FALSE(mine.empty());
  std::string good = readAll(mine);

  std::string corrupt = good;
  corrupt[corrupt.size() / 2] ^= 0x5a;  // inside the machine code
  std::string truncated = good.substr(0, good.size() - 100);
  for (const std::string &bad : {corrupt, truncated, other, std::string("not a cache entry")}) {
    writeAll(mine, bad);
    loadAndRun("xpurt_test_spirv");  // runs correctly (checked inside)
    EXPECT_EQ(readAll(mine), good);  // and the entry was rebuilt
  }
}

TEST_F(JitCache, CanBeTurnedOffOrPointedAtAnUnusablePlace) {
  {
    ScopedEnv off("XPURT_CACHE_DIR", "off");
    loadAndRun("simple");
  }
  EXPECT_FALSE(fs::exists(dir));
  fs::path file = fs::temp_directory_path() / ("xpurt_cache_file_" + std::to_string(getpid()));
  writeAll(file, "a file where a folder should be");
  {
    ScopedEnv bad("XPURT_CACHE_DIR", file.c_str());
    loadAndRun("simple");  // works without the disk cache (a warning is logged)
  }
  fs::remove(file);
}

TEST_F(JitCache, EntriesThatAreNotRegularFilesAreNeverRead) {
  loadAndRun("simple");
  ASSERT_EQ(entries().size(), 1u);
  fs::path entry = entries()[0];
  // A FIFO would block the read forever, /dev/zero would fill memory, a directory fails it:
  // each is passed over, the module compiles anew, and the load works.
  auto replaceWith = [&](auto make) {
    fs::remove_all(entry);
    make();
    loadAndRun("simple");
  };
  replaceWith([&] { ASSERT_EQ(mkfifo(entry.c_str(), 0600), 0); });
  replaceWith([&] { fs::create_symlink("/dev/zero", entry); });
  replaceWith([&] { fs::create_directory(entry); });
  fs::remove_all(entry);
  loadAndRun("simple");  // and a real entry is written again
  EXPECT_TRUE(fs::is_regular_file(entry));
}

}  // namespace
}  // namespace xpurt::test
