// The C++ API's handles: empty when default-constructed, typed reference counting, and a Range
// that a size never turns into.
#include <gtest/gtest.h>
#include <xpurt/xpurt.hpp>

#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <utility>

namespace xpurt::test {
namespace {

// Whether q.launch(kernel, a, b) compiles for arguments of types A and B.
template <class A, class B, class = void>
struct LaunchCompiles : std::false_type {};
template <class A, class B>
struct LaunchCompiles<A, B,
                      std::void_t<decltype(std::declval<TaskQueue &>().launch(
                          std::declval<const Kernel &>(), std::declval<A>(), std::declval<B>()))>>
    : std::true_type {};

// A size is a task launch's, a Range a general launch's: neither passes for the other.
static_assert(!std::is_convertible_v<size_t, Range>);
static_assert(!LaunchCompiles<size_t, std::initializer_list<Arg>>::value);
static_assert(LaunchCompiles<Range, std::initializer_list<Arg>>::value);
static_assert(LaunchCompiles<const MemoryView &, size_t>::value);
static_assert(LaunchCompiles<size_t, size_t>::value);

static_assert(std::is_nothrow_default_constructible_v<Device>);
static_assert(std::is_nothrow_default_constructible_v<Context>);
static_assert(std::is_nothrow_default_constructible_v<MemoryView>);
static_assert(std::is_nothrow_default_constructible_v<Array<float>>);
static_assert(std::is_nothrow_default_constructible_v<Module>);
static_assert(std::is_nothrow_default_constructible_v<Kernel>);
static_assert(std::is_nothrow_default_constructible_v<TaskQueue>);
static_assert(std::is_nothrow_default_constructible_v<Future>);
static_assert(std::is_nothrow_default_constructible_v<GraphExec>);

template <class H>
void expectEmptyAndRefused(const H &handle) {
  EXPECT_FALSE(handle);
  EXPECT_EQ(handle.handle(), nullptr);
  H copy = handle;  // copying an empty handle retains nothing
  EXPECT_FALSE(copy);
}

TEST(CppHandles, DefaultConstructedHandlesAreEmptyAndCallsThroughThemThrow) {
  expectEmptyAndRefused(Device());
  expectEmptyAndRefused(Context());
  expectEmptyAndRefused(MemoryView());
  expectEmptyAndRefused(Module());
  expectEmptyAndRefused(Kernel());
  expectEmptyAndRefused(TaskQueue());
  expectEmptyAndRefused(Future());
  TaskQueue queue;
  try {
    queue.sync();
    FAIL() << "sync through an empty queue did not throw";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), XPURT_ERROR_INVALID_HANDLE);
    EXPECT_NE(std::string(e.what()).find("NULL"), std::string::npos) << e.what();
  }
  Array<int> empty;
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_THROW(empty.hostPtr(), Error);
  EXPECT_THROW(Kernel(Module(), "k"), Error);
}

TEST(CppHandles, AHandleCanBeFilledLaterAndMovedFromIsEmpty) {
  Device device;
  EXPECT_FALSE(device);
  device = Device(DeviceType::CPU);
  ASSERT_TRUE(device);
  EXPECT_EQ(device.info().type, XPURT_DEVICE_TYPE_CPU);
  Device copy = device;  // a reference of its own (typed retain)
  Device moved = std::move(device);
  EXPECT_FALSE(device);  // NOLINT(bugprone-use-after-move): moved-from handles are empty
  EXPECT_EQ(moved.handle(), copy.handle());
  copy = Device();  // released (typed release); moved still holds the device
  EXPECT_EQ(moved.info().type, XPURT_DEVICE_TYPE_CPU);
}

}  // namespace
}  // namespace xpurt::test
