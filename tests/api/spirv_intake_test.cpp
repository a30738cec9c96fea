// Bad SPIR-V is refused with a message that says what is wrong, and the runtime goes on.
#include "c_api_fixture.hpp"

#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <vector>

namespace xpurt::test {
namespace {

class SpirvIntake : public CApiTest {
 protected:
  std::string module(const char *file = "simple.spv") { return readBesideTests(file); }
  // The module with its "OpCapability Int64" turned into another capability.
  std::string withInt64Replaced(uint32_t capability) {
    std::string bytes = module();
    const uint32_t from[2] = {0x00020011, 11}, to[2] = {0x00020011, capability};
    auto at = bytes.find(std::string(reinterpret_cast<const char *>(from), 8));
    EXPECT_NE(at, std::string::npos);
    if (at != std::string::npos)
      bytes.replace(at, 8, std::string(reinterpret_cast<const char *>(to), 8));
    return bytes;
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
  EXPECT_XPURT(XPURT_ERROR_UNSUPPORTED, load(withInt64Replaced(17)));  // Pipes
  EXPECT_TRUE(contains(lastMessage(), "Pipes")) << lastMessage();
  EXPECT_TRUE(contains(lastMessage(), "CPU")) << lastMessage();
  expectUsable();
}

TEST_F(SpirvIntake, AnExtensionCapabilityIsNamedWithItsExtension) {
  // RayTracingKHR (4479), which no xpurt device supports.
  EXPECT_XPURT(XPURT_ERROR_UNSUPPORTED, load(withInt64Replaced(4479)));
  EXPECT_TRUE(contains(lastMessage(), "RayTracingKHR (SPV_KHR_ray_tracing, 4479)"))
      << lastMessage();
  expectUsable();
}

TEST_F(SpirvIntake, HintCapabilitiesOfIcpxAreAccepted) {
  // ExpectAssumeKHR, FPFastMathModeINTEL and MemoryAccessAliasingINTEL (with its extension)
  // only allow hints: a module that declares them loads.
  std::string bytes = module();
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  size_t at = 5;
  while ((words[at] & 0xffff) == 17) at += words[at] >> 16;  // past the OpCapability block
  std::vector<uint32_t> added = {0x00020011, 5629, 0x00020011, 5837, 0x00020011, 5910};
  for (std::string ext : {"SPV_KHR_expect_assume", "SPV_INTEL_fp_fast_math_mode",
                          "SPV_INTEL_memory_access_aliasing"}) {
    ext.resize((ext.size() / 4 + 1) * 4, '\0');  // NUL-terminated, padded to whole words
    uint32_t count = 1 + static_cast<uint32_t>(ext.size() / 4);
    added.push_back((count << 16) | 10u);  // OpExtension
    for (size_t w = 0; w < ext.size(); w += 4) {
      uint32_t word;
      std::memcpy(&word, ext.data() + w, 4);
      added.push_back(word);
    }
  }
  words.insert(words.begin() + static_cast<std::ptrdiff_t>(at), added.begin(), added.end());
  EXPECT_XPURT(XPURT_SUCCESS,
               load(std::string(reinterpret_cast<const char *>(words.data()), words.size() * 4)));
  expectUsable();
}

// The validator stops at a tolerated layout finding, so the reader's own checks see this id
// first: it must be refused, not used as an index.
TEST_F(SpirvIntake, AnIdPastTheBoundIsRefused) {
  std::string bytes = module();
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  bool changed = false;
  for (size_t i = 5; i < words.size() && !changed; i += words[i] >> 16) {
    if ((words[i] & 0xFFFF) == 70 /*OpInBoundsPtrAccessChain*/) {
      words[i + 3] = 0xFFFFFFFF;  // its base pointer
      changed = true;
    }
    if ((words[i] >> 16) == 0) break;
  }
  ASSERT_TRUE(changed);
  EXPECT_XPURT(XPURT_ERROR_INVALID_MODULE,
               load(std::string(reinterpret_cast<const char *>(words.data()), words.size() * 4)));
  EXPECT_TRUE(contains(lastMessage(), "uses id %4294967295, outside the id bound"))
      << lastMessage();
  words[3] = 0xFFFFFFF0;  // a bound no real module has
  EXPECT_XPURT(XPURT_ERROR_INVALID_MODULE,
               load(std::string(reinterpret_cast<const char *>(words.data()), words.size() * 4)));
  expectUsable();
}

// The validator stops at this module's tolerated finding (AliasDomainDeclINTEL outside a
// block) before it checks what entry points and calls name, and SPIRV-Tools' linker and the
// translator follow those ids to a function without looking: pointing either at a type must be
// refused at the intake, not crash the process.
TEST_F(SpirvIntake, AnEntryPointOrCallOfNoFunctionIsRefused) {
  std::string bytes = module("xpurt_test_icpx_shaped.spv");
  ASSERT_FALSE(bytes.empty());
  EXPECT_XPURT(XPURT_SUCCESS, load(bytes));
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  size_t entryPoint = 0, call = 0;
  uint32_t voidType = 0;
  for (size_t i = 5; i < words.size() && (words[i] >> 16); i += words[i] >> 16) {
    uint32_t opcode = words[i] & 0xFFFF;
    if (opcode == 15 /*OpEntryPoint*/) entryPoint = i + 2;
    if (opcode == 57 /*OpFunctionCall*/) call = i + 3;
    if (opcode == 19 /*OpTypeVoid*/) voidType = words[i + 1];
  }
  ASSERT_TRUE(entryPoint && call && voidType);
  for (size_t operand : {entryPoint, call}) {
    std::vector<uint32_t> broken = words;
    broken[operand] = voidType;
    EXPECT_XPURT(XPURT_ERROR_INVALID_MODULE,
                 load(std::string(reinterpret_cast<const char *>(broken.data()), bytes.size())));
    EXPECT_TRUE(contains(lastMessage(), "names id %" + std::to_string(voidType) +
                                            " as an entry point or calls it, but it is no "
                                            "function"))
        << lastMessage();
  }
  expectUsable();
}

// LLVMSPIRVLib aborts on this module (tests/kernels/translator_abort.spvasm): the JIT worker
// process dies instead of this one, and the load gets an error that says so.
TEST_F(SpirvIntake, AModuleThatAbortsTheTranslatorIsAnErrorNotACrash) {
  std::string bytes = module("xpurt_test_translator_abort.spv");
  ASSERT_FALSE(bytes.empty());
  ScopedEnv noCache("XPURT_CACHE_DIR", "off");
  for (int i = 0; i < 3; ++i) {
    EXPECT_XPURT(XPURT_ERROR_INVALID_MODULE, load(bytes));
    EXPECT_TRUE(contains(lastMessage(), "JIT worker")) << lastMessage();
    EXPECT_TRUE(contains(lastMessage(), "SIGABRT")) << lastMessage();
    EXPECT_TRUE(contains(lastMessage(), "Not a pointer type")) << lastMessage();
  }
  expectUsable();
  EXPECT_XPURT(XPURT_SUCCESS, load(module()));
}

// A module that takes longer than XPURT_JIT_TIMEOUT to compile: the worker is stopped (and
// reaped), the load fails saying why, the runtime goes on.
TEST_F(SpirvIntake, AJitWorkerPastItsTimeLimitIsStopped) {
  std::string big = module("xpurt_builtins_math.spv");  // hundreds of kernels: seconds of O3
  ASSERT_FALSE(big.empty());
  ScopedEnv noCache("XPURT_CACHE_DIR", "off");
  ScopedEnv oneSecond("XPURT_JIT_TIMEOUT", "1");
  auto start = std::chrono::steady_clock::now();
  EXPECT_XPURT(XPURT_ERROR_INVALID_MODULE, load(big));
  EXPECT_TRUE(contains(lastMessage(), "XPURT_JIT_TIMEOUT")) << lastMessage();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  // The stopped worker was reaped: no child has ended unreaped (kept workers run on).
  EXPECT_LE(waitpid(-1, nullptr, WNOHANG), 0);
  ScopedEnv wrong("XPURT_JIT_TIMEOUT", "soon");
  EXPECT_XPURT(XPURT_ERROR_INVALID_CONFIG, load(big));
  EXPECT_TRUE(contains(lastMessage(), "XPURT_JIT_TIMEOUT")) << lastMessage();
  expectUsable();
}

// XPURT_JIT_ISOLATION=off compiles in this process, for profiling and debugging the JIT.
TEST_F(SpirvIntake, TheJitCanRunInThisProcess) {
  ScopedEnv noCache("XPURT_CACHE_DIR", "off");
  ScopedEnv inProcess("XPURT_JIT_ISOLATION", "off");
  EXPECT_XPURT(XPURT_SUCCESS, load(module()));
  ScopedEnv wrong("XPURT_JIT_ISOLATION", "maybe");
  EXPECT_XPURT(XPURT_ERROR_INVALID_CONFIG, load(module()));
  EXPECT_TRUE(contains(lastMessage(), "XPURT_JIT_ISOLATION")) << lastMessage();
}

// XPURT_CPU_VECTORIZE takes on or off; anything else is refused, naming the variable.
TEST_F(SpirvIntake, TheVectoriserSettingIsOnOrOff) {
  ScopedEnv noCache("XPURT_CACHE_DIR", "off");
  {
    ScopedEnv off("XPURT_CPU_VECTORIZE", "off");
    EXPECT_XPURT(XPURT_SUCCESS, load(module()));
  }
  ScopedEnv wrong("XPURT_CPU_VECTORIZE", "maybe");
  EXPECT_XPURT(XPURT_ERROR_INVALID_CONFIG, load(module()));
  EXPECT_TRUE(contains(lastMessage(), "XPURT_CPU_VECTORIZE")) << lastMessage();
  expectUsable();
}

}  // namespace
}  // namespace xpurt::test
