// NULL, released and mistyped handles; NULL out-pointers; the error function.
#include "c_api_fixture.hpp"

#include <cstddef>
#include <cstring>
#include <vector>

namespace xpurt::test {
namespace {

class HandleErrors : public CApiTest {};

TEST_F(HandleErrors, NullHandlesAreRejectedByName) {
  XpurtTaskQueue q = nullptr;
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtNewTaskQueue(nullptr, &q));
  EXPECT_TRUE(contains(lastMessage(), "xpurtNewTaskQueue")) << lastMessage();
  EXPECT_TRUE(contains(lastMessage(), "device handle")) << lastMessage();
  EXPECT_TRUE(contains(lastMessage(), "NULL")) << lastMessage();
  EXPECT_EQ(q, nullptr);
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtSync(nullptr));
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtLaunch1D(queue, nullptr, nullptr, 1, nullptr));
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtRelease(nullptr));
  expectUsable();
}

TEST_F(HandleErrors, ReleasedHandlesAreRejected) {
  XpurtMemoryView view = nullptr;
  ASSERT_EQ(xpurtNewMemoryView(device, nullptr, 64, XPURT_ALLOC_TYPE_DEVICE, &view), XPURT_SUCCESS);
  ASSERT_EQ(xpurtRetain(view), XPURT_SUCCESS);
  ASSERT_EQ(xpurtRelease(view), XPURT_SUCCESS);
  size_t size = 0;
  EXPECT_XPURT(XPURT_SUCCESS, xpurtSize(view, &size));  // one reference left
  EXPECT_EQ(size, 64u);
  ASSERT_EQ(xpurtRelease(view), XPURT_SUCCESS);
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtSize(view, &size));
  EXPECT_TRUE(contains(lastMessage(), "released")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtCopyToDevice(queue, view, 0, 64, nullptr));
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtRelease(view));  // twice
  int notAHandle = 0;
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtRetain(&notAHandle));
  expectUsable();
}

// The allocator hands a freed object's memory to the next object of its size: the released
// handle must not then name the new object.
TEST_F(HandleErrors, AReleasedHandleStaysReleasedWhenItsMemoryIsReused) {
  XpurtMemoryView old = nullptr;
  ASSERT_EQ(xpurtNewMemoryView(device, nullptr, 64, XPURT_ALLOC_TYPE_SHARED, &old), XPURT_SUCCESS);
  ASSERT_EQ(xpurtRelease(old), XPURT_SUCCESS);
  std::vector<XpurtMemoryView> fresh(64);
  for (auto &v : fresh)
    ASSERT_EQ(xpurtNewMemoryView(device, nullptr, 128, XPURT_ALLOC_TYPE_SHARED, &v), XPURT_SUCCESS);
  size_t size = 0;
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtSize(old, &size));
  EXPECT_TRUE(contains(lastMessage(), "released")) << lastMessage();
  for (auto v : fresh) {
    EXPECT_NE(v, old);
    EXPECT_XPURT(XPURT_SUCCESS, xpurtSize(v, &size));
    EXPECT_EQ(size, 128u);
    xpurtRelease(v);
  }
  expectUsable();
}

TEST_F(HandleErrors, HandlesOfAnotherKindAreRejected) {
  XpurtTaskQueue q = nullptr;
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE,
               xpurtNewTaskQueue(reinterpret_cast<XpurtDevice>(queue), &q));
  EXPECT_TRUE(contains(lastMessage(), "task queue handle where a device handle")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE,
               xpurtLaunch1D(queue, reinterpret_cast<XpurtKernel>(module), nullptr, 1, nullptr));
  expectUsable();
}

TEST_F(HandleErrors, TypedRetainAndReleaseRefuseOtherKinds) {
  XpurtMemoryView view = nullptr;
  ASSERT_EQ(xpurtNewMemoryView(device, nullptr, 64, XPURT_ALLOC_TYPE_DEVICE, &view), XPURT_SUCCESS);
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtReleaseKernel(reinterpret_cast<XpurtKernel>(view)));
  EXPECT_TRUE(contains(lastMessage(), "xpurtReleaseKernel")) << lastMessage();
  EXPECT_TRUE(contains(lastMessage(), "memory view handle where a kernel handle")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtRetainDevice(reinterpret_cast<XpurtDevice>(view)));
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtReleaseFuture(nullptr));
  size_t size = 0;
  EXPECT_XPURT(XPURT_SUCCESS, xpurtSize(view, &size));  // the refusals left it alone
  EXPECT_XPURT(XPURT_SUCCESS, xpurtRetainMemoryView(view));
  EXPECT_XPURT(XPURT_SUCCESS, xpurtReleaseMemoryView(view));
  EXPECT_XPURT(XPURT_SUCCESS, xpurtSize(view, &size));  // one reference left
  EXPECT_XPURT(XPURT_SUCCESS, xpurtReleaseMemoryView(view));
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtReleaseMemoryView(view));
  EXPECT_TRUE(contains(lastMessage(), "released")) << lastMessage();
  expectUsable();
}

