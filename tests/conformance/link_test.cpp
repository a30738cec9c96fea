// Linking SPIR-V modules (xpurtLinkModules): kernels calling functions and reading variables
// that another module defines, on every device.
#include "device_param.hpp"

#include <string>

namespace xpurt::test {
namespace {

class LinkTest : public DeviceTest {
 protected:
  Module kernels{device, "xpurt_test_link_kernels"};
  Module library{device, "xpurt_test_link_library"};

  // linked_scale over 0..7: link_scale(x) + link_table[i % 4] + link_bias + twice(0.5f).
  std::vector<float> run(const Module &linked) {
    Array<float, AllocType::Shared> data(device, 8);
    for (int i = 0; i < 8; ++i) data.hostPtr()[i] = static_cast<float>(i);
    queue.launch(Kernel(linked, "linked_scale"), Range(8), {data});
    queue.sync();
    return {data.hostPtr(), data.hostPtr() + 8};
  }
  static std::vector<float> expected(float scale) {
    const float table[4] = {0.25f, 0.5f, 0.75f, 1.0f};
    std::vector<float> out;
    for (int i = 0; i < 8; ++i) out.push_back(scale * i + table[i % 4] + 100.0f + 1.0f);
    return out;
  }
  // Runs `f`, which must throw an Error of `code` whose message has every one of `parts`.
  template <class F>
  void expectError(F f, XpurtResult code, std::initializer_list<const char *> parts) {
    try {
      f();
      ADD_FAILURE() << "no error; expected one mentioning " << *parts.begin();
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), code) << e.what();
      for (const char *part : parts)
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  }
};

TEST_P(LinkTest, KernelsCallFunctionsAndReadVariablesOfTheModulesTheyAreLinkedWith) {
  EXPECT_EQ(run(Module::link(device, {kernels, library})), expected(2.0f));
  // In any order; each module's static functions stay its own (both have a `twice`).
  EXPECT_EQ(run(Module::link(device, {library, kernels})), expected(2.0f));
}

TEST_P(LinkTest, OptionsApplyToTheLinkedModule) {
  ModuleOptions options;
  options.specConstants = {{8, 3}};  // the library's scale
  Module scaled = Module::link(device, {kernels, library}, options);
  EXPECT_EQ(run(scaled), expected(3.0f));
  EXPECT_EQ(run(Module::link(device, {kernels, library})), expected(2.0f));
}

TEST_P(LinkTest, ModulesThatImportOrHaveNoKernelsGiveNoKernelsUntilLinked) {
  expectError(
      [&] { Kernel(kernels, "linked_scale"); }, XPURT_ERROR_INVALID_MODULE,
      {"xpurt_test_link_kernels", "link_scale", "link_table", "link_bias", "xpurtLinkModules"});
  expectError([&] { Kernel(library, "link_scale"); }, XPURT_ERROR_NOT_FOUND,
              {"xpurt_test_link_library", "has no kernels", "xpurtLinkModules"});
  // Linking leaves the parts as they were.
  Module linked = Module::link(device, {kernels, library});
  expectError([&] { Kernel(kernels, "linked_scale"); }, XPURT_ERROR_INVALID_MODULE, {"link_scale"});
  expectError([&] { Kernel(linked, "no_such_kernel"); }, XPURT_ERROR_NOT_FOUND, {"no_such_kernel"});
}

TEST_P(LinkTest, SymbolsDefinedNowhereOrTwiceOrWithAnotherTypeAreRefused) {
  expectError([&] { Module::link(device, {kernels}); }, XPURT_ERROR_INVALID_MODULE,
              {"xpurt_test_link_kernels", "link_scale", "link_table", "link_bias",
               "are declared but defined by none of them", "link the module"});
  Module duplicate(device, "xpurt_test_link_duplicate");
  expectError(
      [&] {
        Module::link(device, {kernels, library, duplicate});
      },
      XPURT_ERROR_INVALID_MODULE,
      {"xpurt_test_link_duplicate", "link_scale", "defined by one module only"});
  Module mismatch(device, "xpurt_test_link_mismatch");
  expectError(
      [&] {
        Module::link(device, {kernels, mismatch});
      },
      XPURT_ERROR_INVALID_MODULE, {"Type mismatch", "link_scale", "same type"});
  // Nothing was lost: the right modules still link and run.
  EXPECT_EQ(run(Module::link(device, {kernels, library})), expected(2.0f));
}

TEST_P(LinkTest, BadArgumentsAreRefusedWithTheReason) {
  XpurtModule parts[2] = {kernels.handle(), library.handle()};
  XpurtModule out = nullptr;
  EXPECT_EQ(xpurtLinkModules(device.handle(), nullptr, 2, nullptr, &out),
            XPURT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpurtLastErrorMessage()).find("at least one module"), std::string::npos);
  EXPECT_EQ(xpurtLinkModules(device.handle(), parts, 0, nullptr, &out),
            XPURT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(xpurtLinkModules(device.handle(), parts, 2, nullptr, nullptr),
            XPURT_ERROR_INVALID_ARGUMENT);
  XpurtModule withNull[2] = {kernels.handle(), nullptr};
  EXPECT_NE(xpurtLinkModules(device.handle(), withNull, 2, nullptr, &out), XPURT_SUCCESS);
  EXPECT_NE(std::string(xpurtLastErrorMessage()).find("modules[1]"), std::string::npos)
      << xpurtLastErrorMessage();
  XpurtModuleOptions badOptions{};  // structSize 0
  EXPECT_EQ(xpurtLinkModules(device.handle(), parts, 2, &badOptions, &out),
            XPURT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);

  // A module of another device: the CPU device with other flags is another device.
  Device other(DeviceType::CPU, 0, GetParam().flags ^ XPURT_DEVICE_FLAG_SEPARATE_MEMORY);
  Module foreign(other, "xpurt_test_link_library");
  expectError(
      [&] {
        Module::link(device, {kernels, foreign});
      },
      XPURT_ERROR_INVALID_ARGUMENT, {"modules[1]", "load every module to link on the device"});

  if (onCpu()) {  // native modules exist on the CPU device only
    Module native(device, "xpurt_test_kernels");
    expectError(
        [&] {
          Module::link(device, {kernels, native});
        },
        XPURT_ERROR_INVALID_ARGUMENT, {"modules[1]", "native module", "only SPIR-V modules"});
  }
  EXPECT_EQ(run(Module::link(device, {kernels, library})), expected(2.0f));
}

XPURT_INSTANTIATE_CONFORMANCE(LinkTest);

}  // namespace
}  // namespace xpurt::test
