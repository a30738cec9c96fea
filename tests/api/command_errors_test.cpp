// Commands with bad ranges, patterns, dimensions and views: refused at enqueue, nothing queued.
#include "c_api_fixture.hpp"

namespace xpurt::test {
namespace {

class CommandErrors : public CApiTest {
 protected:
  void SetUp() override {
    CApiTest::SetUp();
    ASSERT_EQ(xpurtNewMemoryView(device, nullptr, 64, XPURT_ALLOC_TYPE_DEVICE, &view),
              XPURT_SUCCESS);
  }
  void TearDown() override {
    xpurtRelease(view);
    CApiTest::TearDown();
  }
  XpurtMemoryView view = nullptr;
};

TEST_F(CommandErrors, CopiesPastTheEndOfAViewAreRefused) {
  XpurtFuture f = nullptr;
  EXPECT_XPURT(XPURT_ERROR_OUT_OF_RANGE, xpurtCopyToDevice(queue, view, 0, 65, &f));
  EXPECT_TRUE(contains(lastMessage(), "64-byte")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_OUT_OF_RANGE, xpurtCopyToHost(queue, view, 60, 8, &f));
  EXPECT_XPURT(XPURT_ERROR_OUT_OF_RANGE, xpurtCopyToHost(queue, view, 65, XPURT_WHOLE_SIZE, &f));
  EXPECT_XPURT(XPURT_ERROR_OUT_OF_RANGE, xpurtCopyToHost(queue, view, 8, SIZE_MAX - 4, &f));
  EXPECT_EQ(f, nullptr);
  XpurtMemoryView small = nullptr;
  ASSERT_EQ(xpurtNewMemoryView(device, nullptr, 16, XPURT_ALLOC_TYPE_DEVICE, &small),
            XPURT_SUCCESS);
  EXPECT_XPURT(XPURT_ERROR_OUT_OF_RANGE, xpurtCopyMemoryView(queue, small, view, 0, 0, 32, &f));
  EXPECT_TRUE(contains(lastMessage(), "destination")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_OUT_OF_RANGE, xpurtCopyMemoryView(queue, view, small, 0, 8, 16, &f));
  EXPECT_TRUE(contains(lastMessage(), "source")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtCopyMemoryView(queue, view, view, 0, 8, 16, &f));
  EXPECT_TRUE(contains(lastMessage(), "overlap")) << lastMessage();
  EXPECT_XPURT(XPURT_SUCCESS, xpurtCopyMemoryView(queue, view, small, 0, 0, XPURT_WHOLE_SIZE, &f));
  EXPECT_XPURT(XPURT_SUCCESS, xpurtFutureWait(f));
  xpurtRelease(f);
  xpurtRelease(small);
  expectUsable();
}

TEST_F(CommandErrors, BadFillsAreRefused) {
  uint32_t pattern = 7;
  EXPECT_XPURT(XPURT_ERROR_OUT_OF_RANGE, xpurtFill(queue, view, 32, 64, &pattern, 4, nullptr));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtFill(queue, view, 0, 6, &pattern, 4, nullptr));
  EXPECT_TRUE(contains(lastMessage(), "whole number")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtFill(queue, view, 0, 64, nullptr, 4, nullptr));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtFill(queue, view, 0, 64, &pattern, 0, nullptr));
  char big[256] = {};
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtFill(queue, view, 0, 256, big, 256, nullptr));
  expectUsable();
}

TEST_F(CommandErrors, ZeroAndAbsurdTaskDimensionsAreRefused) {
  XpurtFuture f = nullptr;
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtLaunch1D(queue, kernel, nullptr, 0, &f));
  EXPECT_TRUE(contains(lastMessage(), "at least 1")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtLaunch3D(queue, kernel, nullptr, 4, 0, 1, &f));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT,
               xpurtLaunch3D(queue, kernel, nullptr, 1u << 20, 1u << 20, 1, &f));
  EXPECT_TRUE(contains(lastMessage(), "exceed")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT,
               xpurtLaunch3D(queue, kernel, nullptr, SIZE_MAX, SIZE_MAX, 2, &f));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT,
               xpurtLaunch2D(queue, kernel, nullptr, SIZE_MAX, 1, &f));
  EXPECT_EQ(f, nullptr);
  expectUsable();
}

