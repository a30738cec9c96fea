// What the MPI layer's tests share: a fixture with a context on the test's device (every rank
// on the same kind of device), and checks that print the layer's error message.
#pragma once

#include "device_param.hpp"

#include <gtest/gtest.h>
#include <xpurt/xpurt_mpi.h>
#include <xpurt/xpurt.hpp>

#include <string>
#include <vector>

#define EXPECT_MPI_OK(call) EXPECT_EQ((call), XPURT_SUCCESS) << xpurtMpiLastErrorMessage()
#define ASSERT_MPI_OK(call) ASSERT_EQ((call), XPURT_SUCCESS) << xpurtMpiLastErrorMessage()

namespace xpurt::test {

class MpiTest : public ::testing::TestWithParam<DeviceParam> {
 protected:
  void SetUp() override {
    XpurtMpiOptions options{sizeof options, 10000};
    ASSERT_MPI_OK(xpurtMpiNewContext(MPI_COMM_WORLD, device.handle(), &options, &context));
    ASSERT_MPI_OK(xpurtMpiContextGetRank(context, &rank));
    ASSERT_MPI_OK(xpurtMpiContextGetSize(context, &ranks));
  }
  void TearDown() override {
    if (context) {
      EXPECT_MPI_OK(xpurtMpiReleaseContext(context));
    }
  }
  XpurtKernel kernel(const char *name) {
    kernels.emplace_back(module, name);
    return kernels.back().handle();
  }
  XpurtMpiBuffer buffer(size_t items, size_t itemSize, const void *initial = nullptr) {
    XpurtMpiBuffer b = nullptr;
    EXPECT_MPI_OK(xpurtMpiNewBuffer(context, items, itemSize, initial, &b));
    buffers.push_back(b);
    return b;
  }
  XpurtMpiGraph graph() {
    XpurtMpiGraph g = nullptr;
    EXPECT_MPI_OK(xpurtMpiNewGraph(context, &g));
    graphs.push_back(g);
    return g;
  }
  XpurtMpiStats stats() {
    XpurtMpiStats s{};
    s.structSize = sizeof s;
    EXPECT_MPI_OK(xpurtMpiGetStats(context, &s));
    return s;
  }
  ~MpiTest() override {
    for (XpurtMpiGraph g : graphs) xpurtMpiReleaseGraph(g);
    for (XpurtMpiBuffer b : buffers) xpurtMpiReleaseBuffer(b);
  }

  Device device{GetParam().type, GetParam().index, GetParam().flags};
  Module module{device, "xpurt_test_mpi"};
  std::vector<Kernel> kernels;
  std::vector<XpurtMpiBuffer> buffers;
  std::vector<XpurtMpiGraph> graphs;
  XpurtMpiContext context = nullptr;
  int rank = 0, ranks = 1;
};

inline XpurtMpiArg valueArg(const void *value, size_t size) {
  return XPURT_MPI_ARG_VALUE(value, size);
}
inline XpurtMpiArg bufferArg(XpurtMpiBuffer buffer, XpurtAccess access, XpurtRangeMapper mapper,
                             size_t halo = 0) {
  return XPURT_MPI_ARG_BUFFER(buffer, access, mapper, halo);
}

}  // namespace xpurt::test
