// XPURT_CPU_ISA's choice of the CPU JIT's features (cpu/jit_isa.hpp), on feature sets of
// CPUs with and without AVX-512: what is limited goes, the rest stays, and a limit above the
// CPU is an error that says what to do.
#include "cpu/jit_isa.hpp"

#include <gtest/gtest.h>

#include <string>

namespace xpurt::cpu {
namespace {

const std::map<std::string, bool> kAvx512Cpu = {
    {"sse4.2", true},     {"avx", true},      {"avx2", true},       {"fma", true},
    {"avx512f", true},    {"avx512bw", true}, {"avx512vl", true},   {"avx512fp16", true},
    {"amx-tile", true},   {"avxvnni", true},  {"avx512vnni", true}, {"f16c", true},
    {"avx512ifma", false}};

TEST(JitIsaTest, NativeKeepsEveryFeatureOfTheCpu) {
  EXPECT_EQ(jitFeatures(kAvx512Cpu, JitIsa::Native), kAvx512Cpu);
}

TEST(JitIsaTest, Avx2TurnsOffAvx512AndAmxAndKeepsTheRest) {
  std::map<std::string, bool> limited = jitFeatures(kAvx512Cpu, JitIsa::Avx2);
  ASSERT_EQ(limited.size(), kAvx512Cpu.size());
  for (const auto &[name, on] : kAvx512Cpu) {
    bool avx512 = name.rfind("avx512", 0) == 0 || name.rfind("amx", 0) == 0;
    EXPECT_EQ(limited.at(name), avx512 ? false : on) << name;
  }
}

TEST(JitIsaTest, Avx2OnACpuWithoutItIsAnError) {
  for (const std::map<std::string, bool> &cpu :
       {std::map<std::string, bool>{{"sse4.2", true}, {"avx", true}, {"avx2", false}},
        std::map<std::string, bool>{{"sse4.2", true}}}) {
    try {
      jitFeatures(cpu, JitIsa::Avx2);
      ADD_FAILURE() << "accepted";
    } catch (const core::Error &e) {
      EXPECT_EQ(e.code(), XPURT_ERROR_UNSUPPORTED);
      EXPECT_NE(std::string(e.what()).find("XPURT_CPU_ISA"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace xpurt::cpu