TEST_F(CommandErrors, BadViewsAndCallbacksAreRefused) {
  XpurtMemoryView v = nullptr;
  int app = 0;
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT,
               xpurtNewMemoryView(device, nullptr, 0, XPURT_ALLOC_TYPE_DEVICE, &v));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT,
               xpurtNewMemoryView(device, &app, sizeof app, XPURT_ALLOC_TYPE_SHARED, &v));
  EXPECT_TRUE(contains(lastMessage(), "pass NULL")) << lastMessage();
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT,
               xpurtNewMemoryView(device, nullptr, 8, static_cast<XpurtAllocationType>(3), &v));
  EXPECT_XPURT(XPURT_ERROR_OUT_OF_MEMORY,
               xpurtNewMemoryView(device, nullptr, SIZE_MAX / 2, XPURT_ALLOC_TYPE_SHARED, &v));
  EXPECT_EQ(v, nullptr);
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtHostCallback(queue, nullptr, nullptr, nullptr));
  expectUsable();
}

TEST_F(CommandErrors, BadCoherentViewsAndSplitLaunchesAreRefused) {
  XpurtMemoryView coherent = nullptr, bad = nullptr;
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtNewCoherentMemoryView(nullptr, 64, nullptr));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtNewCoherentMemoryView(nullptr, 0, &bad));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT,
               xpurtNewMemoryView(device, nullptr, 64, XPURT_ALLOC_TYPE_COHERENT, &bad));
  EXPECT_TRUE(contains(lastMessage(), "xpurtNewCoherentMemoryView")) << lastMessage();
  EXPECT_EQ(bad, nullptr);
  ASSERT_EQ(xpurtNewCoherentMemoryView(nullptr, 64, &coherent), XPURT_SUCCESS);
  XpurtAllocationType type{};
  EXPECT_XPURT(XPURT_SUCCESS, xpurtGetAllocationType(coherent, &type));
  EXPECT_EQ(type, XPURT_ALLOC_TYPE_COHERENT);
  void *ptr = nullptr;
  EXPECT_XPURT(XPURT_ERROR_UNSUPPORTED, xpurtDevicePtr(coherent, &ptr));

  size_t global = 16;
  XpurtSplitArg arg{};
  arg.arg.kind = XPURT_KERNEL_ARG_MEMORY_VIEW;
  arg.arg.view = coherent;
  arg.mapper = XPURT_RANGE_MAPPER_ONE_TO_ONE;
  arg.pitch = 4;
  XpurtFuture f = nullptr;
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtLaunchKernelSplit(2, nullptr, nullptr, 1, &arg, 1,
                                                                    nullptr, &global, nullptr, &f));
  EXPECT_TRUE(contains(lastMessage(), "queues or kernels is NULL")) << lastMessage();
  EXPECT_XPURT(
      XPURT_ERROR_INVALID_ARGUMENT,
      xpurtLaunchKernelSplit(1, &queue, &kernel, 1, nullptr, 1, nullptr, &global, nullptr, &f));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtLaunchKernelSplit(1, &queue, &kernel, 1, &arg, 0,
                                                                    nullptr, &global, nullptr, &f));
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, xpurtLaunchKernelSplit(1, &queue, &kernel, 1, &arg, 1,
                                                                    nullptr, nullptr, nullptr, &f));
  XpurtSplitArg unknown = arg;
  unknown.mapper = static_cast<XpurtRangeMapper>(7);
  EXPECT_XPURT(
      XPURT_ERROR_INVALID_ARGUMENT,
      xpurtLaunchKernelSplit(1, &queue, &kernel, 1, &unknown, 1, nullptr, &global, nullptr, &f));
  EXPECT_TRUE(contains(lastMessage(), "range mapper 7")) << lastMessage();
  XpurtSplitArg noPitch = arg;
  noPitch.pitch = 0;
  EXPECT_XPURT(
      XPURT_ERROR_INVALID_ARGUMENT,
      xpurtLaunchKernelSplit(1, &queue, &kernel, 1, &noPitch, 1, nullptr, &global, nullptr, &f));
  EXPECT_TRUE(contains(lastMessage(), "pitch")) << lastMessage();
  size_t tooMany = 17;  // 17 items of 4 bytes: past the 64-byte view
  EXPECT_XPURT(XPURT_ERROR_OUT_OF_RANGE, xpurtLaunchKernelSplit(1, &queue, &kernel, 1, &arg, 1,
                                                                nullptr, &tooMany, nullptr, &f));
  XpurtTaskQueue released = nullptr;
  ASSERT_EQ(xpurtNewTaskQueue(device, &released), XPURT_SUCCESS);
  xpurtRelease(released);
  EXPECT_XPURT(XPURT_ERROR_INVALID_HANDLE, xpurtLaunchKernelSplit(1, &released, &kernel, 1, &arg, 1,
                                                                  nullptr, &global, nullptr, &f));
  EXPECT_EQ(f, nullptr);
  xpurtRelease(coherent);
  expectUsable();
}

