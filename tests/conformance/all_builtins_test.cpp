// Every builtin overload of clang's opencl-c.h (for the features the device reports), called
// from generated kernels: each kernel must build, link and run. (A kernel calling a builtin
// the device lacks would be refused by itself, naming the builtin: module_test.cpp.)
#include "device_param.hpp"

#include <string>
#include <vector>

namespace xpurt::test {
namespace {

struct BuiltinCall {
  const char *module;
  const char *kernel;
  const char *builtin;
};

const BuiltinCall kCalls[] = {
#include "builtin_calls.inc"
};

class AllBuiltinsTest : public ::testing::TestWithParam<std::string> {
 protected:
  Device device{DeviceType::CPU, 0, 0};
  TaskQueue queue{device};
};

TEST_P(AllBuiltinsTest, EveryOverloadBuildsLinksAndRuns) {
  const std::string family = GetParam();
  Module module(device, "xpurt_builtins_" + family);
  // Zero-filled inputs: every count, offset and index the calls take is 0.
  Array<uint8_t, AllocType::Shared> in(device, 4096), constants(device, 4096), out(device, 8192);
  std::fill_n(in.hostPtr(), 4096, 0);
  std::fill_n(constants.hostPtr(), 4096, 0);
  size_t kernels = 0;
  for (const BuiltinCall &call : kCalls) {
    if ("xpurt_builtins_" + family != call.module) continue;
    ++kernels;
    SCOPED_TRACE(testing::Message() << "kernel " << call.kernel << " (" << call.builtin << ")");
    try {
      Kernel kernel(module, call.kernel);
      queue.launch(kernel, Range(1).local(1), {in, constants, out, Arg::local(4096)});
      queue.sync();
    } catch (const Error &e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_GT(kernels, 0u) << "no generated kernels for " << family;
}

INSTANTIATE_TEST_SUITE_P(Families, AllBuiltinsTest,
                         ::testing::Values("atomics", "common", "conversions", "geometric",
                                           "integer", "math", "misc", "relational", "sub_groups",
                                           "vector_data", "work_groups"),
                         [](const auto &param) { return param.param; });

}  // namespace
}  // namespace xpurt::test
