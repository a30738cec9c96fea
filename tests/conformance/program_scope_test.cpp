// A module's program-scope variables and constants, shared by its kernels on every device: what
// one kernel writes to a variable, a later launch of another reads; kernels reading one constant
// table each see all of it (a CPU device compiles such a module's kernels in parts, each with a
// copy of the table, and a module with a variable whole).
#include "device_param.hpp"

#include <vector>

namespace xpurt::test {
namespace {

class ProgramScopeTest : public DeviceTest {
 protected:
  static constexpr size_t kN = 64;

  std::vector<int32_t> run(const Kernel &kernel, std::initializer_list<Arg> args) {
    queue.launch(kernel, Range(kN), args);
    queue.sync();
    return {out.hostPtr(), out.hostPtr() + kN};
  }
  static std::vector<int32_t> expected(int32_t (*f)(int32_t table)) {
    const int32_t table[4] = {1, 2, 3, 4};
    std::vector<int32_t> v;
    for (size_t i = 0; i < kN; ++i) v.push_back(f(table[i % 4]));
    return v;
  }

  Array<int32_t, AllocType::Shared> out{device, kN};
};

TEST_P(ProgramScopeTest, AVariableOneKernelWritesIsReadByAnother) {
  Module m(device, "xpurt_test_program_scope");
  Kernel get(m, "get_shared"), set(m, "set_shared");
  EXPECT_EQ(run(get, {out}), expected([](int32_t t) { return 7 + t; }));  // its initial value
  queue.launch(set, Range(1), {int32_t{42}});
  EXPECT_EQ(run(get, {out}), expected([](int32_t t) { return 42 + t; }));
  // The module's other kernels read the same table.
  EXPECT_EQ(run(Kernel(m, "table_plus"), {out, int32_t{10}}),
            expected([](int32_t t) { return t + 10; }));
}

TEST_P(ProgramScopeTest, KernelsReadingOneConstantTableEachSeeAllOfIt) {
  Module m(device, "xpurt_test_program_constants");
  EXPECT_EQ(run(Kernel(m, "table_plus"), {out, int32_t{10}}),
            expected([](int32_t t) { return t + 10; }));
  EXPECT_EQ(run(Kernel(m, "table_times"), {out, int32_t{3}}),
            expected([](int32_t t) { return t * 3; }));
}

XPURT_INSTANTIATE_CONFORMANCE(ProgramScopeTest);

}  // namespace
}  // namespace xpurt::test