TEST_F(CommandErrors, AFailingCCallbackReportsItsMessage) {
  XpurtFuture f = nullptr;
  auto failing = [](void *) -> XpurtResult {
    xpurtHostCallbackSetError("disk full");
    return XPURT_ERROR_UNKNOWN;
  };
  ASSERT_EQ(xpurtHostCallback(queue, failing, nullptr, &f), XPURT_SUCCESS);
  EXPECT_XPURT(XPURT_ERROR_EXECUTION_FAILED, xpurtFutureWait(f));
  EXPECT_TRUE(contains(lastMessage(), "disk full")) << lastMessage();
  bool valid = false;
  EXPECT_XPURT(XPURT_SUCCESS, xpurtFutureIsValid(f, &valid));
  EXPECT_TRUE(valid);
  EXPECT_XPURT(XPURT_ERROR_EXECUTION_FAILED, xpurtSync(queue));
  xpurtRelease(f);
  expectUsable();
}

}  // namespace
}  // namespace xpurt::test

namespace xpurt::test {
namespace {

// Sizes that would wrap around: each one an error that names the value, the runtime usable.
class OverflowingSizes : public CApiTest {
 protected:
  void SetUp() override {
    CApiTest::SetUp();
    ASSERT_EQ(xpurtLoadModule(device, "xpurt_test_spirv", nullptr, &spirv), XPURT_SUCCESS);
    ASSERT_EQ(xpurtNewKernel(spirv, "reduce_sum", &reduce), XPURT_SUCCESS);
    ASSERT_EQ(xpurtNewMemoryView(device, nullptr, 4096, XPURT_ALLOC_TYPE_SHARED, &buffer),
              XPURT_SUCCESS);
  }
  void TearDown() override {
    xpurtRelease(buffer);
    xpurtRelease(reduce);
    xpurtRelease(spirv);
    CApiTest::TearDown();
  }
  XpurtResult launch(uint32_t dims, const size_t *global, const size_t *local, size_t localBytes) {
    XpurtKernelArg args[3] = {};
    args[0].kind = args[1].kind = XPURT_KERNEL_ARG_MEMORY_VIEW;
    args[0].view = args[1].view = buffer;
    args[2].kind = XPURT_KERNEL_ARG_LOCAL;
    args[2].size = localBytes;
    return xpurtLaunchKernel(queue, reduce, 3, args, dims, nullptr, global, local, nullptr);
  }
  XpurtModule spirv = nullptr;
  XpurtKernel reduce = nullptr;
  XpurtMemoryView buffer = nullptr;
};

TEST_F(OverflowingSizes, ALocalSizeWhoseProductWrapsIsRefused) {
  const size_t global[3] = {UINT32_MAX, UINT32_MAX, 1};
  const size_t local[3] = {size_t{1} << 32, size_t{1} << 32, 1};  // product 2^64: wraps to 0
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, launch(3, global, local, 64));
  EXPECT_TRUE(contains(lastMessage(), "local size 4294967296")) << lastMessage();
  expectUsable();
}

TEST_F(OverflowingSizes, AGlobalSizePast2To64IsRefused) {
  const size_t global[3] = {UINT32_MAX, UINT32_MAX, 2};
  const size_t local[3] = {1, 1, 1};
  EXPECT_XPURT(XPURT_ERROR_INVALID_ARGUMENT, launch(3, global, local, 64));
  EXPECT_TRUE(contains(lastMessage(), "more than 2^64")) << lastMessage();
  expectUsable();
}

TEST_F(OverflowingSizes, LocalArgumentsPastTheDeviceLimitAreRefused) {
  const size_t global[1] = {64}, local[1] = {16};
  for (size_t bytes : {size_t{0xFFFFFF81}, size_t{1} << 31, SIZE_MAX}) {
    SCOPED_TRACE(bytes);
    EXPECT_XPURT(XPURT_ERROR_OUT_OF_RANGE, launch(1, global, local, bytes));
    EXPECT_TRUE(contains(lastMessage(), "__local memory")) << lastMessage();
  }
  // A size that fits runs, and computes.
  auto *in = static_cast<float *>(nullptr);
  ASSERT_EQ(xpurtHostPtr(buffer, reinterpret_cast<void **>(&in)), XPURT_SUCCESS);
  for (int i = 0; i < 64; ++i) in[i] = 1.0f;
  EXPECT_XPURT(XPURT_SUCCESS, launch(1, global, local, 16 * sizeof(float)));
  EXPECT_XPURT(XPURT_SUCCESS, xpurtSync(queue));
  expectUsable();
}

}  // namespace
}  // namespace xpurt::test
