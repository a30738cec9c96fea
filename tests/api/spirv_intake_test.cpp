// Bad SPIR-V is refused with a message that says what is wrong, and the runtime goes on.
#include "c_api_fixture.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>

namespace xpurt::test {
namespace {

class SpirvIntake : public CApiTest {
 protected:
  std::string module() {
    auto path = std::filesystem::read_symlink("/proc/self/exe").parent_path() / "simple.spv";
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  XpurtResult load(const std::string &bytes) {
    XpurtModule m = nullptr;
    XpurtResult r = xpurtLoadModuleFromMemory(device, bytes.data(), bytes.size(), nullptr, &m);
    if (m) xpurtRelease(m);
    return r;
  }
};

TEST_F(SpirvIntake, TruncatedModulesAreRefused) {
  std::string good = module();
  ASSERT_GT(good.size(), 100u);
  EXPECT_XPURT(XPURT_SUCCESS, load(good));
  EXPECT_XPURT(XPURT_ERROR_INVALID_MODULE, load(good.substr(0, good.size() / 2 / 4 * 4)));
  EXPECT_XPURT(XPURT_ERROR_INVALID_MODULE, load(good.substr(0, 40)));
  EXPECT_XPURT(XPURT_ERROR_INVALID_MODULE, load(good.substr(0, good.size() - 3)));
  EXPECT_TRUE(contains(lastMessage(), "whole number of 32-bit words")) << lastMessage();
  expectUsable();
}

TEST_F(SpirvIntake, GarbageAfterTheMagicNumberIsRefused) {
  std::string bytes = module().substr(0, 20);
  for (int i = 0; i < 64; ++i) bytes += static_cast<char>((i * 97 + 13) & 0xff);
  EXPECT_XPURT(XPURT_ERROR_INVALID_MODULE, load(bytes));
  EXPECT_TRUE(contains(lastMessage(), "SPIR-V")) << lastMessage();
  expectUsable();
}

TEST_F(SpirvIntake, AnUnsupportedCapabilityIsNamed) {
  std::string bytes = module();
  // Turn the module's "OpCapability Int64" into "OpCapability Pipes".
  const uint32_t from[2] = {0x00020011, 11}, to[2] = {0x00020011, 17};
  auto at = bytes.find(std::string(reinterpret_cast<const char *>(from), 8));
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 8, std::string(reinterpret_cast<const char *>(to), 8));
  EXPECT_XPURT(XPURT_ERROR_UNSUPPORTED, load(bytes));
  EXPECT_TRUE(contains(lastMessage(), "Pipes")) << lastMessage();
  EXPECT_TRUE(contains(lastMessage(), "CPU")) << lastMessage();
  expectUsable();
}

}  // namespace
}  // namespace xpurt::test