TEST_F(HandleErrors, DeviceInfoWritesNoMoreThanTheCallersStructSize) {
  XpurtDeviceInfo unset{};
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtDeviceGetInfo(device, &unset));
  EXPECT_TRUE(contains(lastMessage(), "structSize")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtGetDeviceInfo(XPURT_DEVICE_TYPE_CPU, 0, &unset));
  // A caller whose header ends after the backend's name: the rest of its memory is its own.
  XpurtDeviceInfo info;
  std::memset(&info, 0x5a, sizeof info);
  info.structSize = offsetof(XpurtDeviceInfo, name);
  EXPECT_XPURT(XPURT_SUCCESS, xpurtDeviceGetInfo(device, &info));
  EXPECT_EQ(info.structSize, offsetof(XpurtDeviceInfo, name));
  EXPECT_STREQ(info.backend, "cpu");
  EXPECT_EQ(info.name[0], 0x5a);
  EXPECT_EQ(info.computeUnits, 0x5a5a5a5au);
  expectUsable();
}

TEST_F(HandleErrors, NullOutPointersAreInvalidArguments) {
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtGetDevice(XPURT_DEVICE_TYPE_CPU, 0, nullptr));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtNewTaskQueue(device, nullptr));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtNewKernel(module, "empty", nullptr));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtGetDeviceCount(XPURT_DEVICE_TYPE_CPU, nullptr));
  expectUsable();
}

TEST_F(HandleErrors, TheErrorFunctionSeesEveryFailure) {
  struct Seen {
    int calls = 0;
    XpurtResult last = XPURT_SUCCESS;
    std::string message;
  } seen;
  xpurtSetErrorFunc(
      [](XpurtResult r, const char *message, void *user) {
        auto *s = static_cast<Seen *>(user);
        s->calls++;
        s->last = r;
        s->message = message;
      },
      &seen);
  xpurtSync(nullptr);
  xpurtNewKernel(module, "no_such_kernel", &kernel);  // kernel stays as it was
  xpurtSetErrorFunc(nullptr, nullptr);
  xpurtSync(nullptr);
  EXPECT_EQ(seen.calls, 2);
  EXPECT_EQ(seen.last, XPURT_ERROR_NOT_FOUND);
  EXPECT_TRUE(contains(seen.message, "no_such_kernel")) << seen.message;
  EXPECT_STREQ(xpurtResultString(XPURT_ERROR_NOT_FOUND), "XPURT_ERROR_NOT_FOUND");
  expectUsable();
}

TEST_F(HandleErrors, BadDeviceAndModuleOptionsAreRejected) {
  // A structSize that cannot be a struct's: 0 (never set) or beyond any struct.
  XpurtDeviceOptions unset{0, 0}, huge{1u << 20, 0};
  XpurtDevice d = nullptr;
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT,
               xpurtGetDeviceWithOptions(XPURT_DEVICE_TYPE_CPU, 0, &unset, &d));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT,
               xpurtGetDeviceWithOptions(XPURT_DEVICE_TYPE_CPU, 0, &huge, &d));
  XpurtDeviceOptions unknownFlag{sizeof(XpurtDeviceOptions), 0x80};
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT,
               xpurtGetDeviceWithOptions(XPURT_DEVICE_TYPE_CPU, 0, &unknownFlag, &d));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT,
               xpurtGetDevice(static_cast<XpurtDeviceType>(3), 0, &d));
  XpurtModule m = nullptr;
  uint32_t id = 1;
  uint64_t value = 2;
  XpurtModuleOptions spec{sizeof(XpurtModuleOptions), nullptr, 1, &id, &value};
  EXPECT_XPURT(XPURT_ERROR_UNSUPPORTED, xpurtLoadModule(device, "xpurt_test_kernels", &spec, &m));
  EXPECT_TRUE(contains(lastMessage(), "specialization constants")) << lastMessage();
  XpurtModuleOptions nullArrays{sizeof(XpurtModuleOptions), nullptr, 1, nullptr, nullptr};
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT,
               xpurtLoadModule(device, "xpurt_test_kernels", &nullArrays, &m));
  EXPECT_EQ(m, nullptr);
  expectUsable();
}

}  // namespace
}  // namespace xpurt::test
